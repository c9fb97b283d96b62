import { Construct, IConstruct } from 'constructs';
import { arr, Json, rec, str } from '../rules/k8s';
import { RenderedApp, registerRenderCheck } from '../synth/render-checks';

/**
 * Conflicts across services, checked once per app on the final objects: two services that claim
 * the same hostname and path on one Gateway (the Gateway merges both routes and one silently wins
 * some requests), or emit an object of the same kind, namespace and name (the later apply replaces
 * the other's). Services are compared per destination cluster. Two charts writing one output file
 * are refused by the layout (synth/render.ts).
 */

interface Registered {
  readonly service: Construct;
  /** The destination cluster's API server, or '' when neither environment nor platform names one. */
  readonly cluster: string;
}

const services = new WeakMap<IConstruct, Registered[]>();
const clusters = new WeakMap<IConstruct, string>();

/** Declares the cluster a chart's objects are applied to (Environment.addChart does). */
export function declareCluster(chart: Construct, server: string): void {
  clusters.set(chart, server);
}

function declaredCluster(scope: Construct): string | undefined {
  for (let c: IConstruct | undefined = scope; c; c = c.node.scope) {
    const s = clusters.get(c);
    if (s !== undefined) return s;
  }
  return undefined;
}

/**
 * Registers a service for the app-wide conflict check (called once per HttpService). Its cluster
 * is its environment's destination, else `platformCluster` (the platform's Argo CD server).
 */
export function registerForConflicts(service: Construct, platformCluster: string | undefined): void {
  const root = service.node.root;
  let list = services.get(root);
  if (!list) {
    list = [];
    services.set(root, list);
    const registered = list;
    registerRenderCheck(root as Construct, (r) => conflicts(registered, r));
  }
  list.push({ service, get cluster() { return normalizeClusterUrl(declaredCluster(service) ?? platformCluster ?? ''); } });
}

/**
 * One spelling per API server, so that two services on the same cluster are compared even when
 * their destinations are written differently: scheme and host lower-cased (both are
 * case-insensitive, RFC 3986 section 3.1 and 3.2.2), the default port 443 of https dropped, a
 * trailing "/" dropped. Argo CD itself matches destinations by the exact server string (it
 * normalizes nothing), so two spellings of one cluster are still two registrations there, but
 * the objects land in one cluster either way.
 */
export function normalizeClusterUrl(server: string): string {
  const m = /^([a-zA-Z][a-zA-Z0-9+.-]*):\/\/([^/?#]*)(.*)$/.exec(server.trim());
  if (!m) return server.trim();
  const scheme = m[1].toLowerCase();
  let host = m[2].toLowerCase();
  if (scheme === 'https' && host.endsWith(':443')) host = host.slice(0, -4);
  const rest = m[3].replace(/\/+$/, '');
  return `${scheme}://${host}${rest}`;
}

function clusterLabel(c: string): string {
  return c === '' ? 'the one cluster (no Argo CD destination set)' : `cluster ${c}`;
}

function conflicts(list: readonly Registered[], rendered: RenderedApp): string[] {
  const claims = new Map<string, { owner: string; what: string }>();
  const out: string[] = [];
  const claim = (key: string, owner: string, what: string, fix: string): void => {
    const prior = claims.get(key);
    if (!prior) {
      claims.set(key, { owner, what });
    } else if (prior.owner !== owner) {
      out.push(`${what}: claimed by both ${prior.owner} and ${owner}. Fix: ${fix}`);
    }
  };
  for (const r of list) {
    const owner = r.service.node.path;
    for (const { json: o } of rendered.objectsOf(r.service)) {
      const kind = str(o.kind) ?? '';
      const meta = rec(o.metadata) ?? {};
      const ns = str(meta.namespace) ?? '';
      const name = str(meta.name) ?? '';
      claim(`obj\u0000${r.cluster}\u0000${kind}\u0000${ns}\u0000${name}`, owner,
        `${kind} ${ns ? `${ns}/` : ''}${name} on ${clusterLabel(r.cluster)}`,
        'give the services different names or namespaces; otherwise the second apply replaces the first service\'s object.');
      if (kind === 'HTTPRoute') {
        for (const [gateway, host, match] of routeClaims(o, ns)) {
          claim(`route\u0000${r.cluster}\u0000${gateway}\u0000${host}\u0000${match}`, owner,
            `hostname ${host} ${match} on Gateway ${gateway} (${clusterLabel(r.cluster)})`,
            'give each service its own hostname (or distinct path prefixes); two routes matching the same requests split them by the Gateway\'s precedence rules, not by intent.');
        }
      }
    }
  }
  return out;
}

/** (gateway, hostname, path match) for every combination an HTTPRoute claims. */
function routeClaims(route: Json, routeNamespace: string): [string, string, string][] {
  const spec = rec(route.spec) ?? {};
  const gateways = arr(spec.parentRefs).map((p) => `${str(rec(p)?.namespace) ?? routeNamespace}/${str(rec(p)?.name) ?? ''}`);
  const hosts = arr(spec.hostnames).map((h) => String(h));
  const matches = arr(spec.rules).flatMap((rule) => {
    const ms = arr(rec(rule)?.matches);
    if (ms.length === 0) return ['path PathPrefix /'];
    return ms.map((m) => {
      const path = rec(rec(m)?.path);
      const extra = Object.keys(rec(m) ?? {}).filter((k) => k !== 'path').sort();
      return `path ${str(path?.type) ?? 'PathPrefix'} ${str(path?.value) ?? '/'}${extra.length ? ` (+ ${extra.join(', ')})` : ''}`;
    });
  });
  const out: [string, string, string][] = [];
  for (const g of gateways) for (const h of hosts) for (const m of matches) out.push([g, h, m]);
  return out;
}
