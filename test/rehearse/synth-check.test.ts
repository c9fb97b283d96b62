/**
 * Synth's rehearsal: the same model as `rollwise rehearse`, in process, refusing a canary whose
 * healthy release would not promote or whose 10 % error release would not abort at the first weight.
 */
import * as fs from 'fs';
import * as path from 'path';
import { parseAllDocuments } from 'yaml';
import { RollwiseInputError } from '../../src/errors';
import { rehearseForSynth } from '../../src/rehearse';
import { synthService } from '../support/manifests';

const docs = (f: string) => parseAllDocuments(fs.readFileSync(f, 'utf8')).map((d) => d.toJS() as unknown);

test('the example service passes; the previous version\'s templates are refused with the rehearsal\'s sentence', () => {
  expect(rehearseForSynth(docs(path.join(__dirname, '..', '..', 'dist', 'prod', 'checkout-api.k8s.yaml')))).toEqual({ refusals: [], warnings: [] });
  const old = rehearseForSynth(docs(path.join(__dirname, 'fixtures', 'checkout-api.v0.1.0.k8s.yaml')));
  expect(old.refusals).toHaveLength(1);
  // Not a traffic problem (100 x the traffic pauses too): the analysis is at fault.
  expect(old.refusals[0]).toMatchObject({ input: 'delivery', value: 'Delivery.canary()' });
  expect(old.refusals[0].why).toMatch(/^the rehearsal of release "healthy" .* says: paused at 5 % after 4 min: Inconclusive, canary-error-ratio inconclusive .*\(last result \[\] : no series\); expected promoted/);
});

test('a 20 req/s service is refused at synth: 5 % of 20 req/s cannot fill the analysis', () => {
  let err: unknown;
  try {
    synthService({ capacity: { peakRequestsPerSecond: 20, saturationRequestsPerSecondPerReplica: 450 } });
  } catch (e) {
    err = e;
  }
  expect(err).toBeInstanceOf(RollwiseInputError);
  const e = err as RollwiseInputError;
  expect(e.message).toMatch(/^capacity\.peakRequestsPerSecond = 20: /);
  expect(e.message).toMatch(/20 req\/s, 5 % to the canary\) says: paused at 5 %/);
  expect(e.fix).toMatch(/higher first weight, a longer measurement window/);
});

test('a service without capacity figures is not rehearsed, and synth says so', () => {
  const objs = synthService({ capacity: undefined });
  const r = rehearseForSynth(objs);
  expect(r.refusals).toEqual([]);
  expect(r.warnings.join('\n')).toMatch(/canary not rehearsed: no capacity figures/);
});
