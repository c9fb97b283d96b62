import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { ApiObject, App, Chart, JsonPatch, Lazy } from 'cdk8s';
import { describeFiles, listFiles, summarizeDrift } from '../../src/synth/diff';
import { synthesize } from '../../src/synth/synth';
import { OUTPUT_MARKER, outputMarkerText } from '../../src/synth/ownership';
import { FIXTURES } from './fixtures';

let root: string;
beforeEach(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'rollwise-atomic-'));
});
afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

const quiet = { progress: () => undefined };

function snapshot(dir: string): Record<string, string> {
  return Object.fromEntries(listFiles(dir).map((f) => [f, fs.readFileSync(path.join(dir, f), 'utf8')]));
}

function goodApp(outdir: string): App {
  const app = new App({ outdir });
  new ApiObject(new Chart(app, 'good'), 'cm', { apiVersion: 'v1', kind: 'ConfigMap', data: { v: '1' } });
  return app;
}

describe('a failure anywhere leaves the previous output intact', () => {
  const failures: Record<string, (outdir: string) => App> = {
    'a construct throws while the app is built': () => {
      throw new Error('boom in a constructor');
    },
    'a validation fails': (outdir) => {
      const app = goodApp(outdir);
      const chart = new Chart(app, 'bad');
      chart.node.addValidation({ validate: () => ['replicas must be at least 2'] });
      return app;
    },
    'a value fails to resolve while serializing (second chart)': (outdir) => {
      const app = goodApp(outdir);
      new ApiObject(new Chart(app, 'zz-bad'), 'cm', {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        data: {
          v: Lazy.any({
            produce: () => {
              throw new Error('lazy failed');
            },
          }),
        },
      } as never);
      return app;
    },
    'two charts claim the same output file': (outdir) => {
      const app = goodApp(outdir);
      const a = new Chart(app, 'a');
      const b = new Chart(app, 'b');
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      const { declareOutputPath } = require('../../src/synth/layout') as typeof import('../../src/synth/layout');
      declareOutputPath(a, 'x/same.k8s.yaml');
      declareOutputPath(b, 'x/same.k8s.yaml');
      return app;
    },
  };
  const messages: Record<string, RegExp> = {
    'a construct throws while the app is built': /boom in a constructor/,
    'a validation fails': /Validation failed with the following errors:\n {2}\[bad\] replicas must be at least 2/,
    'a value fails to resolve while serializing (second chart)':
      /Failed serializing construct at path 'zz-bad\/cm'.*lazy failed/,
    'two charts claim the same output file': /two outputs write x\/same.k8s.yaml: chart a and chart b/,
  };

  test.each(Object.keys(failures))('%s', (name) => {
    const out = path.join(root, 'dist');
    synthesize(goodApp, { outdir: out, ...quiet });
    fs.writeFileSync(path.join(out, 'committed-extra.txt'), 'kept');
    fs.writeFileSync(path.join(out, OUTPUT_MARKER), outputMarkerText(['committed-extra.txt', 'good.k8s.yaml'])); // as if synth wrote it
    const before = snapshot(out);
    expect(Object.keys(before)).toEqual(['committed-extra.txt', 'good.k8s.yaml']);
    expect(() => synthesize(failures[name], { outdir: out, ...quiet })).toThrow(messages[name]);
    expect(snapshot(out)).toEqual(before);
    // no temporary folders left beside the output
    expect(fs.readdirSync(root)).toEqual(['dist']);
  });
});

test('a successful synth replaces the whole folder (stale files go) and leaves no temporary folder', () => {
  const out = path.join(root, 'dist');
  fs.mkdirSync(out);
  fs.writeFileSync(path.join(out, '.rollwise-output'), outputMarkerText(['stale.k8s.yaml']));
  fs.writeFileSync(path.join(out, 'stale.k8s.yaml'), 'old');
  const r = synthesize(goodApp, { outdir: out, ...quiet });
  expect(r.files).toEqual(['good.k8s.yaml']);
  expect(listFiles(out)).toEqual(['good.k8s.yaml']);
  expect(fs.readdirSync(root)).toEqual(['dist']);
});

test('deterministic: two runs give the same bytes', () => {
  for (const [name, build] of Object.entries(FIXTURES)) {
    synthesize(build, { outdir: path.join(root, 'one'), ...quiet });
    synthesize(build, { outdir: path.join(root, 'two'), ...quiet });
    const one = snapshot(path.join(root, 'one'));
    expect(Object.keys(one).length).toBeGreaterThan(0);
    expect([name, snapshot(path.join(root, 'two'))]).toEqual([name, one]);
    // and a check against the first run finds no drift
    const check = synthesize(build, { outdir: path.join(root, 'one'), check: true, ...quiet });
    expect([name, check.drift, check.diff]).toEqual([name, [], '']);
  }
});

test('check reports drift with a readable diff and writes nothing', () => {
  const out = path.join(root, 'dist');
  synthesize(FIXTURES['HttpService (with reasons)'], { outdir: out, ...quiet });
  const file = path.join(out, 'checkout-api.k8s.yaml');
  const committed = fs.readFileSync(file, 'utf8').replace('  replicas: 12\n', '  replicas: 10\n');
  fs.writeFileSync(file, committed);
  fs.writeFileSync(path.join(out, 'old.k8s.yaml'), 'x: 1\n');
  fs.rmSync(path.join(out, 'payments.k8s.yaml'));
  const before = snapshot(out);

  const r = synthesize(FIXTURES['HttpService (with reasons)'], { outdir: out, check: true, ...quiet });
  const fresh = path.join(root, 'fresh');
  synthesize(FIXTURES['HttpService (with reasons)'], { outdir: fresh, ...quiet });
  expect(r.drift).toEqual(['changed checkout-api.k8s.yaml', 'extra old.k8s.yaml', 'missing payments.k8s.yaml']);
  expect(snapshot(out)).toEqual(before);
  const line = committed.split('\n').indexOf('  replicas: 10') + 1;
  expect(line).toBeGreaterThan(10); // two-digit line numbers below (width of the last number shown)
  expect(line).toBeLessThan(97);
  const lines = r.diff.split('\n');
  expect(lines[0]).toBe(`--- checkout-api.k8s.yaml (committed in ${out})`);
  expect(lines[1]).toBe('+++ checkout-api.k8s.yaml (synthesized from the code)');
  expect(lines[2]).toBe(`@@ -${line},1 +${line},1 @@ first difference at line ${line}`);
  expect(lines).toHaveLength(10); // 3 header, 2 context, -, +, 2 context, final newline
  const summary = summarizeDrift(fresh, out).split('\n');
  expect(summary.slice(0, 7)).toEqual([
    'changed (1):',
    '  checkout-api.k8s.yaml',
    'not committed yet (the code produces them) (1):',
    '  payments.k8s.yaml',
    'committed but no longer produced (1):',
    '  old.k8s.yaml',
    '',
  ]);
  expect(summary[7]).toBe('--- checkout-api.k8s.yaml (committed)');
  expect(lines).toContain(`${line} -   replicas: 10`);
  expect(lines).toContain(`${line} +   replicas: 12`);
  expect(lines).toContain(
    `${line - 1}     # Input: 12 replicas, 308 req/s each at the 3700 req/s peak (69 % of saturation).`,
  );
});

test('describeFiles lists few files, counts many per folder', () => {
  expect(describeFiles(['dev/a.k8s.yaml', 'prod/a.k8s.yaml'])).toBe('dev/a.k8s.yaml, prod/a.k8s.yaml');
  const many = [...Array(6).keys()].flatMap((i) => [`prod/s${i}.k8s.yaml`, `dev/s${i}.k8s.yaml`]);
  expect(describeFiles([...many, 'index.md'])).toBe('1 in the top folder, 6 in dev/, 6 in prod/');
});

test('validateSchemas: a schema-invalid object (a patch no invariant covers) fails before the swap, naming file, object and field', () => {
  const out = path.join(root, 'dist');
  synthesize(goodApp, { outdir: out, ...quiet });
  const before = snapshot(out);
  const bad = (outdir: string) => {
    const app = goodApp(outdir);
    const o = new ApiObject(new Chart(app, 'svc'), 'svc', {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 'api' },
      spec: { ports: [{ port: 80 }] },
    });
    o.addJsonPatch(JsonPatch.add('/spec/type', 5));
    return app;
  };
  expect(() => synthesize(bad, { outdir: out, validateSchemas: true, ...quiet })).toThrow(
    /\[svc\/svc\] Service\/api \/spec\/type: must be of type string, not integer 5 \(schema\): the cluster would refuse this object \(Kubernetes 1.28\)/,
  );
  expect(snapshot(out)).toEqual(before);
  expect(fs.readdirSync(root)).toEqual(['dist']);
}, 60_000);
