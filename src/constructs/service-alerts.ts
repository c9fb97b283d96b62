import { Chart, Duration } from 'cdk8s';
import { Construct } from 'constructs';
import {
  PrometheusRule,
  PrometheusRuleSpecGroupsRulesExpr,
} from '../../imports/prometheus-operator-monitoring.coreos.com';
import { AlertDecisions, decideAlerts, WorkloadKind } from '../decisions/alerts';
import { Override } from '../decisions/decision';
import { Platform } from '../decisions/platform';
import { requireAlertNamespace, ServiceDecisions } from '../decisions/service';
import { RollwiseInputError } from '../errors';
import { Reasons } from '../justify/reasons';
import { renderRunbook } from '../justify/runbook';
import { addOutputFile } from '../synth/output';
import { registerDecidedValuesCheck } from '../invariants/decided-values';

export interface ServiceAlertsProps {
  /** The service's decisions (`HttpService.decisions`). The construct id must equal `decisions.name`. */
  readonly decisions: ServiceDecisions;
  /**
   * The base URL of the committed runbook file (e.g. its Git web URL); each alert's
   * `runbook_url` is `<runbookUrl>#<section>`.
   */
  readonly runbookUrl: string;
  /**
   * Which controller runs the pods: desired replicas and the degraded-rollout alert come from its metrics.
   * @default WorkloadKind.ROLLOUT (the golden path: an Argo Rollout canary)
   */
  readonly workload?: WorkloadKind;
  /**
   * Namespace of the service (and of this PrometheusRule). Required one way or the other: every
   * alert selects the service's series by namespace.
   * @default the chart's namespace
   */
  readonly namespace?: string;
  /**
   * Whether the service has an HTTPRoute: the route's Envoy alerts (5xx SLO, no healthy upstream,
   * response flags, keep-alive race) are emitted only for a route that exists.
   * @default true
   */
  readonly route?: boolean;
  /**
   * Path of the runbook file in the output folder.
   * @default "<name>.runbook.md", beside the manifests
   */
  readonly runbookPath?: string;
  /**
   * The route's 5xx ratio above which the SLO alert fires, with its reason.
   * @default 0.01, the canary analysis threshold (docs/mechanisms.md#canary-analysis)
   */
  readonly sloErrorRatio?: Override<number>;
  /**
   * The CPU throttled-periods ratio for the throttling alert (emitted only with a CPU limit).
   * @default 0.25, kubernetes-mixin's CPUThrottlingHigh threshold
   */
  readonly cpuThrottlingRatio?: Override<number>;
  /**
   * Scrape interval of kube-state-metrics, cAdvisor and the Envoy proxies.
   * @default Duration.seconds(30), kube-prometheus-stack's interval
   */
  readonly scrapeInterval?: Duration;
  /**
   * Platform settings (utilisation ceiling for the floor, endpoint propagation for the windows).
   * @default Platform.defaults()
   */
  readonly platform?: Platform;
  /**
   * Namespace of the Envoy Gateway proxies (for the runbook's Loki queries).
   * @default "envoy-gateway-system"
   */
  readonly gatewayNamespace?: string;
  /**
   * Labels the Prometheus `ruleSelector` matches (e.g. `{ release: 'kube-prometheus-stack' }`).
   * Without a match Prometheus never loads the rule; that is a platform fact rollwise cannot see.
   * @default the platform's labels only
   */
  readonly ruleLabels?: Record<string, string>;
}

/** Alerts already decided (decideService's `alerts`, as HttpService passes them), and how to render them. */
export interface DecidedServiceAlertsProps {
  /** The service's decisions. The construct id must equal `decisions.name`. */
  readonly decisions: ServiceDecisions;
  readonly alerts: AlertDecisions;
  /** @default "<name>.runbook.md", beside the manifests */
  readonly runbookPath?: string;
  /** Platform labels for the rule. @default Platform.defaults() */
  readonly platform?: Platform;
  /** @default "envoy-gateway-system" */
  readonly gatewayNamespace?: string;
  /** @default the platform's labels only */
  readonly ruleLabels?: Record<string, string>;
}

/**
 * The alerts that see the readiness-cascade failure class and the proxy's mechanisms for one
 * service (a PrometheusRule named like the service), plus its runbook written to the output.
 */
export class ServiceAlerts extends Construct {
  /** The rule and runbook of alerts decided beforehand (decideService's `alerts`). */
  public static fromDecisions(scope: Construct, id: string, props: DecidedServiceAlertsProps): ServiceAlerts {
    return new ServiceAlerts(scope, id, props);
  }

  public readonly alerts: AlertDecisions;
  public readonly rule: PrometheusRule;
  public readonly runbook: string;
  public readonly runbookPath: string;

  constructor(scope: Construct, id: string, props: ServiceAlertsProps);
  constructor(scope: Construct, id: string, props: DecidedServiceAlertsProps);
  constructor(scope: Construct, id: string, props: ServiceAlertsProps | DecidedServiceAlertsProps) {
    super(scope, id);
    registerDecidedValuesCheck(this);
    const d = props.decisions;
    if (id !== d.name) {
      throw new RollwiseInputError(
        'ServiceAlerts id',
        id,
        `must equal the service's name "${d.name}": the id is the PrometheusRule's name and the alerts select the ` +
          `service's objects by that name.`,
        `use new ServiceAlerts(scope, '${d.name}', ...).`,
      );
    }
    const platform = props.platform ?? Platform.defaults();
    // Decided by decideAlerts (src/decisions/alerts.ts): beforehand (HttpService), or here from the props.
    this.alerts =
      'alerts' in props && props.alerts !== undefined
        ? props.alerts
        : decidedFromProps(this, props as ServiceAlertsProps, platform);
    const namespace = this.alerts.namespace;
    this.runbookPath = props.runbookPath ?? `${d.name}.runbook.md`;

    const reasons = new Reasons();
    const groupName = reasons.use('spec.groups[0].name', this.alerts.group);
    const rules = this.alerts.rules.map((r, i) => {
      const v = reasons.use(`spec.groups[0].rules[${i}]`, r);
      return {
        alert: v.alert,
        expr: PrometheusRuleSpecGroupsRulesExpr.fromString(v.expr),
        for: v.for,
        labels: { ...v.labels },
        annotations: { ...v.annotations },
      };
    });
    const spec = { groups: [{ name: groupName, rules }] };
    this.rule = new PrometheusRule(this, 'rule', {
      metadata: {
        name: d.name,
        namespace,
        labels: {
          ...platform.labels,
          ...(props.ruleLabels ?? {}),
          'app.kubernetes.io/name': d.name,
          'app.kubernetes.io/managed-by': 'rollwise',
        },
        annotations: reasons.annotations(),
      },
      spec,
    });

    this.runbook = renderRunbook(d, this.alerts, { gatewayNamespace: props.gatewayNamespace });
    addOutputFile(this, this.runbookPath, this.runbook);
  }
}

/** A standalone ServiceAlerts' alerts, decided from its props (the namespace defaults to the chart's). */
function decidedFromProps(scope: Construct, props: ServiceAlertsProps, platform: Platform): AlertDecisions {
  const namespace = requireAlertNamespace(props.namespace ?? Chart.of(scope).namespace);
  return decideAlerts(
    props.decisions,
    { namespace, workload: props.workload ?? WorkloadKind.ROLLOUT, runbookUrl: props.runbookUrl, route: props.route },
    {
      sloErrorRatio: props.sloErrorRatio,
      cpuThrottlingRatio: props.cpuThrottlingRatio,
      scrapeInterval: props.scrapeInterval,
      platform,
    },
  );
}
