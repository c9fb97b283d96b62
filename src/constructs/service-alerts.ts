import { Chart, Duration } from 'cdk8s';
import { Construct } from 'constructs';
import { PrometheusRule, PrometheusRuleSpecGroupsRulesExpr } from '../../imports/prometheus-operator-monitoring.coreos.com';
import { AlertDecisions, decideAlerts, WorkloadKind } from '../decisions/alerts';
import { decided, Override } from '../decisions/decision';
import { Platform } from '../decisions/platform';
import { ServiceDecisions } from '../decisions/service';
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

/**
 * The alerts that see the readiness-cascade failure class and the proxy's mechanisms for one
 * service (a PrometheusRule named like the service), plus its runbook written to the output.
 */
export class ServiceAlerts extends Construct {
  public readonly alerts: AlertDecisions;
  public readonly rule: PrometheusRule;
  public readonly runbook: string;
  public readonly runbookPath: string;

  constructor(scope: Construct, id: string, props: ServiceAlertsProps) {
    super(scope, id);
    registerDecidedValuesCheck(this);
    const d = props.decisions;
    if (id !== d.name) {
      throw new RollwiseInputError('ServiceAlerts id', id, `must equal the service's name "${d.name}": the id is the PrometheusRule's name and the alerts select the service's objects by that name.`, `use new ServiceAlerts(scope, '${d.name}', ...).`);
    }
    const namespace = props.namespace ?? Chart.of(this).namespace;
    if (!namespace) {
      // 'unset', as the canary's refusal names it (http-service.ts), not "undefined"
      throw new RollwiseInputError('namespace', 'unset', 'neither the props nor the chart give one, and the alerts need it at synth: every PrometheusRule expression selects the service\'s series by namespace (kube-state-metrics\' pods and EndpointSlices, the Envoy clusters httproute/<namespace>/<name>/...). Applied with `kubectl -n` or by an Argo CD Application into a namespace, the objects would land there while the alerts look in none of them, and would never fire.', 'give the chart a namespace (new Chart(app, id, { namespace: "shop" })) or set namespace; Environment.addChart uses the environment\'s destination namespace.');
    }
    const platform = props.platform ?? Platform.defaults();
    this.alerts = decideAlerts(d, { namespace, workload: props.workload ?? WorkloadKind.ROLLOUT, runbookUrl: props.runbookUrl, route: props.route }, {
      sloErrorRatio: props.sloErrorRatio, cpuThrottlingRatio: props.cpuThrottlingRatio, scrapeInterval: props.scrapeInterval, platform,
    });
    this.runbookPath = props.runbookPath ?? `${d.name}.runbook.md`;

    const reasons = new Reasons();
    const groupName = `${d.name}.rollwise`;
    reasons.use('spec.groups[0].name', decided(groupName, 'One group per service: its rules are evaluated together at the Prometheus evaluation interval, and the name says which service and which generator own them.'));
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
        labels: { ...platform.labels, ...(props.ruleLabels ?? {}), 'app.kubernetes.io/name': d.name, 'app.kubernetes.io/managed-by': 'rollwise' },
        annotations: reasons.annotations(),
      },
      spec,
    });

    this.runbook = renderRunbook(d, this.alerts, { gatewayNamespace: props.gatewayNamespace });
    addOutputFile(this, this.runbookPath, this.runbook);
  }
}
