import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { Chart, Duration, Testing } from 'cdk8s';
import * as YAML from 'yaml';
import { ServiceAlerts, ServiceAlertsProps } from '../../src/constructs/service-alerts';
import { AlertRule, WorkloadKind } from '../../src/decisions/alerts';
import { Platform } from '../../src/decisions/platform';
import { decideService, ServiceInputs } from '../../src/decisions/service';
import { generateName } from '../../src/decisions/generated-names';
import {
  PodMonitorObject,
  rolloutsControllerMonitor,
  ROLLOUTS_CONTROLLER_POD,
  scrapedLabels,
  seriesText,
} from '../support/scrape';

export const RUNBOOK_BASE = 'https://git.example.com/acme/deploy/blob/main/dist';

/** checkout-api as in src/example.ts: 12 replicas, 3,700 req/s peak, 450 req/s saturation, no CPU limit. */
export const CHECKOUT: ServiceInputs = {
  name: 'checkout-api',
  image: 'ghcr.io/acme/checkout-api:1.4.2',
  port: 8080,
  replicas: 12,
  health: { readinessPath: '/healthz', readinessP99UnderLoad: Duration.millis(250) },
  resources: { cpu: '250m', memory: '512Mi' },
  capacity: { peakRequestsPerSecond: 3700, saturationRequestsPerSecondPerReplica: 450 },
};

/** A second service: 10 replicas on a Deployment, with a CPU limit kept by override. */
export const INVENTORY: ServiceInputs = {
  name: 'inventory-api',
  image: 'ghcr.io/acme/inventory-api:2.0.1',
  port: 8080,
  replicas: 10,
  health: { readinessPath: '/ready' },
  resources: { cpu: '500m', memory: '256Mi' },
  capacity: { peakRequestsPerSecond: 3000, saturationRequestsPerSecondPerReplica: 450 },
  overrides: { cpuLimit: { value: '1', because: 'shared node pool with a hard per-team CPU quota until Q3' } },
};

export interface Built {
  readonly alerts: ServiceAlerts;
  readonly rule: {
    apiVersion: string;
    kind: string;
    metadata: { name: string; namespace: string; annotations: Record<string, string> };
    spec: { groups: { name: string; rules: Record<string, unknown>[] }[] };
  };
  readonly rules: readonly AlertRule[];
}

/** Builds a ServiceAlerts for `inputs` in namespace `ns` and returns it with its synthesized object. */
export function build(inputs: ServiceInputs, ns: string, extra: Partial<ServiceAlertsProps> = {}): Built {
  const app = Testing.app();
  const chart = new Chart(app, 'test', { namespace: ns });
  const decisions = decideService(inputs, Platform.defaults());
  const alerts = new ServiceAlerts(chart, inputs.name, {
    decisions,
    runbookUrl: `${RUNBOOK_BASE}/${inputs.name}.runbook.md`,
    ...extra,
  });
  const rule = Testing.synth(chart).find((o) => o.kind === 'PrometheusRule');
  return { alerts, rule, rules: alerts.alerts.rules.map((r) => r.value) };
}

/** The checkout-api (Rollout) and inventory-api (Deployment, CPU limit) rules. */
export function bothServices(): { checkout: Built; inventory: Built } {
  return {
    checkout: build(CHECKOUT, 'checkout'),
    inventory: build(INVENTORY, 'inventory', { workload: WorkloadKind.DEPLOYMENT }),
  };
}

export interface Series {
  readonly series: string;
  readonly values: string;
}
export interface ExpAlert {
  readonly exp_labels: Record<string, string>;
  readonly exp_annotations: Record<string, string>;
}
export interface AlertCheck {
  readonly eval_time: string;
  readonly alertname: string;
  readonly exp_alerts: ExpAlert[];
}
export interface PromTest {
  readonly name: string;
  readonly interval: string;
  readonly input_series: Series[];
  readonly alert_rule_test: AlertCheck[];
}

export function promtoolPath(): string {
  for (const p of ['/usr/bin/promtool', ...(process.env.PATH ?? '').split(':').map((d) => path.join(d, 'promtool'))]) {
    if (p && fs.existsSync(p)) return p;
  }
  throw new Error(
    'promtool is not installed, and the alert tests need the real Prometheus rule engine: install it with `apt-get install -y prometheus` (Debian/Ubuntu; provides /usr/bin/promtool).',
  );
}

/** Runs `promtool test rules` on the rule groups of the given PrometheusRules with `tests`; returns its output. */
export function runPromtool(
  rules: Built[],
  tests: PromTest[],
  timeoutMs = 30_000,
): { status: number | null; output: string } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rollwise-promtool-'));
  try {
    const groups = rules.flatMap((b) => b.rule.spec.groups);
    fs.writeFileSync(path.join(dir, 'rules.yaml'), YAML.stringify({ groups }));
    fs.writeFileSync(
      path.join(dir, 'tests.yaml'),
      YAML.stringify({ rule_files: ['rules.yaml'], evaluation_interval: '30s', tests }),
    );
    const r = spawnSync(promtoolPath(), ['test', 'rules', 'tests.yaml'], {
      cwd: dir,
      encoding: 'utf8',
      timeout: timeoutMs,
    });
    return { status: r.status, output: `${r.stdout ?? ''}${r.stderr ?? ''}${r.error ? String(r.error) : ''}` };
  } finally {
    if (process.env.ROLLWISE_KEEP_PROMTOOL) fs.cpSync(dir, process.env.ROLLWISE_KEEP_PROMTOOL, { recursive: true });
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** `b` with only the rules named `alerts`, so a long replay evaluates only what it tests. */
export function only(b: Built, alerts: string[]): Built {
  const groups = b.rule.spec.groups.map((g) => ({
    ...g,
    rules: g.rules.filter((r) => alerts.includes(r.alert as string)),
  }));
  return { ...b, rule: { ...b.rule, spec: { groups } } };
}

/** Renders the annotation templates the rules use ($labels.x, $value, humanize, humanizePercentage) as Prometheus does. */
export function expected(b: Built, alertname: string, labels: Record<string, string>, value: number): ExpAlert {
  const r = b.rules.find((x) => x.alert === alertname);
  if (!r) throw new Error(`no rule ${alertname} for ${b.rule.metadata.name}`);
  const all = { ...labels, ...r.labels };
  const render = (t: string) =>
    t.replace(
      /\{\{\s*(\$labels\.(\w+)|\$value(?:\s*\|\s*(humanizePercentage|humanize))?)\s*\}\}/g,
      (_m, _x, label: string | undefined, fn: string | undefined) => {
        if (label) return all[label] ?? '';
        if (fn === 'humanizePercentage') return `${humanize(value * 100)}%`;
        if (fn === 'humanize') return humanize(value);
        return String(value);
      },
    );
  const annotations: Record<string, string> = {};
  for (const [k, v] of Object.entries(r.annotations)) annotations[k] = render(v);
  return { exp_labels: all, exp_annotations: annotations };
}

/** Prometheus' humanize for values from 1e-3 up: SI prefix and %.4g. */
function humanize(v: number): string {
  if (v === 0) return '0';
  let x = v;
  let prefix = '';
  const big = ['k', 'M', 'G', 'T'];
  const small = ['m', 'u', 'n'];
  if (Math.abs(x) >= 1) {
    for (const p of big) {
      if (Math.abs(x) < 1000) break;
      x /= 1000;
      prefix = p;
    }
  } else {
    for (const p of small) {
      if (Math.abs(x) >= 1) break;
      x *= 1000;
      prefix = p;
    }
  }
  return `${parseFloat(x.toPrecision(4))}${prefix}`;
}

/**
 * kube-state-metrics' series for the EndpointSlice of Service `service` whose ready count follows
 * `counts` (one entry per interval), with kube-state-metrics' default collectors (endpointslices,
 * not endpoints: pkg/options/resource.go v2.19.1): kube_endpointslice_info, and
 * kube_endpointslice_endpoints per address, ready="true" while k < count, ready="false" otherwise
 * (internal/store/endpointslice.go v2.19.1, which also writes the Terminating condition into the
 * serving label and leaves terminating empty). The slice is named as the API server names it:
 * "<service>-" cut to 58 characters, then 5 generated characters.
 */
export function endpointSeries(ns: string, service: string, counts: number[], max: number): Series[] {
  const slice = generateName(`${service}-`, 'x7k2p');
  const out: Series[] = [
    {
      series: `kube_endpointslice_info{namespace="${ns}", endpointslice="${slice}", addresstype="IPv4"}`,
      values: `1x${counts.length}`,
    },
  ];
  for (let k = 0; k < max; k++) {
    const address = `10.0.${Math.floor(k / 250)}.${(k % 250) + 1}`;
    const labels = (ready: boolean) =>
      `namespace="${ns}", endpointslice="${slice}", ready="${ready}", serving="false", targetref_kind="Pod", targetref_name="${service}-pod-${k}", targetref_namespace="${ns}", endpoint_nodename="node-${k % 3}", address="${address}"`;
    out.push({
      series: `kube_endpointslice_endpoints{${labels(true)}}`,
      values: counts.map((c) => (k < c ? '1' : 'stale')).join(' '),
    });
    out.push({
      series: `kube_endpointslice_endpoints{${labels(false)}}`,
      values: counts.map((c) => (k < c ? 'stale' : '1')).join(' '),
    });
  }
  return out;
}

/** `n` copies of `v`. */
export function repeat(v: number, n: number): number[] {
  return Array.from({ length: n }, () => v);
}

/** The PodMonitor `rollwise platform` emits for the Argo Rollouts controller. */
export const ROLLOUTS_MONITOR = rolloutsControllerMonitor();

/**
 * A series of the Argo Rollouts controller (`labels` as it exposes them: argo-rollouts v1.9.1
 * controller/metrics/prommetrics.go, namespace and name of the object described) as Prometheus
 * stores it when it scrapes the controller through `monitor`, by default `rollwise platform`'s
 * PodMonitor argo-rollouts-controller (test/support/scrape.ts).
 */
export function controllerSeries(
  metric: string,
  labels: Record<string, string>,
  values: string,
  monitor: PodMonitorObject = ROLLOUTS_MONITOR,
): Series {
  return { series: seriesText(metric, scrapedLabels(monitor, ROLLOUTS_CONTROLLER_POD, labels)), values };
}
