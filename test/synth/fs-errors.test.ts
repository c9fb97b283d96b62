import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { compileSrc } from '../support/compile';
import { fileSystemError } from '../../src/synth/fs-errors';

/**
 * File-system errors name the file, say what happened and how to fix it, without a stack: EFBIG
 * from a real file-size limit (`ulimit -f`, on the main thread and on the serialization workers).
 */
const build = fs.mkdtempSync(path.join(os.tmpdir(), 'rw-fserr-'));
beforeAll(() => {
  compileSrc(build);
  fs.writeFileSync(
    path.join(build, 'case.js'),
    `
const { App, Chart, ApiObject } = require('cdk8s');
const { synthesize } = require('./src/synth/synth');
const [out, charts] = process.argv.slice(2);
try {
  synthesize((outdir) => {
    const app = new App({ outdir });
    for (let i = 0; i < Number(charts); i++) new ApiObject(new Chart(app, 'c' + i), 'cm', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' + i }, data: { big: 'x'.repeat(4096) } });
    return app;
  }, { outdir: out, progress: () => undefined });
} catch (e) {
  process.stderr.write('rollwise: ' + e.message + '\\n');
  process.exitCode = 1;
}
`,
  );
});
afterAll(() => fs.rmSync(build, { recursive: true, force: true }));

test.each([
  ['main thread', 3],
  ['serialization workers', 80],
])(
  'EFBIG (%s): names the file and the limit, no stack, old output kept',
  (_, charts) => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'rw-fserr-out-'));
    try {
      const out = path.join(root, 'dist');
      const r = spawnSync('bash', ['-c', `ulimit -f 2; exec "${process.execPath}" case.js "${out}" ${charts}`], {
        cwd: build,
        encoding: 'utf8',
        timeout: 60_000,
      });
      expect(r.status).toBe(1);
      expect(r.stderr).toMatch(
        /rollwise synth: writing c\d+\.k8s\.yaml failed: the file is larger than this process may write .*\(EFBIG\)\. The previous output is unchanged\. Fix: raise the limit/,
      );
      expect(r.stderr).not.toMatch(/\n\s+at /);
      expect(fs.existsSync(out)).toBe(false);
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  },
  60_000,
);

test('ENOSPC and an unknown code', () => {
  expect(fileSystemError(Object.assign(new Error('x'), { code: 'ENOSPC' }), 'prod/a.k8s.yaml', 'writing').message).toBe(
    'rollwise synth: writing prod/a.k8s.yaml failed: the disk is full (ENOSPC). The previous output is unchanged. Fix: free space on the disk that holds the output (df -h shows it), then synth again.',
  );
  expect(fileSystemError(new Error('odd'), 'a', 'writing').message).toContain('failed: odd.');
});
