import { Chart, Testing } from 'cdk8s';
import { ClusterPrerequisites } from '../../src/constructs/cluster-prerequisites';

/**
 * What Prometheus stores for a series an exporter exposes, when it scrapes the exporter's pod
 * through a PodMonitor, so that test data has the labels the real scrape gives it:
 *
 * - The Prometheus Operator's target labels (prometheus-operator v0.93.0 pkg/prometheus/promcfg.go
 *   generatePodMonitorConfig): `namespace` <- __meta_kubernetes_namespace (the scraped pod's
 *   namespace), `container`, `pod`, `job` = "<monitor namespace>/<monitor name>" (no jobLabel), and
 *   `endpoint` = the endpoint's port name; `instance` is Prometheus' default, __address__, which the
 *   pod role sets to the pod IP and the container port.
 * - `honor_labels` is the endpoint's honorLabels (promcfg.go AddHonorLabels; false when unset,
 *   pkg/apis/monitoring/v1/podmonitor_types.go PodMetricsEndpoint.HonorLabels).
 * - Prometheus scrape/scrape.go mutateSampleLabels: with honor_labels true a target label is added
 *   only where the metric has no label of that name; with false every target label is set, and a
 *   metric label it replaces is kept as exported_<name>.
 */
export interface PodMonitorObject {
  readonly metadata: { readonly name: string; readonly namespace: string };
  readonly spec: {
    readonly podMetricsEndpoints: ReadonlyArray<{ readonly port?: string; readonly honorLabels?: boolean }>;
  };
}

export interface ScrapedPod {
  readonly namespace: string;
  readonly name: string;
  readonly container: string;
  readonly ip: string;
  /** The container port the endpoint's port name resolves to. */
  readonly port: number;
}

export function scrapedLabels(
  monitor: PodMonitorObject,
  pod: ScrapedPod,
  exposed: Record<string, string>,
): Record<string, string> {
  const ep = monitor.spec.podMetricsEndpoints[0];
  const target: Record<string, string> = {
    namespace: pod.namespace,
    container: pod.container,
    pod: pod.name,
    job: `${monitor.metadata.namespace}/${monitor.metadata.name}`,
    ...(ep.port ? { endpoint: ep.port } : {}),
    instance: `${pod.ip}:${pod.port}`,
  };
  const out: Record<string, string> = { ...exposed };
  for (const [k, v] of Object.entries(target)) {
    if (ep.honorLabels === true) {
      if (!(k in exposed) || exposed[k] === '') out[k] = v;
    } else {
      if (exposed[k]) out[`exported_${k}`] = exposed[k];
      out[k] = v;
    }
  }
  return out;
}

/** `metric{k="v", ...}` in promtool's series notation. */
export function seriesText(metric: string, labels: Record<string, string>): string {
  return `${metric}{${Object.entries(labels)
    .map(([k, v]) => `${k}="${v}"`)
    .join(', ')}}`;
}

/** The PodMonitor `rollwise platform` emits for the Argo Rollouts controller (ClusterPrerequisites defaults). */
export function rolloutsControllerMonitor(): PodMonitorObject {
  const app = Testing.app();
  const chart = new Chart(app, 'platform');
  new ClusterPrerequisites(chart, 'platform', { pluginSha256: 'a'.repeat(64) });
  const m = Testing.synth(chart).find((o) => o.kind === 'PodMonitor' && o.metadata.name === 'argo-rollouts-controller');
  if (!m) throw new Error('ClusterPrerequisites emitted no PodMonitor argo-rollouts-controller');
  return m as PodMonitorObject;
}

/**
 * The controller's pod as argo-rollouts v1.9.1 manifests/base/argo-rollouts-deployment.yaml runs it:
 * Deployment argo-rollouts in namespace argo-rollouts, container argo-rollouts, port "metrics" 8090.
 */
export const ROLLOUTS_CONTROLLER_POD: ScrapedPod = {
  namespace: 'argo-rollouts',
  name: 'argo-rollouts-6d9f8c7b5d-x2x4q',
  container: 'argo-rollouts',
  ip: '10.244.1.17',
  port: 8090,
};

/** `monitor` as an endpoint without honorLabels: the operator's default, and the argo-rollouts Helm chart's ServiceMonitor. */
export function withoutHonorLabels(monitor: PodMonitorObject): PodMonitorObject {
  return {
    ...monitor,
    spec: {
      ...monitor.spec,
      podMetricsEndpoints: monitor.spec.podMetricsEndpoints.map(({ honorLabels: _drop, ...ep }) => ep),
    },
  };
}
