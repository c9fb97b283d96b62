import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { main } from '../../src/cli/main';
import { compileSrc, ROOT } from '../support/compile';

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

const DIST = path.join(ROOT, 'dist');

test('--version prints the package version', async () => {
  const r = await cli(['--version']);
  expect(r.code).toBe(0);
  expect(r.out.trim()).toBe(
    (JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { version: string }).version,
  );
});

test("every command's --help shows an example", async () => {
  const commands = ['synth', 'explain', 'lint', 'simulate', 'init', 'platform'];
  for (const c of ['', ...commands]) {
    const r = await cli(c ? [c, '--help'] : ['--help']);
    expect([c, r.code]).toEqual([c, 0]);
    expect([c, /\nExamples?:\n {2}rollwise /.test(r.out)]).toEqual([c, true]);
  }
});

describe('rollwise explain', () => {
  test('on a folder: every manifest in it, each under its name', async () => {
    const r = await cli(['explain', DIST]);
    expect(r.code).toBe(0);
    expect(r.out).toContain(`== ${path.join(DIST, 'prod', 'checkout-api.k8s.yaml')}\n`);
    expect(r.out).toContain(`== ${path.join(DIST, 'dev', 'checkout-api.k8s.yaml')}\n`);
    expect(r.out).toContain('PodDisruptionBudget/checkout-api spec.maxUnavailable = 1');
  });

  test('a path that does not exist is an input error naming it', async () => {
    const r = await cli(['explain', path.join(DIST, 'nope.yaml')]);
    expect(r.code).toBe(2);
    expect(r.err).toContain('explain path');
    expect(r.err).toContain('nope.yaml');
  });

  test('- reads standard input', () => {
    const lib = fs.mkdtempSync(path.join(os.tmpdir(), 'rw-explain-'));
    try {
      compileSrc(lib);
      const script = `require(${JSON.stringify(path.join(lib, 'src', 'cli', 'main.js'))}).main(process.argv).then((c) => { process.exitCode = c; })`;
      const r = spawnSync(process.execPath, ['-e', script, 'rollwise', 'explain', '-'], {
        input: fs.readFileSync(path.join(DIST, 'prod', 'checkout-api.k8s.yaml')),
        encoding: 'utf8',
      });
      expect(r.status).toBe(0);
      expect(r.stdout).toContain(
        'Rollout/checkout-api spec.template.spec.containers[0].readinessProbe.timeoutSeconds [container app (containers[0])] = 3',
      );
    } finally {
      fs.rmSync(lib, { recursive: true, force: true });
    }
  }, 60_000);
});

test('rollwise lint: a fact for a name no object has is an error naming the known objects', async () => {
  const r = await cli(['lint', path.join(DIST, 'prod'), '--p99', 'orders=0.4']);
  expect(r.code).toBe(2);
  expect(r.err).toContain('--p99 orders: no object in the input has that name');
  expect(r.err).toContain('Rollout/checkout/checkout-api');
  const ok = await cli(['lint', path.join(DIST, 'prod'), '--p99', 'checkout/checkout-api=0.25']);
  expect(ok.err).toBe('');
});
