/**
 * The synth rehearsal's memo (src/rehearse/memo.ts): services whose rehearsals cannot differ share
 * one; a service that differs in one input that decides the outcome gets its own.
 */
import * as fs from 'fs';
import * as path from 'path';
import { ApiObject, App, Chart, Testing } from 'cdk8s';
import { parseAllDocuments } from 'yaml';
import { HttpService, HttpServiceProps } from '../../src/constructs/http-service';
import { checkoutApiProps } from '../../src/example';
import {
  buildWorld,
  readRollouts,
  readRolloutObjects,
  RELEASES,
  rehearseForSynth,
  rehearseInProcess,
  SYNTH_RELEASES,
  type RolloutModel,
} from '../../src/rehearse';
import { rehearsalKey, setQueryTemplatesForTest } from '../../src/rehearse/memo';
import { buildEstate, type Estate } from '../../bench/synth';
import * as fc from 'fast-check';
import { synthRehearsalCounts } from '../../src/rehearse/synth-check';
import { seriesLabelValues } from '../../src/rehearse/world';
import type { MetricSpec, RunSpec } from '../../src/rehearse/manifest';

const root = path.join(__dirname, '..', '..');
const text = (f: string) => fs.readFileSync(f, 'utf8');
const PROD = text(path.join(root, 'dist', 'prod', 'checkout-api.k8s.yaml'));
const DEV = text(path.join(root, 'dist', 'dev', 'checkout-api.k8s.yaml'));
const OLD = text(path.join(__dirname, 'fixtures', 'checkout-api.v0.1.0.k8s.yaml'));

/** The manifests with the service and its namespace renamed everywhere (queries, cluster names, pods). */
function renamedText(manifest: string, name: string, namespace = 'checkout'): string {
  return manifest
    .replace(/httproute\/checkout\//g, `httproute/${namespace}/`)
    .replace(/namespace: checkout\n/g, `namespace: ${namespace}\n`)
    .replace(/namespace="checkout"/g, `namespace="${namespace}"`)
    .replace(/checkout-api/g, name);
}

function renamed(manifest: string, name: string, namespace = 'checkout'): RolloutModel {
  return readRollouts([{ file: `${name}.k8s.yaml`, text: renamedText(manifest, name, namespace) }])[0];
}

/** What a rehearsal of every release decides: the verdicts (with every measurement), judgements and sentences. */
function outcome(m: RolloutModel, releases?: readonly string[]): unknown {
  return rehearseInProcess(m, releases ? { releases } : {}).results.map((x) => ({
    id: x.release.id,
    verdict: x.verdict,
    met: x.met,
    sentence: x.sentence,
    rps: x.world.rps,
  }));
}

const LONG = 'a-checkout-service-with-a-name-of-fifty-six-characters-x';

test("every label value a world's series carry is one that seriesLabelValues lists for the model", () => {
  const models = [
    renamed(PROD, 'checkout-api'),
    renamed(DEV, 'checkout-api'),
    renamed(OLD, 'checkout-api'),
    renamed(PROD, LONG, 'shop'),
    { ...renamed(PROD, 'orders'), replicas: 3 },
    {
      ...renamed(PROD, 'orders'),
      steps: [
        { kind: 'setWeight' as const, weight: 150 },
        { kind: 'pause' as const, seconds: 60 },
      ],
    },
  ];
  let checked = 0;
  for (const m of models) {
    const u = seriesLabelValues(m);
    for (const release of RELEASES) {
      for (const s of buildWorld(m, release).series) {
        expect(u.__name__).toContain(s.name);
        for (const [label, value] of Object.entries(s.labels)) {
          if (!(u[label] ?? []).includes(value))
            throw new Error(`${m.name} ${release.id}: ${s.name}{${label}="${value}"} is not in seriesLabelValues`);
          checked++;
        }
      }
    }
  }
  expect(checked).toBeGreaterThan(1000);
});

test('services that differ only in their names share a key, and their rehearsals are the same', () => {
  for (const manifest of [PROD, DEV, OLD]) {
    const a = renamed(manifest, 'checkout-api');
    const b = renamed(manifest, 'orders-api', 'orders');
    const c = renamed(manifest, 'payments-gateway-v2', 'team-7');
    expect(rehearsalKey(b, SYNTH_RELEASES)).toBe(rehearsalKey(a, SYNTH_RELEASES));
    expect(rehearsalKey(c, SYNTH_RELEASES)).toBe(rehearsalKey(a, SYNTH_RELEASES));
    expect(outcome(b)).toEqual(outcome(a));
    expect(outcome(c)).toEqual(outcome(a));
  }
});

test("a name that changes what a query selects changes the key: the previous version's pod-name pattern matches no pod of a 56-character service", () => {
  const short = renamed(OLD, 'checkout-api');
  const long = renamed(OLD, LONG);
  expect(rehearsalKey(long, SYNTH_RELEASES)).not.toBe(rehearsalKey(short, SYNTH_RELEASES));
  // and the rehearsals do differ: the departures metric sees the short name's pods, not the long one's
  expect(outcome(long, ['canary-flaps'])).not.toEqual(outcome(short, ['canary-flaps']));
  // today's output selects pods by owner: the long name shares the short one's rehearsal
  expect(rehearsalKey(renamed(PROD, LONG), SYNTH_RELEASES)).toBe(
    rehearsalKey(renamed(PROD, 'checkout-api'), SYNTH_RELEASES),
  );
});

test('equal keys give equal rehearsals, over names of every length and namespaces', () => {
  const names = [
    'a',
    'checkout-api',
    'orders',
    'x-'.repeat(20) + 'y',
    LONG,
    `${LONG.slice(0, 50)}zz`,
    'api-7f9d8c6b54',
  ];
  const byKey = new Map<string, unknown>();
  let compared = 0;
  for (const manifest of [PROD, OLD]) {
    for (const [i, name] of names.entries()) {
      const m = renamed(manifest, name, i % 2 ? 'envoy-gateway-system' : `ns-${i}`);
      const key = rehearsalKey(m, SYNTH_RELEASES)!;
      const got = outcome(m, SYNTH_RELEASES);
      if (byKey.has(key)) {
        expect(got).toEqual(byKey.get(key));
        compared++;
      } else byKey.set(key, got);
    }
  }
  expect(compared).toBeGreaterThan(4);
});

/** One deciding input changed at a time: each must give another key. */
function variants(m: RolloutModel): Array<[string, RolloutModel]> {
  const bg = m.background!;
  const metric = (f: (x: MetricSpec) => MetricSpec, i = 0): RolloutModel => ({
    ...m,
    background: { ...bg, metrics: bg.metrics.map((x, k) => (k === i ? f(x) : x)) },
  });
  const firstWeightAt = m.steps.findIndex((s) => s.kind === 'setWeight');
  const pauseAt = m.steps.findIndex((s) => s.kind === 'pause');
  const gateAt = m.steps.findIndex((s) => s.kind === 'analysis');
  const gate = gateAt >= 0 ? (m.steps[gateAt] as { run: RunSpec }).run : undefined;
  const step = (i: number, s: RolloutModel['steps'][number]): RolloutModel => ({
    ...m,
    steps: m.steps.map((x, k) => (k === i ? s : x)),
  });
  return [
    ['replicas', { ...m, replicas: m.replicas + 1 }],
    ['minReadySeconds', { ...m, minReadySeconds: m.minReadySeconds + 10 }],
    ['progressDeadlineSeconds', { ...m, progressDeadlineSeconds: m.progressDeadlineSeconds + 60 }],
    ['peak traffic', { ...m, peakRps: (m.peakRps ?? 0) + 1 }],
    ['release traffic', { ...m, releaseRps: 900 }],
    ['readiness period', { ...m, readiness: { ...m.readiness, periodSeconds: m.readiness.periodSeconds + 1 } }],
    [
      'readiness success threshold',
      { ...m, readiness: { ...m.readiness, successThreshold: m.readiness.successThreshold + 1 } },
    ],
    [
      'readiness failure threshold',
      { ...m, readiness: { ...m.readiness, failureThreshold: m.readiness.failureThreshold + 1 } },
    ],
    [
      'readiness initial delay',
      { ...m, readiness: { ...m.readiness, initialDelaySeconds: m.readiness.initialDelaySeconds + 1 } },
    ],
    ['start-up budget', { ...m, startupBudgetSeconds: (m.startupBudgetSeconds ?? 0) + 5 }],
    ['start-up period', { ...m, startupPeriodSeconds: m.startupPeriodSeconds + 1 }],
    ['first weight', step(firstWeightAt, { kind: 'setWeight', weight: 10 })],
    ['pause duration', step(pauseAt, { kind: 'pause', seconds: 61 })],
    ['pause without duration', step(pauseAt, { kind: 'pause', seconds: null })],
    ['a step more', { ...m, steps: [...m.steps, { kind: 'pause', seconds: 60 }] }],
    ...(gate
      ? [
          [
            'gate count',
            step(gateAt, {
              kind: 'analysis',
              run: { ...gate, metrics: gate.metrics.map((x) => ({ ...x, count: (x.count ?? 1) + 1 })) },
            }),
          ] as [string, RolloutModel],
        ]
      : []),
    ['background starting step', { ...m, background: { ...bg, startingStep: bg.startingStep + 1 } }],
    ['metric name', metric((x) => ({ ...x, name: `${x.name}-2` }))],
    ['query window', metric((x) => ({ ...x, query: x.query.replace(/\[2m\]/g, '[3m]') }))],
    [
      'query matcher',
      metric((x) => ({
        ...x,
        query: x.query.replace('envoy_response_code_class="5"', 'envoy_response_code_class="2"'),
      })),
    ],
    ['query cluster', metric((x) => ({ ...x, query: x.query.replace(/rule\/0\/backend\/1/g, 'rule/1/backend/1') }))],
    ['success condition', metric((x) => ({ ...x, successCondition: `${x.successCondition} && true` }))],
    ['failure condition', metric((x) => ({ ...x, failureCondition: 'result[0] > 0.5' }))],
    ['initial delay', metric((x) => ({ ...x, initialDelaySeconds: x.initialDelaySeconds + 60 }))],
    ['interval', metric((x) => ({ ...x, intervalSeconds: (x.intervalSeconds ?? 60) + 1 }))],
    ['count', metric((x) => ({ ...x, count: 7 }))],
    ['failureLimit', metric((x) => ({ ...x, failureLimit: x.failureLimit + 1 }))],
    ['inconclusiveLimit', metric((x) => ({ ...x, inconclusiveLimit: x.inconclusiveLimit + 1 }))],
    ['consecutiveErrorLimit', metric((x) => ({ ...x, consecutiveErrorLimit: x.consecutiveErrorLimit + 1 }))],
    ['consecutiveSuccessLimit', metric((x) => ({ ...x, consecutiveSuccessLimit: 3 }))],
    ['dryRun', metric((x) => ({ ...x, dryRun: !x.dryRun }))],
    [
      "another metric's query",
      metric((x) => ({ ...x, query: x.query.replace(/\[\d+m\]/g, '[90s]') }), bg.metrics.length - 1),
    ],
    ['the canary and stable cluster being one', { ...m, canaryCluster: m.stableCluster }],
    ["the namespace being the proxies'", { ...m, namespace: 'envoy-gateway-system' }],
    // pods are keyed by name: a canary whose pod-template hash is the stable one's has its pods
    ['the canary and stable pod-template hash being one', { ...m, canaryHash: m.stableHash }],
    ['no background analysis', { ...m, background: undefined }],
    ['a step the rehearsal does not model', step(pauseAt, { kind: 'other', what: 'setCanaryScale' })],
    ...(gate
      ? [
          [
            'gate query window',
            step(gateAt, {
              kind: 'analysis',
              run: { ...gate, metrics: gate.metrics.map((x) => ({ ...x, query: x.query.replace(/\[2m\]/g, '[5m]') })) },
            }),
          ] as [string, RolloutModel],
        ]
      : []),
  ];
}

test('two services that differ in one deciding input get different keys', () => {
  const base = renamed(PROD, 'checkout-api');
  const key = rehearsalKey(base, SYNTH_RELEASES);
  const seen = new Map<string, string>();
  for (const [what, m] of variants(base)) {
    const k = rehearsalKey(m, SYNTH_RELEASES);
    expect([what, k]).not.toEqual([what, key]);
    expect([what, seen.get(k!)]).toEqual([what, undefined]);
    seen.set(k!, what);
  }
  expect(rehearsalKey(base, ['healthy'])).not.toBe(key);
});

test('a query the in-process evaluator does not read, or a regex that does not compile, gets no key (rehearsed on its own)', () => {
  const m = renamed(PROD, 'checkout-api');
  const bg = m.background!;
  const withQuery = (q: string): RolloutModel => ({
    ...m,
    background: { ...bg, metrics: bg.metrics.map((x, k) => (k === 0 ? { ...x, query: q } : x)) },
  });
  expect(rehearsalKey(withQuery('sum(rate(envoy_cluster_upstream_rq_total[2m:30s]))'), SYNTH_RELEASES)).toBeUndefined();
  expect(
    rehearsalKey(withQuery('sum(envoy_cluster_upstream_rq_total{envoy_cluster_name=~"(unclosed"})'), SYNTH_RELEASES),
  ).toBeUndefined();
});

/** One service in its own chart and namespace, synthesized (its render checks, the rehearsal included, run). */
function synth(id: string, namespace: string, props: Partial<HttpServiceProps> = {}): ReturnType<typeof Testing.synth> {
  const chart = new Chart(new App(), 'c', { namespace });
  new HttpService(chart, id, { ...checkoutApiProps(), route: { hostnames: [`${id}.example.com`] }, ...props });
  return Testing.synth(chart);
}

test('at synth: a renamed service shares the rehearsal; one with other replicas or traffic gets its own', () => {
  const runs = () => synthRehearsalCounts().run;
  const shared = () => synthRehearsalCounts().shared;
  const capacity = { peakRequestsPerSecond: 1234, saturationRequestsPerSecondPerReplica: 450 };
  let r0 = runs();
  const first = synth('memo-test-a', 'memo-a', { capacity });
  expect(runs() - r0).toBe(1);
  r0 = runs();
  const s0 = shared();
  const second = synth('memo-test-bb', 'memo-b', { capacity });
  expect([runs() - r0, shared() - s0]).toEqual([0, 1]);
  expect(rehearseForSynth(second)).toEqual(rehearseForSynth(first));
  r0 = runs();
  synth('memo-test-c', 'memo-c', { capacity, replicas: 13 });
  expect(runs() - r0).toBe(1);
  r0 = runs();
  synth('memo-test-d', 'memo-d', { capacity: { ...capacity, peakRequestsPerSecond: 1235 } });
  expect(runs() - r0).toBe(1);
  // and the same models, read back, have the keys that say so
  expect(rehearsalKey(readRolloutObjects(second)[0], SYNTH_RELEASES)).toBe(
    rehearsalKey(readRolloutObjects(first)[0], SYNTH_RELEASES),
  );
});

test('a shared rehearsal refuses the second service exactly as its own rehearsal would', () => {
  // The previous version's templates: refused (a healthy release pauses at 5 %).
  const objects = (name: string, namespace: string) =>
    parseAllDocuments(renamedText(OLD, name, namespace)).map((d) => d.toJS() as unknown);
  const s0 = synthRehearsalCounts();
  const a = rehearseForSynth(objects('refused-a', 'refused-a'));
  const b = rehearseForSynth(objects('refused-service-b', 'refused-b'));
  const s1 = synthRehearsalCounts();
  expect(a.refusals).toHaveLength(1);
  expect(a.refusals[0].why).toMatch(/^the rehearsal of release "healthy" .* says: paused at 5 %/);
  expect(b).toEqual(a);
  expect([s1.run - s0.run, s1.shared - s0.shared]).toEqual([1, 1]);
});

/**
 * The key by query templates (memo.ts parsedQuery: one parse per template, the names put back into
 * its matcher values) against the key with every query parsed as it is: the same text, so the same
 * services share a rehearsal and get the same verdicts.
 */
function keyBothWays(m: RolloutModel): [string | undefined, string | undefined] {
  setQueryTemplatesForTest(false);
  try {
    const plain = rehearsalKey(m, SYNTH_RELEASES);
    setQueryTemplatesForTest(true);
    return [rehearsalKey(m, SYNTH_RELEASES), plain];
  } finally {
    setQueryTemplatesForTest(true);
  }
}

/**
 * The model with its service renamed in every string of it (queries, clusters, names), as a service
 * of that name reads; `variant` 1 writes the queries' ranges quoted (`["2m"]`, which the parser
 * reads as a duration), 2 puts a backslash before the names in the queries' quoted values.
 */
function renamedModel(m: RolloutModel, name: string, namespace: string, variant = 0): RolloutModel {
  const swap = (s: string) =>
    s
      .split('checkout-api')
      .join('\u0001')
      .split('checkout')
      .join('\u0002')
      .split('\u0001')
      .join(name)
      .split('\u0002')
      .join(namespace);
  const query = (s: string) =>
    variant === 1 ? s.replace(/\[(\d+m)\]/g, '["$1"]') : variant === 2 ? s.replace(/="checkout/g, '="\\checkout') : s;
  const walk = (x: unknown, key?: string): unknown =>
    typeof x === 'string'
      ? swap(key === 'query' ? query(x) : x)
      : Array.isArray(x)
        ? x.map((v) => walk(v))
        : x !== null && typeof x === 'object'
          ? Object.fromEntries(Object.entries(x).map(([k, v]) => [k, walk(v, k)]))
          : x;
  return walk(m) as RolloutModel;
}

test('query templates: the same key as parsing every query, on the bench estates', () => {
  let n = 0;
  for (const estate of ['capacity', 'distinct'] as Estate[]) {
    const app = buildEstate(12, undefined, estate);
    for (const chart of app.node.children.filter((c): c is Chart => c instanceof Chart)) {
      const objects = chart.node
        .findAll()
        .filter((c): c is ApiObject => c instanceof ApiObject)
        .map((o) => o.toJson());
      for (const m of readRolloutObjects(objects, {}, chart.node.id)) {
        const [templated, plain] = keyBothWays(m);
        expect(plain).toBeDefined();
        expect(templated).toBe(plain);
        n++;
      }
    }
  }
  expect(n).toBeGreaterThanOrEqual(24);
});

test('query templates: the same key as parsing every query, for adversarial names', () => {
  const base = [renamed(PROD, 'checkout-api'), renamed(DEV, 'checkout-api'), renamed(OLD, 'checkout-api')];
  // names that are regex metacharacters, prefixes of each other or of the queries' words, quotes,
  // backslashes, the template's own placeholder characters, numbers and durations
  const piece = fc.constantFrom(
    'a',
    'svc',
    'svc-1',
    'svc-12',
    '.',
    '.*',
    '+',
    '?',
    '(',
    ')',
    '|',
    '[0-9]',
    '{5}',
    '"',
    "'",
    '\\',
    '\\"',
    '\ue000',
    '\ue001',
    'rate',
    'sum',
    'on',
    'by',
    'm',
    '2m',
    '5',
    '0',
    'envoy',
    'rule',
    'backend',
    '/',
    '=',
    '~',
    ',',
    '}',
    ' ',
    'é',
    '𝔘',
    'checkout',
    'httproute',
    'kube',
    'pod',
    'team-7',
    '-',
  );
  const name = fc.array(piece, { minLength: 1, maxLength: 4 }).map((xs) => xs.join(''));
  let compared = 0;
  // named cases: a quoted range that holds a name (the parser reads it as a duration), a backslash
  // before a name that starts with "n" (unquote reads "\\n" as a line break), a name inside a
  // metric's or a function's name, a name that is a prefix of the other, regex metacharacters
  const named: [string, string, number][] = [
    ['svc', '2m', 1],
    ['2m', 'team', 1],
    ['svc', 'ns-1', 2],
    ['n', 'team', 2],
    ['rate', 'sum', 0],
    ['svc', 'svc-1', 0],
    ['svc-1', 'svc', 0],
    ['.*', 'a|b', 0],
    ['(', '[0-9]', 0],
    ['team-7', 'team-7', 0],
  ];
  for (const [n, ns, variant] of named)
    for (const m of base) {
      const [templated, plain] = keyBothWays(renamedModel(m, n, ns, variant));
      expect([n, ns, variant, templated]).toEqual([n, ns, variant, plain]);
    }
  fc.assert(
    fc.property(fc.constantFrom(0, 1, 2), name, name, fc.constantFrom(0, 0, 1, 2), (i, n, ns, variant) => {
      const [templated, plain] = keyBothWays(renamedModel(base[i], n, ns, variant));
      expect(templated).toBe(plain);
      if (plain !== undefined) compared++;
    }),
    { numRuns: 4000 },
  );
  expect(compared).toBeGreaterThan(1000);
});
