import {
  appServerPresets,
  connectTimeoutFor,
  envoyDuration,
  idleTimeoutFor,
  MARGIN_RULE,
  MIN_APP_KEEPALIVE_SECONDS,
  NEVER_CLOSING_APP_IDLE_SECONDS,
  showDuration,
} from '../decisions/keep-alive';

/**
 * The README's keep-alive section, generated from the AppServer presets and the margin rule (the
 * README holds it between markers and a check keeps the two in sync): the table of servers with
 * the proxy timeouts rollwise sets, and how to confirm the fix in production.
 */
export function keepAliveTable(): string {
  const rows = appServerPresets().map(({ factory, server }) => {
    let keepAlive: string;
    let idle: string;
    let connect: string;
    if (server.behaviour === 'timeout') {
      const ka = server.keepAliveSeconds!;
      const i = idleTimeoutFor(ka);
      keepAlive = showDuration(ka);
      idle = i === undefined ? `refused (keep-alive below ${MIN_APP_KEEPALIVE_SECONDS} s)` : `\`${envoyDuration(i)}\``;
      connect = i === undefined ? '-' : `\`${envoyDuration(connectTimeoutFor(i))}\``;
    } else if (server.behaviour === 'close-after-response') {
      keepAlive = 'none (closes after each response)';
      idle = 'not set (no connection is ever idle)';
      connect = `\`${envoyDuration(connectTimeoutFor(undefined))}\``;
    } else {
      keepAlive = 'no idle timeout';
      idle = `\`${envoyDuration(NEVER_CLOSING_APP_IDLE_SECONDS)}\` (proxy governs alone)`;
      connect = `\`${envoyDuration(connectTimeoutFor(NEVER_CLOSING_APP_IDLE_SECONDS))}\``;
    }
    const note = server.source.includes('unconfirmed') ? ' (unconfirmed)' : '';
    return (
      `| ${server.name}${note} | \`AppServer.${factory}()\` | ${keepAlive} ` +
      `| ${server.knob ? `\`${server.knob}\`` : '-'} | ${idle} | ${connect} |`
    );
  });
  return [
    '| server | preset | default idle keep-alive | knob | proxy `connectionIdleTimeout` | proxy `connectTimeout` |',
    '|---|---|---|---|---|---|',
    ...rows,
    '',
    `Rule: ${MARGIN_RULE}; \`connectTimeout\` = 10 s, Envoy's default, whatever the idle timeout (Envoy before ` +
      '1.38.0 cut a connect at the idle timeout, envoy#42753; Envoy Gateway v1.9.0 runs Envoy 1.39.0, which does ' +
      `not). A changed knob is declared on the preset, e.g. \`AppServer.uvicorn({ keepAlive: Duration.seconds(10) ` +
      `})\`; any other server with \`AppServer.custom(name, keepAlive, knob)\` or \`AppServer.noKeepAlive(name)\`. ` +
      `Go's \`IdleTimeout\` falls back to \`ReadTimeout\`; \`AppServer.goNetHttp({ idleTimeout, readTimeout })\` ` +
      'follows the same rule.',
    '',
    '### Confirming the fix in production',
    '',
    'Two Envoy counters per route cluster (`httproute/<namespace>/<route>/rule/<n>`) show which end closes idle ' +
      'connections:',
    '',
    '- `envoy_cluster_upstream_cx_idle_timeout` **rises** after the policy is applied: the proxy now closes idle ' +
      'connections first, at a moment it chooses.',
    '- `envoy_cluster_upstream_cx_destroy_remote_with_active_rq` **falls** toward zero: the app closing a connection ' +
      "with a request on it is the race's signature, each one a 503 `UC` (`upstream_reset_before_response_started`).",
    '',
    '```promql',
    '# proxy-side idle closes per second (should rise after the fix)',
    'sum by (envoy_cluster_name) ' +
      '(rate(envoy_cluster_upstream_cx_idle_timeout{envoy_cluster_name=~"httproute/<namespace>/<route>/rule/.*"}[5m]))',
    '# app-side closes with a request in flight per second (should fall to ~0)',
    'sum by (envoy_cluster_name) ' +
      '(rate(envoy_cluster_upstream_cx_destroy_remote_with_active_rq{envoy_cluster_name=~"httproute/<namespace>/<route>/rule/.*"}[5m]))',
    '```',
    '',
    'Compare a week before and after, including a scale-out (the race clusters when the autoscaler redistributes the ' +
      "pool). If the second counter does not fall, the declared keep-alive is wrong: check the server's knob.",
  ].join('\n');
}
