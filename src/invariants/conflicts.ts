import { ApiObject, Chart } from 'cdk8s';
import { Construct, IConstruct } from 'constructs';
import { arr, Json, rec, str } from '../rules/k8s';
import { RenderedApp, registerRenderCheck } from '../synth/render-checks';

/**
 * Conflicts across services, checked once per app on the final objects: two services that claim
 * the same hostname and path on one Gateway (the Gateway merges both routes and one silently wins
 * some requests), or emit an object of the same kind, namespace and name (the later apply replaces
 * the other's). Services are compared per destination cluster. Two charts writing one output file
 * are refused by the layout (synth/render.ts). And two Argo CD Applications that keep different
 * labels on one namespace (managedNamespaceMetadata), which Argo CD would swap at every sync.
 */

interface Registered {
  readonly service: Construct;
  /** The destination cluster's API server, or '' when neither environment nor platform names one. */
  readonly cluster: string;
}

/** The labels one Application keeps on its destination namespace (managedNamespaceMetadata). */
interface NamespaceClaim {
  /** The Application construct's path, and the service it deploys. */
  readonly application: string;
  readonly service: string;
  readonly server: string;
  readonly namespace: string;
  readonly labels: Readonly<Record<string, string>>;
  /** The Application object: its written destination and labels are compared (a patch may change them). */
  readonly object?: ApiObject;
}

interface Registry {
  readonly services: Registered[];
  readonly namespaces: NamespaceClaim[];
}

const registries = new WeakMap<IConstruct, Registry>();
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
  registry(service).services.push({
    service,
    get cluster() {
      return normalizeClusterUrl(declaredCluster(service) ?? platformCluster ?? '');
    },
  });
}

/** The app's registry, with its one check on the rendered objects (added once per app). */
function registry(scope: Construct): Registry {
  const root = scope.node.root;
  let r = registries.get(root);
  if (!r) {
    const created: Registry = { services: [], namespaces: [] };
    r = created;
    registries.set(root, created);
    registerDuplicateObjectsCheck(root as Construct);
    registerRenderCheck(root as Construct, (rendered) => [
      ...conflicts(created.services, rendered),
      ...namespaceConflicts(
        created.namespaces.map((c) => asWritten(c, rendered)).filter((c): c is NamespaceClaim => c !== undefined),
      ),
    ]);
  }
  return r;
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

/**
 * Registers the namespace labels an Argo CD Application keeps (called by ArgoCdApplication when it
 * sets managedNamespaceMetadata), for the app-wide check that two Applications never keep
 * different labels on one namespace of one cluster.
 */
export function registerNamespaceMetadata(application: Construct, claim: Omit<NamespaceClaim, 'application'>): void {
  registry(application).namespaces.push({
    ...claim,
    server: normalizeClusterUrl(claim.server),
    application: application.node.path,
  });
}

/**
 * A claim as the Application is written (a patch may have changed its destination or labels); an
 * Application written without managedNamespaceMetadata labels keeps none, so it claims nothing.
 */
function asWritten(c: NamespaceClaim, rendered: RenderedApp): NamespaceClaim | undefined {
  if (!c.object) return c;
  const json = rendered.objectsOf(c.object).find((x) => x.apiObject === c.object)?.json;
  if (!json) return c;
  const spec = rec(json.spec) ?? {};
  const dest = rec(spec.destination) ?? {};
  const labels = rec(rec(rec(spec.syncPolicy)?.managedNamespaceMetadata)?.labels);
  if (!labels) return undefined;
  return {
    ...c,
    server: normalizeClusterUrl(str(dest.server) ?? c.server),
    namespace: str(dest.namespace) ?? c.namespace,
    labels: labels as Record<string, string>,
  };
}

/**
 * Two Applications with the same destination namespace and different managedNamespaceMetadata
 * labels. Argo CD v3.5.1 sets the namespace's labels to the Application's own on every sync
 * (controller/sync_namespace.go syncNamespace: managedNs.SetLabels(managedNamespaceMetadata.Labels))
 * and applies it with server-side apply under one field manager for every Application,
 * "argocd-controller" (controller/sync.go WithServerSideApplyManager(ArgoCDSSAManager),
 * common/common.go), so each sync replaces the labels the other Application's sync set (a label
 * that manager applied before and omits now is removed): the Pod Security enforce level flips at
 * every sync, and pods are admitted or refused depending on which service synced last.
 */
function namespaceConflicts(list: readonly NamespaceClaim[]): string[] {
  const out: string[] = [];
  const byNamespace = new Map<string, NamespaceClaim[]>();
  for (const c of list) {
    const key = `${c.server}\u0000${c.namespace}`;
    (byNamespace.get(key) ?? byNamespace.set(key, []).get(key)!).push(c);
  }
  const shown = (l: Readonly<Record<string, string>>) =>
    JSON.stringify(Object.fromEntries(Object.entries(l).sort(([a], [b]) => a.localeCompare(b))));
  for (const claims of byNamespace.values()) {
    const first = claims[0];
    const other = claims.find((c) => shown(c.labels) !== shown(first.labels));
    if (!other) continue;
    const differ = [...new Set([...Object.keys(first.labels), ...Object.keys(other.labels)])]
      .filter((k) => first.labels[k] !== other.labels[k])
      .sort();
    out.push(
      `[${first.application}, ${other.application}] Namespace ${first.namespace} on cluster ${first.server}: ` +
        `services ${first.service} (Application ${first.application}) and ${other.service} ` +
        `(Application ${other.application}) keep different labels on it ` +
        `(managedNamespaceMetadata; ${differ
          .map((k) => `${k}: ${first.labels[k] ?? '(absent)'} ` + `vs ${other.labels[k] ?? '(absent)'}`)
          .join(', ')}). ` +
        "Argo CD sets the namespace's labels to each Application's own at every sync, with one server-side apply " +
        'field manager for all of them (argo-cd v3.5.1 controller/sync_namespace.go, controller/sync.go), so each ' +
        "sync undoes the other's: the Pod Security level flips with every sync and pods are admitted or refused by " +
        'whichever service synced last. ' +
        "Fix: give every service in the namespace one NamespacePolicy (set it once as the platform's " +
        'argoCd.namespaces), or use NamespacePolicy.existing() for all of them and own the namespace in the platform ' +
        'repository (`rollwise platform --namespace ' +
        first.namespace +
        '`).',
    );
  }
  return out;
}

const duplicateRoots = new WeakSet<IConstruct>();

/**
 * Refuses two objects with the same API group, kind, namespace and name in one synth output for
 * one cluster (added once per app; every construct that writes objects registers it). Applied
 * together, the later one silently replaces the earlier: kubectl apply applies both in order, and
 * Argo CD keeps only the last of an Application's duplicates, with a RepeatedResourceWarning
 * ("Resource ... appeared 2 times among application resources", argo-cd v3.5.1 controller/state.go
 * NormalizeTargetObjects, keyed by group, kind, namespace and name). A hand-added Service named like
 * the service's own, for instance, replaces its selector, and the service has no endpoints.
 * Objects of two different services are reported by the cross-service check above instead.
 */
export function registerDuplicateObjectsCheck(scope: Construct): void {
  const root = scope.node.root;
  if (duplicateRoots.has(root)) return;
  duplicateRoots.add(root);
  registerRenderCheck(root as Construct, (rendered) =>
    duplicateObjects(rendered, registries.get(root)?.services ?? []),
  );
}

function duplicateObjects(rendered: RenderedApp, services: readonly Registered[]): string[] {
  const owner = new Map<Json, Registered>();
  for (const r of services) for (const { json } of rendered.objectsOf(r.service)) owner.set(json, r);
  const chartCluster = new Map<IConstruct, string>();
  for (const r of services)
    if (!chartCluster.has(Chart.of(r.service))) chartCluster.set(Chart.of(r.service), r.cluster);
  const seen = new Map<string, { chart: string; owner?: Registered }>();
  const out: string[] = [];
  for (const { chart, json } of rendered.objects) {
    const svc = owner.get(json);
    const cluster = svc ? svc.cluster : normalizeClusterUrl(declaredCluster(chart) ?? chartCluster.get(chart) ?? '');
    const apiVersion = str(json.apiVersion) ?? '';
    const group = apiVersion.includes('/') ? apiVersion.split('/')[0] : '';
    const meta = rec(json.metadata) ?? {};
    const ns = str(meta.namespace) ?? '';
    const name = str(meta.name) ?? '';
    const kind = str(json.kind) ?? '';
    // ArgoCdApplication's name check reports these, naming the construct ids
    if (kind === 'Application' && group === 'argoproj.io') continue;
    const key = `${cluster}\u0000${group}\u0000${kind}\u0000${ns}\u0000${name}`;
    const prior = seen.get(key);
    if (!prior) {
      seen.set(key, { chart: chart.node.path, owner: svc });
      continue;
    }
    if (prior.owner && svc && prior.owner !== svc) continue; // two services: the cross-service check names both
    out.push(
      `${kind}${group ? `.${group}` : ''} ${ns ? `${ns}/` : ''}${name} on ${clusterLabel(cluster)}: written twice in ` +
        `one synth output (chart ${prior.chart} and chart ${chart.node.path}). Applied together, the later one ` +
        `replaces the other: Argo CD keeps only the last of an Application's duplicates (RepeatedResourceWarning, ` +
        'argo-cd v3.5.1 controller/state.go NormalizeTargetObjects), kubectl apply applies both in order. Fix: give ' +
        'the added object another name, or change the object rollwise writes with a patch instead of adding a second ' +
        'one.',
    );
  }
  return out;
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
      out.push(`[${prior.owner}, ${owner}] ${what}: claimed by both ${prior.owner} and ${owner}. Fix: ${fix}`);
    }
  };
  for (const r of list) {
    const owner = r.service.node.path;
    for (const { json: o } of rendered.objectsOf(r.service)) {
      const kind = str(o.kind) ?? '';
      const meta = rec(o.metadata) ?? {};
      const ns = str(meta.namespace) ?? '';
      const name = str(meta.name) ?? '';
      claim(
        `obj\u0000${r.cluster}\u0000${kind}\u0000${ns}\u0000${name}`,
        owner,
        `${kind} ${ns ? `${ns}/` : ''}${name} on ${clusterLabel(r.cluster)}`,
        "give the services different names or namespaces; otherwise the second apply replaces the first service's " +
          'object.',
      );
      if (kind === 'HTTPRoute') {
        for (const [gateway, host, match] of routeClaims(o, ns)) {
          claim(
            `route\u0000${r.cluster}\u0000${gateway}\u0000${host}\u0000${match}`,
            owner,
            `hostname ${host} ${match} on Gateway ${gateway} (${clusterLabel(r.cluster)})`,
            'give each service its own hostname (or distinct path prefixes); two routes matching the same requests ' +
              "split them by the Gateway's precedence rules, not by intent.",
          );
        }
      }
    }
  }
  return out;
}

/** (gateway, hostname, path match) for every combination an HTTPRoute claims. */
function routeClaims(route: Json, routeNamespace: string): [string, string, string][] {
  const spec = rec(route.spec) ?? {};
  const gateways = arr(spec.parentRefs).map(
    (p) => `${str(rec(p)?.namespace) ?? routeNamespace}/${str(rec(p)?.name) ?? ''}`,
  );
  const hosts = arr(spec.hostnames).map((h) => String(h));
  const matches = arr(spec.rules).flatMap((rule) => {
    const ms = arr(rec(rule)?.matches);
    if (ms.length === 0) return ['path PathPrefix /'];
    return ms.map((m) => {
      const path = rec(rec(m)?.path);
      const extra = Object.keys(rec(m) ?? {})
        .filter((k) => k !== 'path')
        .sort();
      return `path ${str(path?.type) ?? 'PathPrefix'} ${str(path?.value) ?? '/'}${
        extra.length ? ` (+ ${extra.join(', ')})` : ''
      }`;
    });
  });
  const out: [string, string, string][] = [];
  for (const g of gateways) for (const h of hosts) for (const m of matches) out.push([g, h, m]);
  return out;
}
