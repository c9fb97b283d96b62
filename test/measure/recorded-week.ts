/**
 * A recorded week of the exporters' series for checkout-api, as OpenMetrics for promtool's
 * backfill. Each family has the name, labels and type its exporter gives it:
 *
 * - Pods are named as the API server names them, "<replicaset>-" cut to 58 characters then 5
 *   generated characters (apiserver pkg/storage/names/generate.go), and the container is "app", the
 *   one HttpService renders.
 * - kubelet /metrics/probes: `prober_probe_total{probe_type, result, container, pod, namespace,
 *   pod_uid}` (counter; a result's series is created at its first probe, so "failed" appears only
 *   at the first failure) and `prober_probe_duration_seconds{probe_type, container, pod, namespace}`
 *   (histogram with the client's default buckets 5 ms .. 10 s; observed for successful and unknown
 *   probes only, never for failures). kubernetes/kubernetes pkg/kubelet/prober/prober_manager.go
 *   and worker.go (doProbe).
 * - kubelet /metrics/cadvisor: `container_cpu_usage_seconds_total{container, pod, namespace, cpu}`
 *   and, only for containers with a CFS quota (a CPU limit), `container_cpu_cfs_periods_total` and
 *   `container_cpu_cfs_throttled_periods_total` (google/cadvisor metrics/prometheus.go: condition
 *   Cpu.Quota != 0).
 * - kube-state-metrics v2.19.1 with its default collectors (pkg/options/resource.go: endpointslices,
 *   not endpoints): internal/store/endpointslice.go `kube_endpointslice_info{namespace, endpointslice,
 *   addresstype}` and `kube_endpointslice_endpoints{namespace, endpointslice, ready, serving,
 *   targetref_*, endpoint_nodename, address}`, one series per address, ready="false" while not Ready
 *   (the v2.19.1 code writes the Terminating condition into serving and leaves terminating empty);
 *   the slice is named "<service>-" plus 5 generated characters. Only where `endpointsCollector` is
 *   set (a --resources list with "endpoints") also internal/store/endpoint.go `kube_endpoint_info`
 *   and `kube_endpoint_address{namespace, endpoint, ip, ready, port_*}`. internal/store/pod.go:
 *   `kube_pod_status_ready{namespace, pod, uid, condition}`, 0/1 per condition (the "unknown"
 *   condition, always 0 here, is left out), and `kube_pod_owner{namespace, pod, uid, owner_kind,
 *   owner_name, owner_is_controller}`.
 * - Argo Rollouts v1.9.1 controller/metrics/prommetrics.go: `rollout_info_replicas_desired{namespace,
 *   name}`, as Prometheus stores it when it scrapes the controller through `rollwise platform`'s
 *   PodMonitor (honorLabels: the Rollout's namespace kept, the target's job, pod, container,
 *   endpoint and instance added; test/support/scrape.ts), or, where `controllerWithoutHonorLabels`
 *   is set, through a monitor without honorLabels (namespace="argo-rollouts",
 *   exported_namespace="<the Rollout's>").
 * - Envoy (via Envoy Gateway's /stats/prometheus): `envoy_cluster_upstream_rq_total`,
 *   `envoy_cluster_upstream_rq_xx{envoy_response_code_class}` (a class's series exists only after
 *   its first response: source/common/http/codes.cc), `envoy_cluster_upstream_cx_idle_timeout`,
 *   `envoy_cluster_upstream_cx_destroy_remote_with_active_rq` (in the cluster's traffic-stats block,
 *   which Envoy Gateway's deferred stats create at the cluster's first request, every counter at 0:
 *   0 from the start of a route with traffic), all with `envoy_cluster_name="httproute/<ns>/<route>/rule/0"`. Envoy names counters
 *   by the stat itself and appends no `_total` (upstream_rq_total is the stat's own name), so in the
 *   OpenMetrics text, which requires `_total` on counter samples, they are typed `unknown` to keep
 *   the exact names (the TSDB stores no types). Envoy Gateway v1.9.0's dashboards query these names
 *   (charts/gateway-addons-helm/dashboards/envoy-clusters.json: irate(envoy_cluster_upstream_rq_xx)).
 *
 * Samples every minute (a 1-minute scrape), 4 pods, 2026-11-22 00:00 to 2026-11-29 00:00 UTC.
 * Lunchtime (12:00-13:00 UTC) is the daily peak; Tuesday 2026-11-24 is the busiest.
 */

import * as fs from 'fs';
import { generateName, podName } from '../../src/decisions/generated-names';
import {
  rolloutsControllerMonitor,
  ROLLOUTS_CONTROLLER_POD,
  scrapedLabels,
  withoutHonorLabels,
} from '../support/scrape';

export const WEEK_START = Date.UTC(2026, 10, 22) / 1000;
export const WEEK_END = Date.UTC(2026, 10, 29) / 1000;
export const STEP = 60;
export const SERVICE = 'checkout-api';
export const PODS = 4;
/** The readiness probe period of the recorded pods (probes per minute = 60 / period). */
const PROBES_PER_MINUTE = 6;
/** The default buckets of the kubelet's probe duration histogram (prometheus.DefBuckets). */
export const BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

export interface Incident {
  /** Minutes after Tuesday 12:00 during which two pods' readiness probes time out. */
  readonly timeoutsFromMinute: number;
  readonly timeoutsToMinute: number;
}

/** A deliberate experiment: one pod's listener is stopped for 5 minutes (its probes all fail). */
export interface ListenerStop {
  readonly podIndex: number;
  /** Seconds since the epoch. */
  readonly at: number;
}

/** The default buckets of the Python prometheus_client (a uvicorn app's own HTTP histogram). */
const APP_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10];

export interface RecordedService {
  readonly namespace: string;
  /**
   * The service's name.
   * @default SERVICE
   */
  readonly name?: string;
  /** kube-state-metrics also collects Endpoints (kube_endpoint_*), besides its default EndpointSlices. */
  readonly endpointsCollector?: boolean;
  /**
   * The days recorded (seconds since the epoch), within the week.
   * @default the whole week
   */
  readonly recorded?: { readonly from: number; readonly to: number };
  /** A pod replaced with a surge on Wednesday at 12:29 (a node drain). */
  readonly replacement?: boolean;
  /** The app exports its own request histogram, `http_request_duration_seconds{handler}`. */
  readonly appHistogram?: boolean;
  readonly listenerStop?: ListenerStop;
  /** Containers have a CPU limit (CFS series exist). */
  readonly cpuLimit: boolean;
  /** The Argo Rollouts controller is scraped without honorLabels (the argo-rollouts Helm chart's ServiceMonitor). */
  readonly controllerWithoutHonorLabels?: boolean;
  readonly incident?: Incident;
}

/** Total request rate of the route at time t (seconds), in req/s. */
export function offeredLoad(t: number): number {
  const d = new Date(t * 1000);
  const h = d.getUTCHours() + d.getUTCMinutes() / 60;
  const day = d.getUTCDay();
  const weekend = day === 0 || day === 6;
  if (h >= 12 && h < 13) return weekend ? 1800 : day === 2 ? 3700 : 3200;
  const daytime = h >= 7 && h < 19 ? Math.sin((Math.PI * (h - 7)) / 12) : 0;
  return 300 + (weekend ? 500 : 1100) * daytime;
}

/** Fractions of readiness probes per duration bucket (upper bounds) at a per-pod load. */
function probeLatency(perPodRps: number): Array<[number, number]> {
  const u = perPodRps / 1000;
  if (u < 0.3)
    return [
      [0.01, 0.5],
      [0.025, 0.45],
      [0.05, 0.05],
    ];
  if (u < 0.75)
    return [
      [0.025, 0.6],
      [0.05, 0.35],
      [0.1, 0.045],
      [0.25, 0.005],
    ];
  return [
    [0.025, 0.4],
    [0.05, 0.3],
    [0.1, 0.15],
    [0.25, 0.1],
    [0.5, 0.05],
  ];
}

type Labels = Record<string, string>;
interface Series {
  family: string;
  name: string;
  labels: Labels;
  samples: Array<[number, number]>;
}

class Recorder {
  private readonly series = new Map<string, Series>();
  private readonly types = new Map<string, string>();

  add(family: string, type: string, name: string, labels: Labels, t: number, v: number): void {
    this.types.set(family, type);
    const key = `${name}${JSON.stringify(labels)}`;
    let s = this.series.get(key);
    if (!s) {
      s = { family, name, labels, samples: [] };
      this.series.set(key, s);
    }
    s.samples.push([t, v]);
  }

  /**
   * Writes the OpenMetrics text to `file`, a few thousand lines at a time: a week of three services
   * is over half a gigabyte, more than one JavaScript string holds.
   */
  writeTo(file: string): void {
    const fd = fs.openSync(file, 'w');
    try {
      let buf: string[] = [];
      const flush = () => {
        if (buf.length) fs.writeSync(fd, `${buf.join('\n')}\n`);
        buf = [];
      };
      for (const [family, type] of this.types) {
        buf.push(`# TYPE ${family} ${type}`);
        for (const s of this.series.values()) {
          if (s.family !== family) continue;
          const l = Object.entries(s.labels)
            .map(([k, v]) => `${k}="${v}"`)
            .join(',');
          for (const [t, v] of s.samples) {
            buf.push(`${s.name}{${l}} ${Number.isInteger(v) ? v : v.toFixed(6)} ${t}`);
            if (buf.length >= 20000) flush();
          }
        }
      }
      buf.push('# EOF');
      flush();
    } finally {
      fs.closeSync(fd);
    }
  }
}

const TUESDAY_NOON = Date.UTC(2026, 10, 24, 12) / 1000;
const ROLLOUTS_MONITOR = rolloutsControllerMonitor();
export const WEDNESDAY_REPLACEMENT = Date.UTC(2026, 10, 25, 12, 29) / 1000;

/** The ReplicaSet of the recorded pods (one pod-template hash all week). */
export const HASH = '6f7c9d8b5';
/** The name the API server gives pod `i` of service `name` in the namespace numbered `nsIndex`. */
export function recordedPod(name: string, nsIndex: number, i: number): string {
  return podName(`${name}-${HASH}`, `${'bcdfghjk'[i]}${'45678'[nsIndex]}x${'2456'[i % 4]}q`);
}

function recordService(rec: Recorder, svc: RecordedService, nsIndex: number): void {
  const ns = svc.namespace;
  const name = svc.name ?? SERVICE;
  const slice = generateName(`${name}-`, `s${'45678'[nsIndex]}lcq`);
  // Wednesday 12:29 a node is drained with a surge: pod e starts (not Ready at its first scrape,
  // its series begin then), is Ready at 12:30, and pod c leaves at 12:31 (its series end).
  const replaced = svc.replacement ? WEDNESDAY_REPLACEMENT : undefined;
  const pods = Array.from({ length: PODS + (replaced ? 1 : 0) }, (_, i) => ({
    name: recordedPod(name, nsIndex, i),
    uid: `0000000${nsIndex}-0000-4000-8000-00000000000${i}`,
    ip: `10.${nsIndex}.0.${10 + i}`,
    from: replaced && i === PODS ? replaced : -Infinity,
    readyFrom: replaced && i === PODS ? replaced + 60 : -Infinity,
    to: replaced && i === 2 ? replaced + 120 : Infinity,
  }));
  // Cumulative counters per pod.
  const buckets = pods.map(() => BUCKETS.map(() => 0));
  const appBuckets = pods.map(() => APP_BUCKETS.map(() => 0));
  const carry = pods.map(() => BUCKETS.map(() => 0));
  const probeSum = pods.map(() => 0);
  const ok = pods.map(() => 0);
  const failed = pods.map(() => 0);
  const failedSeen = pods.map(() => false);
  const cpu = pods.map(() => 0);
  const periods = pods.map(() => 0);
  const throttled = pods.map(() => 0);
  let rq = 0;
  let rq2 = 0;
  let rq5 = 0;
  let rq5Seen = false;
  let idle = 0;
  let resets = 0;
  const cluster = `httproute/${ns}/${name}/rule/0`;
  const inc = svc.incident;
  const controllerMonitor = svc.controllerWithoutHonorLabels ? withoutHonorLabels(ROLLOUTS_MONITOR) : ROLLOUTS_MONITOR;

  for (let t = svc.recorded?.from ?? WEEK_START; t <= (svc.recorded?.to ?? WEEK_END); t += STEP) {
    const minute = (t - TUESDAY_NOON) / 60;
    const timingOut = inc !== undefined && minute >= inc.timeoutsFromMinute && minute < inc.timeoutsToMinute;
    // Pods 0 and 1 leave the endpoints 3 minutes after their probes start failing (3 misses at a
    // 10 s period, at most a scrape late) and return once probes pass again.
    // A stopped listener: every probe fails; the pod is not Ready at the next scrape (3 misses at a
    // 10 s period take 30 s) and Ready again one scrape after the listener returns.
    const ls = svc.listenerStop;
    const stopped = (i: number) => ls !== undefined && i === ls.podIndex && t > ls.at && t <= ls.at + 300;
    const stoppedNotReady = (i: number) => ls !== undefined && i === ls.podIndex && t > ls.at && t <= ls.at + 360;
    const alive = (i: number) => t >= pods[i].from && t < pods[i].to;
    const notReady = (i: number) =>
      t < pods[i].readyFrom || (timingOut && i < 2 && minute >= inc!.timeoutsFromMinute + 3 + i) || stoppedNotReady(i);
    const readyCount = pods.filter((_, i) => alive(i) && !notReady(i)).length;
    const load = offeredLoad(t);
    const perPod = load / readyCount;

    for (let i = 0; i < pods.length; i++) {
      if (!alive(i)) continue;
      const p = pods[i];
      const podLabels = { container: 'app', pod: p.name, namespace: ns };
      // Readiness probes this minute: failures (timeouts) are counted, never observed.
      const fails = stopped(i) ? PROBES_PER_MINUTE : timingOut && i < 2 ? 3 : 0;
      const fractions = probeLatency(notReady(i) ? 0 : perPod);
      for (const [le, f] of fractions) {
        const b = BUCKETS.indexOf(le);
        carry[i][b] += f * (PROBES_PER_MINUTE - fails);
        const whole = Math.floor(carry[i][b] + 1e-9);
        carry[i][b] -= whole;
        for (let j = b; j < BUCKETS.length; j++) buckets[i][j] += whole;
        // The handler answers each successful probe in the same bucket the kubelet measured.
        for (let j = APP_BUCKETS.indexOf(le); j < APP_BUCKETS.length; j++) appBuckets[i][j] += whole;
        ok[i] += whole;
        probeSum[i] += whole * le * 0.7;
      }
      failed[i] += fails;
      for (let j = 0; j < BUCKETS.length; j++) {
        rec.add(
          'prober_probe_duration_seconds',
          'histogram',
          'prober_probe_duration_seconds_bucket',
          { probe_type: 'Readiness', ...podLabels, le: String(BUCKETS[j]) },
          t,
          buckets[i][j],
        );
      }
      rec.add(
        'prober_probe_duration_seconds',
        'histogram',
        'prober_probe_duration_seconds_bucket',
        { probe_type: 'Readiness', ...podLabels, le: '+Inf' },
        t,
        ok[i],
      );
      rec.add(
        'prober_probe_duration_seconds',
        'histogram',
        'prober_probe_duration_seconds_count',
        { probe_type: 'Readiness', ...podLabels },
        t,
        ok[i],
      );
      rec.add(
        'prober_probe_duration_seconds',
        'histogram',
        'prober_probe_duration_seconds_sum',
        { probe_type: 'Readiness', ...podLabels },
        t,
        probeSum[i],
      );
      if (svc.appHistogram) {
        const appLabels = { namespace: ns, pod: p.name, container: 'app', handler: '/healthz', method: 'GET' };
        for (let j = 0; j < APP_BUCKETS.length; j++) {
          rec.add(
            'http_request_duration_seconds',
            'histogram',
            'http_request_duration_seconds_bucket',
            { ...appLabels, le: String(APP_BUCKETS[j]) },
            t,
            appBuckets[i][j],
          );
        }
        rec.add(
          'http_request_duration_seconds',
          'histogram',
          'http_request_duration_seconds_bucket',
          { ...appLabels, le: '+Inf' },
          t,
          appBuckets[i][APP_BUCKETS.length - 1],
        );
        rec.add(
          'http_request_duration_seconds',
          'histogram',
          'http_request_duration_seconds_count',
          appLabels,
          t,
          appBuckets[i][APP_BUCKETS.length - 1],
        );
      }
      const probeLabels = { probe_type: 'Readiness', container: 'app', pod: p.name, namespace: ns, pod_uid: p.uid };
      rec.add('prober_probe', 'counter', 'prober_probe_total', { ...probeLabels, result: 'successful' }, t, ok[i]);
      if (failed[i] > 0) failedSeen[i] = true;
      if (failedSeen[i])
        rec.add('prober_probe', 'counter', 'prober_probe_total', { ...probeLabels, result: 'failed' }, t, failed[i]);

      const served = notReady(i) ? 0 : perPod;
      cpu[i] += served * 0.0002 * STEP + 0.01 * STEP;
      rec.add(
        'container_cpu_usage_seconds',
        'counter',
        'container_cpu_usage_seconds_total',
        { ...podLabels, cpu: 'total' },
        t,
        cpu[i],
      );
      if (svc.cpuLimit) {
        periods[i] += 10 * STEP; // 100 ms CFS periods
        throttled[i] += Math.round(10 * STEP * (perPod >= 750 ? 0.4 : 0.02));
        rec.add('container_cpu_cfs_periods', 'counter', 'container_cpu_cfs_periods_total', podLabels, t, periods[i]);
        rec.add(
          'container_cpu_cfs_throttled_periods',
          'counter',
          'container_cpu_cfs_throttled_periods_total',
          podLabels,
          t,
          throttled[i],
        );
      }
      const podReady = { namespace: ns, pod: p.name, uid: p.uid };
      rec.add(
        'kube_pod_status_ready',
        'gauge',
        'kube_pod_status_ready',
        { ...podReady, condition: 'true' },
        t,
        notReady(i) ? 0 : 1,
      );
      rec.add(
        'kube_pod_status_ready',
        'gauge',
        'kube_pod_status_ready',
        { ...podReady, condition: 'false' },
        t,
        notReady(i) ? 1 : 0,
      );
      rec.add(
        'kube_pod_owner',
        'gauge',
        'kube_pod_owner',
        { ...podReady, owner_kind: 'ReplicaSet', owner_name: `${name}-${HASH}`, owner_is_controller: 'true' },
        t,
        1,
      );
      rec.add(
        'kube_endpointslice_endpoints',
        'gauge',
        'kube_endpointslice_endpoints',
        {
          namespace: ns,
          endpointslice: slice,
          ready: String(!notReady(i)),
          serving: 'false',
          targetref_kind: 'Pod',
          targetref_name: p.name,
          targetref_namespace: ns,
          endpoint_nodename: `node-${i}`,
          address: p.ip,
        },
        t,
        1,
      );
      if (svc.endpointsCollector) {
        rec.add(
          'kube_endpoint_address',
          'gauge',
          'kube_endpoint_address',
          {
            namespace: ns,
            endpoint: name,
            port_protocol: 'TCP',
            port_number: '8080',
            port_name: 'http',
            ip: p.ip,
            ready: String(!notReady(i)),
          },
          t,
          1,
        );
      }
    }
    rec.add(
      'kube_endpointslice_info',
      'gauge',
      'kube_endpointslice_info',
      { namespace: ns, endpointslice: slice, addresstype: 'IPv4' },
      t,
      1,
    );
    if (svc.endpointsCollector)
      rec.add('kube_endpoint_info', 'gauge', 'kube_endpoint_info', { namespace: ns, endpoint: name }, t, 1);
    rec.add(
      'rollout_info_replicas_desired',
      'gauge',
      'rollout_info_replicas_desired',
      scrapedLabels(controllerMonitor, ROLLOUTS_CONTROLLER_POD, { namespace: ns, name }),
      t,
      PODS,
    );

    const requests = Math.round(load * STEP);
    // Only the incident's cascade sends 503s; a single pod leaving at low load costs none.
    const errors = timingOut && readyCount < PODS ? Math.round(requests * 0.2) : 0;
    rq += requests - errors;
    rq2 += requests - errors;
    rq5 += errors;
    idle += Math.round(load / 100);
    if (inc && minute === inc.timeoutsFromMinute + 9) resets += 3;
    if (errors > 0) rq5Seen = true;
    const c = { envoy_cluster_name: cluster };
    rec.add('envoy_cluster_upstream_rq', 'counter', 'envoy_cluster_upstream_rq_total', c, t, rq);
    rec.add(
      'envoy_cluster_upstream_rq_xx',
      'unknown',
      'envoy_cluster_upstream_rq_xx',
      { ...c, envoy_response_code_class: '2' },
      t,
      rq2,
    );
    if (rq5Seen)
      rec.add(
        'envoy_cluster_upstream_rq_xx',
        'unknown',
        'envoy_cluster_upstream_rq_xx',
        { ...c, envoy_response_code_class: '5' },
        t,
        rq5,
      );
    rec.add('envoy_cluster_upstream_cx_idle_timeout', 'unknown', 'envoy_cluster_upstream_cx_idle_timeout', c, t, idle);
    rec.add(
      'envoy_cluster_upstream_cx_destroy_remote_with_active_rq',
      'unknown',
      'envoy_cluster_upstream_cx_destroy_remote_with_active_rq',
      c,
      t,
      resets,
    );
  }
}

/** The recorded week of every given service, as one OpenMetrics file. */
export function recordedWeek(services: readonly RecordedService[], file: string): void {
  const rec = new Recorder();
  services.forEach((s, i) => recordService(rec, s, i + 1));
  rec.writeTo(file);
}
