import { FactName, FactReader, FactValue } from './facts';
import { ScopeIndex } from './scope';
import { LintObject } from './source';
import { FindingValue, Severity } from './types';

/** What a rule is, independent of any object: the catalogue entry (docs/rules.md, SARIF rules). */
export interface RuleMeta {
  /** Stable id, `RW<number>-<slug>`. Never renamed: suppressions and SARIF baselines use it. */
  readonly id: string;
  readonly severity: Severity;
  /** One line: what the rule finds. */
  readonly title: string;
  /** The kinds it looks at (empty for engine-level rules). */
  readonly kinds: readonly string[];
  /** Why it is a hazard, in one or two sentences. */
  readonly mechanism: string;
  /**
   * The docs/mechanisms.md section(s) it rests on, e.g. "docs/mechanisms.md#readiness-calls-a-dependency,
   * #leave-slowly-return-slower" before the citation codemod.
   */
  readonly fieldNotes: string;
  /** How to fix it. */
  readonly fix: string;
  /** Facts it needs; without them it is skipped for that object. */
  readonly facts: readonly FactName[];
  /**
   * For error-level rules: the upstream behaviour the error rests on (the consuming system refuses
   * the object, or the composition causes the outage), with repository, version and file. Shown in
   * docs/rules.md; a test requires it of every rule that can report an error.
   */
  readonly upstream?: string;
}

/** A rule: its catalogue entry and the check that runs on each object of its kinds. */
export interface RuleDefinition extends RuleMeta {
  check(target: LintObject, ctx: RuleContext): void;
}

/** Every object of the run, indexed for rules that look across objects (routes -> services, PDBs). */
export interface ObjectIndex {
  readonly all: readonly LintObject[];
  /** The same objects by namespace and application: what a cross-object rule may look at (scope.ts). */
  readonly scopes: ScopeIndex;
  ofKind(kind: string): readonly LintObject[];
  /** Objects of a kind in a namespace (undefined = no namespace). */
  inNamespace(kind: string, namespace: string | undefined): readonly LintObject[];
  get(kind: string, namespace: string | undefined, name: string): LintObject | undefined;
}

/** What a check can do: read facts and other objects, report a finding, record a skip. */
export interface RuleContext {
  readonly index: ObjectIndex;
  readonly facts: FactReader;
  /** Whether rules may run the fleet simulator (src/simulate) where the facts let it decide. */
  readonly simulate: boolean;
  /**
   * Reports a finding of `rule` on `target` at `path`; `severity` replaces the rule's default when
   * the composition found on this object makes it more or less serious.
   */
  report(
    target: LintObject,
    path: string,
    message: string,
    values: Record<string, FindingValue>,
    severity?: Severity,
  ): void;
  /** Records that the rule could not run on `target` for lack of `fact` (shown by --explain-skips). */
  skip(target: LintObject, fact: FactName, detail?: string): void;
  /** Reports a fact annotation/option whose value cannot be read (RW903). */
  invalidFact(target: LintObject, fact: FactName, raw: string, source: string): void;
}

/**
 * A fact a rule needs: its value and source when it could be read; otherwise undefined, after
 * reporting an unreadable fact (RW903) or recording the skip for --explain-skips.
 */
export function requireFact<T>(
  ctx: RuleContext,
  o: LintObject,
  name: FactName,
  f: FactValue<T>,
): { readonly value: T; readonly source: string } | undefined {
  if (f.ok) return f;
  if (f.invalid !== undefined) ctx.invalidFact(o, name, f.invalid, f.source!);
  else ctx.skip(o, name);
  return undefined;
}
