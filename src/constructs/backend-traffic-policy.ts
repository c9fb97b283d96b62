import { Chart, Duration } from 'cdk8s';
import { Construct } from 'constructs';
import {
  BackendTrafficPolicy,
  BackendTrafficPolicySpec,
  BackendTrafficPolicySpecHealthCheck,
  BackendTrafficPolicySpecRetryRetryOnTriggers,
  BackendTrafficPolicySpecTargetRefs,
} from '../../imports/envoy-gateway-gateway.envoyproxy.io';
import { decided, Override } from '../decisions/decision';
import { checkInteger, seconds } from '../decisions/inputs';
import {
  AppServer, checkPolicyTargets, decideKeepAlive, envoyDuration, KeepAliveDecisions, maxEjectionPercent, showDuration,
} from '../decisions/keep-alive';
import { RollwiseInputError } from '../errors';
import { ANNOTATIONS } from '../justify/annotations';
import { Reasons } from '../justify/reasons';
import { addSynthWarning } from '../synth/output';
import { registerDecidedValuesCheck } from '../invariants/decided-values';

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

export interface RouteTrafficPolicyProps {
  /** Name of the HTTPRoute the policy attaches to (same namespace). Never a Gateway. */
  readonly routeName: string;
  /**
   * Namespace of the policy (and of the route it targets).
   * @default the chart's namespace, else none
   */
  readonly namespace?: string;
  /** The application server behind the route: its keep-alive sets the proxy's idle timeout. */
  readonly appServer: AppServer;
  /**
   * Replaces the derived `connectionIdleTimeout`; still refused when not below the app's keep-alive.
   * @default the margin rule applied to the app's keep-alive (uvicorn 5 s -> 3 s)
   */
  readonly idleTimeout?: Override<Duration>;
  /**
   * Replaces the derived `connectTimeout` (Envoy's 10 s default, not lowered to the idle timeout: envoy#42753 is fixed in Envoy 1.38.0).
   * @default min(10 s, idle timeout)
   */
  readonly connectTimeout?: Override<Duration>;
  /**
   * Accepts an idle timeout at or above the app's keep-alive (occasional 503 UC); needs a reason.
   * @default refused
   */
  readonly acceptKeepAliveRace?: Override<boolean>;
  /**
   * Retries on reset for this route (number of retries, 1-3), with the reason it is safe here.
   * @default no retry policy (resets are not retried)
   */
  readonly retryOnReset?: Override<number>;
  /**
   * Passive health checking (outlier detection).
   * @default none
   */
  readonly passiveHealthCheck?: PassiveHealthCheck;
  /**
   * Labels added to the policy.
   * @default `app.kubernetes.io/name: <routeName>` and `app.kubernetes.io/managed-by: rollwise`
   */
  readonly labels?: Record<string, string>;
}

/**
 * An Envoy Gateway BackendTrafficPolicy on one service's HTTPRoute that makes the proxy close idle
 * upstream connections before the application server does (docs/mechanisms.md#keep-alive-race), with every value's
 * reason in the `rollwise.dev/reasons` annotation. The construct id is the policy's name.
 */
export class RouteTrafficPolicy extends Construct {
  public readonly decisions: KeepAliveDecisions;
  public readonly policy: BackendTrafficPolicy;

  constructor(scope: Construct, id: string, props: RouteTrafficPolicyProps) {
    super(scope, id);
    registerDecidedValuesCheck(this);
    if (typeof props.routeName !== 'string' || !/^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/.test(props.routeName) || props.routeName.length > 253) {
      throw new RollwiseInputError('routeName', props.routeName, 'must be the name of an HTTPRoute (a DNS subdomain: lower-case letters, digits, "-" and ".").', 'pass the service\'s HTTPRoute name, which rollwise names after the service.');
    }
    const d = decideKeepAlive(props);
    this.decisions = d;
    for (const w of d.warnings) addSynthWarning(this, w);

    const r = new Reasons();
    const targetRefs: BackendTrafficPolicySpecTargetRefs[] = [{ group: 'gateway.networking.k8s.io', kind: 'HTTPRoute', name: props.routeName }];
    checkPolicyTargets(targetRefs);
    r.note('spec.targetRefs', `The service's own HTTPRoute ${props.routeName}: the idle timeout is derived from this app's keep-alive, and on the shared Gateway it would change every upstream behind it, e.g. Grafana or Argo CD (docs/mechanisms.md#keep-alive-race).`);

    const idle = r.use('spec.timeout.http.connectionIdleTimeout', d.idleTimeoutSeconds);
    const connect = r.use('spec.timeout.tcp.connectTimeout', d.connectTimeoutSeconds);
    const retries = r.use(d.retryOnReset.value > 0 ? 'spec.retry.numRetries' : 'spec.retry', d.retryOnReset);
    if (retries > 0) r.note('spec.retry.retryOn', 'Only the reset trigger: the override asked for retries on reset, nothing else (connect failures and 5xx stay unretried).');

    const spec: BackendTrafficPolicySpec = {
      targetRefs,
      mergeType: r.use('spec.mergeType', decided('StrategicMerge',
        'Without a mergeType only the most specific policy applies, so this route policy would silently drop the gateway-level retry, health-check and circuit-breaker settings; StrategicMerge keeps them and overrides only the fields set here (reference: BackendTrafficPolicy).')),
      timeout: {
        ...(idle === undefined ? {} : { http: { connectionIdleTimeout: envoyDuration(idle) } }),
        tcp: { connectTimeout: envoyDuration(connect) },
      },
      ...(retries > 0 ? { retry: { numRetries: retries, retryOn: { triggers: [BackendTrafficPolicySpecRetryRetryOnTriggers.RESET] } } } : {}),
      ...(props.passiveHealthCheck ? { healthCheck: passiveHealthCheck(props.passiveHealthCheck, r) } : {}),
    };

    const namespace = props.namespace ?? Chart.of(this).namespace;
    this.policy = new BackendTrafficPolicy(this, 'Resource', {
      metadata: {
        name: id,
        namespace,
        labels: { 'app.kubernetes.io/name': props.routeName, 'app.kubernetes.io/managed-by': 'rollwise', ...(props.labels ?? {}) },
        annotations: { [ANNOTATIONS.appKeepAliveSeconds]: d.appServer.keepAliveFact, ...r.annotations() },
      },
      spec,
    });
  }
}

function passiveHealthCheck(p: PassiveHealthCheck, r: Reasons): BackendTrafficPolicySpecHealthCheck {
  const consecutive = p.consecutive5xxErrors === undefined ? 5 : checkInteger('passiveHealthCheck.consecutive5xxErrors', p.consecutive5xxErrors, 2, 100, 'one error is noise, not a broken host: ejecting on it removes healthy pods.', 'use 5.');
  const interval = p.interval === undefined ? 3 : seconds(p.interval);
  const base = p.baseEjectionTime === undefined ? 30 : seconds(p.baseEjectionTime);
  for (const [input, v] of [['passiveHealthCheck.interval', interval], ['passiveHealthCheck.baseEjectionTime', base]] as const) {
    if (!(v >= 1) || !Number.isInteger(v * 1000)) throw new RollwiseInputError(input, showDuration(v), 'must be at least 1 s in whole milliseconds.', 'use the Envoy Gateway default.');
  }
  const cap = maxEjectionPercent({ replicas: p.replicas, maxUnavailable: p.maxUnavailable, override: p.maxEjectionPercent });
  const hc: BackendTrafficPolicySpecHealthCheck = {
    passive: {
      consecutive5XxErrors: r.use('spec.healthCheck.passive.consecutive5XxErrors', decided(consecutive,
        `${consecutive} consecutive 5xx (including resets and connect failures) from one host while others answer point at that host, not at a bad request${p.consecutive5xxErrors === undefined ? ' (Envoy Gateway default)' : ' (input)'}.`)),
      interval: envoyDuration(r.use('spec.healthCheck.passive.interval', decided(interval, `Ejection sweep every ${showDuration(interval)}${p.interval === undefined ? ' (Envoy Gateway default)' : ' (input)'}.`))),
      baseEjectionTime: envoyDuration(r.use('spec.healthCheck.passive.baseEjectionTime', decided(base, `An ejected host returns after ${showDuration(base)} x the number of times it was ejected${p.baseEjectionTime === undefined ? ' (Envoy Gateway default)' : ' (input)'}.`))),
      maxEjectionPercent: r.use('spec.healthCheck.passive.maxEjectionPercent', cap),
      alwaysEjectOneEndpoint: r.use('spec.healthCheck.passive.alwaysEjectOneEndpoint', decided(cap.value > 0,
        cap.value > 0
          ? `Envoy's percentage check rounds differently across versions; one host is always within the budget (the PodDisruptionBudget allows ${p.maxUnavailable}), so one may always be ejected even when ${cap.value} % of ${p.replicas} is under one host.`
          : 'The ejection cap is 0 %: no host may be ejected.')),
    },
    panicThreshold: r.use('spec.healthCheck.panicThreshold', decided(50,
      'Envoy\'s default 50 %, written out beside the ejection cap: below 50 % healthy hosts Envoy routes to all hosts (fails open) instead of overloading the few left (docs/mechanisms.md#leave-slowly-return-slower); the cap keeps ejection alone from reaching it.')),
  };
  return hc;
}
