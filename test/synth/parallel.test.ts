import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { compileSrc } from '../support/compile';

/**
 * Serialization on worker threads (src/synth/parallel.ts) must write exactly the bytes the
 * in-thread path writes, and a worker's failure must fail the synth. Workers load compiled
 * JavaScript, so this runs the compiled sources in a child node process.
 */
const build = fs.mkdtempSync(path.join(os.tmpdir(), 'rw-parallel-'));
afterAll(() => fs.rmSync(build, { recursive: true, force: true }));
beforeAll(() => compileSrc(build));

function run(script: string): { status: number | null; out: string } {
  const file = path.join(build, `case-${Math.random().toString(36).slice(2)}.js`);
  fs.writeFileSync(file, script);
  const r = spawnSync(process.execPath, [file], { cwd: build, encoding: 'utf8', timeout: 120_000 });
  return { status: r.status, out: `${r.stdout}${r.stderr}` };
}

const estate = `
const { App, Chart } = require('cdk8s');
const { HttpService } = require('./src/constructs/http-service');
const { checkoutApiProps } = require('./src/example');
function estate(n) {
  const app = new App();
  const props = checkoutApiProps();
  for (let i = 0; i < n; i++) new HttpService(new Chart(app, 'svc-' + i, { namespace: 'team-' + (i % 3) }), 'svc-' + i, { ...props, route: { hostnames: ['svc-' + i + '.example.com'] } });
  return app;
}`;

test('worker threads write the same files and bytes as the main thread', () => {
  const r = run(`${estate}
const { writeApp, diffDirs, listFiles } = require('./src/synth/synth');
const { SerializerPool } = require('./src/synth/parallel');
if (!SerializerPool.create(1)) throw new Error('the compiled worker was not found');
writeApp(estate(70), 'out-main', { parallel: false });
writeApp(estate(70), 'out-workers', { parallel: true });
console.log(JSON.stringify({ files: listFiles('out-workers').length, drift: diffDirs('out-main', 'out-workers') }));`);
  expect(r.status).toBe(0);
  expect(JSON.parse(r.out.trim().split('\n').pop() ?? '{}')).toEqual({ files: 140, drift: [] });
});

test('a worker that cannot write fails the synth with its error', () => {
  const r = run(`${estate}
const fs = require('fs');
const { writeApp } = require('./src/synth/synth');
fs.mkdirSync('blocked/svc-1.k8s.yaml', { recursive: true }); // a folder where a chart's file goes
try { writeApp(estate(3), 'blocked', { parallel: true }); console.log('no error'); }
catch (e) { console.log('error: ' + e.message.split('\\n')[0]); }`);
  expect(r.status).toBe(0);
  expect(r.out).toMatch(
    /error: rollwise synth: writing blocked\/svc-1\.k8s\.yaml failed: a folder is in the way of the file \(EISDIR\)/,
  );
});
