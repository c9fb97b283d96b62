/** How bad a finding is. `--fail-on` compares against this order: info < warning < error. */
export type Severity = 'error' | 'warning' | 'info';

export const SEVERITY_RANK: Readonly<Record<Severity, number>> = { info: 1, warning: 2, error: 3 };

/** The threshold for a failing exit code; `none` never fails on findings. */
export type FailOn = Severity | 'none';

/** What happened to a finding: it counts (`open`), or the object says why it is fine. */
export type FindingStatus =
  /** Counts against `--fail-on`. */
  | 'open'
  /** The object's `rollwise.dev/suppress` annotation names the rule with a reason. */
  | 'suppressed'
  /** The field was overridden in a rollwise construct with a reason (`rollwise.dev/overrides`). */
  | 'accepted';

/** A value shown with a finding (the numbers the rule compared). */
export type FindingValue = string | number | boolean;

/** One hazard on one object. */
export interface Finding {
  /** Stable rule id, e.g. `RW102-readiness-failure-threshold-one`. */
  readonly ruleId: string;
  readonly severity: Severity;
  /** The file the object came from (`<synth>` for objects linted in memory, `<stdin>` for `-`). */
  readonly file: string;
  /** 1-based line of the field (or its nearest existing parent); 0 when unknown (in-memory objects). */
  readonly line: number;
  readonly kind: string;
  /** Absent for cluster-scoped objects and manifests that leave the namespace to `kubectl -n`. */
  readonly namespace?: string;
  readonly name: string;
  /** `kind/namespace/name` (or `kind/name` without a namespace). */
  readonly object: string;
  /** The field path (`spec.template.spec.containers[0].readinessProbe.failureThreshold`). */
  readonly path: string;
  /**
   * The kustomization folder (repo-relative) whose kustomize render the object was read from, when
   * it was: `file` is then the file the object starts in, and the field may come from the render.
   */
  readonly render?: string;
  /** What is wrong here, with the values involved. */
  readonly message: string;
  /** Why it is a hazard (from the rule), ending with its docs/mechanisms.md citation. */
  readonly mechanism: string;
  /** How to fix it. */
  readonly fix: string;
  /** The values the rule compared, by name. */
  readonly values: Readonly<Record<string, FindingValue>>;
  readonly status: FindingStatus;
  /** The suppression's or override's reason when status is not `open`. */
  readonly justification?: string;
}

/** A rule that did not run on an object because a fact it needs is not declared. */
export interface Skip {
  readonly ruleId: string;
  readonly file: string;
  readonly object: string;
  /** The fact's name (see FACTS), e.g. `readinessP99Seconds`. */
  readonly fact: string;
  /** What was missing and how to declare it. */
  readonly detail: string;
}

/** A document that could not be parsed (reported as an `RW000-malformed-document` finding too). */
export interface ParseProblem {
  readonly file: string;
  readonly line: number;
  readonly message: string;
  /** The document's top-level `kind:` when it can be read from the text despite the error. */
  readonly kind?: string;
  /**
   * Set when the problem is a key that appears twice in one mapping. The object is still linted,
   * with the last value, as kubectl reads it (source.ts).
   */
  readonly duplicateKey?: { readonly key: string; readonly firstLine: number; readonly sameValue: boolean };
  /** The kustomization that includes the file, when one does (kustomize refuses duplicate keys). */
  readonly includedBy?: string;
  /** A severity below error, for input that kubectl's default path may still accept. @default error */
  readonly severity?: Severity;
}
