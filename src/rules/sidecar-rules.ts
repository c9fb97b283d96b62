import {
  isCloudSqlProxyImage,
  isCloudSqlProxyV1Image,
  proxyHealthProblems,
  proxyListenerProblems,
  ProxyContainer,
  proxyV1HealthProblems,
  readinessDialsDatabase,
} from '../checks/cloud-sql-proxy';
import { arr, ContainerRef, containers, int, Json, PROBED_KINDS, rec, str } from './k8s';
import { RuleDefinition } from './rule';

/**
 * The Cloud SQL Auth Proxy as a sidecar, checked with the same code synth uses
 * (src/checks/cloud-sql-proxy.ts): its health server must be reachable where the kubelet probes,
 * its /readiness must not dial the database, its database listener must stay inside the pod.
 */

const PROBES = ['readinessProbe', 'livenessProbe', 'startupProbe'] as const;

/** The proxy containers of the object (native sidecars included), v2 and v1 (gce-proxy). */
function proxies(o: Parameters<typeof containers>[0]): ContainerRef[] {
  return containers(o).filter(
    (ref) => isCloudSqlProxyImage(str(ref.c.image) ?? '') || isCloudSqlProxyV1Image(str(ref.c.image) ?? ''),
  );
}
const isV1 = (ref: ContainerRef) => isCloudSqlProxyV1Image(str(ref.c.image) ?? '');

/** The container's port number for a probe's httpGet port (a number, or a name of its ports). */
function portNumber(c: Json, port: unknown): number | undefined {
  if (typeof port === 'number') return port;
  const n = int(port);
  if (n !== undefined) return n;
  const named = arr(c.ports)
    .map(rec)
    .find((p) => p?.name === port);
  return named ? int(named.containerPort) : undefined;
}

const asContainer = (c: Json): ProxyContainer => ({
  command: arr(c.command),
  args: arr(c.args),
  env: arr(c.env).map((e) => rec(e) ?? {}),
  envFrom: arr(c.envFrom),
});

export const SIDECAR_RULES: readonly RuleDefinition[] = [
  {
    id: 'RW111-proxy-health-server-unreachable',
    severity: 'error',
    title: 'A Cloud SQL Auth Proxy is probed on a health server that does not listen there',
    kinds: PROBED_KINDS,
    mechanism:
      'The proxy serves /startup, /liveness and /readiness only with --health-check, on --http-address ' +
      '(localhost by default) and --http-port (9090 by default), read from the command, the args and CSQL_PROXY_* ' +
      "variables; the kubelet probes the pod's IP. A probe on a health server that is off, on localhost or on " +
      'another port fails every time: a readiness probe keeps every pod out of the Service, a liveness or startup ' +
      'probe restarts the proxy forever. v1 (gce-proxy) serves them only with -use_http_health_check, on ' +
      '-health_check_port (8090 by default), on every address of the pod. A value rollwise cannot read (a Secret, a ' +
      'config file, a shell script) is a warning.',
    fieldNotes: 'docs/mechanisms.md#sidecars',
    fix:
      'Run the proxy with "--health-check", "--http-address=0.0.0.0" and "--http-port=<the probed port>" (or ' +
      'CSQL_PROXY_HEALTH_CHECK=true, CSQL_PROXY_HTTP_ADDRESS=0.0.0.0, CSQL_PROXY_HTTP_PORT); v1: ' +
      '"-use_http_health_check" and "-health_check_port=<the probed port>".',
    facts: [],
    upstream:
      'GoogleCloudPlatform/cloud-sql-proxy v2.14.1 cmd/root.go: --health-check defaults to false and only ' +
      'then does runSignalWrapper register /startup, /liveness and /readiness; --http-address defaults to ' +
      '"localhost", --http-port to "9090"; flags not given are read from CSQL_PROXY_<FLAG> (initViper). The kubelet ' +
      'sends an httpGet probe to the pod IP when the probe names no host (kubernetes/kubernetes ' +
      'pkg/probe/http/request.go NewRequestForHTTPGetAction: `host := httpGet.Host; if host == "" { host = podIP }`, ' +
      "the code index's copy at commit 008b3652; the repository is too large to fetch here, so no tag was read), " +
      'so a localhost listener refuses it: every probe fails, the container is never Ready (a ' +
      'readiness probe) or is restarted (liveness, startup). v1.38.3 cmd/cloud_sql_proxy/cloud_sql_proxy.go: ' +
      '-use_http_health_check (default false), -health_check_port (default "8090"); ' +
      'internal/healthcheck/healthcheck.go NewServer listens on ":" + port.',
    check(o, ctx) {
      for (const ref of proxies(o)) {
        const seen = new Set<number>();
        for (const kind of PROBES) {
          const get = rec(rec(ref.c[kind])?.httpGet);
          // a probe with its own host goes elsewhere than the pod's IP
          const port = get && (get.host === undefined || get.host === '') ? portNumber(ref.c, get.port) : undefined;
          if (port === undefined || seen.has(port)) continue;
          seen.add(port);
          for (const p of isV1(ref)
            ? proxyV1HealthProblems(asContainer(ref.c), str(ref.c.image) ?? '', port)
            : proxyHealthProblems(asContainer(ref.c), port)) {
            ctx.report(
              o,
              `${ref.path}.${p.field.startsWith('env.') ? 'env' : p.field}`,
              `container "${ref.name}" (Cloud SQL Auth Proxy${isV1(ref) ? ' v1' : ''}), probed by its ${kind} on ` +
                `port ${port}: ${p.why}`,
              { container: ref.name, port, given: p.shown },
              p.severity,
            );
          }
        }
      }
    },
  },
  {
    id: 'RW112-proxy-readiness-dials-database',
    severity: 'error',
    title: 'A Cloud SQL Auth Proxy before 2.11.1 is probed for readiness on /readiness, which dials the database',
    kinds: PROBED_KINDS,
    mechanism:
      'A pod is Ready only when every container with a readiness probe is. In v1 (gce-proxy) and up to ' +
      "v2.11.0 the proxy's /readiness dials every registered instance, so a database blip makes every pod NotReady " +
      'at once and the Service has no endpoint: the readiness-calls-a-dependency outage, from a sidecar. From 2.11.1 ' +
      'it answers from its own state. An image pinned by digest names no version (info).',
    fieldNotes: 'docs/mechanisms.md#sidecars, #readiness-calls-a-dependency',
    fix:
      "Probe readiness on /liveness (200 while the proxy serves; v1's dials nothing either: 200 unless a " +
      'certificate refresh failed and no unexpired certificate is left), or run v2 2.11.1 or later; keep /startup ' +
      'for the startupProbe.',
    facts: [],
    upstream:
      'GoogleCloudPlatform/cloud-sql-proxy v2.11.0 internal/healthcheck/healthcheck.go HandleReadiness calls ' +
      'proxy.Client.CheckConnections, which dials each instance (internal/proxy/proxy.go); #2207 ("fix: don\'t ' +
      'depend on downstream in readiness check", first in v2.11.1) removed it. v1 (gcr.io/cloudsql-docker/gce-proxy, ' +
      '-use_http_health_check) dials in every release: v1.38.3 ' +
      'cmd/cloud_sql_proxy/internal/healthcheck/healthcheck.go isReady calls proxy.Client.DialContext for each ' +
      'instance, while isLive only checks the cached certificates (proxy/proxy/client.go InvalidInstances). A failed ' +
      "readiness probe makes the container not Ready and the EndpointSlice controller marks the pod's endpoint not " +
      'ready (kubernetes/endpointslice v0.32.4 utils.go podToEndpoint), as for RW108.',
    check(o, ctx) {
      for (const ref of proxies(o)) {
        const path = str(rec(rec(ref.c.readinessProbe)?.httpGet)?.path);
        if (path === undefined || path.split('?')[0] !== '/readiness') continue;
        const image = str(ref.c.image) ?? '';
        const dials = readinessDialsDatabase(image);
        if (dials === false) continue;
        ctx.report(
          o,
          `${ref.path}.readinessProbe.httpGet.path`,
          dials
            ? `container "${ref.name}" (${image}) is Ready only while its /readiness can dial every Cloud SQL instance ` +
                `(${isV1(ref) ? 'every v1 release' : 'up to v2.11.0'}): a database blip takes every pod out of the ` +
                'Service at once.'
            : `container "${ref.name}" (${image}) names no version, and the proxy's /readiness dials the database up ` +
                'to v2.11.0: rollwise cannot tell whether this one does.',
          { container: ref.name, image },
          dials ? undefined : 'info',
        );
      }
    },
  },
  {
    id: 'RW113-proxy-listener-on-pod-network',
    severity: 'warning',
    title: "A Cloud SQL Auth Proxy sidecar listens for database connections on the pod's IP",
    kinds: PROBED_KINDS,
    mechanism:
      "--address (or CSQL_PROXY_ADDRESS, or an instance's ?address=) other than a loopback address binds " +
      "the database listener to the pod's IP, which every pod in the cluster can reach unless a NetworkPolicy " +
      "restricts it; connections through it reach the database as this pod's identity. The app needs none of it: " +
      'containers of a pod share one network namespace.',
    fieldNotes: 'docs/mechanisms.md#sidecars',
    fix:
      'Remove --address (the proxy listens on 127.0.0.1 by default), or restrict the port with a NetworkPolicy ' +
      'and run a shared proxy as its own service.',
    facts: [],
    check(o, ctx) {
      for (const ref of proxies(o).filter((r) => !isV1(r))) {
        // v1 sets its listeners in -instances (not read here)
        for (const p of proxyListenerProblems(asContainer(ref.c))) {
          ctx.report(
            o,
            `${ref.path}.${p.field.startsWith('env.') ? 'env' : p.field}`,
            `container "${ref.name}" (Cloud SQL Auth Proxy): ${p.why}`,
            { container: ref.name, given: p.shown },
          );
        }
      }
    },
  },
];
