import {
  isCloudSqlProxyImage,
  isCloudSqlProxyV1Image,
  ProxyContainer,
  proxyHealthProblems,
  proxyListenerProblems,
  ProxyProblem,
  proxyV1HealthProblems,
  proxyVersion,
  readinessDialsDatabase,
} from '../checks/cloud-sql-proxy';
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
  dependencyOf(path: string): {
    readonly calls: boolean | undefined;
    readonly why: string;
    /** What its /liveness answers, for the fix; @default "200 while it serves" */
    readonly liveness?: string;
    /** The version that fixes it, for the fix; @default "run 2.11.1 or later, whose /readiness does not dial" */
    readonly upgrade?: string;
  };
  /**
   * Refuses a configuration (command, args, env) that makes the declared health port unreachable
   * for the kubelet; returns what it cannot check, or questions (warnings).
   */
  checkConfig(input: string, container: ProxyContainer, port: number): string[];
  /** Paths its health server answers. */
  readonly paths: readonly string[];
}

/** The health server's paths, the same in v1 and v2 (the facts are cited at each image below). */
const PROXY_HEALTH_PATHS: readonly string[] = ['/startup', '/liveness', '/readiness'];
const PROXY_STARTUP_PATH = '/startup';

/** Whether a probe path is the proxy's /readiness (with or without a query), the one path that can dial. */
function isProxyReadiness(path: string): boolean {
  return path === '/readiness' || path.startsWith('/readiness?');
}

/** Refuses the first error among a proxy's configuration problems; the others become warnings. */
function refuseOrWarn(input: string, product: string, problems: ProxyProblem[]): string[] {
  const refused = problems.find((p) => p.severity === 'error');
  if (refused) throw new RollwiseInputError(`${input}.${refused.field}`, refused.shown, refused.why, refused.fix);
  return problems.map((p) => `${input}.${p.field} (${product}): ${p.why} Fix: ${p.fix}`);
}

/**
 * The Cloud SQL Auth Proxy v2 (gcr.io/cloud-sql-connectors/cloud-sql-proxy). What its flags,
 * environment and health endpoints do is read in src/checks/cloud-sql-proxy.ts (the same code as
 * lint's RW111-RW113), from GoogleCloudPlatform/cloud-sql-proxy at v2.14.1 unless a version says
 * otherwise:
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
  if (!isCloudSqlProxyImage(image)) return undefined;
  const version = proxyVersion(image);
  const shown = version ? version.join('.') : 'pinned by digest or an unversioned tag';
  return {
    product: 'Cloud SQL Auth Proxy',
    paths: PROXY_HEALTH_PATHS,
    startupPath: PROXY_STARTUP_PATH,
    startupReason:
      "The Cloud SQL Auth Proxy's /startup answers 200 once its listeners are up (cloud-sql-proxy " +
      'v2.14.1 internal/healthcheck/healthcheck.go HandleStartup), so the app starts only when it can connect to ' +
      '127.0.0.1.',
    dependencyOf(path) {
      if (!isProxyReadiness(path))
        return {
          calls: false,
          why: `${path} does not contact the database (cloud-sql-proxy internal/healthcheck/healthcheck.go)`,
        };
      if (version === undefined) {
        return {
          calls: undefined,
          why:
            `the image ${image} names no version (${shown}), and the proxy's /readiness ` +
            'dials every instance up to v2.11.0 (internal/proxy/proxy.go CheckConnections), so rollwise cannot tell ' +
            'whether this one does',
        };
      }
      return !readinessDialsDatabase(image)
        ? {
            calls: false,
            why:
              `the proxy ${shown} answers /readiness from its own state (started, not stopping, ` +
              'connections below --max-connections) without dialling the database: since v2.11.1 (#2207, ' +
              'internal/healthcheck/healthcheck.go)',
          }
        : {
            calls: true,
            why:
              `the proxy ${shown}'s /readiness dials every registered Cloud SQL instance ` +
              '(internal/healthcheck/healthcheck.go HandleReadiness -> internal/proxy/proxy.go CheckConnections, up to ' +
              'v2.11.0): a database blip makes every pod NotReady at once',
          };
    },
    checkConfig(input, container, port) {
      return refuseOrWarn(input, 'Cloud SQL Auth Proxy', [
        ...proxyHealthProblems(container, port),
        ...proxyListenerProblems(container),
      ]);
    },
  };
};

/**
 * The Cloud SQL Auth Proxy v1 (gcr.io/cloudsql-docker/gce-proxy): its /readiness dials every
 * instance in every v1 release, its flags are Go flags on the command line; facts read in
 * src/checks/cloud-sql-proxy.ts isCloudSqlProxyV1Image, from GoogleCloudPlatform/cloud-sql-proxy
 * at v1.38.3 (cmd/cloud_sql_proxy/internal/healthcheck/healthcheck.go isReady, isLive).
 */
const CLOUD_SQL_PROXY_V1: (image: string) => KnownSidecarImage | undefined = (image) => {
  if (!isCloudSqlProxyV1Image(image)) return undefined;
  return {
    product: 'Cloud SQL Auth Proxy v1',
    paths: PROXY_HEALTH_PATHS,
    startupPath: PROXY_STARTUP_PATH,
    startupReason:
      'The Cloud SQL Auth Proxy v1\'s /startup answers 200 once it has logged "Ready for new ' +
      'connections" (cloud-sql-proxy v1.38.3 cmd/cloud_sql_proxy/cloud_sql_proxy.go NotifyStarted, ' +
      'internal/healthcheck/healthcheck.go), so the app starts only when it can connect to 127.0.0.1.',
    dependencyOf(path) {
      if (!isProxyReadiness(path))
        return {
          calls: false,
          why:
            `${path} does not contact the database (cloud-sql-proxy v1.38.3 ` +
            'cmd/cloud_sql_proxy/internal/healthcheck/healthcheck.go)',
        };
      return {
        calls: true,
        why:
          `the v1 proxy (${image})'s /readiness dials every Cloud SQL instance it was given, in every v1 release ` +
          '(cmd/cloud_sql_proxy/internal/healthcheck/healthcheck.go isReady -> proxy.Client.DialContext, v1.38.3): a ' +
          'database blip makes every pod NotReady at once',
        liveness:
          "the v1 proxy dials nothing there: 200 unless an instance's certificate refresh failed and no " +
          'unexpired certificate is left, isLive, v1.38.3',
        upgrade:
          'or move to v2 (gcr.io/cloud-sql-connectors/cloud-sql-proxy) 2.11.1 or later, whose /readiness does ' +
          'not dial',
      };
    },
    checkConfig(input, container, port) {
      return refuseOrWarn(input, 'Cloud SQL Auth Proxy v1', proxyV1HealthProblems(container, image, port));
    },
  };
};

const KNOWN: ((image: string) => KnownSidecarImage | undefined)[] = [CLOUD_SQL_PROXY, CLOUD_SQL_PROXY_V1];

/** What rollwise knows about `image`, or undefined. */
export function knownSidecarImage(image: string): KnownSidecarImage | undefined {
  for (const k of KNOWN) {
    const hit = k(image);
    if (hit) return hit;
  }
  return undefined;
}
