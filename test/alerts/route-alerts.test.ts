import { Delivery } from '../../src/decisions/canary';
import { find, synthService } from '../support/manifests';

type Rule = { alert: string; annotations: { description: string; meaning?: string } };
const rules = (objs: ReturnType<typeof synthService>): Rule[] =>
  find(objs, 'PrometheusRule').spec.groups[0].rules as Rule[];
const ROUTE_ALERTS = ['Route5xxOverSlo', 'EnvoyNoHealthyUpstream', 'EnvoyUpstreamResetKeepAliveRace'];

describe('route alerts', () => {
  test("a service with a route gets them; the UH description names what no Ready endpoint does (panic routing, UH) and that no endpoints at all is the floor alert's", () => {
    const r = rules(synthService());
    for (const a of ROUTE_ALERTS) expect(r.map((x) => x.alert)).toContain(a);
    const uh = r.find((x) => x.alert === 'EnvoyNoHealthyUpstream')!;
    expect(uh.annotations.description).toContain(
      'Envoy is in panic mode (Envoy Gateway keeps the 50 % threshold) and sends every request to those pods',
    );
    expect(uh.annotations.description).toContain(
      'a cluster that is routed to with no endpoint at all answers 503 with flag UH',
    );
    // a Service without endpoints is answered before a cluster is chosen (Envoy Gateway v1.9.0): no flag UH
    expect(uh.annotations.description).not.toContain('with none, the gateway answers 503 with flag UH');
    expect(uh.annotations.description).toContain(
      '(a direct 503, or 503 NC), which no Envoy alert sees: ReadyEndpointsBelowFloor does',
    );
    expect(uh.annotations.description).not.toMatch(/absent from the route's 5xx ratio/);
  });

  test('a service without a route (rolling update) gets none of them: they would select no series', () => {
    const r = rules(synthService({ delivery: Delivery.rollingUpdate(), route: undefined }));
    const names = r.map((x) => x.alert);
    for (const a of ROUTE_ALERTS) expect(names).not.toContain(a);
    expect(names.some((n) => /^Envoy/.test(n))).toBe(false);
    expect(names).toContain('ReadyEndpointsBelowFloor');
  });
});
