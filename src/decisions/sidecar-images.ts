import { RollwiseInputError } from '../errors';

/**
 * Sidecar images whose health endpoints rollwise knows, so that their probes are checked like the
 * app's: a readiness path that asks a dependency is refused, a health server that the kubelet
 * cannot reach is refused, and the start-up check uses the endpoint the image provides for it.
 */

/** What rollwise knows about a sidecar's image, when it recognises it. */
export interface KnownSidecarImage {
  /** The product's name, as errors and reasons show it. */
  readonly product: string;
  /** The path a startupProbe asks: it passes once the sidecar can do its job. */
  readonly startupPath: string;
  /** Why startupPath is the right start-up check, with its source. */
  readonly startupReason: string;
  /**
   * Whether `path` (the readiness path) asks a dependency, with the reason and its source;
   * undefined when rollwise cannot tell (for example an image pinned by digest).
   */
  dependencyOf(path: string): { readonly calls: boolean | undefined; readonly why: string };
  /** Refuses flags that make the declared health port unreachable for the kubelet. */
  checkFlags(input: string, args: readonly string[], port: number): void;
  /** Paths its health server answers. */
  readonly paths: readonly string[];
}

/** The flags of a container's args, `--name=value` and `--name value` alike. */
function flag(args: readonly string[], name: string): { set: boolean; value?: string } {
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (a === `--${name}` || a === `-${name}`) {
      const next = args[i + 1];
      return { set: true, value: next !== undefined && !next.startsWith('-') ? next : undefined };
    }
    const m = new RegExp(`^--?${name}=(.*)$`).exec(a);
    if (m) return { set: true, value: m[1] };
  }
  return { set: false };
}

/** "2.14.1" from "gcr.io/cloud-sql-connectors/cloud-sql-proxy:2.14.1-alpine"; undefined for a digest or another tag. */
function tagVersion(image: string): [number, number, number] | undefined {
  const last = image.split('/').pop() ?? '';
  if (last.includes('@')) return undefined;
  const m = /:v?(\d+)\.(\d+)\.(\d+)/.exec(last);
  return m ? [Number(m[1]), Number(m[2]), Number(m[3])] : undefined;
}

function atLeast(v: [number, number, number], min: [number, number, number]): boolean {
  for (let i = 0; i < 3; i++) if (v[i] !== min[i]) return v[i] > min[i];
  return true;
}

/**
 * The Cloud SQL Auth Proxy v2 (gcr.io/cloud-sql-connectors/cloud-sql-proxy). Facts from
 * GoogleCloudPlatform/cloud-sql-proxy at v2.14.1 unless a version says otherwise:
 * - `--health-check` starts an HTTP server with /startup, /liveness and /readiness (cmd/root.go
 *   runSignalWrapper: mux.HandleFunc for the three paths); without it there is no health server.
 * - it listens on `--http-address` (default "localhost") and `--http-port` (default "9090")
 *   (cmd/root.go globalFlags httpAddressFlag, httpPortFlag). The kubelet probes the pod IP, so a
 *   localhost listener refuses every probe and the pod never becomes Ready.
 * - /startup is 200 once the proxy has started its listeners (internal/healthcheck/healthcheck.go
 *   HandleStartup), /liveness is always 200 while the process serves HTTP (HandleLiveness).
 * - /readiness dialled every registered instance up to v2.11.0 (internal/healthcheck
 *   HandleReadiness calling proxy.Client.CheckConnections, which dials each mount:
 *   internal/proxy/proxy.go v2.11.0); from v2.11.1 it no longer does ("fix: don't depend on
 *   downstream in readiness check", #2207, first in tag v2.11.1) and answers 503 only before
 *   start-up, after SIGTERM and while --max-connections are all in use. The `--help` text of
 *   v2.14.1 still says it checks the instances; the code does not.
 */
const CLOUD_SQL_PROXY: (image: string) => KnownSidecarImage | undefined = (image) => {
  if (!/(^|\/)cloud-sql-proxy[:@]/.test(image)) return undefined;
  const version = tagVersion(image);
  const shown = version ? version.join('.') : 'pinned by digest or an unversioned tag';
  return {
    product: 'Cloud SQL Auth Proxy',
    paths: ['/startup', '/liveness', '/readiness'],
    startupPath: '/startup',
    startupReason: 'The Cloud SQL Auth Proxy\'s /startup answers 200 once its listeners are up (cloud-sql-proxy v2.14.1 internal/healthcheck/healthcheck.go HandleStartup), so the app starts only when it can connect to 127.0.0.1.',
    dependencyOf(path) {
      if (path !== '/readiness' && !path.startsWith('/readiness?')) return { calls: false, why: `${path} does not contact the database (cloud-sql-proxy internal/healthcheck/healthcheck.go)` };
      if (version === undefined) {
        return { calls: undefined, why: `the image ${image} names no version (${shown}), and the proxy's /readiness dials every instance up to v2.11.0 (internal/proxy/proxy.go CheckConnections), so rollwise cannot tell whether this one does` };
      }
      return atLeast(version, [2, 11, 1])
        ? { calls: false, why: `the proxy ${shown} answers /readiness from its own state (started, not stopping, connections below --max-connections) without dialling the database: since v2.11.1 (#2207, internal/healthcheck/healthcheck.go)` }
        : { calls: true, why: `the proxy ${shown}'s /readiness dials every registered Cloud SQL instance (internal/healthcheck/healthcheck.go HandleReadiness -> internal/proxy/proxy.go CheckConnections, up to v2.11.0): a database blip makes every pod NotReady at once` };
    },
    checkFlags(input, args, port) {
      if (!flag(args, 'health-check').set) {
        throw new RollwiseInputError(`${input}.args`, JSON.stringify(args), 'the Cloud SQL Auth Proxy serves /startup, /liveness and /readiness only with --health-check (cloud-sql-proxy v2.14.1 cmd/root.go); without it nothing listens on the health port, every probe is refused and the pod never becomes Ready.', `add "--health-check", "--http-address=0.0.0.0" and "--http-port=${port}" to ${input}.args.`);
      }
      const address = flag(args, 'http-address').value ?? 'localhost';
      if (['localhost', '127.0.0.1', '::1'].includes(address)) {
        throw new RollwiseInputError(`${input}.args`, JSON.stringify(args), `the proxy's health server listens on --http-address, "${address}"${flag(args, 'http-address').set ? '' : ' by default (cloud-sql-proxy v2.14.1 cmd/root.go)'}, while the kubelet probes the pod's IP: every probe is refused and the pod never becomes Ready.`, `add "--http-address=0.0.0.0" to ${input}.args (the port is reachable only inside the pod's network and through probes; the Service does not expose it).`);
      }
      const httpPort = flag(args, 'http-port').value ?? '9090';
      if (httpPort !== String(port)) {
        throw new RollwiseInputError(`${input}.args`, JSON.stringify(args), `the proxy's health server listens on --http-port ${httpPort}${flag(args, 'http-port').set ? '' : ' (its default, cloud-sql-proxy v2.14.1 cmd/root.go)'}, but ${input}.port declares ${port}: the probes would ask a port nothing listens on.`, `add "--http-port=${port}" to ${input}.args, or declare port ${httpPort}.`);
      }
    },
  };
};

const KNOWN: ((image: string) => KnownSidecarImage | undefined)[] = [CLOUD_SQL_PROXY];

/** What rollwise knows about `image`, or undefined. */
export function knownSidecarImage(image: string): KnownSidecarImage | undefined {
  for (const k of KNOWN) {
    const hit = k(image);
    if (hit) return hit;
  }
  return undefined;
}
