import { LintObject, Manifest } from './source';

/** Kubernetes probe defaults (reference: "Kubernetes probe and rollout defaults"). */
export const PROBE_DEFAULTS = { timeoutSeconds: 1, periodSeconds: 10, successThreshold: 1, failureThreshold: 3, initialDelaySeconds: 0 } as const;

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
  if (r) return `{${Object.keys(r).sort().map((k) => `${JSON.stringify(k)}:${stableJson(r[k])}`).join(',')}}`;
  return JSON.stringify(x);
}

/** Kinds whose pod template lives in `spec.template`. */
export const WORKLOAD_KINDS = ['Deployment', 'StatefulSet', 'DaemonSet', 'Rollout'] as const;

export function isWorkload(o: LintObject): boolean {
  return (WORKLOAD_KINDS as readonly string[]).includes(o.kind);
}

/** A container of a workload's pod template with its field path. */
export interface ContainerRef {
  readonly c: Json;
  readonly name: string;
  readonly path: string;
}

/** The pod template's spec, or undefined (e.g. a Rollout with `workloadRef`). */
export function podSpec(o: LintObject): Json | undefined {
  return rec(rec(rec(o.obj.spec)?.template)?.spec);
}

/** The pod template's labels; without a template (Rollout workloadRef), the selector's matchLabels. */
export function podLabels(o: LintObject): Record<string, string> {
  const spec = rec(o.obj.spec);
  const labels = rec(rec(rec(spec?.template)?.metadata)?.labels) ?? rec(rec(spec?.selector)?.matchLabels) ?? {};
  return labels as Record<string, string>;
}

export function containers(o: LintObject): ContainerRef[] {
  const spec = podSpec(o);
  if (!spec) return [];
  const regular = arr(spec.containers).flatMap((c, i) => {
    const r = rec(c);
    return r ? [{ c: r, name: str(r.name) ?? `#${i}`, path: `spec.template.spec.containers[${i}]` }] : [];
  });
  // Native sidecars (init containers with restartPolicy Always) run beside the app for the pod's
  // whole life and their readiness counts toward the pod's, so every container rule applies to them.
  const sidecars = arr(spec.initContainers).flatMap((c, i) => {
    const r = rec(c);
    return r && r.restartPolicy === 'Always' ? [{ c: r, name: str(r.name) ?? `#init${i}`, path: `spec.template.spec.initContainers[${i}]` }] : [];
  });
  return [...regular, ...sidecars];
}

export function replicasOf(o: LintObject): number | undefined {
  return int(rec(o.obj.spec)?.replicas);
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
    const key = str(x.key) ?? '';
    const values = arr(x.values).map(String);
    const has = Object.prototype.hasOwnProperty.call(labels, key);
    switch (x.operator) {
      case 'In': if (!has || !values.includes(labels[key])) return false; break;
      case 'NotIn': if (has && values.includes(labels[key])) return false; break;
      case 'Exists': if (!has) return false; break;
      case 'DoesNotExist': if (has) return false; break;
      default: return false;
    }
  }
  return true;
}

/** A Service's plain `spec.selector` map against a label set (an empty selector selects nothing here). */
export function serviceSelects(svc: Manifest, labels: Record<string, string>): boolean {
  const sel = rec(rec(svc.spec)?.selector);
  if (!sel || Object.keys(sel).length === 0) return false;
  return Object.entries(sel).every(([k, v]) => labels[k] === v);
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
