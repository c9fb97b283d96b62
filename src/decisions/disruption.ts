import { RollwiseInputError } from '../errors';
import { decided, Decision, Override, withOverride } from './decision';

export interface Capacity {
  /** Peak requests per second for the whole service. */
  readonly peakRps: number;
  /** Per-replica request rate at which the health handler's latency takes off (measured). */
  readonly saturationRpsPerReplica: number;
}

export interface DisruptionInputs {
  readonly replicas: number;
  readonly capacity?: Capacity;
  /** Fraction of saturation survivors may run at (platform.peakUtilisationCeiling). */
  readonly ceiling: number;
  readonly override?: Override<number>;
  /** overrides.acceptNoHeadroom: run a fleet without headroom at peak, with the reason. @default refused */
  readonly acceptNoHeadroom?: Override<boolean>;
}

/**
 * Replicas needed at peak so each runs at most at ceiling x saturation; at least one, since a
 * service with any traffic needs a pod to serve it (a peak far below one replica's saturation would
 * otherwise give 0, a budget of every replica and an alert floor of none).
 */
export function replicasNeededAtPeak(c: Capacity, ceiling: number): number {
  return Math.max(1, Math.ceil(c.peakRps / (c.saturationRpsPerReplica * ceiling) - 1e-9));
}

/**
 * The PodDisruptionBudget's maxUnavailable: with capacity figures, the largest number of pods that
 * may be down at once while the survivors stay below the utilisation ceiling at peak; with none, 1.
 */
export function disruptionBudget(inp: DisruptionInputs): Decision<number> {
  const { replicas, capacity: c, ceiling } = inp;
  let computed: Decision<number>;
  if (!c) {
    computed = decided(
      1,
      'No capacity figures given, so one pod at a time: the smallest budget that still lets nodes drain. Declare ' +
        'capacity (peak req/s and per-replica saturation) to size it from the load ' +
        '(docs/mechanisms.md#disruption-budgets).',
      { replicas },
    );
  } else {
    const needed = replicasNeededAtPeak(c, ceiling);
    const perReplicaAtFull = c.peakRps / replicas;
    const noHeadroom =
      `${fmt(c.peakRps)} req/s over ${replicas} replicas is ${fmt(perReplicaAtFull)} req/s each, ` +
      `and the survivors of even one disruption must stay at or below ${Math.round(ceiling * 100)} % of ` +
      `the ${fmt(c.saturationRpsPerReplica)} req/s saturation (${fmt(c.saturationRpsPerReplica * ceiling)} req/s), ` +
      `which needs ${needed} replicas running`;
    const accepted = acceptedNoHeadroom(
      inp.acceptNoHeadroom,
      `refused: the fleet has no headroom at peak (${noHeadroom})`,
    );
    if (needed >= replicas && accepted) {
      return {
        value: 1,
        overridden: true,
        inputs: {
          replicas,
          peakRps: c.peakRps,
          saturationRpsPerReplica: c.saturationRpsPerReplica,
          ceiling,
          replicasNeeded: needed,
          noHeadroomAccepted: true,
        },
        reason:
          `Overridden (overrides.acceptNoHeadroom): ${accepted} The fleet has NO headroom at ` +
          `peak: ${noHeadroom}, so every drain at peak pushes the survivors past the ceiling toward saturation and ` +
          'their probes toward the deadline (docs/mechanisms.md#disruption-budgets). One pod at a time, the least ' +
          `that still lets nodes drain; drain off-peak, and scale out to ${needed + 1} replicas to remove this ` +
          'override.',
      };
    }
    if (needed >= replicas) {
      throw new RollwiseInputError(
        'replicas',
        replicas,
        `the fleet has no headroom at peak: ${fmt(c.peakRps)} req/s over ${replicas} replicas ` +
          `is ${fmt(perReplicaAtFull)} req/s each, and the survivors of even one disruption must stay at or ` +
          `below ${Math.round(ceiling * 100)} % of the ${fmt(c.saturationRpsPerReplica)} req/s saturation ` +
          `(${fmt(c.saturationRpsPerReplica * ceiling)} req/s), which needs ${needed} replicas running. Draining one ` +
          'pod would push the rest toward saturation, their probes toward the deadline, and start a cascade ' +
          '(docs/mechanisms.md#disruption-budgets).',
        `scale out first: set replicas to at least ${needed + 1}; or, if this fleet must run so for now, accept it ` +
          `with overrides.acceptNoHeadroom: { value: true, because: '<why, and until when>' } (the budget, alerts ` +
          'and runbook then say so).',
      );
    }
    const budget = replicas - needed;
    const perSurvivor = c.peakRps / needed;
    computed = decided(
      budget,
      `Peak ${fmt(c.peakRps)} req/s / (saturation ${fmt(c.saturationRpsPerReplica)} req/s x ` +
        `ceiling ${Math.round(ceiling * 100)} % = ${fmt(c.saturationRpsPerReplica * ceiling)} req/s per replica) ` +
        `= ${fmt(c.peakRps / (c.saturationRpsPerReplica * ceiling))}, so ${needed} replicas must stay ` +
        `up${
          Math.ceil(c.peakRps / (c.saturationRpsPerReplica * ceiling) - 1e-9) < 1
            ? ' (at least one: traffic needs a pod to serve it)'
            : ''
        }; ${replicas} ` +
        `- ${needed} = ${budget} may be disrupted at once, leaving each survivor ${fmt(perSurvivor)} req/s ` +
        `(${Math.round((perSurvivor / c.saturationRpsPerReplica) * 100)} % of saturation) ` +
        '(docs/mechanisms.md#disruption-budgets).',
      {
        replicas,
        peakRps: c.peakRps,
        saturationRpsPerReplica: c.saturationRpsPerReplica,
        ceiling,
        replicasNeeded: needed,
      },
    );
  }
  const d = withOverride('overrides.pdbMaxUnavailable', computed, inp.override, (v) => `${v} pod(s)`);
  if (d.overridden && (!Number.isInteger(d.value) || d.value < 1 || d.value >= replicas)) {
    throw new RollwiseInputError(
      'overrides.pdbMaxUnavailable',
      d.value,
      `must be a whole number from 1 to ${replicas - 1}: 0 blocks every node drain forever, ${replicas} or more lets ` +
        'a drain take the whole service.',
      `use ${computed.value}.`,
    );
  }
  return d;
}

/** The `because` of an accepted no-headroom override (undefined when absent or false); refuses one without a reason. */
export function acceptedNoHeadroom(o: Override<boolean> | undefined, computed: string): string | undefined {
  if (o === undefined) return undefined;
  const d = withOverride('overrides.acceptNoHeadroom', decided(false, `rollwise ${computed}.`), o, (v) => String(v));
  if (d.value !== true) return undefined;
  const because = o.because.trim();
  return /[.!?]$/.test(because) ? because : `${because}.`;
}

function fmt(n: number): string {
  return Number.isInteger(n) ? n.toLocaleString('en-US') : n.toLocaleString('en-US', { maximumFractionDigits: 1 });
}
