/*
 * A base and an overlay that patches it: linted as kustomize renders it where kustomize (or kubectl
 * kustomize) is installed, else file by file with a note (RW010). The tests that need kubectl skip,
 * saying so, where it is absent; the note's path runs everywhere, with an empty PATH.
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import * as YAML from 'yaml';
import { findKustomize, Finding, layoutScan, runLint } from '../../src/rules';
import { tempRepo } from './helpers';

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});

const repo = (files: Record<string, string>): string => tempRepo('rw-kustomize-', files);

const labels = { app: 'web' };
const BASE = {
  'base/kustomization.yaml': 'resources:\n- deployment.yaml\n- service.yaml\n',
  'base/deployment.yaml': YAML.stringify({
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'web' },
    spec: {
      replicas: 1,
      strategy: { rollingUpdate: { maxUnavailable: 0 } },
      selector: { matchLabels: labels },
      template: {
        metadata: { labels },
        spec: {
          containers: [
            {
              name: 'web',
              image: 'ghcr.io/acme/web:1.0',
              readinessProbe: { httpGet: { path: '/healthz', port: 8080 } },
            },
          ],
        },
      },
    },
  }),
  'base/service.yaml': YAML.stringify({
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name: 'web' },
    spec: { selector: labels, ports: [{ port: 80, targetPort: 8080 }] },
  }),
  // The overlay patches replicas (kustomize's own example shape: examples/multibases, a patch per environment).
  'overlays/prod/kustomization.yaml': 'namespace: prod\nresources:\n- ../../base\npatches:\n- path: replicas.yaml\n',
  'overlays/prod/replicas.yaml':
    'apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  replicas: 3\n',
};

function lint(dir: string, env: NodeJS.ProcessEnv, kustomize = true): Finding[] {
  let out = '';
  runLint({
    paths: [dir],
    format: 'json',
    failOn: 'none',
    kustomize,
    env,
    write: (s) => {
      out += s;
    },
  });
  return (JSON.parse(out) as { findings: Finding[] }).findings;
}

const empty = fs.mkdtempSync(path.join(os.tmpdir(), 'rw-empty-path-'));
dirs.push(empty);
const NO_KUSTOMIZE = { PATH: empty };

const installed = findKustomize({ PATH: process.env.PATH });
const withKustomize = installed ? test : test.skip;
const why = installed
  ? ''
  : ' (SKIPPED: neither kustomize nor kubectl is on PATH, so nothing can render the overlay; the file-by-file path is tested below)';

describe('a base and an overlay that patches replicas', () => {
  withKustomize(
    `with ${installed?.label ?? 'kustomize'} installed, the overlay's replicas are used, the finding names the base file and the rendering${why}`,
    () => {
      const dir = repo(BASE);
      const f = lint(dir, { PATH: process.env.PATH }).filter((x) => x.status === 'open');
      const pdb = f.filter((x) => x.ruleId.startsWith('RW601'));
      expect(pdb.map((x) => `${path.relative(dir, x.file)}:${x.line} ${x.severity} ${x.object}`)).toEqual([
        'base/deployment.yaml:6 warning Deployment/prod/web',
      ]);
      expect(pdb[0].message).toBe(
        `3 replicas and no PodDisruptionBudget in the linted manifests selects labels {"app":"web"}. (as rendered by ${installed!.label} ${path.join(dir, 'overlays/prod')})`,
      );
      // The patch file is part of the rendering, not an object of its own; no note.
      expect(f.filter((x) => x.file.endsWith('replicas.yaml') || x.ruleId.startsWith('RW010'))).toEqual([]);
    },
  );

  test('without kustomize (empty PATH), each file is linted alone, the patch is skipped, and a note says so', () => {
    const dir = repo(BASE);
    const f = lint(dir, NO_KUSTOMIZE).filter((x) => x.status === 'open');
    // The base's replicas: 1 is what the rules see: no RW601, and nothing on the partial patch object.
    expect(f.filter((x) => x.ruleId.startsWith('RW601') || x.file.endsWith('replicas.yaml'))).toEqual([]);
    const notes = f.filter((x) => x.ruleId.startsWith('RW010'));
    expect(notes.map((x) => `${path.relative(dir, x.file)} ${x.severity}`)).toEqual([
      'overlays/prod/kustomization.yaml info',
    ]);
    expect(notes[0].message).toBe(
      `kustomize is not installed (neither kustomize nor kubectl on PATH, ROLLWISE_KUSTOMIZE unset), so the files of ${path.join(dir, 'overlays/prod')} were linted one by one, with its namespace prod, without patches; patch files ${path.join(dir, 'overlays/prod/replicas.yaml')} were skipped.`,
    );
    // --no-kustomize and ROLLWISE_KUSTOMIZE=off take the same path.
    expect(lint(dir, { PATH: process.env.PATH }, false).filter((x) => x.ruleId.startsWith('RW010'))).toHaveLength(1);
    expect(
      lint(dir, { PATH: process.env.PATH, ROLLWISE_KUSTOMIZE: 'off' }).filter((x) => x.ruleId.startsWith('RW010')),
    ).toHaveLength(1);
  });

  test("without kustomize, the base files still get the overlay's namespace default, and say where it came from", () => {
    const dir = repo(BASE);
    const inputs = Object.keys(BASE).map((f) => ({ file: path.join(dir, f), text: BASE[f as keyof typeof BASE] }));
    const layout = layoutScan(inputs, { kustomize: null, repoRoot: dir });
    const deployment = layout.objects.find((o) => o.kind === 'Deployment')!;
    expect(layout.scopes.get(deployment)).toMatchObject({
      namespace: 'prod',
      namespaceFrom: `namespace: prod in ${path.join(dir, 'overlays/prod/kustomization.yaml')}`,
      builds: [`k:${path.join(dir, 'overlays/prod')}`],
    });
    // The patch is not an object of the scan.
    expect(layout.objects.filter((o) => o.file.endsWith('replicas.yaml'))).toEqual([]);
  });

  withKustomize(`a kustomization that does not build is linted file by file, with kustomize's reason${why}`, () => {
    const dir = repo({
      ...BASE,
      'overlays/prod/kustomization.yaml': 'namespace: prod\nresources:\n- ../../base\n- missing.yaml\n',
    });
    const notes = lint(dir, { PATH: process.env.PATH }).filter((x) => x.ruleId.startsWith('RW010'));
    expect(notes).toHaveLength(1);
    expect(notes[0].message).toMatch(
      new RegExp(
        `^${installed!.label} .*overlays/prod failed \\(.*missing\\.yaml.*\\); its files were linted one by one`,
      ),
    );
  });

  withKustomize(
    `a failure kubectl logs over several lines gives kustomize's reason, the same text every run (no log time or process id)${why}`,
    () => {
      // kubectl 1.32 logs an error holding line breaks as klog's `err=<`, its lines, `>`, behind a header
      // with the time and the process id: a duplicate key in a resource is such an error.
      const dup = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: web\n  name: web-2\n';
      const dir = repo({
        ...BASE,
        'overlays/prod/kustomization.yaml': 'resources:\n- ../../base\n- config.yaml\n',
        'overlays/prod/config.yaml': dup,
      });
      const message = (): string =>
        lint(dir, { PATH: process.env.PATH }).find((x) => x.ruleId.startsWith('RW010'))!.message;
      const first = message();
      expect(first).toMatch(/failed \(.*"name" already defined.*\); its files were linted one by one/);
      expect(first).not.toMatch(/\b[IWEF]\d{4} \d{2}:\d{2}:\d{2}|run\.go|err=</);
      expect(message()).toBe(first);
    },
  );
});

describe('kustomizations that only gather files are read without a kustomize process', () => {
  /** kubeflow/manifests example/ shape: a kustomization that lists other kustomizations' folders, and nothing else. */
  const aggregate = { ...BASE, 'overlays/prod/kustomization.yaml': 'resources:\n- ../../base\n' };

  withKustomize(
    `resources of kustomization folders only, no namespace: linted file by file (what kustomize renders is the files unchanged), no note${why}`,
    () => {
      const dir = repo(aggregate);
      const spawned: string[] = [];
      const fake = path.join(dir, 'fake-bin');
      fs.mkdirSync(fake);
      // a renderer that records its calls and fails: a plain aggregation must not call it
      fs.writeFileSync(
        path.join(fake, 'kustomize'),
        `#!/bin/sh\necho "$@" >> ${JSON.stringify(path.join(dir, 'calls'))}\nexit 1\n`,
        { mode: 0o755 },
      );
      const f = lint(dir, { PATH: fake }).filter((x) => x.status === 'open');
      if (fs.existsSync(path.join(dir, 'calls'))) spawned.push(fs.readFileSync(path.join(dir, 'calls'), 'utf8'));
      expect(spawned).toEqual([]);
      expect(f.filter((x) => x.ruleId.startsWith('RW010') || x.message.includes('as rendered by'))).toEqual([]);
      const inputs = Object.keys(aggregate).map((file) => ({
        file: path.join(dir, file),
        text: aggregate[file as keyof typeof aggregate],
      }));
      const layout = layoutScan(inputs, { kustomize: installed!, repoRoot: dir });
      expect(layout.objects.map((o) => `${o.kind}/${o.name} ${JSON.stringify(layout.scopes.get(o)!.builds)}`)).toEqual([
        `Deployment/web ["k:${path.join(dir, 'overlays/prod')}"]`,
        `Service/web ["k:${path.join(dir, 'overlays/prod')}"]`,
      ]);
    },
  );

  withKustomize(
    `near misses: a namespace, a missing resource, or the same folder reached twice still go through kustomize${why}`,
    () => {
      for (const files of [
        { ...aggregate, 'overlays/prod/kustomization.yaml': 'namespace: prod\nresources:\n- ../../base\n' },
        { ...aggregate, 'overlays/prod/kustomization.yaml': 'resources:\n- ../../base\n- missing.yaml\n' },
        {
          ...aggregate,
          'overlays/prod/kustomization.yaml': 'resources:\n- ../../base\n- ../other\n',
          'overlays/other/kustomization.yaml': 'resources:\n- ../../base\n',
        },
      ]) {
        const dir = repo(files);
        const inputs = Object.entries(files).map(([file, text]) => ({ file: path.join(dir, file), text }));
        const layout = layoutScan(inputs, { kustomize: installed!, repoRoot: dir });
        expect(
          layout.notes.length + layout.objects.filter((o) => layout.scopes.get(o)!.renderedBy).length,
        ).toBeGreaterThan(0);
      }
    },
  );
});
