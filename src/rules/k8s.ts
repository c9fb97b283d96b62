import { requirementMatches } from '../checks/go-values';
import { LintObject, Manifest } from './source';

/** Kubernetes probe defaults (reference: "Kubernetes probe and rollout defaults"). */
export const PROBE_DEFAULTS = {
  timeoutSeconds: 1,
  periodSeconds: 10,
  successThreshold: 1,
  failureThreshold: 3,
  initialDelaySeconds: 0,
} as const;

export type Json = Record<string, unknown>;

export function rec(x: unknown): Json | undefined {
  return typeof x === 'object' && x !== null && !Array.isArray(x) ? (x as Json) : undefined;
}

export function arr(x: unknown): unknown[] {
  return Array.isArray(x) ? x : [];
}

/** An integer field; digit strings (as some templates render them) count too. */
export function int(x: unknown): number | undefined {
  if (typeof x === 'number' && Number.isFinite(x)) return x;
  if (typeof x === 'string' && /^\d+$/.test(x)) return Number(x);
  return undefined;
}

export function str(x: unknown): string | undefined {
  return typeof x === 'string' ? x : undefined;
}

/** A probe with the Kubernetes defaults filled in. */
export interface ProbeTiming {
  readonly timeoutSeconds: number;
  readonly periodSeconds: number;
  readonly successThreshold: number;
  readonly failureThreshold: number;
  readonly initialDelaySeconds: number;
}

export function probeTiming(p: Json): ProbeTiming {
  return {
    timeoutSeconds: int(p.timeoutSeconds) ?? PROBE_DEFAULTS.timeoutSeconds,
    periodSeconds: int(p.periodSeconds) ?? PROBE_DEFAULTS.periodSeconds,
    successThreshold: int(p.successThreshold) ?? PROBE_DEFAULTS.successThreshold,
    failureThreshold: int(p.failureThreshold) ?? PROBE_DEFAULTS.failureThreshold,
    initialDelaySeconds: int(p.initialDelaySeconds) ?? PROBE_DEFAULTS.initialDelaySeconds,
  };
}

/** The probe handler (httpGet, tcpSocket, exec, grpc) as a comparable string. */
export function probeHandler(p: Json): string {
  for (const k of ['httpGet', 'tcpSocket', 'exec', 'grpc']) if (p[k] !== undefined) return `${k}:${stableJson(p[k])}`;
  return 'none';
}

export function stableJson(x: unknown): string {
  if (Array.isArray(x)) return `[${x.map(stableJson).join(',')}]`;
  const r = rec(x);
  if (r)
    return `{${Object.keys(r)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${stableJson(r[k])}`)
      .join(',')}}`;
  return JSON.stringify(x);
}

/** Kinds whose pod template lives in `spec.template`. */
export const WORKLOAD_KINDS = ['Deployment', 'StatefulSet', 'DaemonSet', 'Rollout'] as const;

/**
 * Kinds whose pods serve behind a Service and are probed: the workloads, plus bare Pods and
 * ReplicaSets (`kubectl get -o yaml` output, operators that create them directly). Jobs and CronJobs
 * run to completion and take no Service traffic; the probe rules do not apply to them, and the run
 * counts them as skipped kinds.
 */
export const PROBED_KINDS = [...WORKLOAD_KINDS, 'ReplicaSet', 'Pod'] as const;

/**
 * Probe handlers that run inside the container and share its CPU quota (an HTTP or gRPC handler of
 * the application, or a command the kubelet execs in the container's cgroup). A tcpSocket probe is a
 * TCP connect the kernel completes on the listening socket's backlog: it does not run
 * application code, so it does not slow down with the handler (docs/mechanisms.md#readiness-control-loop,
 * #liveness-vs-readiness).
 */
export const IN_PROCESS_HANDLERS = ['httpGet', 'grpc', 'exec'] as const;

/** The in-process handler kind of a probe (httpGet, grpc, exec), or undefined (tcpSocket, none). */
export function inProcessHandler(p: Json | undefined): (typeof IN_PROCESS_HANDLERS)[number] | undefined {
  if (!p) return undefined;
  return IN_PROCESS_HANDLERS.find((k) => p[k] !== undefined);
}

export function isWorkload(o: LintObject): boolean {
  return (WORKLOAD_KINDS as readonly string[]).includes(o.kind);
}

/** A container of a workload's pod template with its field path. */
export interface ContainerRef {
  readonly c: Json;
  readonly name: string;
  readonly path: string;
}

/** The pod template's spec (a Pod's own spec), or undefined (e.g. a Rollout with `workloadRef`). */
export function podSpec(o: LintObject): Json | undefined {
  if (o.kind === 'Pod') return rec(o.obj.spec);
  return rec(rec(rec(o.obj.spec)?.template)?.spec);
}

/** The field path of the pod spec: `spec` for a Pod, `spec.template.spec` otherwise. */
export function podSpecPath(o: LintObject): string {
  return o.kind === 'Pod' ? 'spec' : 'spec.template.spec';
}

/** The pod template's labels; without a template (Rollout workloadRef), the selector's matchLabels. */
export function podLabels(o: LintObject): Record<string, string> {
  const spec = rec(o.obj.spec);
  if (o.kind === 'Pod') return (rec(rec(o.obj.metadata)?.labels) ?? {}) as Record<string, string>;
  const labels = rec(rec(rec(spec?.template)?.metadata)?.labels) ?? rec(rec(spec?.selector)?.matchLabels) ?? {};
  return labels as Record<string, string>;
}

/**
 * The pod labels a PDB would have to select: the template's, or for a Rollout with `workloadRef`
 * those of the referenced Deployment in the Rollout's scope. Empty for an incomplete object (a
 * kustomize patch with only `spec.replicas`, a fixture without labels).
 */
export function workloadLabels(o: LintObject, index: KindIndex): Record<string, string> {
  const own = podLabels(o);
  if (Object.keys(own).length > 0 || o.kind !== 'Rollout') return own;
  const ref = rec(rec(o.obj.spec)?.workloadRef);
  const r = ref && str(ref.name) ? index.scopes.resolve(o, str(ref.kind) ?? 'Deployment', str(ref.name)!) : undefined;
  return r && 'found' in r ? podLabels(r.found) : own;
}

/** The object whose pod template a workload runs: a Rollout's workloadRef target in its scope, else itself. */
export function templateOwner(o: LintObject, index: KindIndex): LintObject {
  if (o.kind !== 'Rollout' || podSpec(o)) return o;
  const ref = rec(rec(o.obj.spec)?.workloadRef);
  const r = ref && str(ref.name) ? index.scopes.resolve(o, str(ref.kind) ?? 'Deployment', str(ref.name)!) : undefined;
  return r && 'found' in r ? r.found : o;
}

export function containers(o: LintObject): ContainerRef[] {
  const spec = podSpec(o);
  if (!spec) return [];
  const regular = arr(spec.containers).flatMap((c, i) => {
    const r = rec(c);
    return r ? [{ c: r, name: str(r.name) ?? `#${i}`, path: `${podSpecPath(o)}.containers[${i}]` }] : [];
  });
  // Native sidecars (init containers with restartPolicy Always) run beside the app for the pod's
  // whole life and their readiness counts toward the pod's, so every container rule applies to them.
  const sidecars = arr(spec.initContainers).flatMap((c, i) => {
    const r = rec(c);
    return r && r.restartPolicy === 'Always'
      ? [{ c: r, name: str(r.name) ?? `#init${i}`, path: `spec.template.spec.initContainers[${i}]` }]
      : [];
  });
  return [...regular, ...sidecars];
}

export function replicasOf(o: LintObject): number | undefined {
  return int(rec(o.obj.spec)?.replicas);
}

/** Where a workload's replica count comes from: its own field, or the autoscaler that owns it. */
export interface ReplicaCount {
  /** The fewest replicas the workload runs with (an autoscaler's floor). */
  readonly min: number;
  /** The most (equal to min without an autoscaler). */
  readonly max: number;
  /** The object and field that decided it, for messages. */
  readonly source: string;
  /** The autoscaler, when one owns the count. */
  readonly scaler?: LintObject;
  readonly path: string;
}

/** The outcome of looking up a reference by name in the referring object's scope. */
export type Resolution =
  /** Exactly one object of that kind and name in scope. */
  | { readonly found: LintObject }
  /** Several in scope: the rule does not pick one. */
  | { readonly ambiguous: readonly LintObject[] }
  /** None in scope; `elsewhere` lists objects of that kind and name in other applications or namespaces. */
  | { readonly missing: true; readonly elsewhere: readonly LintObject[] };

/**
 * The run's objects by scope: the part of the engine's ScopeIndex (scope.ts) these helpers read,
 * declared here so k8s.ts imports nothing from the modules built on it.
 */
export interface KindIndex {
  readonly scopes: {
    resolve(from: LintObject, kind: string, name: string): Resolution;
    inScope(from: LintObject, kind: string): LintObject[];
  };
}

/**
 * The workload's replica count, taking an autoscaler into account: a HorizontalPodAutoscaler or a
 * KEDA ScaledObject whose scaleTargetRef names the workload owns `spec.replicas` (it overwrites it).
 * HPA `minReplicas` defaults to 1 (autoscaling/v2 API: "It defaults to 1 pod"). KEDA: an unset
 * `minReplicaCount` means scale to zero (the HPA it creates gets its floor of 1 only while active)
 * and an unset `maxReplicaCount` becomes 100 (kedacore/keda pkg/handler/scale_handler.go,
 * defaultHPAMaxReplicas; KEDA is not mirrored at a pinned tag here).
 * Without an autoscaler: `spec.replicas`, default 1 (apps/v1; Argo Rollouts likewise,
 * pkg/apis/rollouts/v1alpha1/types.go v1.9.1: "Defaults to 1"). DaemonSets and Pods have no count.
 */
export function replicaCount(o: LintObject, index: KindIndex): ReplicaCount | undefined {
  if (!['Deployment', 'StatefulSet', 'Rollout', 'ReplicaSet'].includes(o.kind)) return undefined;
  const targets = (ref: unknown, defaultKind: string): boolean => {
    const r = rec(ref);
    return !!r && str(r.name) === o.name && (str(r.kind) ?? defaultKind) === o.kind;
  };
  // Only autoscalers deployed with the workload (scope.ts): an HPA of another application that names
  // a workload of the same name scales that application's workload, not this one.
  for (const hpa of index.scopes.inScope(o, 'HorizontalPodAutoscaler')) {
    const spec = rec(hpa.obj.spec);
    if (!targets(spec?.scaleTargetRef, '')) continue;
    const min = int(spec?.minReplicas) ?? 1;
    const max = int(spec?.maxReplicas) ?? min;
    return {
      min,
      max: Math.max(min, max),
      source:
        `${hpa.ref} ` + `minReplicas ${min}${spec?.minReplicas === undefined ? ' (default)' : ''}, maxReplicas ${max}`,
      scaler: hpa,
      path: 'spec.minReplicas',
    };
  }
  for (const so of index.scopes.inScope(o, 'ScaledObject')) {
    const spec = rec(so.obj.spec);
    if (!targets(spec?.scaleTargetRef, 'Deployment')) continue;
    const min = int(spec?.minReplicaCount) ?? 0;
    const max = int(spec?.maxReplicaCount) ?? 100;
    return {
      min,
      max: Math.max(min, max),
      source:
        `${so.ref} ` +
        `minReplicaCount ${min}${spec?.minReplicaCount === undefined ? ' (default)' : ''}, ` +
        `maxReplicaCount ${max}${spec?.maxReplicaCount === undefined ? ' (default)' : ''}`,
      scaler: so,
      path: 'spec.minReplicaCount',
    };
  }
  const raw = rec(o.obj.spec)?.replicas;
  const n = int(raw);
  if (raw !== undefined && n === undefined) return undefined;
  const v = n ?? 1;
  return {
    min: v,
    max: v,
    source: `spec.replicas ${v}${raw === undefined ? ' (default)' : ''}`,
    path: 'spec.replicas',
  };
}

/** A Kubernetes label selector (`matchLabels` + `matchExpressions`) against a label set. */
export function selectorMatches(selector: unknown, labels: Record<string, string>): boolean {
  const s = rec(selector);
  if (!s) return false;
  const ml = rec(s.matchLabels) ?? {};
  for (const [k, v] of Object.entries(ml)) if (labels[k] !== v) return false;
  for (const e of arr(s.matchExpressions)) {
    const x = rec(e);
    if (!x) return false;
    // An operator none of the four: the selector selects nothing.
    if (requirementMatches(x.operator, str(x.key) ?? '', arr(x.values).map(String), labels) !== true) return false;
  }
  return true;
}

/**
 * A Service's plain `spec.selector` map against a label set: true only when the selector has a key
 * and every key/value is in the labels. kubernetes/apimachinery v0.32.4 pkg/labels/selector.go:
 * SelectorFromSet makes one Equals requirement per key, and internalSelector.Matches needs every
 * requirement to match (Requirement.Matches: the key must be present with that value). An empty or
 * absent selector selects nothing here: the endpoints controllers skip a Service whose
 * spec.selector is nil ("services without a selector receive no endpoints from this controller",
 * kubernetes/kubernetes pkg/controller/endpoint/endpoints_controller.go syncService, read in the
 * code index's copies, no tag).
 */
export function serviceSelects(svc: Manifest, labels: Record<string, string>): boolean {
  const sel = rec(rec(svc.spec)?.selector);
  if (!sel || Object.keys(sel).length === 0) return false;
  return Object.entries(sel).every(([k, v]) => labels[k] === v);
}

/**
 * Port names that say a Service port is for scraping, not for requests: any name holding `metrics`
 * (`metrics`, `http-metrics`, `https-metrics`, metallb's `metricshttps` and `frrmetricshttps`),
 * and `monitoring`: our choice of the names scrape
 * configs and ServiceMonitors commonly select ports by (a convention, not an upstream rule). Not
 * `prometheus`: Sock Shop's Prometheus Service (microservices-demo deploy/kubernetes/
 * manifests-monitoring/07-prometheus-svc.yaml) names so the port people query (test/rules/
 * error-rules.test.ts). A pod that is not ready or absent for a moment costs such a Service a missed
 * scrape, not a failed request. A port with any other name (`http`, `grpc`, `graphql-api`, or a
 * product's own name) counts as serving.
 */
const METRICS_PORT = /metrics|^monitoring$/i;

/**
 * A Service every one of whose ports is named for metrics (METRICS_PORT). A Service without ports,
 * or with an unnamed port, is not: nothing says what it carries.
 */
export function metricsOnlyService(svc: Manifest): boolean {
  const ports = arr(rec(svc.spec)?.ports).map(rec);
  if (ports.length === 0) return false;
  return ports.every((p) => typeof p?.name === 'string' && METRICS_PORT.test(p.name));
}

/**
 * Port names that say a port carries no requests (our reading of common names, not an upstream
 * rule): those for metrics (METRICS_PORT), those for health checks (any name holding `health`,
 * `liveness` or `readiness`: `healthz`, `http-health`; kubernetes-csi/csi-driver-nfs v3.1.0 deploy/
 * csi-nfs-controller.yaml declares only `healthz`, for its livenessProbe), and placeholders (any
 * name holding `unused` or `dummy`). A placeholder Service gives a client workload the identity a
 * service mesh keys on: Open Service Mesh's bookbuyer demo has one port, `dummy-unused-port` 9999,
 * that nothing listens on (denniszielke/container_demos osm/osm-full.yaml, held-out set 5).
 */
const NON_SERVING_PORT = /metrics|^monitoring$|health|liveness|readiness|unused|dummy/i;

/** A port name that says the port carries no requests (NON_SERVING_PORT). */
export function nonServingPortName(name: unknown): boolean {
  return typeof name === 'string' && NON_SERVING_PORT.test(name);
}

/**
 * A Service every one of whose ports is named as carrying no requests (nonServingPortName):
 * metrics, health checks, placeholders. A Service without ports, or with an unnamed port, is not:
 * nothing says what it carries. The port's name is what is read, not whether its targetPort
 * matches a declared containerPort: the list of container ports is informational ("Not specifying
 * a port here DOES NOT prevent that port from being exposed", kubernetes/api v0.32.4 core/v1/
 * types.go Container.Ports), so a Service to an undeclared port may well reach a listener.
 */
export function nonServingService(svc: Manifest): boolean {
  const ports = arr(rec(svc.spec)?.ports).map(rec);
  if (ports.length === 0) return false;
  return ports.every((p) => nonServingPortName(p?.name));
}

/**
 * Containers that declare a port that may carry requests: a containerPort that is unnamed or whose
 * name is not one of NON_SERVING_PORT's. A pod whose only declared port is a health or metrics port
 * (a leader-elected controller's `healthz`) does not say it serves.
 */
export function declaresServingPort(refs: readonly ContainerRef[]): boolean {
  return refs.some((ref) => arr(ref.c.ports).some((p) => !nonServingPortName(rec(p)?.name)));
}

/** An int-or-percent (`25%`, `1`) scaled to a total, rounding as the controllers do. */
export function scaleIntOrPercent(x: unknown, total: number, roundUp: boolean): number | undefined {
  const n = int(x);
  if (n !== undefined) return n;
  if (typeof x === 'string') {
    const m = /^(\d+(?:\.\d+)?)%$/.exec(x.trim());
    if (!m) return undefined;
    const v = (Number(m[1]) * total) / 100;
    return roundUp ? Math.ceil(v) : Math.floor(v);
  }
  return undefined;
}

/** A CPU quantity in cores ("250m" -> 0.25, "1.5" -> 1.5, 2 -> 2). */
export function cpuCores(x: unknown): number | undefined {
  if (typeof x === 'number') return x;
  if (typeof x !== 'string') return undefined;
  const m = /^(\d+(?:\.\d+)?)(m?)$/.exec(x.trim());
  if (!m) return undefined;
  return m[2] === 'm' ? Number(m[1]) / 1000 : Number(m[1]);
}

/** A Gateway API / Go duration ("3s", "1m30s", "500ms", "1h") in seconds. */
export function durationSeconds(x: unknown): number | undefined {
  if (typeof x !== 'string') return undefined;
  const t = x.trim();
  if (!/^(\d+(\.\d+)?(h|m|s|ms))+$/.test(t)) return undefined;
  let total = 0;
  for (const m of t.matchAll(/(\d+(?:\.\d+)?)(ms|h|m|s)/g)) {
    const v = Number(m[1]);
    total += m[2] === 'h' ? v * 3600 : m[2] === 'm' ? v * 60 : m[2] === 's' ? v : v / 1000;
  }
  return total;
}

/** "0.25" -> "0.25 s", "1" -> "1 s". */
export function secs(n: number): string {
  return `${Number(n.toFixed(3))} s`;
}

/**
 * The operator an object's `app.kubernetes.io/managed-by` label names, or undefined. A value that
 * names a deploy tool (Helm, kustomize, Argo CD, kubectl, Flux: tools that apply what they render)
 * is not one; a value with "operator" in it, or OLM, is: the operator reads the file as a template
 * and writes its own object (openshift/cluster-monitoring-operator labels every file of assets/
 * `cluster-monitoring-operator`). The label means "the tool being used to manage the operation of
 * an application" (kubernetes/website content/en/docs/concepts/overview/working-with-objects/
 * common-labels.md, whose example is helm).
 */
export function operatorManagedBy(o: { readonly obj: Record<string, unknown> }): string | undefined {
  const manager = str(rec(rec(o.obj.metadata)?.labels)?.['app.kubernetes.io/managed-by']);
  return manager !== undefined && /operator|^olm$/i.test(manager) ? manager : undefined;
}

/**
 * A headless Service (clusterIP: None) without ports: the API server accepts it only because it is
 * headless (ValidateService: `spec.ports` is required unless clusterIP is None or the type is
 * ExternalName), and its EndpointSlices carry no port ("Allow headless service not to have ports",
 * getEndpointPorts in k8s.io/endpointslice utils.go; both read in the code index's copies of
 * kubernetes/kubernetes). It gives the pods DNS names, the identity a StatefulSet's serviceName
 * asks for; it says nothing about a port that carries requests
 * (luksa/kubernetes-in-action-2nd-edition Chapter16/sts.demo-parallel.yaml: busybox `sleep
 * infinity` behind one, judged wrong as serving on held-out set 6).
 */
export function dnsOnlyService(svc: Manifest): boolean {
  const spec = rec(svc.spec);
  return spec?.clusterIP === 'None' && arr(spec.ports).length === 0;
}

/**
 * Whether a workload's pods serve requests: a Service deployed with it routes to them on a port
 * that may carry requests (not nonServingService, not dnsOnlyService), or a container declares such
 * a port (declaresServingPort; its Service may live elsewhere). A workload that does neither (a
 * placeholder, a batch loop, a demo that sleeps) has no traffic for survivors to take over.
 */
export function servesRequests(o: LintObject, index: KindIndex, labels: Record<string, string>): boolean {
  return (
    index.scopes
      .inScope(o, 'Service')
      .some((s) => serviceSelects(s.obj, labels) && !nonServingService(s.obj) && !dnsOnlyService(s.obj)) ||
    declaresServingPort(containers(templateOwner(o, index)))
  );
}
