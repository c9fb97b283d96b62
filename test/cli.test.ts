import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { main } from '../src/cli/main';
import { outputMarkerText } from '../src/synth/ownership';

async function cli(args: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await main(
    ['node', 'rollwise', ...args],
    (t) => {
      out += t;
    },
    (t) => {
      err += t;
    },
  );
  return { code, out, err };
}

const fixtures = path.join(__dirname, 'fixtures', 'apps');

describe('rollwise synth', () => {
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rollwise-cli-'));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  test('writes the example, then --check reports in sync, then drift after an edit', async () => {
    const out = path.join(dir, 'dist');
    const first = await cli(['synth', '--app', path.join(fixtures, 'example-app.ts'), '--out', out]);
    expect(first.code).toBe(0);
    expect(fs.readdirSync(path.join(out, 'prod'))).toEqual([
      'checkout-api.catalog-info.yaml',
      'checkout-api.k8s.yaml',
      'checkout-api.runbook.md',
    ]);
    expect((await cli(['synth', '--app', path.join(fixtures, 'example-app.ts'), '--out', out, '--check'])).code).toBe(
      0,
    );
    fs.appendFileSync(path.join(out, 'prod', 'checkout-api.k8s.yaml'), '# hand edit\n');
    fs.writeFileSync(path.join(out, 'stray.yaml'), 'kind: x\n');
    const drift = await cli(['synth', '--app', path.join(fixtures, 'example-app.ts'), '--out', out, '--check']);
    expect(drift.code).toBe(1);
    expect(drift.err).toContain('changed prod/checkout-api.k8s.yaml');
    expect(drift.err).toMatch(/first difference at line \d+/);
    expect(drift.err).toContain('extra stray.yaml');
  });

  test('a failed synth leaves the previous output untouched and explains the input error', async () => {
    const out = path.join(dir, 'dist');
    fs.mkdirSync(out);
    fs.writeFileSync(path.join(out, '.rollwise-output'), outputMarkerText(['previous.k8s.yaml']));
    fs.writeFileSync(path.join(out, 'previous.k8s.yaml'), 'previous: true\n');
    const res = await cli(['synth', '--app', path.join(fixtures, 'broken-app.ts'), '--out', out]);
    expect(res.code).toBe(2);
    expect(res.err).toContain('replicas = 11');
    expect(res.err).toContain('scale out first');
    expect(fs.readdirSync(out).sort()).toEqual(['.rollwise-output', 'previous.k8s.yaml']);
    expect(fs.readFileSync(path.join(out, 'previous.k8s.yaml'), 'utf8')).toBe('previous: true\n');
    expect(fs.readdirSync(dir)).toEqual(['dist']); // no temporary folder left behind
  });
});

describe('rollwise synth: the three-service app (issue 12)', () => {
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rollwise-cli-'));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  test('synthesizes the three services, and rollwise lint finds nothing in the output', async () => {
    const out = path.join(dir, 'dist');
    const res = await cli(['synth', '--app', path.join(fixtures, 'three-services.ts'), '--out', out]);
    expect(res.code).toBe(0);
    expect(
      fs
        .readdirSync(out)
        .filter((f) => f.endsWith('.k8s.yaml'))
        .sort(),
    ).toEqual(['ledger.k8s.yaml', 'orders-api.k8s.yaml', 'web-front.k8s.yaml']);
    const lint = await cli(['lint', out]);
    expect({ code: lint.code, err: lint.err }).toEqual({ code: 0, err: '' });
  });

  test('a sidecar CPU limit without a reason fails synth, naming the service and leaving nothing behind', async () => {
    const out = path.join(dir, 'dist');
    const res = await cli(['synth', '--app', path.join(fixtures, 'three-services-broken.ts'), '--out', out]);
    expect(res.code).toBe(2);
    expect(res.err).toContain(
      'rollwise: invalid input in service web-front (web-front/web-front)\n  sidecars[0].overrides.cpuLimit = 200m\n  why: an override must carry its reason',
    );
    expect(fs.existsSync(out)).toBe(false);
  });
});

describe('rollwise explain', () => {
  test('prints each decided value with its reason', async () => {
    const res = await cli(['explain', path.join(__dirname, '..', 'dist', 'prod', 'checkout-api.k8s.yaml')]);
    expect(res.code).toBe(0);
    expect(res.out).toContain(
      'Rollout/checkout-api spec.template.spec.containers[0].readinessProbe.timeoutSeconds [container app (containers[0])] = 3',
    );
    expect(res.out).toContain('PodDisruptionBudget/checkout-api spec.maxUnavailable = 1');
    expect(res.out).toMatch(/Leave window 3 x 10 s = 30 s/);
  });
});
