/*
 * The kustomize render cache (src/rules/render-cache.ts): its key changes with everything a render
 * can read and nothing else; a second lint of unchanged kustomizations starts no kustomize process
 * and gives the same objects and findings; kustomize's output is read one document at a time with
 * the same result as the whole text. The tests that need kubectl skip, saying so, where it is absent.
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import * as YAML from 'yaml';
import { findKustomize, layoutScan, lintLayout } from '../../src/rules';
import {
  ContentHasher,
  parserId,
  readParsedRender,
  renderCacheDir,
  renderKey,
  writeParsedRender,
} from '../../src/rules/render-cache';
import { tempRepo } from './helpers';

const labels = { app: 'web' };
const deployment = (port: string): string =>
  YAML.stringify({
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'web' },
    spec: {
      replicas: 2,
      selector: { matchLabels: labels },
      // `- :9001` is a plain scalar the fast reader leaves to the yaml package (argo-workflows' minio
      // quick-start Deployment, `--console-address :9001`), so the output holds such a document.
      template: {
        metadata: { labels },
        spec: {
          containers: [{ name: 'web', image: 'ghcr.io/acme/web:1.0', command: ['web', '--console-address', port] }],
        },
      },
    },
  });
const FILES = {
  'base/kustomization.yaml': 'resources:\n- deployment.yaml\n- crd.yaml\n',
  'base/deployment.yaml': deployment(':9001'),
  'base/crd.yaml':
    'apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: widgets.acme.io\nspec:\n  group: acme.io\n  names:\n    kind: Widget\n    plural: widgets\n  scope: Namespaced\n  versions:\n  - name: v1\n    served: true\n    storage: true\n    schema:\n      openAPIV3Schema:\n        type: object\n',
  // two overlays of one base: the same documents in both outputs
  'overlays/a/kustomization.yaml': 'resources:\n- ../../base\nreplicas:\n- name: web\n  count: 3\n',
  'overlays/b/kustomization.yaml': 'resources:\n- ../../base\nnamePrefix: b-\n',
};

const key = (dir: string, root: string, hasher = new ContentHasher()): string | undefined =>
  renderKey(path.join(dir, root), '/bin/sh', ['kustomize'], hasher, { PATH: '' });

describe('the key of a render', () => {
  test('is the same for unchanged inputs and changes with a file of the root, of a base it includes, or a path it names appearing', () => {
    const dir = tempRepo('rw-render-key-', FILES);
    const k0 = key(dir, 'overlays/a');
    expect(k0).toMatch(/^[0-9a-f]{64}$/);
    expect(key(dir, 'overlays/a')).toBe(k0);
    // another root, and a file no render of overlays/a reads, leave it alone
    expect(key(dir, 'overlays/b')).not.toBe(k0);
    fs.writeFileSync(path.join(dir, 'overlays/b/extra.yaml'), 'x: 1\n');
    expect(key(dir, 'overlays/a')).toBe(k0);
    // a file of the base (outside the root's folder, named by its resources)
    fs.writeFileSync(path.join(dir, 'base/deployment.yaml'), deployment(':9002'));
    const k1 = key(dir, 'overlays/a');
    expect(k1).not.toBe(k0);
    // a file below the root's folder, even one no entry names (kustomize may read any of them)
    fs.writeFileSync(path.join(dir, 'overlays/a/notes.txt'), 'hello\n');
    const k2 = key(dir, 'overlays/a');
    expect(k2).not.toBe(k1);
    // a path the kustomization names that did not exist, then does
    fs.writeFileSync(path.join(dir, 'overlays/a/kustomization.yaml'), 'resources:\n- ../../base\n- ../../extra\n');
    const k3 = key(dir, 'overlays/a');
    fs.mkdirSync(path.join(dir, 'extra'));
    fs.writeFileSync(path.join(dir, 'extra/kustomization.yaml'), 'resources: []\n');
    expect(key(dir, 'overlays/a')).not.toBe(k3);
  });

  test('is undefined (not cached) for a tree that names a remote location, not for a URL inside an inline patch', () => {
    const dir = tempRepo('rw-render-key-remote-', {
      ...FILES,
      'overlays/a/kustomization.yaml': 'resources:\n- ../../base\n- https://github.com/acme/web//deploy?ref=v1\n',
      'overlays/b/kustomization.yaml':
        'resources:\n- ../../base\npatches:\n- patch: |-\n    - op: add\n      path: /metadata/annotations/link\n      value: https://example.com/web\n  target:\n    kind: Deployment\n',
    });
    expect(key(dir, 'overlays/a')).toBeUndefined();
    expect(key(dir, 'overlays/b')).toMatch(/^[0-9a-f]{64}$/);
  });

  test('a one-line value `/` or `..` (a path in a replacement or JSON 6902 patch) is not hashed as the folder it names', () => {
    // Found linting a public training repository: a replacement's `/` resolved to the filesystem's
    // root, and the key hashed every file of the machine until the process ran out of memory.
    const dir = tempRepo('rw-render-root-', {
      ...FILES,
      'overlays/c/kustomization.yaml': [
        'resources:',
        '- ../../base',
        'patches:',
        '- target: {kind: Deployment, name: web}',
        '  patch: |-',
        '    - op: add',
        '      path: /metadata/annotations',
        '      value: {}',
        'replacements:',
        '- source: {kind: Deployment, name: web, fieldPath: metadata.name}',
        '  targets:',
        '  - select: {kind: Deployment}',
        '    fieldPaths: [metadata.labels.app]',
        '    options: {delimiter: "/"}',
        'commonAnnotations: {up: ".."}',
        '',
      ].join('\n'),
    });
    // A budget the repository fits in many times over, and the filesystem never does.
    const small = new ContentHasher({ bytes: 1024 * 1024, entries: 500 });
    const k0 = key(dir, 'overlays/c', small);
    expect(k0).toMatch(/^[0-9a-f]{64}$/);
    fs.writeFileSync(path.join(dir, 'base', 'deployment.yaml'), deployment(':9002'));
    expect(key(dir, 'overlays/c', new ContentHasher({ bytes: 1024 * 1024, entries: 500 }))).not.toBe(k0);
  });

  test('is undefined (rendered every time) for a folder named above the root that holds a kustomization, outside the repository, or over the budget', () => {
    const dir = tempRepo('rw-render-bounds-', {
      ...FILES,
      'kustomization.yaml': 'resources:\n- overlays/a\n',
      'overlays/up/kustomization.yaml': 'resources:\n- ../..\n',
    });
    expect(key(dir, 'overlays/up')).toBeUndefined();
    const outside = tempRepo('rw-render-outside-', { 'shared/deployment.yaml': deployment(':9001') });
    fs.writeFileSync(
      path.join(dir, 'overlays', 'b', 'kustomization.yaml'),
      `resources:\n- ../../base\n- ${path.join(outside, 'shared', 'deployment.yaml')}\n`,
    );
    const within = (hasher = new ContentHasher()): string | undefined =>
      renderKey(path.join(dir, 'overlays/b'), '/bin/sh', ['kustomize'], hasher, { PATH: '' }, dir);
    expect(within()).toBeUndefined();
    // Without a repository to bound it, the same tree is keyed (the file outside is hashed).
    expect(key(dir, 'overlays/b')).toMatch(/^[0-9a-f]{64}$/);
    expect(key(dir, 'overlays/a', new ContentHasher({ bytes: 100, entries: 1000 }))).toBeUndefined();
    expect(key(dir, 'overlays/a', new ContentHasher({ bytes: 1024 * 1024, entries: 3 }))).toBeUndefined();
  });

  test('the cache folder: ROLLWISE_KUSTOMIZE_CACHE, else XDG_CACHE_HOME, else HOME/.cache; none when off or without a home', () => {
    expect(renderCacheDir({ ROLLWISE_KUSTOMIZE_CACHE: '/c', HOME: '/h' })).toBe(path.resolve('/c'));
    expect(renderCacheDir({ ROLLWISE_KUSTOMIZE_CACHE: 'off', HOME: '/h' })).toBeUndefined();
    expect(renderCacheDir({ XDG_CACHE_HOME: '/x', HOME: '/h' })).toBe(path.join('/x', 'rollwise', 'kustomize'));
    expect(renderCacheDir({ XDG_CACHE_HOME: 'relative', HOME: '/h' })).toBe(
      path.join('/h', '.cache', 'rollwise', 'kustomize'),
    );
    expect(renderCacheDir({ PATH: '/bin' })).toBeUndefined();
  });
});

const installed = findKustomize({ PATH: process.env.PATH });
const withKustomize = installed ? test : test.skip;
const why = installed ? '' : ' (SKIPPED: neither kustomize nor kubectl is on PATH)';

describe('a lint with the cache', () => {
  withKustomize(
    `renders each root once; the second run starts no process and gives the same objects, lines and scopes as a run without the cache${why}`,
    () => {
      const dir = tempRepo('rw-render-cache-', FILES);
      const cache = fs.mkdtempSync(path.join(os.tmpdir(), 'rw-render-cache-dir-'));
      const calls = path.join(dir, 'calls');
      const bin = path.join(dir, 'bin', 'kubectl');
      fs.mkdirSync(path.dirname(bin));
      // kubectl that records each call, then renders with the real renderer
      fs.writeFileSync(
        bin,
        `#!/bin/sh\necho "$@" >> ${JSON.stringify(calls)}\nexec ${JSON.stringify(installed!.command)} ${installed!.args.join(' ')} "$2"\n`,
        { mode: 0o755 },
      );
      const renderer = { command: bin, args: ['kustomize'], label: 'kubectl kustomize' };
      const inputs = Object.entries(FILES).map(([file, text]) => ({ file: path.join(dir, file), text }));
      const seen = (l: ReturnType<typeof layoutScan>): string[] =>
        l.objects.map(
          (o) =>
            `${o.file} ${o.ref} ${o.line('spec.replicas')} ${o.line('spec.template.spec.containers[0].command[2]')} ${JSON.stringify(o.obj)} ${JSON.stringify(l.scopes.get(o))}`,
        );
      const callCount = (): number =>
        fs.existsSync(calls) ? fs.readFileSync(calls, 'utf8').trim().split('\n').length : 0;

      const plain = layoutScan(inputs, { kustomize: renderer, repoRoot: dir, renderCache: null });
      expect(callCount()).toBe(2);
      const first = layoutScan(inputs, { kustomize: renderer, repoRoot: dir, renderCache: cache });
      expect(callCount()).toBe(4);
      // each render's output, and beside it the objects read from it (what the next run loads as JSON)
      expect(fs.readdirSync(cache).filter((f) => /^[0-9a-f]{64}\.json$/.test(f))).toHaveLength(2);
      expect(fs.readdirSync(cache).filter((f) => /^[0-9a-f]{64}\.parsed-[0-9a-f]{24}\.json$/.test(f))).toHaveLength(2);
      const second = layoutScan(inputs, { kustomize: renderer, repoRoot: dir, renderCache: cache });
      expect(callCount()).toBe(4); // nothing spawned
      expect(seen(first)).toEqual(seen(plain));
      expect(seen(second)).toEqual(seen(plain));
      // both overlays' objects, each its own copy (the rendered documents were read once)
      expect(plain.objects.map((o) => o.ref).sort()).toEqual([
        'CustomResourceDefinition/widgets.acme.io',
        'CustomResourceDefinition/widgets.acme.io',
        'Deployment/b-web',
        'Deployment/web',
      ]);
      const crds = second.objects.filter((o) => o.kind === 'CustomResourceDefinition');
      expect(crds[0].obj).not.toBe(crds[1].obj);
      expect(crds[0].obj).toEqual(crds[1].obj);
      expect(second.objects.find((o) => o.ref === 'Deployment/web')!.obj).toMatchObject({ spec: { replicas: 3 } });

      // a changed base renders again
      fs.writeFileSync(path.join(dir, 'base/deployment.yaml'), deployment(':9002'));
      const changed = inputs.map((i) => (i.file.endsWith('deployment.yaml') ? { ...i, text: deployment(':9002') } : i));
      const third = layoutScan(changed, { kustomize: renderer, repoRoot: dir, renderCache: cache });
      expect(callCount()).toBe(6);
      expect(JSON.stringify(third.objects.find((o) => o.ref === 'Deployment/web')!.obj)).toContain(':9002');
      fs.rmSync(cache, { recursive: true, force: true });
    },
  );
});

describe('the parsed form of a render in the cache', () => {
  test('comes back as written (objects, problems without the file) and only for its own key and parser', () => {
    const cache = fs.mkdtempSync(path.join(os.tmpdir(), 'rw-parsed-render-'));
    const key = 'a'.repeat(64);
    const objects = [
      { obj: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' } }, kind: 'ConfigMap', name: 'c' },
    ];
    const problems = [{ file: 'k/kustomization.yaml (kubectl kustomize)', line: 7, message: 'bad', kind: 'Service' }];
    writeParsedRender(cache, key, '/tmp/base', { objects, problems });
    expect(readParsedRender(cache, key)).toEqual({
      base: '/tmp/base',
      parsed: { objects, problems: [{ line: 7, message: 'bad', kind: 'Service' }] },
    });
    expect(readParsedRender(cache, 'b'.repeat(64))).toBeUndefined();
    // a file written by other code (another parser id) is not read
    const [file] = fs.readdirSync(cache);
    const stored = JSON.parse(fs.readFileSync(path.join(cache, file), 'utf8')) as Record<string, unknown>;
    expect(stored.parser).toBe(parserId());
    fs.writeFileSync(path.join(cache, file), JSON.stringify({ ...stored, parser: 'f'.repeat(64) }));
    expect(readParsedRender(cache, key)).toBeUndefined();
    fs.rmSync(cache, { recursive: true, force: true });
  });

  test('is not written for a value JSON would change (Infinity, -0, undefined, a Date)', () => {
    const cache = fs.mkdtempSync(path.join(os.tmpdir(), 'rw-parsed-unsafe-'));
    const values: unknown[] = [Infinity, NaN, -0, undefined, new Date(0), [1, , 2]]; // eslint-disable-line no-sparse-arrays
    values.forEach((v, i) => {
      const key = String(i).repeat(64);
      const obj = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' }, data: { v } };
      writeParsedRender(cache, key, '/b', { objects: [{ obj, kind: 'ConfigMap', name: 'c' }], problems: [] });
      expect(readParsedRender(cache, key)).toBeUndefined();
    });
    expect(fs.readdirSync(cache)).toEqual([]);
    fs.rmSync(cache, { recursive: true, force: true });
  });
});

describe('a lint from the parsed form (differential)', () => {
  withKustomize(
    `gives the same objects, scopes, problems and findings as a lint without the cache, and needs no output text${why}`,
    () => {
      // Findings on rendered objects (an invalid label value, lines from the origin file) under two
      // overlays of one base, and a YAML 1.1 timestamp (a Date to the yaml package) in a render:
      // kubectl v1.32.4's kustomize (v5.5.0) printed it as the string "2001-12-14T00:00:00Z" when
      // this test was written, so that render's parsed form is stored too (5 below). A value JSON
      // cannot hold is never stored: the test above.
      const app = (name: string, label: string): string =>
        `apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: ${name}\n  labels:\n    tier: ${label}\n` +
        `spec:\n  replicas: 1\n  selector:\n    matchLabels:\n      app: ${name}\n  template:\n    metadata:\n` +
        `      labels:\n        app: ${name}\n    spec:\n      containers:\n      - name: ${name}\n` +
        `        image: ghcr.io/acme/${name}:1.0\n`;
      const files: Record<string, string> = {
        ...FILES,
        'safe/base/kustomization.yaml': 'resources:\n- app.yaml\n',
        'safe/base/app.yaml': app('api', '"bad value!"'),
        'safe/a/kustomization.yaml': 'resources:\n- ../base\nnamePrefix: a-\n',
        'safe/b/kustomization.yaml': 'resources:\n- ../base\nreplicas:\n- name: api\n  count: 3\n',
        'dated/kustomization.yaml': 'resources:\n- app.yaml\nnamePrefix: d-\n',
        'dated/app.yaml': app('web', '2001-12-14'),
      };
      const dir = tempRepo('rw-parsed-diff-', files);
      const cache = fs.mkdtempSync(path.join(os.tmpdir(), 'rw-parsed-diff-cache-'));
      const inputs = Object.entries(files).map(([file, text]) => ({ file: path.join(dir, file), text }));
      const run = (renderCache: string | null): string[] => {
        const l = layoutScan(inputs, { kustomize: installed, repoRoot: dir, renderCache });
        const r = lintLayout(l, l.problems);
        return [
          ...l.objects.map(
            (o) =>
              `${o.file} ${o.ref} ${o.line('spec.replicas')} ${o.line('spec.selector')} ${JSON.stringify(o.obj)} ${JSON.stringify(l.scopes.get(o))}`,
          ),
          ...l.problems.map((p) => JSON.stringify(p)),
          ...l.notes.map((n) => `${n.file}:${n.line} ${n.ruleId} ${n.severity} ${n.message}`),
          ...r.findings.map((f) => `${f.file}:${f.line} ${f.ruleId} ${f.severity} ${f.status} ${f.message}`),
        ];
      };
      const without = run(null);
      const findings = without.filter((l) => / RW803-api-server-validation error open /.test(l));
      expect(findings.map((l) => l.replace(/ open .*/, '').replace(`${dir}/`, ''))).toEqual([
        'dated/app.yaml:6 RW803-api-server-validation error',
        'safe/base/app.yaml:6 RW803-api-server-validation error',
        'safe/base/app.yaml:6 RW803-api-server-validation error',
      ]);
      const cold = run(cache);
      const entries = fs.readdirSync(cache);
      const outputs = entries.filter((f) => /^[0-9a-f]{64}\.json$/.test(f));
      const parsed = entries.filter((f) => f.includes('.parsed-'));
      expect(outputs).toHaveLength(5); // overlays/a, overlays/b, safe/a, safe/b, dated
      expect(parsed).toHaveLength(5);
      // The outputs replaced by text that is no manifest: a run that read them would lose their
      // objects, so an equal run shows the parsed form was used instead.
      for (const f of outputs) {
        const v = JSON.parse(fs.readFileSync(path.join(cache, f), 'utf8')) as { stdout: string };
        fs.writeFileSync(path.join(cache, f), JSON.stringify({ ...v, stdout: 'x: 1\n' }));
      }
      const warm = run(cache);
      expect(cold).toEqual(without);
      expect(warm).toEqual(without);
      // Without the parsed forms the replaced outputs are read, and the objects are gone.
      for (const f of parsed) fs.rmSync(path.join(cache, f));
      expect(run(cache)).not.toEqual(without);
      fs.rmSync(cache, { recursive: true, force: true });
    },
  );
});
