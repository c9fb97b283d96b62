import { Duration } from 'cdk8s';
import { AppServer } from './app-server';
import { RollwiseInputError } from '../errors';
import { checkInteger, seconds } from './inputs';
import { decided, Decision, Override, withOverride } from './decision';
import { representable, round3, showDuration } from './show-duration';

// The proxy's keep-alive decisions for one route: the idle timeout below the app's keep-alive (the
// margin rule), the connect timeout and retries on reset. The app server they start from is in
// app-server.ts; the BackendTrafficPolicy's other values in outlier-ejection.ts and
// policy-targets.ts; durations as shown in show-duration.ts. Those are re-exported here, where the
// public API (src/index.ts) and the tests have always found them.
export { AppServer, appServerPresets, GO_NET_HTTP } from './app-server';
export type {
  AppServerPreset,
  GoNetHttpOptions,
  KeepAliveBehaviour,
  KeepAliveOptions,
  ReactorNettyOptions,
} from './app-server';
export { ENVOY_PANIC_THRESHOLD_PERCENT, maxEjectionPercent } from './outlier-ejection';
export type { EjectionCapInputs } from './outlier-ejection';
export { checkPolicyTargets } from './policy-targets';
export type { PolicyTargetRef } from './policy-targets';
export { envoyDuration, showDuration } from './show-duration';

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
export const MARGIN_RULE =
  `idle = keep-alive - max(${MIN_MARGIN_SECONDS} s, ${MARGIN_FRACTION * 100} % of ` +
  `keep-alive), rounded down to whole seconds, at least ${MIN_IDLE_SECONDS} s`;

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

/**
 * How many lost SYNs in a row a connect timeout of `seconds` survives on a kernel retransmitting at `schedule`:
 * retransmissions sent before it, answered within an in-cluster round trip.
 */
export function lostSynsSurvivedOn(seconds: number, schedule: readonly number[]): number {
  return schedule.filter((t) => t < seconds).length;
}

/**
 * How many lost SYNs in a row a connect timeout of `seconds` survives on any kernel: the worse of
 * the two schedules, which is always the one before 6.5 (it never retransmits earlier).
 */
export function lostSynsSurvived(seconds: number): number {
  return Math.min(
    lostSynsSurvivedOn(seconds, SYN_RETRANSMIT_SECONDS),
    lostSynsSurvivedOn(seconds, SYN_RETRANSMIT_SECONDS_LINEAR),
  );
}

/** The kernel's schedules against a connect timeout, in one sentence. */
function synSentence(connectSeconds: number): string {
  const old = lostSynsSurvivedOn(connectSeconds, SYN_RETRANSMIT_SECONDS);
  const linear = lostSynsSurvivedOn(connectSeconds, SYN_RETRANSMIT_SECONDS_LINEAR);
  const n = Math.min(old, linear);
  const syns = (k: number) => `${k} lost SYN${k === 1 ? '' : 's'}`;
  const at = (schedule: readonly number[], k: number) =>
    schedule[k] === undefined ? 'never' : `${schedule[k]} s after the first`;
  const nextOld = at(SYN_RETRANSMIT_SECONDS, old);
  const nextLinear = at(SYN_RETRANSMIT_SECONDS_LINEAR, linear);
  const survives =
    n === 0
      ? 'no lost SYN on any kernel: each one is a 503 UF'
      : old === linear
        ? `${syns(n)} in a row on any kernel (the next retransmission comes ${nextOld} before ` +
          `6.5 and ${nextLinear} from 6.5 on: too late)`
        : `at least ${syns(n)} in a row: ${old} on kernels before 6.5 (the next ` +
          `retransmission, ${nextOld}, comes too late), ${linear} from 6.5 on`;
  return (
    'An in-cluster connect takes milliseconds, but Linux re-sends a lost SYN only after 1 s (initial ' +
    'retransmission timeout, include/net/tcp.h TCP_TIMEOUT_INIT), then kernels before 6.5 double the wait ' +
    '(retransmissions 1, 3, 7, 15 s after the first SYN) while 6.5 and later keep 1 s for the first five ' +
    '(tcp_syn_linear_timeouts 4: 1, 2, 3, 4, 5, 7, 11 s; net/ipv4/tcp_timer.c), so a connect timeout ' +
    `of ${showDuration(connectSeconds)} survives ${survives} (docs/mechanisms.md#a-lost-syn-and-the-connect-timeout).`
  );
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

const MARGIN_WHY =
  'The margin covers a request in flight: the proxy may hand a request to a connection just before ' +
  `its own timer fires, and that request must reach the app before the app's timer fires; the app's timer also ` +
  'started a little earlier (when it wrote the last response). In a cluster that is milliseconds, a lost segment is ' +
  `re-sent after 200 ms or more, so at least ${MIN_MARGIN_SECONDS} s; ${MARGIN_FRACTION * 100} % for longer ` +
  'keep-alives because a lower idle timeout only costs an in-cluster reconnect while a higher one is the 503 ' +
  '(docs/mechanisms.md#keep-alive-race).';

// ---------------------------------------------------------------------------------------------
// Decisions
// ---------------------------------------------------------------------------------------------

/**
 * Inputs of the keep-alive decisions for one route (a route's BackendTrafficPolicy inputs,
 * TrafficPolicyInputs, extend them).
 */
export interface KeepAliveInputs {
  /** The application server behind the route: its keep-alive sets the proxy's idle timeout. */
  readonly appServer: AppServer;
  /**
   * Replaces the derived `connectionIdleTimeout`; still refused when not below the app's keep-alive.
   * @default the margin rule applied to the app's keep-alive (uvicorn 5 s -> 3 s)
   */
  readonly idleTimeout?: Override<Duration>;
  /**
   * Replaces the derived `connectTimeout` (Envoy's 10 s default, not lowered to the idle timeout: envoy#42753 is fixed
   * in Envoy 1.38.0); refused when not above 0 or not a whole number of milliseconds.
   * @default Envoy's 10 s (proxyConnectTimeout)
   */
  readonly connectTimeout?: Override<Duration>;
  /**
   * Accepts an idle timeout at or above the app's keep-alive (occasional 503 UC); needs a reason.
   * @default refused
   */
  readonly acceptKeepAliveRace?: Override<boolean>;
  /**
   * Retries on reset for this route (number of retries, 1-3), with the reason it is safe here.
   * @default no retry policy (resets are not retried)
   */
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
  /** The retry's trigger (`retry.retryOn.triggers`), when retryOnReset is above 0: reset only. */
  readonly retryOn?: Decision<'reset'>;
  /** Warnings to show at synth (e.g. Go without an idle timeout). */
  readonly warnings: readonly string[];
}

/** The proxy idle timeout for an app server, with its reason (the margin rule applied). */
export function proxyIdleTimeout(server: AppServer): Decision<number | undefined> {
  if (server.behaviour === 'close-after-response') {
    return decided<number | undefined>(
      undefined,
      `No connectionIdleTimeout: ${server.describe()}, so the proxy cannot reuse a connection and none is ever idle ` +
        'in its pool; there is no keep-alive race to prevent, and a value here would have no effect while capping ' +
        'the connect timeout every request (each on a new connection) pays. Each request costs a new in-cluster TCP ' +
        'connection; for a high request rate use a worker with keep-alive (docs/mechanisms.md#keep-alive-race).',
      { appServer: server.name, appKeepAlive: 'none' },
    );
  }
  if (server.behaviour === 'never') {
    const idle = NEVER_CLOSING_APP_IDLE_SECONDS;
    return decided<number | undefined>(
      idle,
      `${server.describe()}, so there is no race from the app side, but every idle connection lives until the proxy ` +
        `closes it: the proxy's idle timeout governs alone. ${showDuration(idle)} keeps connections reused as long ` +
        `as common servers allow (Tomcat 60 s, Node.js 26 65 s) instead of Envoy's 1 h default ` +
        '(docs/mechanisms.md#keep-alive-race).',
      { appServer: server.name, appKeepAlive: 'unlimited', idleSeconds: idle },
    );
  }
  const ka = server.keepAliveSeconds!;
  const idle = idleTimeoutFor(ka);
  if (idle === undefined) {
    throw new RollwiseInputError(
      'appServer',
      `${server.name} keep-alive ${showDuration(ka)}`,
      `no safe proxy idle timeout fits under it: rollwise keeps at least ${MIN_MARGIN_SECONDS} s between the app's ` +
        `keep-alive and the proxy's idle timeout (a request in flight) and emits whole seconds of at ` +
        `least ${MIN_IDLE_SECONDS} s, so the app's keep-alive must be at least ${MIN_APP_KEEPALIVE_SECONDS} s. ` +
        'Closer than that, requests written onto a connection the app is closing fail with 503 UC ' +
        '(docs/mechanisms.md#keep-alive-race).',
      `raise ${server.name}'s ${server.knob ?? 'keep-alive'} to at least ${MIN_APP_KEEPALIVE_SECONDS} s (5 s gives ` +
        'the proxy 3 s) and declare the new value.',
    );
  }
  const margin = Math.max(MIN_MARGIN_SECONDS, MARGIN_FRACTION * ka);
  return decided<number | undefined>(
    idle,
    `${server.describe()}; the proxy closes at ${showDuration(idle)}, so it always closes first. ` +
      `Rule: ${MARGIN_RULE}: ${showDuration(ka)} - ${showDuration(margin)} = ${showDuration(ka - margin)} ` +
      `-> ${showDuration(idle)}. ${MARGIN_WHY}`,
    { appServer: server.name, appKeepAliveSeconds: ka, marginSeconds: round3(margin), idleSeconds: idle },
  );
}

/**
 * Refuses the keep-alive race: the proxy's idle timeout must be strictly below the app's
 * keep-alive, unless `accept` carries a reason. Returns the accepted decision (for the reasons).
 */
export function checkProxyClosesFirst(
  server: AppServer,
  idleSeconds: number | undefined,
  accept?: Override<boolean>,
): Decision<boolean> {
  const computed = decided(
    false,
    'The proxy must close idle upstream connections before the app does (docs/mechanisms.md#keep-alive-race).',
  );
  const d = withOverride('acceptKeepAliveRace', computed, accept, (v) => (v ? 'race accepted' : 'race refused'));
  if (server.behaviour !== 'timeout') return d;
  const ka = server.keepAliveSeconds!;
  const idle = idleSeconds ?? ENVOY_DEFAULT_IDLE_TIMEOUT_SECONDS;
  if (idle < ka || d.value === true) return d;
  const safe = idleTimeoutFor(ka);
  throw new RollwiseInputError(
    'idleTimeout',
    showDuration(idle),
    'the proxy would keep an idle upstream connection ' +
      `for ${showDuration(idle)}${idleSeconds === undefined ? " (Envoy's default)" : ''}, but ${server.name} closes ` +
      `it after ${showDuration(ka)}: now and then the proxy writes a request onto a connection ${server.name} is ` +
      'closing, no response byte comes, and the client gets a 503 with response flag UC ' +
      '(upstream_reset_before_response_started) that no application log shows (docs/mechanisms.md#keep-alive-race, ' +
      '#response-flags).',
    'set the proxy idle timeout ' +
      `below ${showDuration(ka)}${safe !== undefined ? ` (remove the override to get ${showDuration(safe)})` : ''}; ` +
      `or, if this race is deliberate, add acceptKeepAliveRace: { value: true, because: '<why>' }.`,
  );
}

/**
 * The connect timeout: Envoy's 10 s default, not lowered to the idle timeout (envoy#42753 is fixed in the Envoy that
 * Envoy Gateway v1.9.0 runs).
 */
export function proxyConnectTimeout(
  idle: Decision<number | undefined>,
  override?: Override<Duration>,
): Decision<number> {
  const idleS = idle.value;
  const value = connectTimeoutFor(idleS);
  const shown = showDuration(value);
  const idleShown = idleS === undefined ? '' : showDuration(idleS);
  const computed =
    idleS === undefined
      ? decided(
          value,
          `Envoy's default ${shown} (Envoy Gateway v1.9.0's too), written out because with no keep-alive ` +
            `every request opens a new connection and waits on this timeout. ${synSentence(value)}`,
          { connectSeconds: value, lostSynsSurvived: lostSynsSurvived(value) },
        )
      : decided(
          value,
          `Envoy's default ${shown} (Envoy Gateway v1.9.0's too), not lowered to the idle ` +
            `timeout ${idleShown}: Envoy before 1.38.0 ran the idle timer while the connection was still being ` +
            'established and closed a connect that outlasted it (envoy#42753); Envoy 1.38.0 fixed that (envoy#42756, ' +
            'runtime guard codec_client_enable_idle_timer_only_when_connected, on by default) and Envoy Gateway v1.9.0 ' +
            'runs Envoy 1.39.0, so the idle timer starts once the connection is up and this value alone bounds the ' +
            `connect. On an older Envoy image the idle timeout would still cut a connect at ${idleShown}, the ` +
            'same as a connect timeout lowered to it, so the default is never worse ' +
            `(docs/mechanisms.md#a-lost-syn-and-the-connect-timeout). ${synSentence(value)}`,
          { connectSeconds: value, idleSeconds: idleS, lostSynsSurvived: lostSynsSurvived(value) },
        );
  const d = withOverride(
    'connectTimeout',
    computed,
    override && { value: seconds(override.value), because: override.because },
    showDuration,
  );
  if (d.overridden && (!(d.value > 0) || !representable(d.value))) {
    throw new RollwiseInputError(
      'connectTimeout',
      showDuration(d.value),
      'must be above 0 and a whole number of milliseconds: Envoy Gateway takes durations like "3s" or "500ms".',
      `use ${showDuration(value)}.`,
    );
  }
  return d;
}

/** Retry on reset: none unless overridden with a reason (1-3 retries). */
export function retryOnResetDecision(override?: Override<number>): Decision<number> {
  const computed = decided(
    0,
    'No retry on reset: a reset can come after a non-idempotent request (a POST) reached the app, so retrying it can ' +
      "run it twice, and retries hide the race instead of removing it; the idle timeout below the app's keep-alive " +
      'removes the cause (docs/mechanisms.md#keep-alive-race). Available per route with a reason.',
  );
  const d = withOverride('retryOnReset', computed, override, (v) =>
    v === 0 ? 'no retry' : `${v} retr${v === 1 ? 'y' : 'ies'} on reset`,
  );
  if (d.overridden)
    checkInteger(
      'retryOnReset',
      d.value,
      0,
      3,
      'each retry multiplies the load a failing upstream sees; more than 3 turns a blip into a retry storm.',
      'use 1 retry on reset, for routes whose requests are idempotent.',
    );
  return d;
}

/** The trigger of an overridden retry on reset: reset, nothing else. */
export function retryOnDecision(retries: Decision<number>): Decision<'reset'> | undefined {
  if (retries.value <= 0) return undefined;
  return decided(
    'reset',
    'Only the reset trigger: the override asked for retries on reset, nothing else (connect failures and 5xx stay ' +
      'unretried).',
  );
}

/** Every keep-alive decision for one route, with the race refused. */
export function decideKeepAlive(inp: KeepAliveInputs): KeepAliveDecisions {
  const server = inp.appServer;
  if (!(server instanceof AppServer)) {
    throw new RollwiseInputError(
      'appServer',
      server,
      'must be an AppServer: the proxy idle timeout is derived from its keep-alive.',
      'pass a preset such as AppServer.uvicorn(), or AppServer.custom(name, Duration.seconds(n)).',
    );
  }
  const computed = proxyIdleTimeout(server);
  const overrideIdle = inp.idleTimeout && { value: seconds(inp.idleTimeout.value), because: inp.idleTimeout.because };
  let idle = withOverride<number | undefined>('idleTimeout', computed, overrideIdle, (v) =>
    v === undefined ? 'unset' : showDuration(v),
  );
  if (idle.overridden && (idle.value === undefined || !(idle.value > 0) || !representable(idle.value))) {
    throw new RollwiseInputError(
      'idleTimeout',
      idle.value === undefined ? 'unset' : showDuration(idle.value),
      'must be above 0 and a whole number of milliseconds: Envoy Gateway takes durations like "3s" or "500ms".',
      'give a Duration such as Duration.seconds(3).',
    );
  }
  const race = checkProxyClosesFirst(server, idle.value, inp.acceptKeepAliveRace);
  if (
    race.overridden &&
    race.value &&
    server.behaviour === 'timeout' &&
    (idle.value ?? ENVOY_DEFAULT_IDLE_TIMEOUT_SECONDS) >= server.keepAliveSeconds!
  ) {
    idle = {
      ...idle,
      reason:
        `${idle.reason} Race accepted: the proxy keeps idle ` +
        `connections ${showDuration(idle.value!)} and ${server.name} closes them ` +
        `after ${showDuration(server.keepAliveSeconds!)}, so expect occasional 503 UC. ${race.reason}`,
    };
  }
  const warnings: string[] = [];
  if (server.behaviour === 'never' && server.name === 'Go net/http') {
    warnings.push(
      'Go net/http with IdleTimeout and ReadTimeout both 0 never closes idle connections: no keep-alive race from ' +
        'the app side, but every idle connection (a socket and a goroutine) lives until the proxy closes it, so the ' +
        `proxy idle timeout (${idle.value === undefined ? "Envoy's 1 h" : showDuration(idle.value)}) governs alone. ` +
        'Set http.Server.IdleTimeout (e.g. 75 s) and declare it with AppServer.goNetHttp({ idleTimeout }).',
    );
  }
  // in this order, so that of two bad inputs the connect timeout is named first, as before
  const connectTimeoutSeconds = proxyConnectTimeout(idle, inp.connectTimeout);
  const retryOnReset = retryOnResetDecision(inp.retryOnReset);
  const retryOn = retryOnDecision(retryOnReset);
  return {
    appServer: server,
    idleTimeoutSeconds: idle,
    connectTimeoutSeconds,
    retryOnReset,
    ...(retryOn ? { retryOn } : {}),
    warnings,
  };
}
