/**
 * Synth's rehearsal: the same model as `rollwise rehearse`, in process, refusing a canary whose
 * healthy release would not promote or whose 10 % error release would not abort at the first weight.
 */
import * as fs from 'fs';
import * as path from 'path';
import { Duration } from 'cdk8s';
import { parseAllDocuments } from 'yaml';
import { Delivery } from '../../src/decisions/canary';
import {
  firstWeight,
  humanAtFirstWeight,
  readRolloutObjects,
  rehearseForSynth,
  rehearseInProcess,
} from '../../src/rehearse';
import { synthService } from '../support/manifests';

const docs = (f: string) => parseAllDocuments(fs.readFileSync(f, 'utf8')).map((d) => d.toJS() as unknown);

test("the example service passes; the previous version's templates are refused with the rehearsal's sentence", () => {
  expect(rehearseForSynth(docs(path.join(__dirname, '..', '..', 'dist', 'prod', 'checkout-api.k8s.yaml')))).toEqual({
    refusals: [],
    warnings: [],
  });
  const old = rehearseForSynth(docs(path.join(__dirname, 'fixtures', 'checkout-api.v0.1.0.k8s.yaml')));
  expect(old.refusals).toHaveLength(1);
  // Not a traffic problem (100 x the traffic pauses too): the analysis is at fault.
  expect(old.refusals[0]).toMatchObject({ input: 'delivery', value: 'Delivery.canary()' });
  expect(old.refusals[0].why).toMatch(
    /^the rehearsal of release "healthy" .* says: paused at 5 % after 4 min: Inconclusive, canary-error-ratio inconclusive .*\(last result \[\] : no series\); expected promoted/,
  );
});

test('the in-process evaluator synth uses models a canary pod that leaves Ready before it is first available: with minReadySeconds 120 the 4m30s departure count aborts at 5 %, a 2m one at 25 %', () => {
  const objs = synthService({
    overrides: {
      minReadySeconds: { value: Duration.seconds(120), because: 'a cache warm-up measured at 2 minutes after Ready' },
    },
  });
  const once = (o: unknown[]) =>
    rehearseInProcess(readRolloutObjects(o)[0], { releases: ['canary-leaves-ready-once'] }).results[0].verdict;
  expect(once(objs)).toMatchObject({ outcome: 'aborted', weight: 5, metric: 'canary-readiness-departures' });
  // the same service with the departure count's window as it was (2m): the departure, 150 s
  // before the run's start, is outside its first measurement; a pod of the 25 % step is caught later
  const short = JSON.parse(JSON.stringify(objs).replace(/\[4m30s\]/g, '[2m]')) as unknown[];
  expect(JSON.stringify(short)).toContain('[2m]) and on(namespace, pod) max_over_time(kube_pod_owner');
  expect(once(short)).toMatchObject({ outcome: 'aborted', weight: 25 });
});

test('a 20 req/s service gets an analysis that passes the rehearsal: healthy promotes, 10 % errors abort at the first weight', () => {
  const objs = synthService({ capacity: { peakRequestsPerSecond: 20, saturationRequestsPerSecondPerReplica: 450 } });
  const [model] = readRolloutObjects(objs);
  const r = rehearseInProcess(model, { releases: ['healthy', 'canary-5xx-10'] });
  expect(r.results.map((x) => [x.release.id, x.verdict.outcome, x.met])).toEqual([
    ['healthy', 'promoted', true],
    ['canary-5xx-10', 'aborted', true],
  ]);
  expect(r.results[1].verdict.weight).toBe(firstWeight(model));
});

test('a canary promoted by hand at the first weight: the bad release must be stopped before full promotion', () => {
  const objs = synthService({
    capacity: { peakRequestsPerSecond: 2, saturationRequestsPerSecondPerReplica: 450 },
    delivery: Delivery.canary({ manualPromotion: { because: 'two requests a second (test)' } }),
  });
  const [model] = readRolloutObjects(objs);
  expect(humanAtFirstWeight(model)).toBe(true);
  const r = rehearseInProcess(model, { releases: ['healthy', 'canary-5xx-10'] });
  expect(r.results[0].sentence).toMatch(/promoted after \d+ min \(1 pause\(s\) without duration promoted by a human\)/);
  expect(r.results[1].verdict.outcome).toBe('aborted');
  expect(r.ok).toBe(true);
});

test('a canary without capacity figures fails synth with the ways out; promoted by hand it is not rehearsed, and synth says so', () => {
  expect(() => synthService({ capacity: undefined })).toThrow(
    /capacity = missing: canary delivery promotes on a measured sample of canary traffic .*needs about 167 req\/s to pass at all.*docs\/mechanisms.md#quiet-environments.*Fix: declare the traffic .*Sizing.fixed\(replicas, \{ peakRequestsPerSecond \}\).*manualPromotion.*Delivery.rollingUpdate\(\)/,
  );
  const objs = synthService({
    capacity: undefined,
    delivery: Delivery.canary({ manualPromotion: { because: 'a back-office tool, a handful of calls a day' } }),
  });
  const r = rehearseForSynth(objs);
  expect(r.refusals).toEqual([]);
  expect(r.warnings.join('\n')).toMatch(/canary not rehearsed: no capacity figures/);
});

test('the traffic a release usually sees (rollwise.dev/release-rps) is the traffic the rehearsal replays', () => {
  const objs = synthService({
    capacity: {
      peakRequestsPerSecond: 3700,
      saturationRequestsPerSecondPerReplica: 450,
      releaseRequestsPerSecond: 900,
    },
  });
  const [model] = readRolloutObjects(objs);
  expect(model.releaseRps).toBe(900);
  const r = rehearseInProcess(model, { releases: ['healthy'] });
  expect(r.results[0].world.rps).toBe(900);
  expect(r.ok).toBe(true);
});
