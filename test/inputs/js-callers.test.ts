import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { Duration } from 'cdk8s';
import { CanaryStep, Delivery } from '../../src/decisions/canary';
import { AppServer } from '../../src/decisions/keep-alive';
import { Platform } from '../../src/decisions/platform';
import { RollwiseInputError } from '../../src/errors';
import { RollwiseApp } from '../../src/synth/rollwise-app';

/**
 * Issue 22, adversarial catalogue (d!): inputs a JavaScript caller gets wrong that were silently
 * accepted, ignored or coerced. Each is refused now, naming the input as written, with "did you
 * mean" for a key that is a typo; and one valid input (a* over-strict) that was refused.
 */
function error(run: () => unknown): RollwiseInputError {
  try {
    run();
  } catch (e) {
    expect(e).toBeInstanceOf(RollwiseInputError);
    expect((e as Error).message).toContain('Fix: ');
    return e as RollwiseInputError;
  }
  throw new Error('expected a RollwiseInputError, but it was accepted');
}

let root: string;
beforeEach(() => { root = fs.mkdtempSync(path.join(os.tmpdir(), 'rollwise-js-')); });
afterEach(() => fs.rmSync(root, { recursive: true, force: true }));
const newApp = (props: object = {}) => new RollwiseApp({ outdir: path.join(root, 'dist'), onWarning: () => undefined, ...props });

describe('unknown keys in factory options are refused with "did you mean", like the service props', () => {
  test.each([
    ['AppServer.uvicorn({ keepalive })', () => AppServer.uvicorn({ keepalive: Duration.seconds(10) } as never), 'appServer.keepalive', /did you mean appServer\.keepAlive\?/],
    ['AppServer.goNetHttp({ idletimeout })', () => AppServer.goNetHttp({ idletimeout: Duration.seconds(10) } as never), 'appServer.goNetHttp.idletimeout', /did you mean appServer\.goNetHttp\.idleTimeout\?/],
    ['Delivery.canary({ step })', () => Delivery.canary({ step: [] } as never), 'delivery.step', /did you mean delivery\.steps\?/],
    ['Delivery.canary({ manualPromotion: { reason } })', () => Delivery.canary({ manualPromotion: { reason: 'about 2 req/s at release time' } } as never), 'delivery.manualPromotion.reason', /Known: because/],
    ['new Platform({ gatway })', () => new Platform({ gatway: { name: 'public', namespace: 'gw' } } as never), 'platform.gatway', /did you mean platform\.gateway\?/],
    ['new Platform({ argoCd: { repoUrl } })', () => new Platform({ argoCd: { repoUrl: 'https://github.com/acme/deploy.git', path: 'dist' } } as never), 'platform.argoCd.repoUrl', /did you mean platform\.argoCd\.repoURL\?/],
    ['RollwiseApp({ comment })', () => newApp({ comment: false }), 'RollwiseApp.comment', /did you mean RollwiseApp\.comments\?/],
  ])('%s', (_, run, input, message) => {
    const e = error(run);
    expect(e.input).toBe(input);
    expect(e.message).toMatch(message);
  });

  test('Delivery.rollingUpdate({ steps }) takes no options and says where steps belong', () => {
    const e = error(() => (Delivery.rollingUpdate as (o: unknown) => Delivery)({ steps: [CanaryStep.setWeight(10)] }));
    expect(e.input).toBe('Delivery.rollingUpdate({ steps })');
    expect(e.why).toMatch(/takes no options.*options of Delivery\.canary\(\)/);
    expect((Delivery.rollingUpdate as (o: unknown) => Delivery)({}).kind).toBe('rollingUpdate');
  });
});

describe('values of the wrong type are refused, not coerced', () => {
  test.each([
    ['RollwiseApp({ yamlOutputType: "bogus" })', () => newApp({ yamlOutputType: 'bogus' }), 'RollwiseApp.yamlOutputType', /is not a YamlOutputType/],
    ['RollwiseApp({ comments: "yes" })', () => newApp({ comments: 'yes' }), 'RollwiseApp.comments', /must be true or false/],
    ['RollwiseApp({ onWarning: "stderr" })', () => newApp({ onWarning: 'stderr' }), 'RollwiseApp.onWarning', /must be a function/],
  ])('%s', (_, run, input, message) => {
    const e = error(run);
    expect(e.input).toBe(input);
    expect(e.why).toMatch(message);
  });
});

test('manual promotion is held to the one reason rule (runs of one letter, placeholders), like overrides', () => {
  expect(error(() => Delivery.canary({ manualPromotion: { because: 'xxxxxxxxxxxxxxx' } })).why).toMatch(/repeats "x"|placeholder/);
  expect(error(() => Delivery.canary({ manualPromotion: { because: 'TODO: explain later' } })).why).toMatch(/placeholder/);
  expect(Delivery.canary({ manualPromotion: { because: 'about 2 req/s at release time: too few requests for a 1 % ratio' } }).manualPromotion).toContain('2 req/s');
});
