/**
 * The series `measure` and `verify` read, with their selectors for one service. Each source names
 * the exporter and the upstream file that defines the series, and how to get it scraped when it is
 * missing.
 */

import { generatedNameRegex, podOwnerSelector, replicaSetRegex } from '../decisions/generated-names';

/**
 * Where ready endpoints are read from (kube-state-metrics collects EndpointSlices by default, Endpoints only when
 * listed in --resources).
 */
export type EndpointsSource = 'endpointslices' | 'endpoints';

/** The service whose series are read. */
export interface ServiceTarget {
  /** The service's name (its Service, HTTPRoute and workload are named after it). */
  readonly name: string;
  readonly namespace: string;
  /**
   * The container that serves (and is probed).
   * @default "app" (the container HttpService's pod template renders)
   */
  readonly container?: string;
  /**
   * Where ready endpoints come from: kube-state-metrics' EndpointSlice metrics (in its default
   * collectors) or its Endpoints metrics (only with `endpoints` in --resources).
   * @default 'endpointslices'
   */
  readonly endpoints?: EndpointsSource;
  /**
   * Where desired replicas come from.
   * @default 'rollout' (HttpService delivers with an Argo Rollout by default)
   */
  readonly workload?: 'rollout' | 'deployment';
}

export interface MetricSource {
  /** The metric name to check for. */
  readonly metric: string;
  /** The exporter and the upstream definition, for reasons and messages. */
  readonly source: string;
  /** How to get the series when Prometheus has none. */
  readonly enable: string;
}

/*
 * Upstream facts behind these sources, checked in the upstream code (file, version):
 * - kubelet: prober_probe_total{probe_type, result, container, pod, namespace, pod_uid} and
 *   prober_probe_duration_seconds{probe_type, container, pod, namespace} (no Buckets option, so the
 *   client's default buckets 5 ms .. 10 s), probe_type "Readiness" from probeType.String(), results
 *   "successful" / "failed" / "unknown": pkg/kubelet/prober/prober_manager.go; durations observed
 *   for Success and Unknown only, failures only counted: pkg/kubelet/prober/worker.go doProbe;
 *   served on /metrics/probes: pkg/kubelet/server/server.go proberMetricsPath (kubernetes/kubernetes
 *   master as held by the code index; not pinned to a release here).
 * - kube-prometheus-stack values.yaml: kubelet.serviceMonitor.cAdvisor and .probes, both true.
 * - cAdvisor metrics/prometheus.go: the CFS counters carry condition Cpu.Quota != 0.
 * - kube-state-metrics v2.19.1: internal/store/endpointslice.go (kube_endpointslice_endpoints{
 *   endpointslice, ready, address}, collected by default) and endpoint.go (kube_endpoint_address{ip,
 *   ready}, only with "endpoints" in --resources: pkg/options/resource.go DefaultResources lists
 *   endpointslices, not endpoints); pod.go (kube_pod_status_ready{condition}, kube_pod_owner{owner_kind,
 *   owner_name}); deployment.go (kube_deployment_spec_replicas).
 * - Pods are selected by owner, never by name: the API server cuts a pod's generateName to 58
 *   characters (src/decisions/generated-names.ts, docs/mechanisms.md#generated-names).
 * - Argo Rollouts v1.9.1 controller/metrics/prommetrics.go (rollout_info_replicas_desired).
 * - Envoy Gateway v1.9.0 charts/gateway-addons-helm/dashboards/envoy-clusters.json queries
 *   envoy_cluster_upstream_rq_total and envoy_cluster_upstream_rq_xx{envoy_response_code_class}
 *   by envoy_cluster_name "httproute/<ns>/<route>/rule/<n>".
 */
export const SOURCES = {
  probeDuration: {
    metric: 'prober_probe_duration_seconds_bucket',
    source:
      "the kubelet's readiness probe durations (prober_probe_duration_seconds, kubelet /metrics/probes; " +
      'kubernetes pkg/kubelet/prober/prober_manager.go; observed for successful probes only, worker.go doProbe)',
    enable:
      "scrape the kubelet's /metrics/probes endpoint (port 10250, HTTPS, bearer token): kube-prometheus-stack " +
      'does with kubelet.serviceMonitor.probes: true; otherwise add a scrape job with metrics_path: /metrics/probes ' +
      'next to your /metrics/cadvisor job.',
  },
  probeTotal: {
    metric: 'prober_probe_total',
    source:
      'the kubelet\'s probe results (prober_probe_total{probe_type="Readiness", result}, kubelet ' +
      "/metrics/probes; kubernetes pkg/kubelet/prober/prober_manager.go; a result's series appears at its first " +
      'probe, and timeouts and error status codes are both result="failed")',
    enable:
      "scrape the kubelet's /metrics/probes endpoint (kube-prometheus-stack: kubelet.serviceMonitor.probes: " +
      'true).',
  },
  requests: {
    metric: 'envoy_cluster_upstream_rq_total',
    source:
      "Envoy's per-route cluster counters via Envoy Gateway " +
      '(envoy_cluster_upstream_rq_total{envoy_cluster_name="httproute/<ns>/<route>/rule/<n>"}, /stats/prometheus on ' +
      "port 19001; the names Envoy Gateway v1.9.0's own dashboards query, " +
      'charts/gateway-addons-helm/dashboards/envoy-clusters.json)',
    enable:
      "scrape the Envoy proxies' /stats/prometheus (port 19001) with a PodMonitor on the Envoy Gateway proxy " +
      "pods (Envoy Gateway's observability docs), and keep the default cluster stat names (no EnvoyProxy " +
      'telemetry.metrics.clusterStatName).',
  },
  responseClasses: {
    metric: 'envoy_cluster_upstream_rq_xx',
    source:
      "Envoy's response-class counters (envoy_cluster_upstream_rq_xx{envoy_response_code_class}; a class's " +
      'series exists only after its first response, source/common/http/codes.cc)',
    enable: "scrape the Envoy proxies' /stats/prometheus (port 19001).",
  },
  remoteResets: {
    metric: 'envoy_cluster_upstream_cx_destroy_remote_with_active_rq',
    source:
      "Envoy's count of upstream connections the pod closed with a request in flight " +
      '(envoy_cluster_upstream_cx_destroy_remote_with_active_rq, the keep-alive race signature, ' +
      'docs/mechanisms.md#keep-alive-race)',
    enable: "scrape the Envoy proxies' /stats/prometheus (port 19001).",
  },
  idleTimeouts: {
    metric: 'envoy_cluster_upstream_cx_idle_timeout',
    source:
      "Envoy's count of upstream connections it closed as idle (envoy_cluster_upstream_cx_idle_timeout: the " +
      'proxy closing first)',
    enable: "scrape the Envoy proxies' /stats/prometheus (port 19001).",
  },
  cpu: {
    metric: 'container_cpu_usage_seconds_total',
    source: "cAdvisor's CPU usage (container_cpu_usage_seconds_total, kubelet /metrics/cadvisor)",
    enable: "scrape the kubelet's /metrics/cadvisor (kube-prometheus-stack: kubelet.serviceMonitor.cAdvisor: true).",
  },
  cfs: {
    metric: 'container_cpu_cfs_periods_total',
    source:
      "cAdvisor's CFS counters (container_cpu_cfs_throttled_periods_total / container_cpu_cfs_periods_total, " +
      'kubelet /metrics/cadvisor; exported only for containers with a CFS quota, i.e. a CPU limit: google/cadvisor ' +
      'metrics/prometheus.go, condition Cpu.Quota != 0)',
    enable: 'nothing to enable: without a CPU limit there is no CFS quota and no throttling.',
  },
  readyEndpointSlices: {
    metric: 'kube_endpointslice_endpoints',
    source:
      "kube-state-metrics' EndpointSlice endpoints (kube_endpointslice_endpoints{endpointslice, ready, " +
      'address}, one series per address; kube-state-metrics v2.19.1 internal/store/endpointslice.go, collected by ' +
      'default)',
    enable:
      'run kube-state-metrics with the endpointslices resource (in its defaults; check its --resources flag) ' +
      'and scrape it.',
  },
  readyEndpoints: {
    metric: 'kube_endpoint_address',
    source:
      "kube-state-metrics' endpoint addresses (kube_endpoint_address{ready}, one series per address; " +
      'kube-state-metrics v2.19.1 internal/store/endpoint.go; not collected by default)',
    enable:
      'kube-state-metrics collects Endpoints only with "endpoints" in --resources (its defaults list ' +
      'endpointslices instead: pkg/options/resource.go, v2.19.1); add it, or read EndpointSlices (the default, ' +
      '--endpoints endpointslices).',
  },
  podOwner: {
    metric: 'kube_pod_owner',
    source:
      'kube-state-metrics\' pod owners (kube_pod_owner{owner_kind="ReplicaSet", owner_name}, collected by ' +
      "default; v2.19.1 internal/store/pod.go): the service's pods are those of its ReplicaSets " +
      '<name>-<pod-template-hash>',
    enable: 'run kube-state-metrics (pods are on by default) and scrape it.',
  },
  podReady: {
    metric: 'kube_pod_status_ready',
    source:
      "kube-state-metrics' pod Ready condition (kube_pod_status_ready{namespace, pod, condition}, 0/1 per " +
      'condition; kube-state-metrics v2.19.1 internal/store/pod.go)',
    enable: 'run kube-state-metrics (pods are on by default) and scrape it.',
  },
  rolloutDesired: {
    metric: 'rollout_info_replicas_desired',
    source:
      "the Argo Rollouts controller's desired replicas (rollout_info_replicas_desired{namespace, name}, " +
      "namespace the Rollout's; argo-rollouts v1.9.1 controller/metrics/prommetrics.go)",
    enable:
      "scrape the Argo Rollouts controller's metrics port (8090) with honorLabels: true, which keeps the " +
      "controller's namespace label: rollwise platform's PodMonitor argo-rollouts-controller does " +
      '(docs/cluster.md).',
  },
  deploymentDesired: {
    metric: 'kube_deployment_spec_replicas',
    source:
      "kube-state-metrics' desired replicas (kube_deployment_spec_replicas; kube-state-metrics v2.19.1 " +
      'internal/store/deployment.go)',
    enable: 'run kube-state-metrics (deployments are on by default) and scrape it.',
  },
} satisfies Record<string, MetricSource>;

/** Selectors and query builders for one service. `w` is a PromQL range such as "1h". */
export class ServiceQueries {
  /**
   * The kubelet's and cAdvisor's series of the service's container in its namespace (pods are then selected by owner).
   */
  public readonly pods: string;
  /** kube_pod_owner of the service's ReplicaSets. */
  public readonly owner: string;
  public readonly route: string;
  public readonly ready: string;
  public readonly readySource: MetricSource;
  /** The selector that must have series for the ready count to mean anything. */
  public readonly readySelector: string;
  public readonly desired: string;
  public readonly desiredSource: MetricSource;
  /** The selector that must have series for the desired replicas to mean anything. */
  public readonly desiredSelector: string;
  public readonly container: string;

  constructor(public readonly target: ServiceTarget) {
    const ns = target.namespace;
    this.container = target.container ?? 'app';
    this.pods = `namespace="${ns}", container="${this.container}"`;
    this.owner = podOwnerSelector(ns, `owner_name=~"${replicaSetRegex(target.name)}"`);
    this.route = `envoy_cluster_name=~"httproute/${ns}/${target.name}/rule/.*"`;
    // Zero ready endpoints leave no ready="true" series: count falls back to 0.
    if ((target.endpoints ?? 'endpointslices') === 'endpointslices') {
      // A Service's slices are named <service>- cut to 58 characters plus 5 generated ones.
      this.readySelector = `namespace="${ns}", endpointslice=~"${generatedNameRegex(`${target.name}-`)}"`;
      this.ready =
        `(count(group by (address) (kube_endpointslice_endpoints{${this.readySelector}, ready="true"})) ` +
        'or on() vector(0))';
      this.readySource = SOURCES.readyEndpointSlices;
    } else {
      this.readySelector = `namespace="${ns}", endpoint="${target.name}"`;
      this.ready =
        `(count(group by (ip) (kube_endpoint_address{${this.readySelector}, ready="true"})) or on() ` + 'vector(0))';
      this.readySource = SOURCES.readyEndpoints;
    }
    const rollout = (target.workload ?? 'rollout') === 'rollout';
    this.desiredSelector = rollout
      ? `namespace="${ns}", name="${target.name}"`
      : `namespace="${ns}", ` + `deployment="${target.name}"`;
    this.desired = rollout
      ? `max(rollout_info_replicas_desired{${this.desiredSelector}})`
      : `max(kube_deployment_spec_replicas{${this.desiredSelector}})`;
    this.desiredSource = rollout ? SOURCES.rolloutDesired : SOURCES.deploymentDesired;
  }

  /**
   * `expr` (a per-pod vector) restricted to the service's pods: those whose owner is one of its ReplicaSets at some
   * time in `w`.
   */
  owned(expr: string, w: string): string {
    return `${expr} and on(namespace, pod) max_over_time(${this.owner}[${w}])`;
  }

  /** The service's pods over the window (one sample per pod, labels namespace and pod). */
  ownedPods(w: string): string {
    return `max by (namespace, pod) (max_over_time(${this.owner}[${w}]))`;
  }

  /** Requests over the window ending at the evaluation time. */
  requests(w: string): string {
    return `sum(increase(envoy_cluster_upstream_rq_total{${this.route}}[${w}]))`;
  }

  probeQuantile(q: number, w: string): string {
    return `histogram_quantile(${q}, ${this.probeBuckets(w)})`;
  }

  /** Cumulative readiness-probe bucket counts over the window, per le (to read the bucket bounds). */
  probeBuckets(w: string): string {
    return (
      'sum by (le) ' +
      `(${this.owned(`increase(prober_probe_duration_seconds_bucket{probe_type="Readiness", ${this.pods}}[${w}])`, w)})`
    );
  }

  /**
   * Raw samples of the readiness probe counters of the namespace's container (read as counters in code, and filtered to
   * the service's pods: a series born in the window counts from 0).
   */
  probeResultsRaw(result: 'failed' | 'successful', w: string): string {
    return `prober_probe_total{probe_type="Readiness", result="${result}", ${this.pods}}[${w}]`;
  }

  /** Pods reporting readiness probes over the window (the fleet measured). */
  probedPods(w: string): string {
    return (
      'count(count by (pod) ' +
      `(${this.owned(`increase(prober_probe_total{probe_type="Readiness", ${this.pods}}[${w}])`, w)}))`
    );
  }

  cpuSeconds(w: string): string {
    return `sum(${this.owned(`increase(container_cpu_usage_seconds_total{${this.pods}}[${w}])`, w)})`;
  }

  throttledRatio(w: string): string {
    return (
      `sum(${this.owned(`increase(container_cpu_cfs_throttled_periods_total{${this.pods}}[${w}])`, w)}) / ` +
      `sum(${this.owned(`increase(container_cpu_cfs_periods_total{${this.pods}}[${w}])`, w)})`
    );
  }

  /** The route's 5xx ratio: an absent 5xx series (no 5xx yet) is 0 while requests exist; no requests is no sample. */
  errorRatio(w: string): string {
    return (
      `(sum(increase(envoy_cluster_upstream_rq_xx{${this.route}, envoy_response_code_class="5"}[${w}])) or on() ` +
      `vector(0)) / sum(increase(envoy_cluster_upstream_rq_xx{${this.route}}[${w}]))`
    );
  }

  counterRaw(metric: string, w: string): string {
    return `${metric}{${this.route}}[${w}]`;
  }

  /** Ready endpoints / desired replicas, sampled every `step` over the window (a subquery). */
  readyRatioMin(w: string, step: string): string {
    return `min_over_time((${this.ready} / ${this.desired})[${w}:${step}])`;
  }

  readyAvg(w: string, step: string): string {
    return `avg_over_time(${this.ready}[${w}:${step}])`;
  }
}
