import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { transformSync } from '@swc/core';
import * as cdk8s from 'cdk8s';
import * as YAML from 'yaml';
import * as rollwise from '../src';
import { syncReadme } from '../src/docs/readme';

test('the README sections generated from code are in sync (run `npm run docs`)', () => {
  const text = fs.readFileSync(path.join(__dirname, '..', 'README.md'), 'utf8');
  expect(text).toContain('| uvicorn | `AppServer.uvicorn()` | 5 s | `--timeout-keep-alive` | `3s` | `10s` |');
  expect(syncReadme(text)).toBe(text);
});

test('the README opens with the two commands', () => {
  const lines = fs.readFileSync(path.join(__dirname, '..', 'README.md'), 'utf8').split('\n');
  expect(lines.slice(0, 6).join('\n')).toMatch(/```sh\nnpm ci && npm run synth .*\nnpm ci && npm test /);
});

/** Runs a README snippet with `rollwise` and `cdk8s` resolved, returning the kinds it wrote. */
function runSnippet(snippet: string | undefined): string[] {
  return runSnippetObjects(snippet).map((o) => o.kind);
}

/** Runs a README snippet, returning the objects it wrote. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- manifests of any kind
function runSnippetObjects(snippet: string | undefined): { kind: string; spec?: Record<string, any> }[] {
  expect(snippet).toContain("from 'rollwise'");
  const { code } = transformSync(snippet ?? '', {
    jsc: { parser: { syntax: 'typescript' }, target: 'es2022' },
    module: { type: 'commonjs' },
  });
  const out = fs.mkdtempSync(path.join(os.tmpdir(), 'rw-readme-'));
  const previous = process.env.CDK8S_OUTDIR;
  process.env.CDK8S_OUTDIR = out;
  try {
    const load = (id: string): unknown => (id === 'rollwise' ? rollwise : id === 'cdk8s' ? cdk8s : undefined);
    new Function('require', 'exports', code)(load, {});
    const files = fs.readdirSync(out).filter((f) => f.endsWith('.yaml'));
    // RollwiseApp's synth writes the reasons as comments beside the values (issue 14).
    expect(fs.readFileSync(path.join(out, files[0]), 'utf8')).toMatch(/# .*\n\s+timeoutSeconds: \d+\n/);
    return files.flatMap((f) =>
      YAML.parseAllDocuments(fs.readFileSync(path.join(out, f), 'utf8')).map(
        // eslint-disable-next-line @typescript-eslint/no-explicit-any -- manifests of any kind
        (d) => d.toJS() as { kind: string; spec?: Record<string, any> },
      ),
    );
  } finally {
    if (previous === undefined) delete process.env.CDK8S_OUTDIR;
    else process.env.CDK8S_OUTDIR = previous;
    fs.rmSync(out, { recursive: true, force: true });
  }
}

test('the simplest example in the README runs as written', () => {
  const text = fs.readFileSync(path.join(__dirname, '..', 'README.md'), 'utf8');
  expect(runSnippet(/```ts\n([\s\S]*?)```/.exec(text)?.[1])).toEqual(['Deployment', 'Service', 'PodDisruptionBudget']);
});

test('the README example with env, a Secret and a sidecar runs as written', () => {
  const text = fs.readFileSync(path.join(__dirname, '..', 'README.md'), 'utf8');
  const snippet = [...text.matchAll(/```ts\n([\s\S]*?)```/g)].map((m) => m[1]).find((s) => s.includes('sidecars:'));
  expect(snippet).toContain("EnvValue.fromSecret('orders-db', 'password')");
  expect(runSnippet(snippet)).toEqual([
    'Deployment',
    'Service',
    'HTTPRoute',
    'PodDisruptionBudget',
    'BackendTrafficPolicy',
  ]);
});

test('the README example with an init container and an emptyDir volume runs as written', () => {
  const text = fs.readFileSync(path.join(__dirname, '..', 'README.md'), 'utf8');
  const snippet = [...text.matchAll(/```ts\n([\s\S]*?)```/g)]
    .map((m) => m[1])
    .find((s) => s.includes('initContainers:'));
  expect(snippet).toContain("Volume.emptyDir('config', { sizeLimit: '16Mi' })");
  const objs = runSnippetObjects(snippet);
  const pod = objs.find((o) => o.kind === 'Deployment')?.spec?.template.spec;
  expect(pod.initContainers.map((c: { name: string }) => c.name)).toEqual(['render-config']);
  expect(pod.initContainers[0].volumeMounts).toEqual(
    expect.arrayContaining([{ name: 'config', mountPath: '/etc/confd/out' }]),
  );
  expect(pod.volumes).toEqual(expect.arrayContaining([{ name: 'config', emptyDir: { sizeLimit: '16Mi' } }]));
  expect(pod.containers[0].volumeMounts).toEqual(
    expect.arrayContaining([{ name: 'config', mountPath: '/etc/web-front' }]),
  );
});
