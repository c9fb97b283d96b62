import { Duration } from 'cdk8s';
import { RollwiseInputError } from '../errors';
import { decided, Decision, Override, withOverride } from './decision';
import { checkInteger, formatGoDuration, seconds } from './inputs';
import { checkKeys, keysOf } from './props-keys';

/**
 * How an application server treats an idle keep-alive connection:
 * - `timeout`: it closes the connection after `keepAliveSeconds` without a request;
 * - `close-after-response`: no keep-alive, the connection is closed after each response;
 * - `never`: it never closes an idle connection (no idle timeout configured).
 */
export type KeepAliveBehaviour = 'timeout' | 'close-after-response' | 'never';

/** A changed keep-alive knob for a preset server. */
export interface KeepAliveOptions {
  /**
   * The idle keep-alive the server is configured with, when its knob was changed.
   * @default the server's default from the reference table (e.g. 5 s for uvicorn)
   */
  readonly keepAlive?: Duration;
}

/** Go `http.Server` timeouts as configured in the program. */
export interface GoNetHttpOptions {
  /**
   * `http.Server.IdleTimeout`. Zero falls back to `ReadTimeout`. (A negative IdleTimeout means no
   * idle timeout: declare it by leaving both options unset.)
   * @default 0 (unset)
   */
  readonly idleTimeout?: Duration;
  /**
   * `http.Server.ReadTimeout`, used as the idle timeout when `IdleTimeout` is zero.
   * @default 0 (unset)
   */
  readonly readTimeout?: Duration;
}

/** Reactor Netty / Spring WebFlux options. */
export interface ReactorNettyOptions {
  /**
   * `server.netty.idle-timeout`, when set.
   * @default none: Reactor Netty never closes idle connections
   */
  readonly idleTimeout?: Duration;
}

const GO_NET_HTTP_KEYS = keysOf<GoNetHttpOptions>()({ idleTimeout: true, readTimeout: true });

/** The longest keep-alive rollwise accepts as an input (a day: anything longer is a typo). */
const MAX_KEEPALIVE_SECONDS = 86_400;

/** AppServer.goNetHttp()'s name. */
export const GO_NET_HTTP = 'Go net/http';

/**
 * The application server behind a route and its idle keep-alive: the other end of every pooled
 * upstream connection the proxy holds (docs/mechanisms.md#keep-alive-race). Use a preset (defaults from the reference's
 * keep-alive table), a preset with `{ keepAlive }` when its knob was changed, `custom` for any other
 * server, or `noKeepAlive` for a server that closes the connection after each response.
 */
export class AppServer {
  /** uvicorn: 5 s (`--timeout-keep-alive`). */
  public static uvicorn(opts: KeepAliveOptions = {}): AppServer {
    return AppServer.preset('uvicorn', 5, '--timeout-keep-alive', opts);
  }
  /** gunicorn with the default sync worker: no keep-alive (Connection: close after each response). */
  public static gunicornSync(): AppServer {
    return new AppServer('gunicorn (sync worker)', 'close-after-response', undefined, undefined, 'the sync worker does not support keep-alive', true);
  }
  /** gunicorn with gthread workers: 2 s (`--keep-alive`). */
  public static gunicornGthread(opts: KeepAliveOptions = {}): AppServer {
    return AppServer.preset('gunicorn (gthread worker)', 2, '--keep-alive', opts);
  }
  /** gunicorn with gevent workers: 2 s (`--keep-alive`). */
  public static gunicornGevent(opts: KeepAliveOptions = {}): AppServer {
    return AppServer.preset('gunicorn (gevent worker)', 2, '--keep-alive', opts);
  }
  /** gunicorn with uvicorn's UvicornWorker: gunicorn's 2 s (`--keep-alive`) is passed to uvicorn. */
  public static gunicornUvicornWorker(opts: KeepAliveOptions = {}): AppServer {
    return AppServer.preset('gunicorn (UvicornWorker)', 2, '--keep-alive', opts);
  }
  /** hypercorn: 5 s (`--keep-alive`). */
  public static hypercorn(opts: KeepAliveOptions = {}): AppServer {
    return AppServer.preset('hypercorn', 5, '--keep-alive', opts);
  }
  /** Node.js `http` up to v25: 5 s (`server.keepAliveTimeout`). */
  public static nodeHttp(opts: KeepAliveOptions = {}): AppServer {
    return AppServer.preset('Node.js http (<= 25)', 5, 'server.keepAliveTimeout', opts);
  }
  /** Node.js `http` from v26: 65 s (`server.keepAliveTimeout`). */
  public static nodeHttp26(opts: KeepAliveOptions = {}): AppServer {
    return AppServer.preset('Node.js http (>= 26)', 65, 'server.keepAliveTimeout', opts);
  }
  /** Fastify: 72 s (`keepAliveTimeout`). */
  public static fastify(opts: KeepAliveOptions = {}): AppServer {
    return AppServer.preset('Fastify', 72, 'keepAliveTimeout', opts);
  }
  /**
   * Go `net/http`: `IdleTimeout`; zero falls back to `ReadTimeout`; both zero means no idle
   * timeout at all (the proxy's idle timeout then governs alone, and rollwise warns at synth).
   */
  public static goNetHttp(opts: GoNetHttpOptions = {}): AppServer {
    const name = GO_NET_HTTP;
    checkKeys('appServer.goNetHttp', opts, GO_NET_HTTP_KEYS, 'AppServer.goNetHttp(options)');
    const idle = opts.idleTimeout === undefined ? 0 : checkKeepAlive('appServer.goNetHttp.idleTimeout', opts.idleTimeout, true);
    const read = opts.readTimeout === undefined ? 0 : checkKeepAlive('appServer.goNetHttp.readTimeout', opts.readTimeout, true);
    if (idle > 0) return new AppServer(name, 'timeout', idle, 'http.Server.IdleTimeout', 'IdleTimeout as configured', true);
    if (read > 0) {
      return new AppServer(name, 'timeout', read, 'http.Server.IdleTimeout (unset, so ReadTimeout applies)',
        'IdleTimeout is 0, so Go uses ReadTimeout as the idle timeout', true);
    }
    return new AppServer(name, 'never', undefined, 'http.Server.IdleTimeout',
      'IdleTimeout and ReadTimeout are both 0, so Go never closes an idle connection', true);
  }
  /** Puma up to 6.6: 20 s (`persistent_timeout`). */
  public static puma6(opts: KeepAliveOptions = {}): AppServer {
    return AppServer.preset('Puma (<= 6.6)', 20, 'persistent_timeout', opts);
  }
  /** Puma from 7.0: 65 s (`persistent_timeout`). */
  public static puma7(opts: KeepAliveOptions = {}): AppServer {
    return AppServer.preset('Puma (>= 7.0)', 65, 'persistent_timeout', opts);
  }
  /** Unicorn: no keep-alive (Connection: close after each response). */
  public static unicorn(): AppServer {
    return new AppServer('Unicorn', 'close-after-response', undefined, undefined, 'Unicorn answers with Connection: close', true);
  }
  /**
   * Standalone Tomcat with its shipped server.xml: `connectionTimeout="20000"`, which the
   * connector's `keepAliveTimeout` defaults to: 20 s.
   */
  public static tomcat(opts: KeepAliveOptions = {}): AppServer {
    return AppServer.preset('Tomcat (shipped server.xml)', 20, 'Connector keepAliveTimeout', opts);
  }
  /** Spring Boot with embedded Tomcat: Tomcat's built-in 60 s (`server.tomcat.keep-alive-timeout`). */
  public static springBootTomcat(opts: KeepAliveOptions = {}): AppServer {
    return AppServer.preset('Spring Boot (Tomcat)', 60, 'server.tomcat.keep-alive-timeout', opts);
  }
  /** Jetty: 30 s (`server.jetty.connection-idle-timeout`). */
  public static jetty(opts: KeepAliveOptions = {}): AppServer {
    return AppServer.preset('Jetty', 30, 'server.jetty.connection-idle-timeout', opts);
  }
  /** Undertow: 60 s (unconfirmed; `server.undertow.no-request-timeout`). */
  public static undertow(opts: KeepAliveOptions = {}): AppServer {
    return AppServer.preset('Undertow', 60, 'server.undertow.no-request-timeout', opts,
      'the 60 s default is unconfirmed: measure it or set the knob explicitly');
  }
  /** Reactor Netty / Spring WebFlux: no idle timeout unless `server.netty.idle-timeout` is set. */
  public static reactorNetty(opts: ReactorNettyOptions = {}): AppServer {
    const name = 'Reactor Netty (WebFlux)';
    checkKeys('appServer.reactorNetty', opts, ['idleTimeout'], 'AppServer.reactorNetty(options)');
    if (opts.idleTimeout !== undefined) {
      return new AppServer(name, 'timeout', checkKeepAlive('appServer.reactorNetty.idleTimeout', opts.idleTimeout), 'server.netty.idle-timeout', 'as configured', true);
    }
    return new AppServer(name, 'never', undefined, 'server.netty.idle-timeout', 'Reactor Netty has no idle timeout by default', true);
  }
  /** ASP.NET Core Kestrel: 130 s (`KestrelServerLimits.KeepAliveTimeout`). */
  public static kestrel(opts: KeepAliveOptions = {}): AppServer {
    return AppServer.preset('ASP.NET Kestrel', 130, 'KestrelServerLimits.KeepAliveTimeout', opts);
  }
  /** nginx: 75 s (`keepalive_timeout`). */
  public static nginx(opts: KeepAliveOptions = {}): AppServer {
    return AppServer.preset('nginx', 75, 'keepalive_timeout', opts);
  }
  /** Apache httpd 2.4: 5 s (`KeepAliveTimeout`). */
  public static apacheHttpd(opts: KeepAliveOptions = {}): AppServer {
    return AppServer.preset('Apache httpd 2.4', 5, 'KeepAliveTimeout', opts);
  }
  /** Caddy: 5 min (`idle_timeout`). */
  public static caddy(opts: KeepAliveOptions = {}): AppServer {
    return AppServer.preset('Caddy', 300, 'idle_timeout', opts);
  }
  /**
   * Any other server, or one whose knob was changed, by its measured or configured idle keep-alive.
   * @param name how the server appears in reasons and errors
   * @param keepAlive how long it keeps an idle connection open
   * @param knob the setting that changes it
   */
  public static custom(name: string, keepAlive: Duration, knob?: string): AppServer {
    return new AppServer(checkServerName(name), 'timeout', checkKeepAlive('appServer.custom.keepAlive', keepAlive), knob, 'as declared', false);
  }
  /** A server that closes the connection after each response (no keep-alive). */
  public static noKeepAlive(name: string): AppServer {
    return new AppServer(checkServerName(name), 'close-after-response', undefined, undefined, 'declared without keep-alive', false);
  }

  private static preset(name: string, defaultSeconds: number, knob: string, opts: KeepAliveOptions, note?: string): AppServer {
    checkKeys('appServer', opts, ['keepAlive'], `the options of the AppServer preset for ${name}`);
    if (opts.keepAlive === undefined) return new AppServer(name, 'timeout', defaultSeconds, knob, note ? `default; ${note}` : 'default', true);
    const s = checkKeepAlive(`appServer.${name}.keepAlive`, opts.keepAlive);
    return new AppServer(name, 'timeout', s, knob, `${knob} set to ${showDuration(s)} (default ${showDuration(defaultSeconds)})`, true);
  }

  private constructor(
    /** How the server appears in reasons and errors, e.g. "uvicorn". */
    public readonly name: string,
    public readonly behaviour: KeepAliveBehaviour,
    /** The idle keep-alive in seconds, when `behaviour` is `timeout`. */
    public readonly keepAliveSeconds: number | undefined,
    /** The setting that changes the keep-alive. */
    public readonly knob: string | undefined,
    /** Where the value comes from ("default", "as configured", ...). */
    public readonly source: string,
    /** True for a preset from the reference's keep-alive table. */
    public readonly preset: boolean,
  ) {}

  /** The value of the `rollwise.dev/app-keepalive-seconds` fact: seconds, "none" (no keep-alive) or "unlimited". */
  public get keepAliveFact(): string {
    if (this.behaviour === 'timeout') return String(this.keepAliveSeconds);
    return this.behaviour === 'close-after-response' ? 'none' : 'unlimited';
  }

  /** "uvicorn closes idle connections after 5 s" and the like, for reasons. */
  public describe(): string {
    if (this.behaviour === 'timeout') return `${this.name} closes idle connections after ${showDuration(this.keepAliveSeconds!)} (${this.source}${this.knob ? `; knob ${this.knob}` : ''})`;
    if (this.behaviour === 'close-after-response') return `${this.name} closes the connection after each response (${this.source})`;
    return `${this.name} never closes an idle connection (${this.source})`;
  }
}

/** One preset of the keep-alive table, for docs and tests. */
export interface AppServerPreset {
  /** The factory, e.g. "uvicorn" for `AppServer.uvicorn()`. */
  readonly factory: string;
  readonly server: AppServer;
}

/** Every preset at its default, in the order of the reference's table. */
export function appServerPresets(): AppServerPreset[] {
  return [
    { factory: 'uvicorn', server: AppServer.uvicorn() },
    { factory: 'gunicornSync', server: AppServer.gunicornSync() },
    { factory: 'gunicornGthread', server: AppServer.gunicornGthread() },
    { factory: 'gunicornGevent', server: AppServer.gunicornGevent() },
    { factory: 'gunicornUvicornWorker', server: AppServer.gunicornUvicornWorker() },
    { factory: 'hypercorn', server: AppServer.hypercorn() },
    { factory: 'nodeHttp', server: AppServer.nodeHttp() },
    { factory: 'nodeHttp26', server: AppServer.nodeHttp26() },
    { factory: 'fastify', server: AppServer.fastify() },
    { factory: 'goNetHttp', server: AppServer.goNetHttp() },
    { factory: 'puma6', server: AppServer.puma6() },
    { factory: 'puma7', server: AppServer.puma7() },
    { factory: 'unicorn', server: AppServer.unicorn() },
    { factory: 'tomcat', server: AppServer.tomcat() },
    { factory: 'springBootTomcat', server: AppServer.springBootTomcat() },
    { factory: 'jetty', server: AppServer.jetty() },
    { factory: 'undertow', server: AppServer.undertow() },
    { factory: 'reactorNetty', server: AppServer.reactorNetty() },
    { factory: 'kestrel', server: AppServer.kestrel() },
    { factory: 'nginx', server: AppServer.nginx() },
    { factory: 'apacheHttpd', server: AppServer.apacheHttpd() },
    { factory: 'caddy', server: AppServer.caddy() },
  ];
}

function checkServerName(name: string): string {
  if (typeof name !== 'string' || name.trim().length === 0) {
    throw new RollwiseInputError('appServer.name', name, 'the server name appears in every keep-alive reason and error; an empty one says nothing.', 'name the server, e.g. "waitress".');
  }
  return name.trim();
}

function checkKeepAlive(input: string, d: Duration, zeroAllowed = false): number {
  if (!(d instanceof Duration)) {
    throw new RollwiseInputError(input, d, 'must be a Duration (e.g. Duration.seconds(5)).', `pass ${input} as a cdk8s Duration.`);
  }
  const s = seconds(d);
  if (!Number.isFinite(s) || (zeroAllowed ? s < 0 : s <= 0) || s > MAX_KEEPALIVE_SECONDS) {
    throw new RollwiseInputError(input, showDuration(s), `must be above 0 and at most a day: it is how long the server keeps an idle connection open, and the proxy's idle timeout is derived from it.`,
      'give the value the server is configured with (check its knob), e.g. Duration.seconds(5).');
  }
  return s;
}

// ---------------------------------------------------------------------------------------------
// The margin rule
// ---------------------------------------------------------------------------------------------

/** The smallest margin between the app's keep-alive and the proxy's idle timeout. */
export const MIN_MARGIN_SECONDS = 1;
/** The margin as a fraction of the app's keep-alive, when that is larger than the minimum. */
export const MARGIN_FRACTION = 0.4;
/** The shortest idle timeout rollwise emits (whole seconds; below it no margin fits). */
export const MIN_IDLE_SECONDS = 1;
/** Envoy's connect timeout default (reference: BackendTrafficPolicy `timeout.tcp.connectTimeout`). */
export const ENVOY_DEFAULT_CONNECT_TIMEOUT_SECONDS = 10;
/** Envoy's upstream idle timeout default when none is set (1 h, docs/mechanisms.md#keep-alive-race). */
export const ENVOY_DEFAULT_IDLE_TIMEOUT_SECONDS = 3600;
/**
 * Idle timeout for an app that never closes idle connections: the proxy's value governs alone.
 * 60 s: connections are reused as long as the common servers allow (Tomcat/Spring Boot 60 s,
 * Node.js 26 and Puma 7 65 s), not the hour docs/mechanisms.md#keep-alive-race rejects.
 */
export const NEVER_CLOSING_APP_IDLE_SECONDS = 60;

/** The rule in one sentence, as the reasons and the README state it. */
export const MARGIN_RULE = `idle = keep-alive - max(${MIN_MARGIN_SECONDS} s, ${MARGIN_FRACTION * 100} % of keep-alive), rounded down to whole seconds, at least ${MIN_IDLE_SECONDS} s`;

/** The smallest app keep-alive for which the rule yields a safe idle timeout. */
export const MIN_APP_KEEPALIVE_SECONDS = MIN_IDLE_SECONDS + MIN_MARGIN_SECONDS;

/**
 * The margin rule: the proxy's idle timeout for an app keep-alive of `keepAliveSeconds`, or
 * undefined when no whole-second idle timeout of at least 1 s leaves the minimum margin.
 */
export function idleTimeoutFor(keepAliveSeconds: number): number | undefined {
  const margin = Math.max(MIN_MARGIN_SECONDS, MARGIN_FRACTION * keepAliveSeconds);
  const idle = Math.floor(keepAliveSeconds - margin + 1e-9);
  return idle >= MIN_IDLE_SECONDS ? idle : undefined;
}

/**
 * When Linux re-sends an unanswered SYN, in seconds after the first, on kernels before 6.5: the
 * initial retransmission timeout is 1 s (include/net/tcp.h TCP_TIMEOUT_INIT, "RFC6298 2.1 initial
 * RTO value", set by tcp_connect_init in net/ipv4/tcp_output.c) and doubles at each retransmission
 * (net/ipv4/tcp_timer.c tcp_retransmit_timer), so retransmissions go out 1, 3, 7, 15, 31 and 63 s
 * after the first SYN (tcp_syn_retries defaults to 6) (docs/mechanisms.md#a-lost-syn-and-the-connect-timeout).
 */
export const SYN_RETRANSMIT_SECONDS = [1, 3, 7, 15, 31, 63] as const;

/**
 * The same from Linux 6.5 on (commit ccce324dabfe, "tcp: make the first N SYN RTO backoffs
 * linear"): tcp_retransmit_timer doubles the timeout of a socket in SYN_SENT only once its
 * total_rto exceeds net.ipv4.tcp_syn_linear_timeouts (default 4, tcp_sk_init in net/ipv4/tcp_ipv4.c),
 * so the first five retransmissions go out 1 s apart, then the wait doubles from 2 s; and
 * tcp_write_timeout allows tcp_syn_retries + tcp_syn_linear_timeouts = 10 of them
 * (Documentation/networking/ip-sysctl.rst: "SYN RTOs to be: 1, 1, 1, 1, 1, 2, 4, ...").
 */
export const SYN_RETRANSMIT_SECONDS_LINEAR = [1, 2, 3, 4, 5, 7, 11, 19, 35, 67] as const;

/** How many lost SYNs in a row a connect timeout of `seconds` survives on a kernel retransmitting at `schedule`: retransmissions sent before it, answered within an in-cluster round trip. */
export function lostSynsSurvivedOn(seconds: number, schedule: readonly number[]): number {
  return schedule.filter((t) => t < seconds).length;
}

/**
 * How many lost SYNs in a row a connect timeout of `seconds` survives on any kernel: the worse of
 * the two schedules, which is always the one before 6.5 (it never retransmits earlier).
 */
export function lostSynsSurvived(seconds: number): number {
  return Math.min(lostSynsSurvivedOn(seconds, SYN_RETRANSMIT_SECONDS), lostSynsSurvivedOn(seconds, SYN_RETRANSMIT_SECONDS_LINEAR));
}

/** The kernel's schedules against a connect timeout, in one sentence. */
function synSentence(connectSeconds: number): string {
  const old = lostSynsSurvivedOn(connectSeconds, SYN_RETRANSMIT_SECONDS);
  const linear = lostSynsSurvivedOn(connectSeconds, SYN_RETRANSMIT_SECONDS_LINEAR);
  const n = Math.min(old, linear);
  const syns = (k: number) => `${k} lost SYN${k === 1 ? '' : 's'}`;
  const at = (schedule: readonly number[], k: number) => (schedule[k] === undefined ? 'never' : `${schedule[k]} s after the first`);
  const survives = n === 0
    ? 'no lost SYN on any kernel: each one is a 503 UF'
    : old === linear
      ? `${syns(n)} in a row on any kernel (the next retransmission comes ${at(SYN_RETRANSMIT_SECONDS, old)} before 6.5 and ${at(SYN_RETRANSMIT_SECONDS_LINEAR, linear)} from 6.5 on: too late)`
      : `at least ${syns(n)} in a row: ${old} on kernels before 6.5 (the next retransmission, ${at(SYN_RETRANSMIT_SECONDS, old)}, comes too late), ${linear} from 6.5 on`;
  return `An in-cluster connect takes milliseconds, but Linux re-sends a lost SYN only after 1 s (initial retransmission timeout, include/net/tcp.h TCP_TIMEOUT_INIT), then kernels before 6.5 double the wait (retransmissions 1, 3, 7, 15 s after the first SYN) while 6.5 and later keep 1 s for the first five (tcp_syn_linear_timeouts 4: 1, 2, 3, 4, 5, 7, 11 s; net/ipv4/tcp_timer.c), so a connect timeout of ${showDuration(connectSeconds)} survives ${survives} (docs/mechanisms.md#a-lost-syn-and-the-connect-timeout).`;
}

/**
 * The connect timeout for an idle timeout: Envoy's 10 s default, whatever the idle timeout. Envoy
 * before 1.38.0 ran the upstream idle timer while a connection was still being established and
 * closed a connect that outlasted it (envoy#42753), so the idle timeout bounded the connect and
 * rollwise lowered the connect timeout to it. Envoy 1.38.0 fixed that (changelogs/1.38.0.yaml,
 * bug_fixes, area http: "Fixed upstream client to not close connection when idle timeout fires before
 * the connection is established", envoyproxy/envoy#42756; runtime guard
 * envoy.reloadable_features.codec_client_enable_idle_timer_only_when_connected, on by default; read in
 * the code index, as the repository is too large to fetch), the 1.39.0 changelog does not revert it,
 * and Envoy Gateway v1.9.0 runs Envoy v1.39.0 (api/v1alpha1/shared_types.go DefaultEnvoyProxyImage)
 * and sets no runtime override (internal/xds/bootstrap). On an older Envoy image the idle timer still
 * cuts the connect at the idle timeout, the same outcome as a connect timeout lowered to it, so the
 * default is never worse.
 */
export function connectTimeoutFor(_idleSeconds: number | undefined): number {
  return ENVOY_DEFAULT_CONNECT_TIMEOUT_SECONDS;
}

const MARGIN_WHY = `The margin covers a request in flight: the proxy may hand a request to a connection just before its own timer fires, and that request must reach the app before the app's timer fires; the app's timer also started a little earlier (when it wrote the last response). In a cluster that is milliseconds, a lost segment is re-sent after 200 ms or more, so at least ${MIN_MARGIN_SECONDS} s; ${MARGIN_FRACTION * 100} % for longer keep-alives because a lower idle timeout only costs an in-cluster reconnect while a higher one is the 503 (docs/mechanisms.md#keep-alive-race).`;

// ---------------------------------------------------------------------------------------------
// Decisions
// ---------------------------------------------------------------------------------------------

/** Inputs of the keep-alive decisions for one route. */
export interface KeepAliveInputs {
  readonly appServer: AppServer;
  /** Replaces the derived idle timeout (still refused when not below the app's keep-alive). */
  readonly idleTimeout?: Override<Duration>;
  /** Replaces the derived connect timeout (refused when above the idle timeout). */
  readonly connectTimeout?: Override<Duration>;
  /** Accepts an idle timeout at or above the app's keep-alive; the reason must say why. */
  readonly acceptKeepAliveRace?: Override<boolean>;
  /** Retries on reset (value: number of retries, 1-3). */
  readonly retryOnReset?: Override<number>;
}

export interface KeepAliveDecisions {
  readonly appServer: AppServer;
  /** `timeout.http.connectionIdleTimeout` in seconds; undefined = omitted (reason says why). */
  readonly idleTimeoutSeconds: Decision<number | undefined>;
  /** `timeout.tcp.connectTimeout` in seconds. */
  readonly connectTimeoutSeconds: Decision<number>;
  /** Retries on reset; 0 = no `retry` block. */
  readonly retryOnReset: Decision<number>;
  /** Warnings to show at synth (e.g. Go without an idle timeout). */
  readonly warnings: readonly string[];
}

/** The proxy idle timeout for an app server, with its reason (the margin rule applied). */
export function proxyIdleTimeout(server: AppServer): Decision<number | undefined> {
  if (server.behaviour === 'close-after-response') {
    return decided<number | undefined>(undefined,
      `No connectionIdleTimeout: ${server.describe()}, so the proxy cannot reuse a connection and none is ever idle in its pool; there is no keep-alive race to prevent, and a value here would have no effect while capping the connect timeout every request (each on a new connection) pays. Each request costs a new in-cluster TCP connection; for a high request rate use a worker with keep-alive (docs/mechanisms.md#keep-alive-race).`,
      { appServer: server.name, appKeepAlive: 'none' });
  }
  if (server.behaviour === 'never') {
    const idle = NEVER_CLOSING_APP_IDLE_SECONDS;
    return decided<number | undefined>(idle,
      `${server.describe()}, so there is no race from the app side, but every idle connection lives until the proxy closes it: the proxy's idle timeout governs alone. ${showDuration(idle)} keeps connections reused as long as common servers allow (Tomcat 60 s, Node.js 26 65 s) instead of Envoy's 1 h default (docs/mechanisms.md#keep-alive-race).`,
      { appServer: server.name, appKeepAlive: 'unlimited', idleSeconds: idle });
  }
  const ka = server.keepAliveSeconds!;
  const idle = idleTimeoutFor(ka);
  if (idle === undefined) {
    throw new RollwiseInputError('appServer', `${server.name} keep-alive ${showDuration(ka)}`,
      `no safe proxy idle timeout fits under it: rollwise keeps at least ${MIN_MARGIN_SECONDS} s between the app's keep-alive and the proxy's idle timeout (a request in flight) and emits whole seconds of at least ${MIN_IDLE_SECONDS} s, so the app's keep-alive must be at least ${MIN_APP_KEEPALIVE_SECONDS} s. Closer than that, requests written onto a connection the app is closing fail with 503 UC (docs/mechanisms.md#keep-alive-race).`,
      `raise ${server.name}'s ${server.knob ?? 'keep-alive'} to at least ${MIN_APP_KEEPALIVE_SECONDS} s (5 s gives the proxy 3 s) and declare the new value.`);
  }
  const margin = Math.max(MIN_MARGIN_SECONDS, MARGIN_FRACTION * ka);
  return decided<number | undefined>(idle,
    `${server.describe()}; the proxy closes at ${showDuration(idle)}, so it always closes first. Rule: ${MARGIN_RULE}: ${showDuration(ka)} - ${showDuration(margin)} = ${showDuration(ka - margin)} -> ${showDuration(idle)}. ${MARGIN_WHY}`,
    { appServer: server.name, appKeepAliveSeconds: ka, marginSeconds: round3(margin), idleSeconds: idle });
}

/**
 * Refuses the keep-alive race: the proxy's idle timeout must be strictly below the app's
 * keep-alive, unless `accept` carries a reason. Returns the accepted decision (for the reasons).
 */
export function checkProxyClosesFirst(server: AppServer, idleSeconds: number | undefined, accept?: Override<boolean>): Decision<boolean> {
  const computed = decided(false, 'The proxy must close idle upstream connections before the app does (docs/mechanisms.md#keep-alive-race).');
  const d = withOverride('acceptKeepAliveRace', computed, accept, (v) => (v ? 'race accepted' : 'race refused'));
  if (server.behaviour !== 'timeout') return d;
  const ka = server.keepAliveSeconds!;
  const idle = idleSeconds ?? ENVOY_DEFAULT_IDLE_TIMEOUT_SECONDS;
  if (idle < ka || d.value === true) return d;
  const safe = idleTimeoutFor(ka);
  throw new RollwiseInputError('idleTimeout', showDuration(idle),
    `the proxy would keep an idle upstream connection for ${showDuration(idle)}${idleSeconds === undefined ? ' (Envoy\'s default)' : ''}, but ${server.name} closes it after ${showDuration(ka)}: now and then the proxy writes a request onto a connection ${server.name} is closing, no response byte comes, and the client gets a 503 with response flag UC (upstream_reset_before_response_started) that no application log shows (docs/mechanisms.md#keep-alive-race, #response-flags).`,
    `set the proxy idle timeout below ${showDuration(ka)}${safe !== undefined ? ` (remove the override to get ${showDuration(safe)})` : ''}; or, if this race is deliberate, add acceptKeepAliveRace: { value: true, because: '<why>' }.`);
}

/** The connect timeout: Envoy's 10 s default, not lowered to the idle timeout (envoy#42753 is fixed in the Envoy that Envoy Gateway v1.9.0 runs). */
export function proxyConnectTimeout(idle: Decision<number | undefined>, override?: Override<Duration>): Decision<number> {
  const idleS = idle.value;
  const value = connectTimeoutFor(idleS);
  const computed = idleS === undefined
    ? decided(value, `Envoy's default ${showDuration(value)} (Envoy Gateway v1.9.0's too), written out because with no keep-alive every request opens a new connection and waits on this timeout. ${synSentence(value)}`, { connectSeconds: value, lostSynsSurvived: lostSynsSurvived(value) })
    : decided(value, `Envoy's default ${showDuration(value)} (Envoy Gateway v1.9.0's too), not lowered to the idle timeout ${showDuration(idleS)}: Envoy before 1.38.0 ran the idle timer while the connection was still being established and closed a connect that outlasted it (envoy#42753); Envoy 1.38.0 fixed that (envoy#42756, runtime guard codec_client_enable_idle_timer_only_when_connected, on by default) and Envoy Gateway v1.9.0 runs Envoy 1.39.0, so the idle timer starts once the connection is up and this value alone bounds the connect. On an older Envoy image the idle timeout would still cut a connect at ${showDuration(idleS)}, the same as a connect timeout lowered to it, so the default is never worse (docs/mechanisms.md#a-lost-syn-and-the-connect-timeout). ${synSentence(value)}`, { connectSeconds: value, idleSeconds: idleS, lostSynsSurvived: lostSynsSurvived(value) });
  const d = withOverride('connectTimeout', computed, override && { value: seconds(override.value), because: override.because }, showDuration);
  if (d.overridden && (!(d.value > 0) || !representable(d.value))) {
    throw new RollwiseInputError('connectTimeout', showDuration(d.value), 'must be above 0 and a whole number of milliseconds: Envoy Gateway takes durations like "3s" or "500ms".', `use ${showDuration(value)}.`);
  }
  return d;
}

/** Retry on reset: none unless overridden with a reason (1-3 retries). */
export function retryOnResetDecision(override?: Override<number>): Decision<number> {
  const computed = decided(0,
    'No retry on reset: a reset can come after a non-idempotent request (a POST) reached the app, so retrying it can run it twice, and retries hide the race instead of removing it; the idle timeout below the app\'s keep-alive removes the cause (docs/mechanisms.md#keep-alive-race). Available per route with a reason.');
  const d = withOverride('retryOnReset', computed, override, (v) => (v === 0 ? 'no retry' : `${v} retr${v === 1 ? 'y' : 'ies'} on reset`));
  if (d.overridden) checkInteger('retryOnReset', d.value, 0, 3, 'each retry multiplies the load a failing upstream sees; more than 3 turns a blip into a retry storm.', 'use 1 retry on reset, for routes whose requests are idempotent.');
  return d;
}

/** Every keep-alive decision for one route, with the race refused. */
export function decideKeepAlive(inp: KeepAliveInputs): KeepAliveDecisions {
  const server = inp.appServer;
  if (!(server instanceof AppServer)) {
    throw new RollwiseInputError('appServer', server, 'must be an AppServer: the proxy idle timeout is derived from its keep-alive.', 'pass a preset such as AppServer.uvicorn(), or AppServer.custom(name, Duration.seconds(n)).');
  }
  const computed = proxyIdleTimeout(server);
  const overrideIdle = inp.idleTimeout && { value: seconds(inp.idleTimeout.value), because: inp.idleTimeout.because };
  let idle = withOverride<number | undefined>('idleTimeout', computed, overrideIdle, (v) => (v === undefined ? 'unset' : showDuration(v)));
  if (idle.overridden && (idle.value === undefined || !(idle.value > 0) || !representable(idle.value))) {
    throw new RollwiseInputError('idleTimeout', idle.value === undefined ? 'unset' : showDuration(idle.value), 'must be above 0 and a whole number of milliseconds: Envoy Gateway takes durations like "3s" or "500ms".', 'give a Duration such as Duration.seconds(3).');
  }
  const race = checkProxyClosesFirst(server, idle.value, inp.acceptKeepAliveRace);
  if (race.overridden && race.value && server.behaviour === 'timeout' && (idle.value ?? ENVOY_DEFAULT_IDLE_TIMEOUT_SECONDS) >= server.keepAliveSeconds!) {
    idle = { ...idle, reason: `${idle.reason} Race accepted: the proxy keeps idle connections ${showDuration(idle.value!)} and ${server.name} closes them after ${showDuration(server.keepAliveSeconds!)}, so expect occasional 503 UC. ${race.reason}` };
  }
  const warnings: string[] = [];
  if (server.behaviour === 'never' && server.name === 'Go net/http') {
    warnings.push(`Go net/http with IdleTimeout and ReadTimeout both 0 never closes idle connections: no keep-alive race from the app side, but every idle connection (a socket and a goroutine) lives until the proxy closes it, so the proxy idle timeout (${idle.value === undefined ? 'Envoy\'s 1 h' : showDuration(idle.value)}) governs alone. Set http.Server.IdleTimeout (e.g. 75 s) and declare it with AppServer.goNetHttp({ idleTimeout }).`);
  }
  return {
    appServer: server,
    idleTimeoutSeconds: idle,
    connectTimeoutSeconds: proxyConnectTimeout(idle, inp.connectTimeout),
    retryOnReset: retryOnResetDecision(inp.retryOnReset),
    warnings,
  };
}

// ---------------------------------------------------------------------------------------------
// Passive health checking (outlier detection)
// ---------------------------------------------------------------------------------------------

/** Envoy's panic threshold default: below 50 % healthy hosts it routes to all (fails open). */
export const ENVOY_PANIC_THRESHOLD_PERCENT = 50;

export interface EjectionCapInputs {
  /** Replicas of the service: the hosts Envoy balances over. */
  readonly replicas: number;
  /** The PodDisruptionBudget's maxUnavailable: how many pods the fleet is sized to lose at peak. */
  readonly maxUnavailable: number;
  readonly override?: Override<number>;
}

/**
 * `maxEjectionPercent`: the proxy may eject at most as many hosts as the PodDisruptionBudget lets a
 * drain take, and never more than half the fleet (so ejection alone never pushes Envoy below its
 * 50 % panic threshold). Rounded down so that however Envoy rounds, it ejects no more hosts.
 */
export function maxEjectionPercent(inp: EjectionCapInputs): Decision<number> {
  const r = checkInteger('passiveHealthCheck.replicas', inp.replicas, 2, 1000, 'outlier detection over fewer than 2 hosts can only eject the whole service.', 'pass the service\'s replica count.');
  const b = checkInteger('passiveHealthCheck.maxUnavailable', inp.maxUnavailable, 1, r - 1, 'it is the PodDisruptionBudget\'s maxUnavailable, which is at least 1 and below the replica count.', 'pass the decided PodDisruptionBudget maxUnavailable.');
  const hosts = Math.min(b, Math.floor(r / 2));
  const pct = Math.floor((100 * hosts) / r + 1e-9);
  const computed = decided(pct,
    `At most ${hosts} of ${r} hosts ejected (${pct} %): the PodDisruptionBudget lets a drain take ${b} pod(s) because the fleet is sized so the survivors stay under the utilisation ceiling at peak; the proxy may not remove more than that, or ejections of overloaded pods move their load onto the rest and cascade (docs/mechanisms.md#readiness-control-loop). ${hosts < b ? `Capped at half the fleet: ` : 'It also stays at or below half the fleet: '}ejection alone never drops healthy hosts below Envoy's ${ENVOY_PANIC_THRESHOLD_PERCENT} % panic threshold, where Envoy routes to every host again, ejected ones included (fails open, docs/mechanisms.md#leave-slowly-return-slower). Rounded down so Envoy never ejects more hosts than that.`,
    { replicas: r, pdbMaxUnavailable: b, maxEjectedHosts: hosts, maxEjectionPercent: pct });
  const d = withOverride('passiveHealthCheck.maxEjectionPercent', computed, inp.override, (v) => `${v} %`);
  if (d.overridden) checkInteger('passiveHealthCheck.maxEjectionPercent', d.value, 0, 50, 'above 50 % the proxy could remove most of the fleet, and Envoy\'s panic threshold (50 %) would route to ejected hosts anyway (docs/mechanisms.md#leave-slowly-return-slower).', `use ${pct}.`);
  return d;
}

// ---------------------------------------------------------------------------------------------
// Policy target
// ---------------------------------------------------------------------------------------------

export interface PolicyTargetRef {
  readonly group: string;
  readonly kind: string;
  readonly name: string;
}

/**
 * A keep-alive policy must target the service's HTTPRoute: on the shared Gateway it would change
 * every upstream behind it (docs/mechanisms.md#keep-alive-race), and `mergeType` is only valid on route targets.
 */
export function checkPolicyTargets(refs: readonly PolicyTargetRef[]): void {
  if (refs.length === 0) {
    throw new RollwiseInputError('targetRefs', '[]', 'a BackendTrafficPolicy with no target applies nowhere.', 'target the service\'s HTTPRoute.');
  }
  for (const ref of refs) {
    if (ref.group !== 'gateway.networking.k8s.io' || ref.kind !== 'HTTPRoute') {
      throw new RollwiseInputError('targetRefs', `${ref.kind}/${ref.name}`,
        `a keep-alive policy derived from one app's keep-alive must target that app's HTTPRoute (group gateway.networking.k8s.io); on a ${ref.kind} it would change every upstream behind it, e.g. Grafana or Argo CD, whose servers keep connections alive differently (docs/mechanisms.md#keep-alive-race), and mergeType StrategicMerge is only valid on route targets.`,
        'target the service\'s HTTPRoute: { group: "gateway.networking.k8s.io", kind: "HTTPRoute", name: <service name> }.');
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Formatting
// ---------------------------------------------------------------------------------------------

/** "5 s", "500 ms", "65 s", "5 min", "1 h", "1 h 30 min": durations in reasons and errors. */
export function showDuration(s: number): string {
  if (!Number.isFinite(s)) return String(s);
  if (s > 0 && s < 1) return `${round3(s * 1000)} ms`;
  if (s >= 60 && Number.isInteger(s) && s % 60 === 0) {
    const h = Math.floor(s / 3600);
    const m = Math.floor((s % 3600) / 60);
    const sec = s % 60;
    return [h ? `${h} h` : '', m ? `${m} min` : '', sec ? `${sec} s` : ''].filter(Boolean).join(' ');
  }
  return `${round3(s)} s`;
}

/** Envoy Gateway duration string ("3s", "1h", "1m30s", "500ms"), matching the CRD's pattern. */
export function envoyDuration(s: number): string {
  if (s > 99_999 * 3600) throw new Error(`duration too long for Envoy Gateway: ${s} s`);
  return formatGoDuration(s);
}

function representable(s: number): boolean {
  return Number.isFinite(s) && Math.abs(Math.round(s * 1000) - s * 1000) < 1e-6 && s <= 99_999 * 3600;
}

function round3(n: number): number {
  return Math.round(n * 1000) / 1000;
}
