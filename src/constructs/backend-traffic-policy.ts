import { Chart } from 'cdk8s';
import { Construct } from 'constructs';
import {
  BackendTrafficPolicy,
  BackendTrafficPolicySpec,
  BackendTrafficPolicySpecHealthCheck,
  BackendTrafficPolicySpecRetryRetryOnTriggers,
  BackendTrafficPolicySpecTargetRefs,
} from '../../imports/envoy-gateway-gateway.envoyproxy.io';
import { envoyDuration, KeepAliveDecisions } from '../decisions/keep-alive';
import {
  decideTrafficPolicy,
  PassiveHealthDecisions,
  TrafficPolicyDecisions,
  TrafficPolicyInputs,
} from '../decisions/traffic-policy';
import { ANNOTATIONS } from '../justify/annotations';
import { Reasons } from '../justify/reasons';
import { addSynthWarning } from '../synth/output';
import { registerDecidedValuesCheck } from '../invariants/decided-values';

export type { PassiveHealthCheck } from '../decisions/traffic-policy';

export interface RouteTrafficPolicyProps extends TrafficPolicyInputs {
  /**
   * Namespace of the policy (and of the route it targets).
   * @default the chart's namespace, else none
   */
  readonly namespace?: string;
  /**
   * Labels added to the policy.
   * @default `app.kubernetes.io/name: <routeName>` and `app.kubernetes.io/managed-by: rollwise`
   */
  readonly labels?: Record<string, string>;
}

/** A policy already decided (decideTrafficPolicy; HttpService passes decideService's `trafficPolicy`). */
export interface DecidedRouteTrafficPolicyProps {
  readonly decisions: TrafficPolicyDecisions;
  /** @default the chart's namespace, else none */
  readonly namespace?: string;
  /** @default `app.kubernetes.io/name: <routeName>` and `app.kubernetes.io/managed-by: rollwise` */
  readonly labels?: Record<string, string>;
}

/**
 * An Envoy Gateway BackendTrafficPolicy on one service's HTTPRoute that makes the proxy close idle
 * upstream connections before the application server does (docs/mechanisms.md#keep-alive-race), with every value's
 * reason in the `rollwise.dev/reasons` annotation. The construct id is the policy's name. Its values
 * are decided by decideTrafficPolicy (src/decisions/traffic-policy.ts); the construct renders them.
 */
export class RouteTrafficPolicy extends Construct {
  /** A policy from values decided beforehand (decideService's `trafficPolicy`). */
  public static fromDecisions(scope: Construct, id: string, props: DecidedRouteTrafficPolicyProps): RouteTrafficPolicy {
    return new RouteTrafficPolicy(scope, id, props);
  }

  public readonly decisions: KeepAliveDecisions;
  public readonly policy: BackendTrafficPolicy;

  constructor(scope: Construct, id: string, props: RouteTrafficPolicyProps);
  constructor(scope: Construct, id: string, props: DecidedRouteTrafficPolicyProps);
  constructor(scope: Construct, id: string, props: RouteTrafficPolicyProps | DecidedRouteTrafficPolicyProps) {
    super(scope, id);
    registerDecidedValuesCheck(this);
    const p =
      'decisions' in props && props.decisions !== undefined
        ? props.decisions
        : decideTrafficPolicy(props as RouteTrafficPolicyProps);
    const d = p.keepAlive;
    this.decisions = d;
    for (const w of d.warnings) addSynthWarning(this, w);

    const r = new Reasons();
    const targetRefs: BackendTrafficPolicySpecTargetRefs[] = p.targetRefs.map((t) => ({ ...t }));
    r.note('spec.targetRefs', p.targetReason);

    const idle = r.use('spec.timeout.http.connectionIdleTimeout', d.idleTimeoutSeconds);
    const connect = r.use('spec.timeout.tcp.connectTimeout', d.connectTimeoutSeconds);
    const retries = r.use(d.retryOnReset.value > 0 ? 'spec.retry.numRetries' : 'spec.retry', d.retryOnReset);
    if (retries > 0 && d.retryOn) r.use('spec.retry.retryOn', d.retryOn);

    const spec: BackendTrafficPolicySpec = {
      targetRefs,
      mergeType: r.use('spec.mergeType', p.mergeType),
      timeout: {
        ...(idle === undefined ? {} : { http: { connectionIdleTimeout: envoyDuration(idle) } }),
        tcp: { connectTimeout: envoyDuration(connect) },
      },
      ...(retries > 0
        ? {
            retry: { numRetries: retries, retryOn: { triggers: [BackendTrafficPolicySpecRetryRetryOnTriggers.RESET] } },
          }
        : {}),
      ...(p.passiveHealthCheck ? { healthCheck: passiveHealthCheck(p.passiveHealthCheck, r) } : {}),
    };

    const namespace = props.namespace ?? Chart.of(this).namespace;
    this.policy = new BackendTrafficPolicy(this, 'Resource', {
      metadata: {
        name: id,
        namespace,
        labels: {
          'app.kubernetes.io/name': p.routeName,
          'app.kubernetes.io/managed-by': 'rollwise',
          ...(props.labels ?? {}),
        },
        annotations: { [ANNOTATIONS.appKeepAliveSeconds]: d.appServer.keepAliveFact, ...r.annotations() },
      },
      spec,
    });
  }
}

function passiveHealthCheck(p: PassiveHealthDecisions, r: Reasons): BackendTrafficPolicySpecHealthCheck {
  return {
    passive: {
      consecutive5XxErrors: r.use('spec.healthCheck.passive.consecutive5XxErrors', p.consecutive5xxErrors),
      interval: envoyDuration(r.use('spec.healthCheck.passive.interval', p.intervalSeconds)),
      baseEjectionTime: envoyDuration(r.use('spec.healthCheck.passive.baseEjectionTime', p.baseEjectionTimeSeconds)),
      maxEjectionPercent: r.use('spec.healthCheck.passive.maxEjectionPercent', p.maxEjectionPercent),
      alwaysEjectOneEndpoint: r.use('spec.healthCheck.passive.alwaysEjectOneEndpoint', p.alwaysEjectOneEndpoint),
    },
    panicThreshold: r.use('spec.healthCheck.panicThreshold', p.panicThreshold),
  };
}
