import { App, Chart, Duration } from 'cdk8s';
import { RouteTrafficPolicy, RouteTrafficPolicyProps } from '../../src/constructs/backend-traffic-policy';
import { AppServer, appServerPresets } from '../../src/decisions/keep-alive';
import { ANNOTATIONS } from '../../src/justify/annotations';
import { explainManifest } from '../../src/justify/explain';
import { reasonsOf, toCommentedYaml } from '../../src/justify/comments';
import { parseReasonLines } from '../../src/justify/reasons';
import { warningsOf } from '../../src/synth/output';
import { SchemaValidator } from '../../src/schemas/validator';

// Plain manifest JSON; the fields read here are checked by the assertions themselves.
type Manifest = {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; annotations: Record<string, string> };
  spec: any; // eslint-disable-line @typescript-eslint/no-explicit-any
};

let validator: SchemaValidator;
beforeAll(() => {
  validator = SchemaValidator.load();
});

/** Parses an Envoy Gateway duration ("1m18s", "500ms") into seconds. */
function secs(s: string): number {
  expect(s).toMatch(/^(\d+(h|m|s|ms))+$/);
  const unit: Record<string, number> = { h: 3600, m: 60, s: 1, ms: 0.001 };
  return [...s.matchAll(/(\d+)(ms|h|m|s)/g)].reduce((t, m) => t + Number(m[1]) * unit[m[2]], 0);
}

function synth(
  props: Partial<RouteTrafficPolicyProps> & { appServer: AppServer },
  id = 'checkout-api',
): { obj: Manifest; app: App } {
  const app = new App();
  const chart = new Chart(app, 'chart', { namespace: 'shop' });
  const p = new RouteTrafficPolicy(chart, id, { routeName: 'checkout-api', ...props });
  return { obj: p.policy.toJson() as Manifest, app };
}

describe('RouteTrafficPolicy', () => {
  test('uvicorn: 3s idle, 10s connect, StrategicMerge, on the HTTPRoute, schema-valid', () => {
    const { obj } = synth({ appServer: AppServer.uvicorn() });
    expect(validator.validate(obj)).toEqual([]);
    expect(obj.apiVersion).toBe('gateway.envoyproxy.io/v1alpha1');
    expect(obj.kind).toBe('BackendTrafficPolicy');
    expect(obj.metadata.name).toBe('checkout-api');
    expect(obj.metadata.namespace).toBe('shop');
    expect(obj.spec).toEqual({
      targetRefs: [{ group: 'gateway.networking.k8s.io', kind: 'HTTPRoute', name: 'checkout-api' }],
      mergeType: 'StrategicMerge',
      timeout: { http: { connectionIdleTimeout: '3s' }, tcp: { connectTimeout: '10s' } },
    });
    expect(obj.metadata.annotations[ANNOTATIONS.appKeepAliveSeconds]).toBe('5');
    const reasons = reasonsOf(obj);
    expect(reasons['spec.timeout.http.connectionIdleTimeout']).toContain('uvicorn closes idle connections after 5 s');
    expect(reasons['spec.timeout.http.connectionIdleTimeout']).toContain(
      'the proxy closes at 3 s, so it always closes first',
    );
    expect(reasons['spec.timeout.tcp.connectTimeout']).toContain('envoy#42753');
    expect(reasons['spec.mergeType']).toContain('silently drop');
    expect(reasons['spec.retry']).toContain('No retry on reset');
    expect(reasons['spec.targetRefs']).toContain('on the shared Gateway it would change every upstream');
    expect(obj.metadata.annotations[ANNOTATIONS.overrides]).toBeUndefined();
  });

  test('the YAML carries the reason beside the value', () => {
    const yaml = toCommentedYaml([synth({ appServer: AppServer.uvicorn() }).obj]);
    expect(yaml).toMatch(/# uvicorn closes idle connections after 5 s[^]*\n\s+connectionIdleTimeout: 3s\n/);
  });

  test.each(appServerPresets().map((p) => [p.factory, p.server] as const))(
    "%s: schema-valid, targets the HTTPRoute, idle below keep-alive, connect Envoy's 10 s",
    (_f, server) => {
      const { obj } = synth({ appServer: server });
      expect(validator.validate(obj)).toEqual([]);
      expect(obj.spec.targetRefs).toEqual([
        { group: 'gateway.networking.k8s.io', kind: 'HTTPRoute', name: 'checkout-api' },
      ]);
      const connect = secs(obj.spec.timeout.tcp.connectTimeout);
      const idleStr: string | undefined = obj.spec.timeout.http?.connectionIdleTimeout;
      if (server.behaviour === 'close-after-response') {
        expect(idleStr).toBeUndefined();
        expect(obj.metadata.annotations[ANNOTATIONS.appKeepAliveSeconds]).toBe('none');
      } else {
        const idle = secs(idleStr!);
        if (server.behaviour === 'timeout') expect(idle).toBeLessThan(server.keepAliveSeconds!);
      }
      expect(connect).toBe(10);
      expect(obj.spec.retry).toBeUndefined();
    },
  );

  test('gunicorn gthread: idle under 2 s', () => {
    const { obj } = synth({ appServer: AppServer.gunicornGthread() });
    expect(obj.spec.timeout).toEqual({ http: { connectionIdleTimeout: '1s' }, tcp: { connectTimeout: '10s' } });
  });

  test('Caddy and Kestrel: minutes in Envoy duration syntax', () => {
    expect(synth({ appServer: AppServer.caddy() }).obj.spec.timeout.http.connectionIdleTimeout).toBe('3m');
    const k = synth({ appServer: AppServer.kestrel() }).obj;
    expect(k.spec.timeout.http.connectionIdleTimeout).toBe('1m18s');
    expect(validator.validate(k)).toEqual([]);
  });

  test('the race is refused at synth, naming 1 h, 5 s and UC', () => {
    expect(() =>
      synth({
        appServer: AppServer.uvicorn(),
        idleTimeout: { value: Duration.hours(1), because: 'gateway default copied over' },
      }),
    ).toThrow(/idleTimeout = 1 h: .*uvicorn closes it after 5 s.*response flag UC/);
  });

  test('an override with a reason passes; its reason is in the output and in explain', () => {
    const { obj } = synth({
      appServer: AppServer.uvicorn(),
      idleTimeout: { value: Duration.millis(2500), because: 'load test showed 2.5 s halves reconnects' },
    });
    expect(validator.validate(obj)).toEqual([]);
    expect(obj.spec.timeout.http.connectionIdleTimeout).toBe('2s500ms');
    const overrides = parseReasonLines(obj.metadata.annotations[ANNOTATIONS.overrides]);
    expect(overrides['spec.timeout.http.connectionIdleTimeout']).toBe(
      'Overridden: load test showed 2.5 s halves reconnects (rollwise computed 3 s.)',
    );
    const explained = explainManifest(toCommentedYaml([obj])).find(
      (e) => e.path === 'spec.timeout.http.connectionIdleTimeout',
    );
    expect(explained).toMatchObject({
      object: 'BackendTrafficPolicy/checkout-api',
      value: '2s500ms',
      overridden: true,
    });
  });

  test('retry on reset per route with a reason', () => {
    const { obj } = synth({
      appServer: AppServer.uvicorn(),
      retryOnReset: { value: 1, because: 'read-only catalogue route, all GETs' },
    });
    expect(validator.validate(obj)).toEqual([]);
    expect(obj.spec.retry).toEqual({ numRetries: 1, retryOn: { triggers: ['reset'] } });
    expect(reasonsOf(obj)['spec.retry.numRetries']).toContain('read-only catalogue route, all GETs');
  });

  test('passive health check with the ejection cap', () => {
    const { obj } = synth({ appServer: AppServer.uvicorn(), passiveHealthCheck: { replicas: 12, maxUnavailable: 1 } });
    expect(validator.validate(obj)).toEqual([]);
    expect(obj.spec.healthCheck).toEqual({
      passive: {
        consecutive5XxErrors: 5,
        interval: '3s',
        baseEjectionTime: '30s',
        maxEjectionPercent: 8,
        alwaysEjectOneEndpoint: true,
      },
      panicThreshold: 50,
    });
    expect(reasonsOf(obj)['spec.healthCheck.passive.maxEjectionPercent']).toContain(
      'At most 1 of 12 hosts ejected (8 %)',
    );
  });

  test('Go without an idle timeout: a synth warning explaining the consequence', () => {
    const { obj, app } = synth({ appServer: AppServer.goNetHttp() });
    expect(obj.spec.timeout.http.connectionIdleTimeout).toBe('1m');
    expect(obj.metadata.annotations[ANNOTATIONS.appKeepAliveSeconds]).toBe('unlimited');
    const w = warningsOf(app);
    expect(w).toHaveLength(1);
    expect(w[0]).toMatch(
      /^chart\/checkout-api: Go net\/http with IdleTimeout and ReadTimeout both 0 never closes idle connections/,
    );
    expect(w[0]).toContain('governs alone');
    expect(warningsOf(synth({ appServer: AppServer.goNetHttp({ idleTimeout: Duration.seconds(90) }) }).app)).toEqual(
      [],
    );
  });

  test('never a Gateway: the only target is the named HTTPRoute; a bad route name is refused', () => {
    const { obj } = synth({ appServer: AppServer.nginx() });
    expect(obj.spec.targetRefs.map((r: { kind: string }) => r.kind)).toEqual(['HTTPRoute']);
    expect(() => synth({ appServer: AppServer.nginx(), routeName: 'Checkout API' })).toThrow(
      /routeName = Checkout API/,
    );
  });

  test('the schema catches what the generator must never emit', () => {
    const { obj } = synth({ appServer: AppServer.uvicorn() });
    const broken = { ...obj, spec: { ...obj.spec, timeout: { http: { connectionIdleTimeout: '3 s' } } } };
    expect(validator.validate(broken).join('\n')).toContain('connectionIdleTimeout');
  });
});
