/*
 * The renders of a scan run in a pool of kustomize processes (ROLLWISE_KUSTOMIZE_JOBS at a time,
 * renderAll and POOL in src/rules/kustomize-render.ts), or one by one with one job. A render that
 * fails or outlives renderTimeoutSeconds gives the same note either way: the pool's child reports
 * a killed process as spawnSync does ("spawnSync <command> ETIMEDOUT").
 */
import * as fs from 'fs';
import * as path from 'path';
import { Finding, layoutScan } from '../../src/rules';
import { Kustomization, readKustomization } from '../../src/rules/kustomization-read';
import { renderOrder } from '../../src/rules/kustomize-render';
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

describe('the order the renders start in (renderOrder)', () => {
  const big = `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: big\ndata:\n  x: "${'x'.repeat(4000)}"\n`;
  const small = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: small\n';

  it('puts the largest input first (resources and patches of the whole tree), ties as given', () => {
    const dir = tempRepo('rw-render-order-', {
      'a/kustomization.yaml': 'namePrefix: a-\nresources:\n- cm.yaml\n',
      'a/cm.yaml': small,
      // b's own file is small, its base's is big: the tree counts
      'b/kustomization.yaml': 'namePrefix: b-\nresources:\n- ../base\n- cm.yaml\n',
      'b/cm.yaml': small,
      'base/kustomization.yaml': 'resources:\n- big.yaml\n',
      'base/big.yaml': big,
      // c's patch is big: patches are read too
      'c/kustomization.yaml': 'namePrefix: c-\nresources:\n- cm.yaml\npatches:\n- path: p.yaml\n',
      'c/cm.yaml': small,
      'c/p.yaml': big.replace('name: big', 'name: small').replace('"x', '"xx'),
      'd/kustomization.yaml': 'namePrefix: d-\nresources:\n- cm.yaml\n',
      'd/cm.yaml': small,
    });
    const cache = new Map<string, Kustomization | null>();
    const roots = ['a', 'b', 'c', 'd'].map((n) => readKustomization(path.join(dir, n), cache)!);
    expect(renderOrder(roots).map((k) => path.basename(k.dir))).toEqual(['c', 'b', 'a', 'd']);
  });

  it('starts the largest first and still gives each root its own render (one job: one at a time)', () => {
    const dir = tempRepo('rw-render-order-', {
      'a/kustomization.yaml': 'namePrefix: a-\nresources:\n- cm.yaml\n',
      'a/cm.yaml': small,
      'b/kustomization.yaml': 'namePrefix: b-\nresources:\n- cm.yaml\n',
      'b/cm.yaml': big,
    });
    // A kustomize that logs which root it renders (the wrapper names it) and outputs a ConfigMap named for it.
    const log = path.join(dir, 'order.log');
    const bin = path.join(dir, 'fake-kustomize');
    fs.writeFileSync(
      bin,
      '#!/bin/sh\n' +
        `n=$(sed -n 's/.*\\/\\([ab]\\)"$/\\1/p' "$2/kustomization.yaml")\necho "$n" >> ${JSON.stringify(log)}\n` +
        'printf "apiVersion: v1\\nkind: ConfigMap\\nmetadata:\\n  name: %s-out\\n" "$n"\n',
      { mode: 0o755 },
    );
    const files = ['a/kustomization.yaml', 'a/cm.yaml', 'b/kustomization.yaml', 'b/cm.yaml'];
    const inputs = files.map((f) => ({ file: path.join(dir, f), text: fs.readFileSync(path.join(dir, f), 'utf8') }));
    for (const jobs of ['1', '2']) {
      fs.rmSync(log, { force: true });
      const old = process.env.ROLLWISE_KUSTOMIZE_JOBS;
      process.env.ROLLWISE_KUSTOMIZE_JOBS = jobs;
      try {
        const layout = layoutScan(inputs, {
          kustomize: { command: bin, args: ['build'], label: 'kustomize build' },
          repoRoot: dir,
          renderCache: null,
        });
        const got = layout.objects.map((o) => [o.name, layout.scopes.get(o)!.renderedBy]);
        expect(got).toEqual([
          ['a-out', `kustomize build ${path.join(dir, 'a')}`],
          ['b-out', `kustomize build ${path.join(dir, 'b')}`],
        ]);
      } finally {
        if (old === undefined) delete process.env.ROLLWISE_KUSTOMIZE_JOBS;
        else process.env.ROLLWISE_KUSTOMIZE_JOBS = old;
      }
      if (jobs === '1') expect(fs.readFileSync(log, 'utf8')).toBe('b\na\n');
    }
  });
});
