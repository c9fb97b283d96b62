/**
 * The `rollwise.dev/...` annotation keys. The constructs write them; `rollwise explain` and
 * `rollwise lint` read them, so a manifest from any source can declare the same facts.
 */
export const ANNOTATIONS = {
  /** One "<field path>: <reason>" line per decided field (e.g. `spec.minReadySeconds: A new pod ...`). */
  reasons: 'rollwise.dev/reasons',
  /** The same line format, for values a user overrode: field path -> the override's reason. */
  overrides: 'rollwise.dev/overrides',
  /** The readiness handler's measured p99 under peak load, in seconds (e.g. "0.25"). */
  readinessP99Seconds: 'rollwise.dev/readiness-p99-seconds',
  /** "true" when the readiness handler calls a dependency. */
  readinessCallsDependency: 'rollwise.dev/readiness-calls-dependency',
  /** Peak requests per second for the whole service. */
  peakRps: 'rollwise.dev/peak-rps',
  /** Per-replica request rate at which the handler saturates. */
  saturationRpsPerReplica: 'rollwise.dev/saturation-rps-per-replica',
  /** Requests per second for the whole service at the time releases usually happen (sizes the canary's volume gate). */
  releaseRps: 'rollwise.dev/release-rps',
  /**
   * The application server's idle keep-alive in seconds, "none" when it closes the connection
   * after each response, or "unlimited" when it never closes idle connections. Written on the Service (the backend a
   * route points at) and the workload.
   */
  appKeepAliveSeconds: 'rollwise.dev/app-keepalive-seconds',
  /** Lint suppressions: one "<rule-id>: <reason>" line per suppressed rule; the reason is required. */
  suppress: 'rollwise.dev/suppress',
} as const;

/**
 * Field path segments: "spec.template.spec.containers[0].readinessProbe" ->
 * ["spec","template","spec","containers",0,"readinessProbe"]; a key with dots or slashes is quoted:
 * 'metadata.annotations["argocd.argoproj.io/hook"]' -> ["metadata","annotations","argocd.argoproj.io/hook"].
 */
export function parseFieldPath(path: string): (string | number)[] {
  const out: (string | number)[] = [];
  const token = /(?:^|\.)([^.[\]"]+)|\[(\d+)\]|\["((?:[^"\\]|\\.)*)"\]/y;
  let at = 0;
  while (at < path.length) {
    token.lastIndex = at;
    const m = token.exec(path);
    if (!m || (m[1] !== undefined && at > 0 && path[at] !== '.'))
      throw new Error(`bad field path "${path}" at "${path.slice(at)}"`);
    out.push(m[1] ?? (m[2] !== undefined ? Number(m[2]) : m[3].replace(/\\(.)/g, '$1')));
    at = token.lastIndex;
  }
  if (out.length === 0) throw new Error(`bad field path "${path}"`);
  return out;
}

/**
 * The value at a field path of the reasons' notation ("spec.template.spec.containers[0].image"):
 * a [n] segment indexes only a list, a name only an object; undefined where the path leads nowhere.
 */
export function valueAtPath(obj: unknown, path: string): unknown {
  let cur: unknown = obj;
  for (const seg of parseFieldPath(path)) {
    if (typeof seg === 'number') cur = Array.isArray(cur) ? cur[seg] : undefined;
    else
      cur =
        cur !== null && typeof cur === 'object' && !Array.isArray(cur)
          ? (cur as Record<string, unknown>)[seg]
          : undefined;
    if (cur === undefined) return undefined;
  }
  return cur;
}
