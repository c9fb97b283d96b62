// The application server behind a route and its idle keep-alive (AppServer, its presets and their
// input checks): what the keep-alive decisions of keep-alive.ts start from.
import { Duration } from 'cdk8s';
import { RollwiseInputError } from '../errors';
import { checkKeys, keysOf } from './props-keys';
import { seconds } from './inputs';
import { showDuration } from './show-duration';

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
    return new AppServer(
      'gunicorn (sync worker)',
      'close-after-response',
      undefined,
      undefined,
      'the sync worker does not support keep-alive',
      true,
    );
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
    const idle =
      opts.idleTimeout === undefined ? 0 : checkKeepAlive('appServer.goNetHttp.idleTimeout', opts.idleTimeout, true);
    const read =
      opts.readTimeout === undefined ? 0 : checkKeepAlive('appServer.goNetHttp.readTimeout', opts.readTimeout, true);
    if (idle > 0)
      return new AppServer(name, 'timeout', idle, 'http.Server.IdleTimeout', 'IdleTimeout as configured', true);
    if (read > 0) {
      return new AppServer(
        name,
        'timeout',
        read,
        'http.Server.IdleTimeout (unset, so ReadTimeout applies)',
        'IdleTimeout is 0, so Go uses ReadTimeout as the idle timeout',
        true,
      );
    }
    return new AppServer(
      name,
      'never',
      undefined,
      'http.Server.IdleTimeout',
      'IdleTimeout and ReadTimeout are both 0, so Go never closes an idle connection',
      true,
    );
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
    return new AppServer(
      'Unicorn',
      'close-after-response',
      undefined,
      undefined,
      'Unicorn answers with Connection: close',
      true,
    );
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
    return AppServer.preset(
      'Undertow',
      60,
      'server.undertow.no-request-timeout',
      opts,
      'the 60 s default is unconfirmed: measure it or set the knob explicitly',
    );
  }
  /** Reactor Netty / Spring WebFlux: no idle timeout unless `server.netty.idle-timeout` is set. */
  public static reactorNetty(opts: ReactorNettyOptions = {}): AppServer {
    const name = 'Reactor Netty (WebFlux)';
    checkKeys('appServer.reactorNetty', opts, ['idleTimeout'], 'AppServer.reactorNetty(options)');
    if (opts.idleTimeout !== undefined) {
      return new AppServer(
        name,
        'timeout',
        checkKeepAlive('appServer.reactorNetty.idleTimeout', opts.idleTimeout),
        'server.netty.idle-timeout',
        'as configured',
        true,
      );
    }
    return new AppServer(
      name,
      'never',
      undefined,
      'server.netty.idle-timeout',
      'Reactor Netty has no idle timeout by default',
      true,
    );
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
    return new AppServer(
      checkServerName(name),
      'timeout',
      checkKeepAlive('appServer.custom.keepAlive', keepAlive),
      knob,
      'as declared',
      false,
    );
  }
  /** A server that closes the connection after each response (no keep-alive). */
  public static noKeepAlive(name: string): AppServer {
    return new AppServer(
      checkServerName(name),
      'close-after-response',
      undefined,
      undefined,
      'declared without keep-alive',
      false,
    );
  }

  private static preset(
    name: string,
    defaultSeconds: number,
    knob: string,
    opts: KeepAliveOptions,
    note?: string,
  ): AppServer {
    checkKeys('appServer', opts, ['keepAlive'], `the options of the AppServer preset for ${name}`);
    if (opts.keepAlive === undefined)
      return new AppServer(name, 'timeout', defaultSeconds, knob, note ? `default; ${note}` : 'default', true);
    const s = checkKeepAlive(`appServer.${name}.keepAlive`, opts.keepAlive);
    return new AppServer(
      name,
      'timeout',
      s,
      knob,
      `${knob} set to ${showDuration(s)} (default ${showDuration(defaultSeconds)})`,
      true,
    );
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
    if (this.behaviour === 'timeout')
      return (
        `${this.name} closes idle connections ` +
        `after ${showDuration(this.keepAliveSeconds!)} (${this.source}${this.knob ? `; knob ${this.knob}` : ''})`
      );
    if (this.behaviour === 'close-after-response')
      return `${this.name} closes the connection after each response ` + `(${this.source})`;
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
    throw new RollwiseInputError(
      'appServer.name',
      name,
      'the server name appears in every keep-alive reason and error; an empty one says nothing.',
      'name the server, e.g. "waitress".',
    );
  }
  return name.trim();
}

function checkKeepAlive(input: string, d: Duration, zeroAllowed = false): number {
  if (!(d instanceof Duration)) {
    throw new RollwiseInputError(
      input,
      d,
      'must be a Duration (e.g. Duration.seconds(5)).',
      `pass ${input} as a cdk8s Duration.`,
    );
  }
  const s = seconds(d);
  if (!Number.isFinite(s) || (zeroAllowed ? s < 0 : s <= 0) || s > MAX_KEEPALIVE_SECONDS) {
    throw new RollwiseInputError(
      input,
      showDuration(s),
      `must be above 0 and at most a day: it is how long the server keeps an idle connection open, and the proxy's ` +
        'idle timeout is derived from it.',
      'give the value the server is configured with (check its knob), e.g. Duration.seconds(5).',
    );
  }
  return s;
}
