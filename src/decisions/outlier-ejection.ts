// Passive health checking (outlier detection) of the proxy's BackendTrafficPolicy: how many hosts
// Envoy may eject.
import { checkInteger } from './inputs';
import { decided, Decision, Override, withOverride } from './decision';

/** Envoy's panic threshold default: below 50 % healthy hosts it routes to all (fails open). */
export const ENVOY_PANIC_THRESHOLD_PERCENT = 50;

export interface EjectionCapInputs {
  /** Replicas of the service: the hosts Envoy balances over. */
  readonly replicas: number;
  /** The PodDisruptionBudget's maxUnavailable: how many pods the fleet is sized to lose at peak. */
  readonly maxUnavailable: number;
  readonly override?: Override<number>;
}

/**
 * `maxEjectionPercent`: the proxy may eject at most as many hosts as the PodDisruptionBudget lets a
 * drain take, and never more than half the fleet (so ejection alone never pushes Envoy below its
 * 50 % panic threshold). Rounded down so that however Envoy rounds, it ejects no more hosts.
 */
export function maxEjectionPercent(inp: EjectionCapInputs): Decision<number> {
  const r = checkInteger(
    'passiveHealthCheck.replicas',
    inp.replicas,
    2,
    1000,
    'outlier detection over fewer than 2 hosts can only eject the whole service.',
    "pass the service's replica count.",
  );
  const b = checkInteger(
    'passiveHealthCheck.maxUnavailable',
    inp.maxUnavailable,
    1,
    r - 1,
    "it is the PodDisruptionBudget's maxUnavailable, which is at least 1 and below the replica count.",
    'pass the decided PodDisruptionBudget maxUnavailable.',
  );
  const hosts = Math.min(b, Math.floor(r / 2));
  const pct = Math.floor((100 * hosts) / r + 1e-9);
  const computed = decided(
    pct,
    `At most ${hosts} of ${r} hosts ejected (${pct} %): the PodDisruptionBudget lets a drain take ${b} pod(s) ` +
      'because the fleet is sized so the survivors stay under the utilisation ceiling at peak; the proxy may not ' +
      'remove more than that, or ejections of overloaded pods move their load onto the rest and cascade ' +
      `(docs/mechanisms.md#readiness-control-loop). ${
        hosts < b ? `Capped at half the fleet: ` : 'It also stays at or below half the fleet: '
      }ejection ` +
      `alone never drops healthy hosts below Envoy's ${ENVOY_PANIC_THRESHOLD_PERCENT} % panic threshold, where Envoy ` +
      'routes to every host again, ejected ones included (fails open, ' +
      'docs/mechanisms.md#leave-slowly-return-slower). Rounded down so Envoy never ejects more hosts than that.',
    { replicas: r, pdbMaxUnavailable: b, maxEjectedHosts: hosts, maxEjectionPercent: pct },
  );
  const d = withOverride('passiveHealthCheck.maxEjectionPercent', computed, inp.override, (v) => `${v} %`);
  if (d.overridden)
    checkInteger(
      'passiveHealthCheck.maxEjectionPercent',
      d.value,
      0,
      50,
      "above 50 % the proxy could remove most of the fleet, and Envoy's panic threshold (50 %) would route to ejected " +
        'hosts anyway (docs/mechanisms.md#leave-slowly-return-slower).',
      `use ${pct}.`,
    );
  return d;
}
