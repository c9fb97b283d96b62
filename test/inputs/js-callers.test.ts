import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
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
    ['RollwiseApp({ comment })', () => newApp({ comment: false }), 'RollwiseApp.comment', /did you mean RollwiseApp\.comments\?/],
  ])('%s', (_, run, input, message) => {
    const e = error(run);
    expect(e.input).toBe(input);
    expect(e.message).toMatch(message);
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
