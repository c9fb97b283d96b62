import { Chart, Testing } from 'cdk8s';
import { HttpService, HttpServiceProps } from '../src/constructs/http-service';
import { CanaryStep, Delivery } from '../src/decisions/canary';
import { checkoutApiProps } from '../src/example';
import { RollwiseInputError } from '../src/errors';

/** Inputs that used to crash with a TypeError or a BigInt serialization error: each is an input error now. */
function build(props: Partial<HttpServiceProps>): unknown {
  try {
    const chart = new Chart(Testing.app(), 'c', { namespace: 'checkout' });
    new HttpService(chart, 'checkout-api', { ...checkoutApiProps(), ...props });
    return Testing.synth(chart);
  } catch (e) {
    return e;
  }
}

const cases: [string, () => unknown, RegExp][] = [
  ['null env', () => build({ container: { env: null as never } }), /container\.env/],
  ['a null env value', () => build({ container: { env: { A: null as never } } }), /container\.env\.A/],
  ['a null toleration', () => build({ pod: { serviceAccount: { name: 'checkout-api' }, tolerations: [null as never] } }), /pod\.tolerations\[0\]/],
  ['CanaryStep.fromJson(null)', () => { try { return CanaryStep.fromJson(null as never); } catch (e) { return e; } }, /CanaryStep\.fromJson\(step\) = null/],
  // refused by the service that uses the delivery, so the error names it (issue 24)
  ['plain-object steps', () => build({ delivery: Delivery.canary({ steps: [{ setWeight: 5 } as never] }) }), /^service checkout-api \(c\/checkout-api\): delivery\.steps\[0\] = \{"setWeight":5\}: must be made by a CanaryStep factory/],
  ['a BigInt replica count', () => build({ replicas: 3n as never }), /replicas = 3n/],
  ['a BigInt port', () => build({ port: 8080n as never }), /port = 8080n/],
  ['NaN replicas', () => build({ replicas: NaN }), /replicas = NaN/],
  ['a string automountServiceAccountToken-like boolean prop', () => build({ passiveHealthCheck: 'yes' as never }), /passiveHealthCheck/],
];

test.each(cases)('%s', (_, run, message) => {
  const e = run();
  expect(e).toBeInstanceOf(RollwiseInputError);
  expect((e as Error).message).toMatch(message);
});
