/*
 * The renders of a scan run in a pool of kustomize processes (ROLLWISE_KUSTOMIZE_JOBS at a time,
 * renderAll and POOL in src/rules/kustomize-render.ts), or one by one with one job. A render that
 * fails or outlives renderTimeoutSeconds gives the same note either way: the pool's child reports
 * a killed process as spawnSync does ("spawnSync <command> ETIMEDOUT").
 */
import * as fs from 'fs';
import * as path from 'path';
import { Finding, layoutScan } from '../../src/rules';
import { tempRepo } from './helpers';

/** The notes (RW010) of a scan of two overlays that the given shell script renders. */
function notes(script: string, jobs: string, timeoutSeconds = 60): Finding[] {
  const dir = tempRepo('rw-render-pool-', {
    'a/kustomization.yaml': 'namePrefix: a-\nresources:\n- cm.yaml\n',
    'a/cm.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\n',
    'b/kustomization.yaml': 'namePrefix: b-\nresources:\n- cm.yaml\n',
    'b/cm.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\n',
  });
  const bin = path.join(dir, 'fake-kustomize');
  fs.writeFileSync(bin, `#!/bin/sh\n${script}\n`, { mode: 0o755 });
  const inputs = ['a/kustomization.yaml', 'a/cm.yaml', 'b/kustomization.yaml', 'b/cm.yaml'].map((f) => ({
    file: path.join(dir, f),
    text: fs.readFileSync(path.join(dir, f), 'utf8'),
  }));
  const kustomize = { command: bin, args: ['build'], label: 'kustomize build' };
  const old = process.env.ROLLWISE_KUSTOMIZE_JOBS;
  process.env.ROLLWISE_KUSTOMIZE_JOBS = jobs;
  try {
    const layout = layoutScan(inputs, {
      kustomize,
      repoRoot: dir,
      renderCache: null,
      renderTimeoutSeconds: timeoutSeconds,
    });
    return layout.notes;
  } finally {
    if (old === undefined) delete process.env.ROLLWISE_KUSTOMIZE_JOBS;
    else process.env.ROLLWISE_KUSTOMIZE_JOBS = old;
  }
}

/** What each note says failed, in parentheses after "failed". */
const reasons = (ns: Finding[]): string[] =>
  ns
    .map((n) => /failed \((.*)\); its files/.exec(n.message)?.[1] ?? n.message)
    .map((r) => r.replace(/\S*fake-kustomize/, '<bin>'));

describe('the render pool', () => {
  test.each(['1', '2'])('a render that fails: its error, with %s job(s)', (jobs) => {
    expect(reasons(notes('echo "Error: no kustomization here" >&2; exit 1', jobs))).toEqual([
      'no kustomization here',
      'no kustomization here',
    ]);
  });

  test.each(['1', '2'])('a render past the timeout is killed: ETIMEDOUT, with %s job(s)', (jobs) => {
    expect(reasons(notes('exec sleep 5', jobs, 1))).toEqual(['spawnSync <bin> ETIMEDOUT', 'spawnSync <bin> ETIMEDOUT']);
  });

  test.each(['1', '2'])('a render that succeeds: no note, with %s job(s)', (jobs) => {
    const ok = 'echo "apiVersion: v1"; echo "kind: ConfigMap"; echo "metadata:"; echo "  name: x"';
    expect(notes(ok, jobs)).toEqual([]);
  });
});
