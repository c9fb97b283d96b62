import * as fs from 'fs';
import { lintParsed } from './engine';
import { LintFacts } from './facts';
import { LintObject, parseManifestText } from './source';
import { ParseProblem, Severity, SEVERITY_RANK } from './types';

/**
 * The part of cdk8s-cli's validation contract the plugin uses, declared here so that rollwise's
 * public types compile in an app without cdk8s-cli (it is an optional peer dependency) and
 * without `skipLibCheck`. Structurally the same as `ValidationContext`, `ValidationReport` and
 * `ValidationViolation` in cdk8s-cli 2.207.60 (lib/plugins/validation.d.ts); the test in
 * test/rules/validation-plugin.test.ts runs the plugin under the real `cdk8s synth`, and
 * test/package/pack.test.ts type-checks this against cdk8s-cli's own declarations.
 */
export interface RollwiseValidationContext {
  /** The synthesized manifest files. */
  readonly manifests: readonly string[];
  readonly report: RollwiseValidationReport;
}

/** cdk8s-cli's `ValidationReport`, as far as the plugin uses it. */
export interface RollwiseValidationReport {
  addViolation(violation: RollwiseValidationViolation): void;
  submit(status: 'success' | 'failure', metadata?: { readonly [key: string]: string }): void;
}

/** cdk8s-cli's `ValidationViolation`. */
export interface RollwiseValidationViolation {
  readonly ruleName: string;
  readonly recommendation: string;
  readonly fix: string;
  readonly violatingResources: readonly {
    readonly resourceName: string;
    readonly locations: readonly string[];
    readonly manifestPath: string;
  }[];
}

/** `properties` of the validation in cdk8s.yaml. */
export interface RollwiseValidationProps {
  /**
   * Fail synth when an open finding is at or above this severity.
   * @default 'error'
   */
  readonly failOn?: Severity;
  /**
   * Report findings at or above this severity (below `failOn` they are listed but synth passes).
   * @default 'warning'
   */
  readonly reportOn?: Severity;
  /**
   * Facts by object name, as for `rollwise lint` (`{ "checkout-api": { "readinessP99Seconds": "0.25" } }`).
   * @default - annotations only
   */
  readonly facts?: LintFacts;
}

/**
 * The rollwise rules as a cdk8s validation plugin: every `cdk8s synth` lints the synthesized
 * manifests and fails (exit 2) on an error-level finding that is neither suppressed with a reason
 * nor an accepted override.
 */
export class RollwiseValidation {
  private readonly failOn: Severity;
  private readonly reportOn: Severity;
  private readonly facts: LintFacts;

  constructor(props: RollwiseValidationProps = {}) {
    this.failOn = props.failOn ?? 'error';
    this.reportOn = props.reportOn ?? 'warning';
    this.facts = props.facts ?? {};
    for (const [k, v] of [
      ['failOn', this.failOn],
      ['reportOn', this.reportOn],
    ] as const) {
      if (!(v in SEVERITY_RANK))
        throw new Error(`rollwise validation: properties.${k} = ${String(v)}: expected error, warning or info`);
    }
  }

  public async validate(context: RollwiseValidationContext): Promise<void> {
    const objects: LintObject[] = [];
    const problems: ParseProblem[] = [];
    for (const file of context.manifests) {
      const parsed = parseManifestText(fs.readFileSync(file, 'utf8'), file);
      objects.push(...parsed.objects);
      problems.push(...parsed.problems);
    }
    const result = lintParsed(objects, problems, { facts: this.facts });
    let failed = false;
    let reported = 0;
    for (const f of result.findings) {
      if (f.status !== 'open' || SEVERITY_RANK[f.severity] < SEVERITY_RANK[this.reportOn]) continue;
      if (SEVERITY_RANK[f.severity] >= SEVERITY_RANK[this.failOn]) failed = true;
      reported++;
      context.report.addViolation({
        ruleName: `${f.ruleId} (${f.severity})`,
        recommendation: `${f.object} ${f.path}: ${f.message} Why: ${f.mechanism}`,
        fix: f.fix,
        violatingResources: [
          {
            resourceName: f.name,
            manifestPath: f.file,
            locations: [f.line > 0 ? `${f.path} (line ${f.line})` : f.path],
          },
        ],
      });
    }
    context.report.submit(failed ? 'failure' : 'success', {
      objects: String(result.objects),
      findings: String(reported),
    });
  }
}
