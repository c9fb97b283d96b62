import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { compileSrc, ROOT } from '../support/compile';
import { listFiles } from '../../src/synth/diff';

const CDK8S = path.join(ROOT, 'node_modules', 'cdk8s-cli', 'bin', 'cdk8s');

let lib: string;
const temps: string[] = [];
const temp = (prefix: string) => {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  temps.push(d);
  return d;
};
beforeAll(() => {
  lib = temp('rw-app-lib-');
  compileSrc(lib);
}, 120_000);
afterAll(() => {
  for (const t of temps) fs.rmSync(t, { recursive: true, force: true });
});

/** The canary example service (reasons, runbook, alerts) and a plain ApiObject beside it. */
function appSource(extra = ''): string {
  return [
    `const { ApiObject, Chart } = require('cdk8s');`,
    `const { RollwiseApp } = require(${JSON.stringify(path.join(lib, 'src', 'synth', 'rollwise-app.js'))});`,
    `const { HttpService } = require(${JSON.stringify(path.join(lib, 'src', 'constructs', 'http-service.js'))});`,
    `const { checkoutApiProps, examplePlatform } = require(${JSON.stringify(path.join(lib, 'src', 'example.js'))});`,
    'const app = new RollwiseApp();',
    "const chart = new Chart(app, 'checkout-api', { namespace: 'checkout' });",
    "new HttpService(chart, 'checkout-api', { ...checkoutApiProps(), platform: examplePlatform('prod', 'https://kubernetes.default.svc') });",
    "new ApiObject(chart, 'settings', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'settings' }, data: { a: 'b' } });",
    `require(${JSON.stringify(path.join(lib, 'src', 'synth', 'output.js'))}).addSynthWarning(chart, 'a recorded warning');`,
    extra,
    'app.synth();',
  ].join('\n');
}

function appDir(app: string, source: string): string {
  const dir = temp('rw-app-');
  fs.symlinkSync(path.join(ROOT, 'node_modules'), path.join(dir, 'node_modules'), 'dir');
  fs.writeFileSync(path.join(dir, 'app.js'), source);
  fs.writeFileSync(path.join(dir, 'cdk8s.yaml'), `language: typescript\napp: ${app}\n`);
  return dir;
}

function rollwise(cwd: string, ...args: string[]) {
  const cli = `require(${JSON.stringify(path.join(lib, 'src', 'cli', 'main.js'))}).main(process.argv).then((c) => { process.exitCode = c; }, (e) => { console.error('rollwise: ' + e.message); process.exitCode = 1; })`;
  return spawnSync(process.execPath, ['-e', cli, 'rollwise', ...args], { cwd, encoding: 'utf8' });
}

function snapshot(dir: string): Record<string, string> {
  return Object.fromEntries(listFiles(dir).map((f) => [f, fs.readFileSync(path.join(dir, f), 'utf8')]));
}

describe.each([
  ['app: node app.js (loaded in-process)', 'node app.js'],
  ['any other command (run in a shell, as cdk8s runs it)', 'ROLLWISE_TEST=1 node app.js'],
])('cdk8s synth and rollwise synth give the same files: %s', (_name, command) => {
  test('same files, byte for byte, with reasons, the runbook and the warnings', () => {
    const dir = appDir(command, appSource());
    const viaCdk8s = spawnSync(process.execPath, [CDK8S, 'synth', '-o', 'by-cdk8s'], { cwd: dir, encoding: 'utf8' });
    expect(viaCdk8s.status).toBe(0);
    const viaRollwise = rollwise(dir, 'synth', '-o', 'by-rollwise');
    expect(viaRollwise.stderr).not.toContain('rollwise:');
    expect(viaRollwise.status).toBe(0);

    const a = snapshot(path.join(dir, 'by-cdk8s'));
    const b = snapshot(path.join(dir, 'by-rollwise'));
    expect(Object.keys(a)).toEqual(['checkout-api.k8s.yaml', 'checkout-api.runbook.md']);
    expect(b).toEqual(a);
    // the complete output: reason comments, the runbook the PrometheusRule links to, the plain object
    expect(a['checkout-api.k8s.yaml']).toMatch(/\n\s+# .*\n\s+timeoutSeconds: 3\n/);
    expect(a['checkout-api.k8s.yaml']).toContain('kind: ConfigMap');
    expect(a['checkout-api.runbook.md']).toContain('#');
    // a normal folder mode (0777 minus the umask), not mkdtemp's 0700
    const mode = 0o777 & ~process.umask();
    for (const out of ['by-cdk8s', 'by-rollwise']) expect(fs.statSync(path.join(dir, out)).mode & 0o777).toBe(mode);
    // the same warnings on standard error
    const warnings = (s: string) => s.split('\n').filter((l) => l.startsWith('warning: '));
    expect(warnings(viaCdk8s.stderr)).toEqual(['warning: checkout-api: a recorded warning']);
    expect(warnings(viaRollwise.stderr)).toEqual(warnings(viaCdk8s.stderr));
    // nothing written outside the output folders
    expect(fs.readdirSync(dir).sort()).toEqual(['app.js', 'by-cdk8s', 'by-rollwise', 'cdk8s.yaml', 'node_modules']);
    // --check is in sync with what cdk8s synth wrote
    const check = rollwise(dir, 'synth', '-o', 'by-cdk8s', '--check');
    expect(check.stdout).toContain('is in sync');
    expect(check.status).toBe(0);
  }, 120_000);

  test('an unsafe object that rollwise did not make fails both, and leaves no output', () => {
    const unsafe = [
      // One replica with maxUnavailable 1 behind a Service: RW305, an error (every rollout removes
      // the only pod the Service sends requests to first).
      "new ApiObject(chart, 'legacy', { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'legacy' }, spec: { replicas: 1, strategy: { rollingUpdate: { maxUnavailable: 1 } }, selector: { matchLabels: { app: 'legacy' } }, template: { metadata: { labels: { app: 'legacy' } }, spec: { containers: [{ name: 'app', image: 'legacy:1',",
      "  readinessProbe: { httpGet: { path: '/healthz', port: 8080 }, periodSeconds: 10, timeoutSeconds: 1 },",
      "  livenessProbe: { httpGet: { path: '/healthz', port: 8080 }, periodSeconds: 10, timeoutSeconds: 1 } }] } } } });",
      "new ApiObject(chart, 'legacy-service', { apiVersion: 'v1', kind: 'Service', metadata: { name: 'legacy' }, spec: { selector: { app: 'legacy' }, ports: [{ name: 'http', port: 80, targetPort: 8080 }] } });",
    ].join('\n');
    const dir = appDir(command, appSource(unsafe));
    const viaCdk8s = spawnSync(process.execPath, [CDK8S, 'synth', '-o', 'by-cdk8s'], { cwd: dir, encoding: 'utf8' });
    expect(viaCdk8s.status).not.toBe(0);
    expect(viaCdk8s.stderr).toContain('RW305-single-replica-rolling-update-unavailable Deployment/checkout/legacy');
    const viaRollwise = rollwise(dir, 'synth', '-o', 'by-rollwise');
    expect(viaRollwise.status).not.toBe(0);
    expect(viaRollwise.stderr).toContain('RW305-single-replica-rolling-update-unavailable Deployment/checkout/legacy');
    expect(fs.existsSync(path.join(dir, 'by-rollwise'))).toBe(false);
  }, 120_000);
});

test('rollwise synth refuses a plain cdk8s App, and writes nothing', () => {
  const dir = appDir(
    'node app.js',
    "const { App, Chart, ApiObject } = require('cdk8s');\nconst app = new App();\nnew ApiObject(new Chart(app, 'c'), 'x', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x' } });\napp.synth();\n",
  );
  const res = rollwise(dir, 'synth');
  expect(res.status).toBe(2);
  expect(res.stderr).toContain('plain cdk8s App');
  expect(res.stderr).toContain('new RollwiseApp()');
  expect(fs.readdirSync(dir).sort()).toEqual(['app.js', 'cdk8s.yaml', 'node_modules']);
}, 60_000);

test('rollwise synth without cdk8s.yaml or --app names what is missing', () => {
  const res = rollwise(temp('rw-noapp-'), 'synth');
  expect(res.status).toBe(2);
  expect(res.stderr).toContain('cdk8s.yaml');
  expect(res.stderr).toContain('rollwise init');
}, 60_000);

describe('an app run as a program reports bad input as rollwise does, without a stack trace (issue 24)', () => {
  const broken = () =>
    appSource().replace(
      "platform: examplePlatform('prod', 'https://kubernetes.default.svc') }",
      "platform: examplePlatform('prod', 'https://kubernetes.default.svc'), replicas: 1 }",
    );
  const inputError =
    /rollwise: invalid input in service checkout-api \(checkout-api\/checkout-api\)\n {2}replicas = 1\n {2}why: must be a whole number from 2 to 1000/;
  // cdk8s synth prints stack frames of its own (its update check, its exec of the app): none may be the app's or rollwise's
  const noStack = (text: string) =>
    expect(text.split('\n').filter((l) => /^\s+at /.test(l) && !/node_modules\/cdk8s|node:/.test(l))).toEqual([]);

  test.each([
    ['node app.js', (dir: string) => spawnSync(process.execPath, ['app.js'], { cwd: dir, encoding: 'utf8' })],
    [
      'cdk8s synth',
      (dir: string) =>
        spawnSync(process.execPath, [CDK8S, 'synth', '-o', 'out'], {
          cwd: dir,
          encoding: 'utf8',
          env: { ...process.env, CI: 'true' },
        }),
    ],
    ['rollwise synth of a shell command', (dir: string) => rollwise(dir, 'synth', '-o', 'out')],
  ])(
    '%s',
    (_how, run) => {
      const dir = appDir('ROLLWISE_TEST=1 node app.js', broken());
      const res = run(dir);
      expect(res.status).not.toBe(0);
      expect(res.stderr).toMatch(inputError);
      noStack(res.stderr);
      expect(fs.existsSync(path.join(dir, 'out'))).toBe(false);
    },
    120_000,
  );

  test("an error of the app's own code keeps its stack", () => {
    const dir = appDir('node app.js', appSource('null.boom();'));
    const res = spawnSync(process.execPath, ['app.js'], { cwd: dir, encoding: 'utf8' });
    expect(res.status).not.toBe(0);
    expect(res.stderr).toMatch(/TypeError: Cannot read properties of null[\s\S]*\n\s+at /);
  }, 60_000);
});
