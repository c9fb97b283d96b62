import { App, Chart, Duration, Testing } from 'cdk8s';
import { ServiceAlerts } from '../../src/constructs/service-alerts';
import { decideAlerts, githubSlug, promDuration, WorkloadKind } from '../../src/decisions/alerts';
import { Platform } from '../../src/decisions/platform';
import { decideService } from '../../src/decisions/service';
import { parseReasonLines } from '../../src/justify/reasons';
import { headingAnchors } from '../../src/justify/runbook';
import { outputFilesOf } from '../../src/synth/output';
import { bothServices, build, CHECKOUT, RUNBOOK_BASE } from './support';
import { SchemaValidator } from '../../src/schemas/validator';

const { checkout, inventory } = bothServices();
const validator = SchemaValidator.load();

describe('PrometheusRule', () => {
  test('validates against the pinned monitoring.coreos.com/v1 CRD (v0.93.0)', () => {
    expect(checkout.rule.apiVersion).toBe('monitoring.coreos.com/v1');
    expect(checkout.rule.kind).toBe('PrometheusRule');
    expect(validator.validate(checkout.rule)).toEqual([]);
    expect(validator.validate(inventory.rule)).toEqual([]);
    // and it can fail: a bad duration and an unknown field are caught
    const bad = JSON.parse(JSON.stringify(checkout.rule));
    bad.spec.groups[0].rules[0].for = '2 minutes';
    bad.spec.groups[0].rules[1].severity = 'critical';
    expect(validator.validate(bad).join('\n')).toMatch(
      /rules\/0\/for must match pattern[\s\S]*rules\/1 must NOT have additional properties \(severity\)/,
    );
  });

  test('is named after the service, in its namespace, one group', () => {
    expect(checkout.rule.metadata).toMatchObject({ name: 'checkout-api', namespace: 'checkout' });
    expect(checkout.rule.spec.groups.map((g) => g.name)).toEqual(['checkout-api.rollwise']);
  });

  test('Rollout service: the alerts and their for', () => {
    const byName = Object.fromEntries(checkout.rules.map((r) => [r.alert, r]));
    expect(Object.keys(byName)).toEqual([
      'ReadyEndpointsBelowFloor',
      'ReadyEndpointsOscillating',
      'ReadinessFlapping',
      'Route5xxOverSlo',
      'EnvoyNoHealthyUpstream',
      'EnvoyUpstreamResetKeepAliveRace',
      'EnvoyUpstreamConnectFailure',
      'EnvoyUpstreamOverflow',
      'EnvoyUpstreamTimeout',
      'CanaryAnalysisFailed',
      'RolloutDegraded',
      'ReadyEndpointsMetricMissing',
      'RolloutMetricsMissing',
    ]);
    expect(byName.RolloutMetricsMissing).toMatchObject({
      severity: 'warning',
      for: '10m',
      expr: 'absent(rollout_info{namespace="checkout", name="checkout-api"})',
    });
    expect(byName.ReadyEndpointsMetricMissing).toMatchObject({
      severity: 'warning',
      for: '10m',
      expr: 'absent(kube_endpointslice_info{namespace="checkout", endpointslice=~"checkout-api-[bcdfghjklmnpqrstvwxz2456789]{5}"})',
    });
    // startup 12 x 5 s = 60 s + return 3 x 10 s = 30 s + minReadySeconds 30 s = 120 s
    expect(byName.ReadyEndpointsBelowFloor.for).toBe('2m');
    // floor 11 of 12: ceil(3700 / (450 x 0.8)) = 11
    expect(byName.ReadyEndpointsBelowFloor.expr).toContain(
      '< max(rollout_info_replicas_desired{namespace="checkout", name="checkout-api"}) * 11 / 12',
    );
    // 2 x (120 + 30 + 2 x 10) = 340 s -> 360 s in whole 30 s scrapes
    expect(byName.ReadyEndpointsOscillating.expr).toContain('[6m:30s]) >= 3');
    expect(byName.ReadinessFlapping.expr).toContain('[10m])) >= 4');
    // the denominator counts every response class, local 503s (UH) included, not upstream_rq_total
    expect(byName.Route5xxOverSlo.expr).toContain(
      '> 0.01) and on() (sum(rate(envoy_cluster_upstream_rq_xx{envoy_cluster_name=~"httproute/checkout/checkout-api/rule/.*"}[5m])) > 0)',
    );
    expect(byName.Route5xxOverSlo.expr).not.toContain('upstream_rq_total');
    // pods by owner, not by a name pattern the API server's generateName cut breaks
    expect(byName.ReadinessFlapping.expr).toContain(
      'and on(namespace, pod) max_over_time(kube_pod_owner{namespace="checkout", owner_kind="ReplicaSet", owner_name=~"checkout-api-[456789bcdf]{1,10}"}[10m])',
    );
    expect(byName.ReadinessFlapping.expr).not.toContain('pod=~');
    // re-runs are named <run>.<N>
    expect(byName.CanaryAnalysisFailed.expr).toContain(
      'name=~"checkout-api-[456789bcdf]{1,10}-[0-9]+(-[0-9]+)?([.][0-9]+)?"',
    );
    expect(byName.EnvoyNoHealthyUpstream).toMatchObject({ severity: 'critical', mechanism: 'UH', for: '1m' });
    expect(byName.EnvoyUpstreamResetKeepAliveRace).toMatchObject({ severity: 'warning', mechanism: 'UC', for: '0s' });
    expect(byName.EnvoyUpstreamConnectFailure.annotations.summary).toContain('(Envoy UF)');
    expect(byName.EnvoyUpstreamOverflow.annotations.summary).toContain('(Envoy UO)');
    expect(byName.EnvoyUpstreamTimeout.annotations.summary).toContain('(Envoy UT)');
    expect(byName.RolloutDegraded.expr).toContain('phase=~"Abort|Timeout|Error|InvalidSpec"');
  });

  test('the throttling alert exists only where a CPU limit was kept by override', () => {
    expect(checkout.rules.find((r) => r.alert === 'CpuThrottlingHigh')).toBeUndefined();
    const t = inventory.rules.find((r) => r.alert === 'CpuThrottlingHigh');
    expect(t?.expr).toContain('container="app"');
    expect(t?.expr).toContain('> 0.25');
  });

  test('Deployment service: desired replicas and the stalled rollout come from kube-state-metrics', () => {
    const floor = inventory.rules.find((r) => r.alert === 'ReadyEndpointsBelowFloor');
    // ceil(3000 / 360) = 9 of 10
    expect(floor?.expr).toContain(
      '< max(kube_deployment_spec_replicas{namespace="inventory", deployment="inventory-api"}) * 9 / 10',
    );
    expect(inventory.rules.find((r) => r.alert === 'RolloutDegraded')?.expr).toContain(
      'kube_deployment_status_condition',
    );
    expect(inventory.rules.find((r) => r.alert === 'CanaryAnalysisFailed')).toBeUndefined();
  });

  test('every rule carries severity, service, mechanism and a runbook_url into its own section', () => {
    for (const b of [checkout, inventory]) {
      const anchors = headingAnchors(b.alerts.runbook);
      for (const r of b.rule.spec.groups[0].rules as {
        alert: string;
        labels: Record<string, string>;
        annotations: Record<string, string>;
      }[]) {
        expect(r.labels.severity).toMatch(/^(critical|warning)$/);
        expect(r.labels.service).toBe(b.rule.metadata.name);
        const [base, anchor] = r.annotations.runbook_url.split('#');
        expect(base).toBe(`${RUNBOOK_BASE}/${b.rule.metadata.name}.runbook.md`);
        expect(anchor).toBe(githubSlug(r.alert));
        expect(anchors.has(anchor)).toBe(true);
      }
    }
  });

  test('each rule has its reason in the annotation, citing its metric source and the field notes', () => {
    const reasons = parseReasonLines(checkout.rule.metadata.annotations['rollwise.dev/reasons']);
    expect(Object.keys(reasons)).toContain('spec.groups[0].rules[0]');
    expect(reasons['spec.groups[0].rules[0]']).toContain(
      'kube_endpointslice_endpoints{endpointslice, ready, address} (kube-state-metrics v2.19.1',
    );
    expect(reasons['spec.groups[0].rules[0]']).toContain(
      '3700 req/s / (saturation 450 req/s x ceiling 80 %) needs 11 ready replicas',
    );
    expect(reasons['spec.groups[0].rules[0]']).toContain('60 s');
    expect(reasons['spec.groups[0].rules[9]']).toContain('analysis_run_info');
    // Envoy creates a cluster's traffic stats as one block at its first traffic (ALL_CLUSTER_TRAFFIC_STATS,
    // DeferredStats): the race counter is there at 0 before the first race, not created by it
    const race = Object.values(reasons).find((r) =>
      r.startsWith('envoy_cluster_upstream_cx_destroy_remote_with_active_rq'),
    )!;
    expect(race).toContain(
      'so on a route with traffic it exists at 0 before the first race and increase() sees the race',
    );
    expect(race).not.toContain('create the counter at the first race');
    for (const [path, text] of Object.entries(reasons))
      if (path !== 'spec.groups[0].name')
        expect(text).toMatch(/docs\/mechanisms\.md#[a-z]|Envoy|kube-state-metrics|Argo Rollouts/);
  });
});

describe('decisions', () => {
  test('without capacity figures the floor is replicas minus the disruption budget', () => {
    const d = decideService({ ...CHECKOUT, replicas: 6, capacity: undefined }, Platform.defaults());
    const a = decideAlerts(d, {
      namespace: 'checkout',
      workload: WorkloadKind.ROLLOUT,
      runbookUrl: 'https://x.example/r.md',
    });
    expect(a.values['Ready floor (replicas)'].value).toBe(5);
    expect(a.values['Ready floor (replicas)'].reason).toContain('6 replicas - PDB maxUnavailable 1 = 5');
    expect(a.rules[0].value.expr).toContain('* 5 / 6');
  });

  test('the SLO override needs its reason and a fraction', () => {
    const d = decideService(CHECKOUT, Platform.defaults());
    const t = { namespace: 'checkout', workload: WorkloadKind.ROLLOUT, runbookUrl: 'https://x.example/r.md' };
    expect(() => decideAlerts(d, t, { sloErrorRatio: { value: 0.005, because: '' } })).toThrow(
      /sloErrorRatio = 0.005: an override must carry its reason/,
    );
    expect(() => decideAlerts(d, t, { sloErrorRatio: { value: 5, because: 'five percent was meant here' } })).toThrow(
      /sloErrorRatio = 5: must be a fraction/,
    );
    const a = decideAlerts(d, t, {
      sloErrorRatio: { value: 0.001, because: 'payment path: contractual 99.9 % availability' },
    });
    expect(a.rules.find((r) => r.value.alert === 'Route5xxOverSlo')?.value.expr).toContain('> 0.001)');
  });

  test('a slower scrape interval widens the rate windows', () => {
    const d = decideService(CHECKOUT, Platform.defaults());
    const a = decideAlerts(
      d,
      { namespace: 'checkout', workload: WorkloadKind.ROLLOUT, runbookUrl: 'https://x.example/r.md' },
      { scrapeInterval: Duration.minutes(1) },
    );
    expect(a.rules.find((r) => r.value.alert === 'EnvoyUpstreamConnectFailure')?.value.for).toBe('4m');
    expect(a.rules.find((r) => r.value.alert === 'ReadyEndpointsOscillating')?.value.expr).toContain('[6m:1m]');
  });

  test('promDuration and githubSlug', () => {
    expect([promDuration(120), promDuration(90), promDuration(3660), promDuration(0)]).toEqual([
      '2m',
      '1m30s',
      '1h1m',
      '0s',
    ]);
    expect(githubSlug('One status code, several mechanisms: Envoy response flags')).toBe(
      'one-status-code-several-mechanisms-envoy-response-flags',
    );
  });
});

describe('ServiceAlerts construct', () => {
  const d = decideService(CHECKOUT, Platform.defaults());
  test('refuses an id other than the service name, a missing namespace, a runbook URL with a fragment', () => {
    const chart = Testing.chart();
    expect(
      () =>
        new ServiceAlerts(chart, 'alerts', {
          decisions: d,
          runbookUrl: 'https://x.example/r.md',
          namespace: 'checkout',
        }),
    ).toThrow(/ServiceAlerts id = alerts: must equal the service's name "checkout-api"/);
    expect(
      () => new ServiceAlerts(Testing.chart(), 'checkout-api', { decisions: d, runbookUrl: 'https://x.example/r.md' }),
    ).toThrow(/^namespace = unset: neither the props nor the chart give one, and the alerts need it at synth/);
    expect(
      () =>
        new ServiceAlerts(Testing.chart(), 'checkout-api', {
          decisions: d,
          runbookUrl: 'https://x.example/r.md#top',
          namespace: 'checkout',
        }),
    ).toThrow(/runbookUrl = https:\/\/x.example\/r.md#top: must be an absolute http\(s\) URL without a "#"/);
  });

  test('writes the runbook into the output and labels the rule for the ruleSelector', () => {
    const app = new App({ outdir: '/tmp/unused' });
    const chart = new Chart(app, 'c', { namespace: 'checkout' });
    new ServiceAlerts(chart, 'checkout-api', {
      decisions: d,
      runbookUrl: 'https://x.example/r.md',
      ruleLabels: { release: 'kube-prometheus-stack' },
    });
    expect([...outputFilesOf(app).keys()]).toEqual(['checkout-api.runbook.md']);
    const rule = Testing.synth(chart)[0];
    expect(rule.metadata.labels).toMatchObject({
      release: 'kube-prometheus-stack',
      'app.kubernetes.io/name': 'checkout-api',
    });
  });
});

describe('runbook', () => {
  const md = checkout.alerts.runbook;
  test('per alert: meaning, what to check first, the expression', () => {
    expect(md).toContain('### ReadyEndpointsBelowFloor');
    expect(md).toContain(
      "**What it means.** Fewer pods are in the Service's endpoints than the capacity figures need (11 of 12",
    );
    expect(md).toContain('kubectl -n checkout get events --field-selector reason=Unhealthy');
  });
  test('the response-flag table, the two probe failure texts side by side, what not to do', () => {
    expect(md).toContain(
      '| UC | upstream closed the connection before responding | idle timeouts, pod shutdown (docs/mechanisms.md#keep-alive-race) | [EnvoyUpstreamResetKeepAliveRace](#envoyupstreamresetkeepaliverace) |',
    );
    expect(md).toMatch(
      /\| `Readiness probe failed: HTTP probe failed with statuscode: 503` \| `Readiness probe failed: Get \.\.\.: context deadline exceeded/,
    );
    expect(md).toContain('**Do not `kubectl argo rollouts undo checkout-api`**');
    expect(md).toContain('**The rollback is `git revert`**');
    expect(md).toContain('**Do not `kubectl exec` into a pod and curl /healthz**');
    expect(md).toContain('**Do not delete or loosen the readiness probe**');
    expect(inventory.alerts.runbook).toContain('**Do not `kubectl rollout undo deployment/inventory-api`**');
  });
  test('a Service with no endpoints at all: "-" covers the gateway\'s direct 503, NC has a row, and ReadyEndpointsBelowFloor is named as its alert', () => {
    expect(md).toContain(
      '| `-` | response came from the pod; with `response_code_details` `direct_response` the gateway answered itself',
    );
    expect(md).toContain("| NC | no cluster: one backendRef's Service (stable or canary) has no endpoint");
    expect(md).toMatch(
      /\| NC \|[^\n]*\| \[ReadyEndpointsBelowFloor\]\(#readyendpointsbelowfloor\) for the stable Service; for the canary's, its analysis pauses \(Inconclusive\) \|/,
    );
    expect(md).toContain('**A Service with no endpoints at all**');
    expect(md).toContain('[ReadyEndpointsBelowFloor](#readyendpointsbelowfloor) is the alert for this case');
    expect(md).toContain('| json | response_code_details=~"direct_response|cluster_not_found"');
    expect(md).not.toContain('UH | no healthy upstream: no endpoint at all');
  });
  test("queries with the service's names, values in force with reasons", () => {
    expect(md).toContain(
      '{namespace="envoy-gateway-system", container="envoy"} |= "httproute/checkout/checkout-api/" | json | response_code="503"',
    );
    expect(md).toContain(
      'count(group by (address) (kube_endpointslice_endpoints{namespace="checkout", endpointslice=~"checkout-api-canary-[bcdfghjklmnpqrstvwxz2456789]{5}", ready="true"}))',
    );
    expect(md).toMatch(
      /\| readinessProbe\.timeoutSeconds \| 3 s \| 2 x the health path's p99 under peak load \(250 ms, typed in as health\.readinessP99UnderLoad/,
    );
    expect(md).toMatch(/\| CPU limit \| none \| No CPU limit:/);
    expect(inventory.alerts.runbook).toMatch(/\| CPU limit \| 1 \(override\) \| Overridden: shared node pool/);
    expect(md).toMatch(/\| alerts: Ready floor \(replicas\) \| 11 \|/);
  });
  test('no heading anchor is duplicated', () => {
    const headings = md.split('\n').filter((l) => /^#{1,6} /.test(l) && !l.startsWith('#!'));
    const inCode = md
      .split('```')
      .filter((_, i) => i % 2 === 1)
      .join('\n')
      .split('\n')
      .filter((l) => /^#{1,6} /.test(l)).length;
    expect(new Set(headings.map((h) => githubSlug(h.replace(/^#+ /, '')))).size).toBe(headings.length - inCode);
  });
  test('build() with the checkout example is stable', () => {
    expect(build(CHECKOUT, 'checkout').alerts.runbook).toBe(md);
  });
});
