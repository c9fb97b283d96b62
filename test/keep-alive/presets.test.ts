import { Duration } from 'cdk8s';
import {
  AppServer,
  appServerPresets,
  decideKeepAlive,
  idleTimeoutFor,
  proxyIdleTimeout,
  showDuration,
} from '../../src/decisions/keep-alive';
import { RollwiseInputError } from '../../src/errors';

/** factory -> [keep-alive s or 'none'/'unlimited', idle s (undefined = omitted), connect s (Envoy's 10 s default: envoy#42753 is fixed in Envoy 1.38.0)] */
const EXPECTED: Record<string, [number | 'none' | 'unlimited', number | undefined, number]> = {
  uvicorn: [5, 3, 10],
  gunicornSync: ['none', undefined, 10],
  gunicornGthread: [2, 1, 10],
  gunicornGevent: [2, 1, 10],
  gunicornUvicornWorker: [2, 1, 10],
  hypercorn: [5, 3, 10],
  nodeHttp: [5, 3, 10],
  nodeHttp26: [65, 39, 10],
  fastify: [72, 43, 10],
  goNetHttp: ['unlimited', 60, 10],
  puma6: [20, 12, 10],
  puma7: [65, 39, 10],
  unicorn: ['none', undefined, 10],
  tomcat: [20, 12, 10],
  springBootTomcat: [60, 36, 10],
  jetty: [30, 18, 10],
  undertow: [60, 36, 10],
  reactorNetty: ['unlimited', 60, 10],
  kestrel: [130, 78, 10],
  nginx: [75, 45, 10],
  apacheHttpd: [5, 3, 10],
  caddy: [300, 180, 10],
};

describe('AppServer presets', () => {
  test('every preset of the reference table is covered, with its knob', () => {
    const presets = appServerPresets();
    expect(presets.map((p) => p.factory).sort()).toEqual(Object.keys(EXPECTED).sort());
    for (const { factory, server } of presets) {
      if (server.behaviour !== 'close-after-response')
        expect([factory, server.knob]).toEqual([factory, expect.any(String)]);
    }
  });

  test.each(appServerPresets().map((p) => [p.factory, p.server] as const))(
    '%s: idle timeout, connect timeout and reason',
    (factory, server) => {
      const [ka, idle, connect] = EXPECTED[factory];
      expect(server.keepAliveFact).toBe(String(ka));
      const d = decideKeepAlive({ appServer: server });
      expect(d.idleTimeoutSeconds.value).toBe(idle);
      expect(d.connectTimeoutSeconds.value).toBe(connect);
      if (typeof ka === 'number') {
        expect(idle).toBeLessThan(ka);
        expect(d.idleTimeoutSeconds.reason).toContain(
          `${server.name} closes idle connections after ${showDuration(ka)}`,
        );
        expect(d.idleTimeoutSeconds.reason).toContain(
          `the proxy closes at ${showDuration(idle!)}, so it always closes first`,
        );
        expect(d.connectTimeoutSeconds.reason).toContain(`not lowered to the idle timeout ${showDuration(idle!)}`);
      }
      expect(d.retryOnReset.value).toBe(0);
    },
  );

  test('uvicorn: the reason states both numbers and the arithmetic', () => {
    expect(proxyIdleTimeout(AppServer.uvicorn()).reason).toMatch(
      /^uvicorn closes idle connections after 5 s \(default; knob --timeout-keep-alive\); the proxy closes at 3 s, so it always closes first\. Rule: .*5 s - 2 s = 3 s -> 3 s\./,
    );
  });

  test('gunicorn gthread (2 s) gets 1 s: a whole second of margin', () => {
    const d = proxyIdleTimeout(AppServer.gunicornGthread());
    expect(d.value).toBe(1);
    expect(d.reason).toContain('2 s - 1 s = 1 s -> 1 s');
  });

  test('Caddy (5 min) gets 3 min: 40 % margin', () => {
    expect(proxyIdleTimeout(AppServer.caddy()).reason).toContain(
      'Caddy closes idle connections after 5 min (default; knob idle_timeout); the proxy closes at 3 min',
    );
  });

  test('Undertow is marked unconfirmed', () => {
    expect(proxyIdleTimeout(AppServer.undertow()).reason).toContain('unconfirmed');
  });

  test('a changed knob is declared on the preset', () => {
    const s = AppServer.uvicorn({ keepAlive: Duration.seconds(10) });
    expect(s.keepAliveSeconds).toBe(10);
    const d = proxyIdleTimeout(s);
    expect(d.value).toBe(6);
    expect(d.reason).toContain(
      'uvicorn closes idle connections after 10 s (--timeout-keep-alive set to 10 s (default 5 s)',
    );
    expect(d.reason).toContain('the proxy closes at 6 s');
  });

  test('custom and noKeepAlive', () => {
    const c = AppServer.custom('waitress', Duration.seconds(30), 'channel_timeout');
    expect(proxyIdleTimeout(c)).toMatchObject({ value: 18 });
    expect(proxyIdleTimeout(c).reason).toContain(
      'waitress closes idle connections after 30 s (as declared; knob channel_timeout); the proxy closes at 18 s',
    );
    const n = AppServer.noKeepAlive('legacy-cgi');
    expect(n.keepAliveFact).toBe('none');
    const d = decideKeepAlive({ appServer: n });
    expect(d.idleTimeoutSeconds.value).toBeUndefined();
    expect(d.idleTimeoutSeconds.reason).toContain('legacy-cgi closes the connection after each response');
    expect(d.idleTimeoutSeconds.reason).toContain('no keep-alive race');
    expect(d.connectTimeoutSeconds.value).toBe(10);
    expect(() => AppServer.noKeepAlive(' ')).toThrow(RollwiseInputError);
    expect(() => AppServer.custom('x', Duration.seconds(0))).toThrow(
      /appServer.custom.keepAlive = 0 s: must be above 0/,
    );
  });

  test('Go: IdleTimeout, then ReadTimeout, then no timeout with a warning', () => {
    expect(
      AppServer.goNetHttp({ idleTimeout: Duration.seconds(120), readTimeout: Duration.seconds(5) }).keepAliveSeconds,
    ).toBe(120);
    const viaRead = AppServer.goNetHttp({ idleTimeout: Duration.seconds(0), readTimeout: Duration.seconds(15) });
    expect(viaRead.keepAliveSeconds).toBe(15);
    expect(proxyIdleTimeout(viaRead).reason).toContain(
      'Go net/http closes idle connections after 15 s (IdleTimeout is 0, so Go uses ReadTimeout as the idle timeout',
    );
    expect(proxyIdleTimeout(viaRead).value).toBe(9);
    const none = AppServer.goNetHttp();
    expect(none.behaviour).toBe('never');
    const d = decideKeepAlive({ appServer: none });
    expect(d.warnings).toHaveLength(1);
    expect(d.warnings[0]).toContain('never closes idle connections: no keep-alive race from the app side');
    expect(d.warnings[0]).toContain('lives until the proxy closes it, so the proxy idle timeout (1 min) governs alone');
    expect(d.warnings[0]).toContain('Set http.Server.IdleTimeout');
    expect(decideKeepAlive({ appServer: AppServer.reactorNetty() }).warnings).toEqual([]);
    expect(decideKeepAlive({ appServer: AppServer.goNetHttp({ idleTimeout: Duration.seconds(90) }) }).warnings).toEqual(
      [],
    );
  });

  test('a keep-alive too short for any safe idle timeout is refused, naming the fix', () => {
    expect(idleTimeoutFor(1.9)).toBeUndefined();
    const err = () => proxyIdleTimeout(AppServer.gunicornGthread({ keepAlive: Duration.seconds(1) }));
    expect(err).toThrow(RollwiseInputError);
    expect(err).toThrow(
      /gunicorn \(gthread worker\) keep-alive 1 s: no safe proxy idle timeout fits under it.*Fix: raise gunicorn \(gthread worker\)'s --keep-alive to at least 2 s/,
    );
  });
});
