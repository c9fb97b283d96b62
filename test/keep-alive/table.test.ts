import { appServerPresets } from '../../src/decisions/keep-alive';
import { keepAliveTable } from '../../src/docs/keep-alive-table';

describe('keepAliveTable', () => {
  const md = keepAliveTable();
  const rows = md.split('\n').filter((l) => l.startsWith('| ') && !l.startsWith('| server'));

  test('one row per preset, generated from the presets', () => {
    expect(rows).toHaveLength(appServerPresets().length);
    expect(rows).toContain('| uvicorn | `AppServer.uvicorn()` | 5 s | `--timeout-keep-alive` | `3s` | `10s` |');
    expect(rows).toContain(
      '| gunicorn (gthread worker) | `AppServer.gunicornGthread()` | 2 s | `--keep-alive` | `1s` | `10s` |',
    );
    expect(rows).toContain('| Caddy | `AppServer.caddy()` | 5 min | `idle_timeout` | `3m` | `10s` |');
    expect(rows).toContain(
      '| Undertow (unconfirmed) | `AppServer.undertow()` | 1 min | `server.undertow.no-request-timeout` | `36s` | `10s` |',
    );
    expect(rows).toContain(
      '| gunicorn (sync worker) | `AppServer.gunicornSync()` | none (closes after each response) | - | not set (no connection is ever idle) | `10s` |',
    );
    expect(rows).toContain(
      '| Go net/http | `AppServer.goNetHttp()` | no idle timeout | `http.Server.IdleTimeout` | `1m` (proxy governs alone) | `10s` |',
    );
  });

  test('states the rule and how to read the two counters, with PromQL', () => {
    expect(md).toContain(
      'Rule: idle = keep-alive - max(1 s, 40 % of keep-alive), rounded down to whole seconds, at least 1 s',
    );
    expect(md).toMatch(/`envoy_cluster_upstream_cx_idle_timeout` \*\*rises\*\*/);
    expect(md).toMatch(/`envoy_cluster_upstream_cx_destroy_remote_with_active_rq` \*\*falls\*\*/);
    expect(md).toContain(
      'rate(envoy_cluster_upstream_cx_idle_timeout{envoy_cluster_name=~"httproute/<namespace>/<route>/rule/.*"}[5m])',
    );
    expect(md).toContain('```promql');
    expect(md).toContain('UC');
  });
});
