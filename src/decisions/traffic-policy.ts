import { Duration } from 'cdk8s';
import { RollwiseInputError } from '../errors';
import { decided, Decision, Override } from './decision';
import { checkInteger, seconds } from './inputs';
import {
  checkPolicyTargets,
  decideKeepAlive,
  KeepAliveDecisions,
  KeepAliveInputs,
  maxEjectionPercent,
  PolicyTargetRef,
  showDuration,
} from './keep-alive';

/** Passive health checking (Envoy outlier detection) for the route's upstream pods. */
export interface PassiveHealthCheck {
  /** Replicas of the service (the hosts Envoy balances over). */
  readonly replicas: number;
  /** The PodDisruptionBudget's maxUnavailable: the ejection cap is derived from it. */
  readonly maxUnavailable: number;
  /**
   * Consecutive 5xx responses (Envoy counts resets and connect failures as 5xx) that eject a host.
   * @default 5 (the Envoy Gateway default)
   */
  readonly consecutive5xxErrors?: number;
  /**
   * Time between ejection sweeps.
   * @default 3 s (the Envoy Gateway default)
   */
  readonly interval?: Duration;
  /**
   * Base time a host stays ejected (multiplied by the number of times it was ejected).
   * @default 30 s (the Envoy Gateway default)
   */
  readonly baseEjectionTime?: Duration;
  /**
   * Replaces the derived ejection cap (at most 50).
   * @default the PodDisruptionBudget's share of the fleet, at most half, rounded down
   */
  readonly maxEjectionPercent?: Override<number>;
}

/** What a route's BackendTrafficPolicy is decided from. */
export interface TrafficPolicyInputs extends KeepAliveInputs {
  /** Name of the HTTPRoute the policy attaches to (same namespace). Never a Gateway. */
  readonly routeName: string;
  /**
   * Passive health checking (outlier detection).
   * @default none
   */
  readonly passiveHealthCheck?: PassiveHealthCheck;
}

/** The outlier detection values, each with its reason (seconds for durations). */
export interface PassiveHealthDecisions {
  readonly consecutive5xxErrors: Decision<number>;
  readonly intervalSeconds: Decision<number>;
  readonly baseEjectionTimeSeconds: Decision<number>;
  readonly maxEjectionPercent: Decision<number>;
  readonly alwaysEjectOneEndpoint: Decision<boolean>;
  readonly panicThreshold: Decision<number>;
}

/** Every value of the route's BackendTrafficPolicy. */
export interface TrafficPolicyDecisions {
  readonly routeName: string;
  /** The service's own HTTPRoute, and why only it. */
  readonly targetRefs: readonly PolicyTargetRef[];
  readonly targetReason: string;
  /** Idle and connect timeouts, retry on reset, and the warnings to show at synth. */
  readonly keepAlive: KeepAliveDecisions;
  readonly mergeType: Decision<string>;
  /** @default none: no outlier detection */
  readonly passiveHealthCheck?: PassiveHealthDecisions;
}

/**
 * The route policy's values: the keep-alive race refused, the policy on the route only, outlier detection when asked
 * for.
 */
export function decideTrafficPolicy(inp: TrafficPolicyInputs): TrafficPolicyDecisions {
  if (
    typeof inp.routeName !== 'string' ||
    !/^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/.test(inp.routeName) ||
    inp.routeName.length > 253
  ) {
    throw new RollwiseInputError(
      'routeName',
      inp.routeName,
      'must be the name of an HTTPRoute (a DNS subdomain: lower-case letters, digits, "-" and ".").',
      "pass the service's HTTPRoute name, which rollwise names after the service.",
    );
  }
  const keepAlive = decideKeepAlive(inp);
  const targetRefs: PolicyTargetRef[] = [
    { group: 'gateway.networking.k8s.io', kind: 'HTTPRoute', name: inp.routeName },
  ];
  checkPolicyTargets(targetRefs);
  return {
    routeName: inp.routeName,
    targetRefs,
    targetReason:
      `The service's own HTTPRoute ${inp.routeName}: the idle timeout is derived from this app's ` +
      'keep-alive, and on the shared Gateway it would change every upstream behind it, e.g. Grafana or Argo CD ' +
      '(docs/mechanisms.md#keep-alive-race).',
    keepAlive,
    mergeType: decided(
      'StrategicMerge',
      'Without a mergeType only the most specific policy applies, so this route policy would silently drop the ' +
        'gateway-level retry, health-check and circuit-breaker settings; StrategicMerge keeps them and overrides ' +
        'only the fields set here (reference: BackendTrafficPolicy).',
    ),
    passiveHealthCheck: inp.passiveHealthCheck ? passiveHealthCheck(inp.passiveHealthCheck) : undefined,
  };
}

function passiveHealthCheck(p: PassiveHealthCheck): PassiveHealthDecisions {
  const consecutive =
    p.consecutive5xxErrors === undefined
      ? 5
      : checkInteger(
          'passiveHealthCheck.consecutive5xxErrors',
          p.consecutive5xxErrors,
          2,
          100,
          'one error is noise, not a broken host: ejecting on it removes healthy pods.',
          'use 5.',
        );
  const interval = p.interval === undefined ? 3 : seconds(p.interval);
  const base = p.baseEjectionTime === undefined ? 30 : seconds(p.baseEjectionTime);
  for (const [input, v] of [
    ['passiveHealthCheck.interval', interval],
    ['passiveHealthCheck.baseEjectionTime', base],
  ] as const) {
    if (!(v >= 1) || !Number.isInteger(v * 1000))
      throw new RollwiseInputError(
        input,
        showDuration(v),
        'must be at least 1 s in whole milliseconds.',
        'use the Envoy Gateway default.',
      );
  }
  const cap = maxEjectionPercent({
    replicas: p.replicas,
    maxUnavailable: p.maxUnavailable,
    override: p.maxEjectionPercent,
  });
  return {
    consecutive5xxErrors: decided(
      consecutive,
      `${consecutive} consecutive 5xx (including resets and connect failures) from one host while others answer ` +
        'point at that host, not at a bad ' +
        `request${p.consecutive5xxErrors === undefined ? ' (Envoy Gateway default)' : ' (input)'}.`,
    ),
    intervalSeconds: decided(
      interval,
      'Ejection sweep ' +
        `every ${showDuration(interval)}${p.interval === undefined ? ' (Envoy Gateway default)' : ' (input)'}.`,
    ),
    baseEjectionTimeSeconds: decided(
      base,
      `An ejected host returns after ${showDuration(base)} x the number of times it was ` +
        `ejected${p.baseEjectionTime === undefined ? ' (Envoy Gateway default)' : ' (input)'}.`,
    ),
    maxEjectionPercent: cap,
    alwaysEjectOneEndpoint: decided(
      cap.value > 0,
      cap.value > 0
        ? `Envoy's percentage check rounds differently across versions; one host is always within the budget (the ` +
            `PodDisruptionBudget allows ${p.maxUnavailable}), so one may always be ejected even when ${cap.value} % ` +
            `of ${p.replicas} is under one host.`
        : 'The ejection cap is 0 %: no host may be ejected.',
    ),
    panicThreshold: decided(
      50,
      "Envoy's default 50 %, written out beside the ejection cap: below 50 % healthy hosts Envoy routes to all " +
        'hosts (fails open) instead of overloading the few left (docs/mechanisms.md#leave-slowly-return-slower); the ' +
        'cap keeps ejection alone from reaching it.',
    ),
  };
}

/** The policy's inputs as HttpService's users write them (overrides.proxyIdleTimeout, not idleTimeout). */
const SERVICE_INPUTS: Record<string, string> = {
  idleTimeout: 'overrides.proxyIdleTimeout',
  connectTimeout: 'overrides.proxyConnectTimeout',
  acceptKeepAliveRace: 'overrides.acceptKeepAliveRace',
  retryOnReset: 'overrides.retryOnReset',
};

/**
 * decideTrafficPolicy for a service's route: an input error about one of the policy's own inputs
 * is rethrown naming the input as the service's user wrote it, in the input and in the fix.
 */
export function decideServiceTrafficPolicy(inp: TrafficPolicyInputs): TrafficPolicyDecisions {
  try {
    return decideTrafficPolicy(inp);
  } catch (e) {
    if (!(e instanceof RollwiseInputError)) throw e;
    const names = SERVICE_INPUTS;
    const outer = names[e.input];
    const rename = (text: string) =>
      text.replace(/(?<![.\w])(idleTimeout|connectTimeout|acceptKeepAliveRace|retryOnReset)\b/g, (m) => names[m] ?? m);
    if (outer === undefined) throw e;
    throw new RollwiseInputError(outer, e.value, rename(e.why), rename(e.fix));
  }
}
