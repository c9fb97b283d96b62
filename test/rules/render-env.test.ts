/*
 * The kustomize processes run with Go's collector set to collect less often (renderEnv in
 * src/rules/layout.ts), unless the scan's environment sets GOGC or GOMEMLIMIT itself. A fake
 * renderer writes the values it was given into the object it renders.
 */
import * as fs from 'fs';
import * as path from 'path';
import { layoutScan, renderEnv } from '../../src/rules';
import { tempRepo } from './helpers';

const FAKE = `#!/bin/sh
cat <<EOF
apiVersion: v1
kind: ConfigMap
metadata:
  name: gc
data:
  GOGC: "\${GOGC:-unset}"
  GOMEMLIMIT: "\${GOMEMLIMIT:-unset}"
EOF
`;

/** The data of the objects the fake renderer gave for two overlays (namePrefix: rendered, not read file by file). */
function rendered(): Record<string, unknown>[] {
  const dir = tempRepo('rw-render-env-', {
    'a/kustomization.yaml': 'namePrefix: a-\nresources:\n- cm.yaml\n',
    'a/cm.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: gc\n',
    'b/kustomization.yaml': 'namePrefix: b-\nresources:\n- cm.yaml\n',
    'b/cm.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: gc\n',
  });
  const bin = path.join(dir, 'fake-kustomize');
  fs.writeFileSync(bin, FAKE, { mode: 0o755 });
  const inputs = ['a/kustomization.yaml', 'a/cm.yaml', 'b/kustomization.yaml', 'b/cm.yaml'].map((f) => ({
    file: path.join(dir, f),
    text: fs.readFileSync(path.join(dir, f), 'utf8'),
  }));
  const kustomize = { command: bin, args: ['build'], label: 'kustomize build' };
  const layout = layoutScan(inputs, { kustomize, repoRoot: dir, renderCache: null });
  return layout.objects
    .filter((o) => layout.scopes.get(o)?.renderedBy !== undefined)
    .map((o) => o.obj.data as Record<string, unknown>);
}

function withEnv(set: Record<string, string | undefined>, f: () => void): void {
  const old = Object.fromEntries(Object.keys(set).map((k) => [k, process.env[k]]));
  const put = (v: Record<string, string | undefined>): void => {
    for (const [k, x] of Object.entries(v)) {
      if (x === undefined) delete process.env[k];
      else process.env[k] = x;
    }
  };
  put(set);
  try {
    f();
  } finally {
    put(old);
  }
}

describe('the environment of kustomize processes', () => {
  it('sets GOGC=400 and GOMEMLIMIT=1GiB where neither is set, and keeps the rest', () => {
    expect(renderEnv({ PATH: '/bin' })).toEqual({ PATH: '/bin', GOGC: '400', GOMEMLIMIT: '1GiB' });
  });

  it("keeps the user's GOGC or GOMEMLIMIT, and adds nothing to it", () => {
    expect(renderEnv({ GOGC: '100' })).toEqual({ GOGC: '100' });
    expect(renderEnv({ GOMEMLIMIT: '256MiB' })).toEqual({ GOMEMLIMIT: '256MiB' });
  });

  it('reaches the renders, in the pool of processes and one by one', () => {
    const ours = { GOGC: '400', GOMEMLIMIT: '1GiB' };
    for (const jobs of ['2', '1']) {
      withEnv({ GOGC: undefined, GOMEMLIMIT: undefined, ROLLWISE_KUSTOMIZE_JOBS: jobs }, () => {
        expect(rendered()).toEqual([ours, ours]);
      });
    }
    withEnv({ GOGC: '150', GOMEMLIMIT: undefined, ROLLWISE_KUSTOMIZE_JOBS: '2' }, () => {
      const theirs = { GOGC: '150', GOMEMLIMIT: 'unset' };
      expect(rendered()).toEqual([theirs, theirs]);
    });
  });
});

describe("kustomize's output cut into documents", () => {
  // kustomize writes `---` lines between objects only (kustomize v5.5.0 api/resmap/reswrangler.go
  // AsYaml); a `---` inside a value is indented, and `----` is not a separator.
  const OUTPUT = [
    '---',
    'apiVersion: v1',
    'kind: ConfigMap',
    'metadata:',
    '  name: one',
    'data:',
    '  text: |',
    '    ---',
    '    ----',
    '---',
    'apiVersion: v1',
    'kind: ConfigMap',
    'metadata:',
    '  name: two',
    '  name: twice',
    '---',
    'apiVersion: v1',
    'kind: ConfigMap',
    'metadata:',
    '  name: three',
    'data: [unclosed',
    '',
  ].join('\n');

  it('gives each object once and each problem at its line of the output', () => {
    const dir = tempRepo('rw-render-docs-', {
      'a/kustomization.yaml': 'namePrefix: a-\nresources:\n- cm.yaml\n',
      'a/cm.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: gc\n',
      'output.yaml': OUTPUT,
    });
    const bin = path.join(dir, 'fake-kustomize');
    fs.writeFileSync(bin, `#!/bin/sh\ncat '${path.join(dir, 'output.yaml')}'\n`, { mode: 0o755 });
    const inputs = ['a/kustomization.yaml', 'a/cm.yaml'].map((f) => ({
      file: path.join(dir, f),
      text: fs.readFileSync(path.join(dir, f), 'utf8'),
    }));
    const kustomize = { command: bin, args: ['build'], label: 'kustomize build' };
    const layout = layoutScan(inputs, { kustomize, repoRoot: dir, renderCache: null });
    const names = layout.objects.filter((o) => layout.scopes.get(o)?.renderedBy !== undefined).map((o) => o.name);
    expect(names).toEqual(['one', 'twice']);
    const one = layout.objects.find((o) => o.name === 'one')!;
    expect(one.obj.data).toEqual({ text: '---\n----\n' });
    const lines = OUTPUT.split('\n');
    const rendered = layout.problems.filter((p) => p.file.endsWith('(kustomize build)'));
    // The unclosed flow sequence is reported where its document ends: the (empty) line after it.
    const ends = lines.indexOf('data: [unclosed') + 2;
    expect(rendered.map((p) => p.line)).toEqual([lines.indexOf('  name: twice') + 1, ends]);
  });
});
