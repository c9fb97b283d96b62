import { reasonProblem } from '../decisions/reason';
import { ANNOTATIONS } from '../justify/annotations';
import { parseReasonLines } from '../justify/reasons';
import { Json, rec } from '../rules/k8s';
import { INV03, INV08, INV16 } from './families/availability';
import { INV02, INV04, INV05, INV06, INV07, INV14 } from './families/containers';
import { INV10, INV11, INV15 } from './families/delivery';
import { INV17 } from './families/metadata';
import { ofKind, POD_KINDS, ref } from './families/preamble';
import { INV01 } from './families/provenance';
import { INV09 } from './families/routes';
import { INV12, INV13 } from './families/security';
import { Invariant, InvariantFailure, ServiceObjects, Violation } from './families/types';
export { isGatewayHostname } from './families/routes';
export type { Invariant, InvariantFailure, ServiceObjects, Violation } from './families/types';

/**
 * The safety invariants: ONE list of what every service rollwise emits must satisfy, checked on
 * the final objects (after every escape-hatch patch, Lazy value and L1 conversion) at synth. A
 * broken invariant fails synth; an `overridable` one is accepted only where the object's
 * `rollwise.dev/overrides` annotation carries a real reason for the path (an override prop, or
 * `HttpService.acceptPatch`). The property test (test/invariants/) asserts this same list.
 */

/** The list. Order is the order of the report. */
export const INVARIANTS: readonly Invariant[] = [
  INV01,
  INV02,
  INV03,
  INV04,
  INV05,
  INV06,
  INV07,
  INV08,
  INV09,
  INV10,
  INV11,
  INV12,
  INV13,
  INV14,
  INV15,
  INV16,
  INV17,
];

/**
 * Runs every invariant. A violation of an overridable invariant is dropped when the object's
 * `rollwise.dev/overrides` annotation has a line for the path (or a parent of it) whose reason
 * passes `reasonProblem`; every other violation is returned.
 */
export function checkInvariants(set: ServiceObjects): InvariantFailure[] {
  const accepted = acceptedBy(set.objects);
  const out: InvariantFailure[] = [];
  const seen = new Set<string>();
  // every workload in turn (a second one added under the service is checked like the first)
  const workloads = ofKind(set, ...POD_KINDS);
  for (const workload of workloads.length > 0 ? workloads : [undefined]) {
    const view = workload ? { ...set, workload } : set;
    for (const inv of INVARIANTS) {
      for (const x of inv.check(view)) {
        if (inv.overridable && !x.hard && accepted(x)) continue;
        const key = `${inv.id}\u0000${x.object}\u0000${x.path}\u0000${x.message}`;
        if (seen.has(key)) continue;
        seen.add(key);
        out.push({ ...x, invariant: inv });
      }
    }
  }
  return out;
}

/**
 * Whether a violation's path (or a parent of it) is accepted with a real reason in its object's
 * `rollwise.dev/overrides`.
 */
function acceptedBy(objects: readonly Json[]): (x: Violation) => boolean {
  const overrides = new Map<string, [string, string][]>();
  for (const o of objects) {
    const a = rec(rec(o.metadata)?.annotations)?.[ANNOTATIONS.overrides];
    overrides.set(
      ref(o),
      typeof a === 'string'
        ? Object.entries(parseReasonLines(a)).filter(([, r]) => reasonProblem(r) === undefined)
        : [],
    );
  }
  return (x: Violation) =>
    (overrides.get(x.object) ?? []).some(
      ([p]) => x.path === p || x.path.startsWith(`${p}.`) || x.path.startsWith(`${p}[`),
    );
}

/**
 * INV01 alone, with the same acceptance, for objects outside a service (an Argo CD Application, a
 * ServiceNamespace, the cluster prerequisites): a decided value a patch changed is refused unless
 * accepted with a reason. Each object is compared with its own unpatched render (same index).
 */
export function checkDecidedValues(set: Pick<ServiceObjects, 'objects' | 'unpatched'>): InvariantFailure[] {
  const inv = INVARIANTS[0];
  const accepted = acceptedBy(set.objects);
  return inv
    .check(set)
    .filter((x) => x.hard === true || !accepted(x))
    .map((x) => ({ ...x, invariant: inv }));
}

/** One line per failure, as synth prints it: invariant, object, path, what, why and how to fix. */
export function formatInvariantFailure(f: InvariantFailure): string {
  const fix =
    f.invariant.overridable && !f.hard
      ? 'restore the value rollwise decided, or change it with the override prop, or accept the patched value with ' +
        `HttpService.acceptPatch(object, '${f.path}', '<why it is right for this service>')`
      : 'restore the value rollwise decided; no override can make this safe';
  return `${f.invariant.id} ${f.object} ${f.path}: ${f.message}. Why: ${f.invariant.why} Fix: ${fix}.`;
}
