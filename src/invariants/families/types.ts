import { Json } from '../../rules/k8s';

/**
 * The types of the safety invariants: an invariant, its violations, the objects it is checked on.
 * Split from src/invariants/invariants.ts (issue 26), which keeps the list and its order.
 */

export interface Invariant {
  /** Stable id, e.g. `INV04-readiness-probe`. */
  readonly id: string;
  /** What must hold. */
  readonly title: string;
  /** Why it matters, citing the mechanism. */
  readonly why: string;
  /** Whether an override with a reason may accept a violation at its path. */
  readonly overridable: boolean;
  check(set: ServiceObjects): Violation[];
}

/** One broken invariant on one field of one object. */
export interface Violation {
  /** `Kind/name`. */
  readonly object: string;
  /** The field path, as in reasons and lint findings (`spec.template.spec.containers[0].image`). */
  readonly path: string;
  readonly message: string;
  /** True when no override may accept this violation even in an overridable invariant. */
  readonly hard?: boolean;
}

/** The final objects of one service, plus what the construct decided (for values no object holds). */
export interface ServiceObjects {
  readonly objects: readonly Json[];
  /**
   * The same objects rendered without the escape-hatch patches, by object index, when known: a
   * decided value (one with a reason) that a patch changed is then caught even when no other
   * invariant covers it, so a reason never describes a value that is not there.
   */
  readonly unpatched?: readonly (Json | undefined)[];
  /** The endpoint propagation the shutdown delay must outlast, in seconds. */
  readonly endpointPropagationSeconds?: number;
  /** Whether the application delays its own shutdown (ShutdownDelay.inApplication(): no preStop). */
  readonly shutdownInApplication?: boolean;
  /** The workload the per-workload invariants read (checkInvariants sets each in turn). @default the first */
  readonly workload?: Json;
}

/** A broken invariant as synth reports it. */
export interface InvariantFailure extends Violation {
  readonly invariant: Invariant;
}
