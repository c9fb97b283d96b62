import { Duration } from 'cdk8s';
import { AppServer, checkPolicyTargets, decideKeepAlive, maxEjectionPercent } from '../../src/decisions/keep-alive';
import { RollwiseInputError } from '../../src/errors';

function thrown(fn: () => unknown): RollwiseInputError {
  try {
    fn();
  } catch (e) {
    if (e instanceof RollwiseInputError) return e;
    throw e;
  }
  throw new Error('did not throw');
}

describe('refusing the keep-alive race', () => {
  test('1 h for a uvicorn app: names 1 h, 5 s and UC', () => {
    const e = thrown(() =>
      decideKeepAlive({
        appServer: AppServer.uvicorn(),
        idleTimeout: { value: Duration.hours(1), because: 'copied from the gateway defaults' },
      }),
    );
    expect(e.input).toBe('idleTimeout');
    expect(e.value).toBe('1 h');
    expect(e.message).toContain('for 1 h, but uvicorn closes it after 5 s');
    expect(e.message).toContain('503 with response flag UC (upstream_reset_before_response_started)');
    expect(e.message).toContain('Fix: set the proxy idle timeout below 5 s (remove the override to get 3 s)');
  });

  test('equal is not below: 5 s for 5 s is refused', () => {
    expect(() =>
      decideKeepAlive({
        appServer: AppServer.hypercorn(),
        idleTimeout: { value: Duration.seconds(5), because: 'matching the app exactly' },
      }),
    ).toThrow(
      /idleTimeout = 5 s: the proxy would keep an idle upstream connection for 5 s, but hypercorn closes it after 5 s/,
    );
  });

  test('an override below the keep-alive with a reason passes and carries the reason', () => {
    const d = decideKeepAlive({
      appServer: AppServer.uvicorn(),
      idleTimeout: { value: Duration.seconds(4), because: 'measured: p99 request arrival gap is 3.2 s' },
    });
    expect(d.idleTimeoutSeconds).toMatchObject({ value: 4, overridden: true });
    expect(d.idleTimeoutSeconds.reason).toBe(
      'Overridden: measured: p99 request arrival gap is 3.2 s (rollwise computed 3 s.)',
    );
    expect(d.connectTimeoutSeconds.value).toBe(10);
  });

  test('an accepted race needs a reason and then names both values', () => {
    expect(() =>
      decideKeepAlive({
        appServer: AppServer.uvicorn(),
        idleTimeout: { value: Duration.hours(1), because: 'legacy gateway setting' },
        acceptKeepAliveRace: { value: true, because: 'ok' },
      }),
    ).toThrow(/acceptKeepAliveRace = race accepted: an override must carry its reason/);
    const d = decideKeepAlive({
      appServer: AppServer.uvicorn(),
      idleTimeout: { value: Duration.hours(1), because: 'legacy gateway setting kept during migration' },
      acceptKeepAliveRace: { value: true, because: 'retries on reset cover it until the app moves to hypercorn' },
    });
    expect(d.idleTimeoutSeconds.value).toBe(3600);
    expect(d.idleTimeoutSeconds.reason).toContain(
      'Race accepted: the proxy keeps idle connections 1 h and uvicorn closes them after 5 s, so expect occasional 503 UC.',
    );
    expect(d.idleTimeoutSeconds.reason).toContain('retries on reset cover it until the app moves to hypercorn');
  });

  test('overrides without a reason are refused', () => {
    expect(() =>
      decideKeepAlive({ appServer: AppServer.uvicorn(), idleTimeout: { value: Duration.seconds(2), because: '' } }),
    ).toThrow(
      /idleTimeout = 2 s: an override must carry its reason .* rollwise computed 3 s: uvicorn closes idle connections after 5 s/,
    );
    expect(() => decideKeepAlive({ appServer: AppServer.uvicorn(), retryOnReset: { value: 1, because: 'x' } })).toThrow(
      /retryOnReset = 1 retry on reset: an override must carry its reason/,
    );
    expect(() =>
      decideKeepAlive({
        appServer: AppServer.uvicorn(),
        connectTimeout: { value: Duration.seconds(1), because: '  ' },
      }),
    ).toThrow(/connectTimeout = 1 s: an override must carry its reason/);
    expect(() =>
      maxEjectionPercent({ replicas: 10, maxUnavailable: 2, override: { value: 30, because: 'ok' } }),
    ).toThrow(/passiveHealthCheck.maxEjectionPercent = 30 %: an override must carry its reason/);
  });

  test('connect above idle is accepted (envoy#42753 is fixed in Envoy 1.38.0; Envoy Gateway v1.9.0 runs 1.39.0); not above 0 is refused', () => {
    const d = decideKeepAlive({
      appServer: AppServer.uvicorn(),
      connectTimeout: { value: Duration.seconds(20), because: 'slow TLS handshakes to this backend' },
    });
    expect([d.idleTimeoutSeconds.value, d.connectTimeoutSeconds.value]).toEqual([3, 20]);
    expect(() =>
      decideKeepAlive({
        appServer: AppServer.uvicorn(),
        connectTimeout: { value: Duration.millis(0), because: 'fail fast on black-holed pods' },
      }),
    ).toThrow(/connectTimeout = 0 s: must be above 0/);
  });

  test('retry on reset: none by default, 1-3 with a reason', () => {
    const none = decideKeepAlive({ appServer: AppServer.uvicorn() }).retryOnReset;
    expect(none.value).toBe(0);
    expect(none.reason).toContain('non-idempotent');
    expect(none.reason).toContain('hide the race');
    expect(
      decideKeepAlive({
        appServer: AppServer.uvicorn(),
        retryOnReset: { value: 1, because: 'every route here is an idempotent GET' },
      }).retryOnReset,
    ).toMatchObject({ value: 1, overridden: true });
    expect(() =>
      decideKeepAlive({
        appServer: AppServer.uvicorn(),
        retryOnReset: { value: 5, because: 'every route here is an idempotent GET' },
      }),
    ).toThrow(/retryOnReset = 5: must be a whole number from 0 to 3/);
  });

  test('a Gateway target is refused', () => {
    const e = thrown(() =>
      checkPolicyTargets([{ group: 'gateway.networking.k8s.io', kind: 'Gateway', name: 'shared' }]),
    );
    expect(e.message).toContain('targetRefs = Gateway/shared');
    expect(e.message).toContain('Grafana or Argo CD');
    expect(e.fix).toContain('HTTPRoute');
    expect(() => checkPolicyTargets([])).toThrow(/applies nowhere/);
    expect(() =>
      checkPolicyTargets([{ group: 'gateway.networking.k8s.io', kind: 'HTTPRoute', name: 'checkout-api' }]),
    ).not.toThrow();
  });
});

describe('ejection cap', () => {
  test('the PDB budget, at most half, rounded down', () => {
    const d = maxEjectionPercent({ replicas: 12, maxUnavailable: 1 });
    expect(d.value).toBe(8);
    expect(d.reason).toContain('At most 1 of 12 hosts ejected (8 %)');
    expect(d.reason).toContain('50 % panic threshold');
    expect(maxEjectionPercent({ replicas: 10, maxUnavailable: 3 }).value).toBe(30);
    const half = maxEjectionPercent({ replicas: 20, maxUnavailable: 15 });
    expect(half.value).toBe(50);
    expect(half.reason).toContain('At most 10 of 20 hosts ejected (50 %)');
    expect(half.reason).toContain('Capped at half the fleet');
    expect(maxEjectionPercent({ replicas: 3, maxUnavailable: 2 }).value).toBe(33);
    expect(() =>
      maxEjectionPercent({
        replicas: 10,
        maxUnavailable: 2,
        override: { value: 60, because: 'we trust the detector more than the PDB' },
      }),
    ).toThrow(/must be a whole number from 0 to 50/);
  });
});
