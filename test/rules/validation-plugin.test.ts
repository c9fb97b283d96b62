import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { compileSrc, ROOT } from '../support/compile';
import { cleanDeployment, pdb, service } from './helpers';

const CDK8S = path.join(ROOT, 'node_modules', 'cdk8s-cli', 'bin', 'cdk8s');

/** Compiles src/ (and imports/) so the plugin loads as cdk8s would load it. */
function compilePlugin(out: string): string {
  compileSrc(out);
  return path.join(out, 'src', 'rules', 'validation-plugin.js');
}

/** A one-chart cdk8s app holding the given manifests, with the plugin configured in cdk8s.yaml. */
const temps: string[] = [];
afterAll(() => {
  for (const t of temps) fs.rmSync(t, { recursive: true, force: true });
});

function fixtureApp(plugin: string, objects: unknown[]): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rw-plugin-app-'));
  temps.push(dir);
  fs.symlinkSync(path.join(ROOT, 'node_modules'), path.join(dir, 'node_modules'), 'dir');
  fs.writeFileSync(
    path.join(dir, 'app.js'),
    [
      "const { App, Chart, ApiObject } = require('cdk8s');",
      'const app = new App();',
      "const chart = new Chart(app, 'checkout');",
      `for (const [i, o] of ${JSON.stringify(objects)}.entries()) new ApiObject(chart, 'o' + i, o);`,
      'app.synth();',
    ].join('\n'),
  );
  fs.writeFileSync(
    path.join(dir, 'cdk8s.yaml'),
    [
      'language: typescript',
      'app: node app.js',
      'validations:',
      `  - package: ${plugin}`,
      '    class: RollwiseValidation',
      '    version: 0.1.0',
    ].join('\n'),
  );
  return dir;
}

function synth(dir: string): { status: number | null; out: string } {
  const r = spawnSync(process.execPath, [CDK8S, 'synth'], {
    cwd: dir,
    encoding: 'utf8',
    timeout: 60_000,
    env: { ...process.env, CI: 'true' },
  });
  return { status: r.status, out: `${r.stdout}${r.stderr}` };
}

describe('cdk8s validation plugin (real `cdk8s synth`, local plugin path)', () => {
  const build = fs.mkdtempSync(path.join(os.tmpdir(), 'rw-plugin-'));
  temps.push(build);
  fs.symlinkSync(path.join(ROOT, 'node_modules'), path.join(build, 'node_modules'), 'dir');
  const plugin = compilePlugin(build);

  test('a hazardous app fails synth with exit 2 and the rule in the report', () => {
    const d = cleanDeployment();
    d.spec.replicas = 1; // with maxUnavailable 1
    const { status, out } = synth(fixtureApp(plugin, [d, pdb(), service()]));
    expect(out).toContain('RW305-single-replica-rolling-update-unavailable (error)');
    expect(out).toContain('replicas 1 with maxUnavailable 1: at each rollout the controller may remove the only pod');
    expect(out).toContain('Validation failed');
    expect(status).toBe(2);
  }, 60_000);

  test('a clean app passes synth', () => {
    const { status, out } = synth(fixtureApp(plugin, [cleanDeployment(), pdb(), service()]));
    expect(out).toContain('Validations ended succesfully');
    expect(status).toBe(0);
  }, 60_000);
});
