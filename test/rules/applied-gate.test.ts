/*
 * Issue 21, round 11b: one gate for every error of `rollwise lint` on scanned files (applied-gate.ts).
 * An error stands only where the file is shown to be applied as it is written; elsewhere it is a
 * warning that starts "if this file were applied as written: " and says which evidence was missing.
 * Each evidence is checked with the same file, once with it and once without (the near miss).
 */
import * as fs from 'fs';
import * as path from 'path';
import * as YAML from 'yaml';
import { Finding, lintObjects, lintText, runLint } from '../../src/rules';
import { appliedRepo, Obj, tempRepo } from './helpers';

function lint(paths: string[], stdin = ''): { code: number; findings: Finding[] } {
  let out = '';
  const code = runLint({
    paths,
    format: 'json',
    failOn: 'error',
    kustomize: false,
    write: (s) => {
      out += s;
    },
    writeError: () => undefined,
    readStdin: () => stdin,
  });
  return { code, findings: (JSON.parse(out) as { findings: Finding[] }).findings };
}

/** A Rollout without a strategy, which the Argo Rollouts controller refuses (RW707, an error rule). */
const rollout: Obj = {
  apiVersion: 'argoproj.io/v1alpha1',
  kind: 'Rollout',
  metadata: { name: 'web' },
  spec: {
    replicas: 2,
    selector: { matchLabels: { app: 'web' } },
    template: {
      metadata: { labels: { app: 'web' } },
      spec: { containers: [{ name: 'web', image: 'nginx:1.27' }] },
    },
  },
};
const rolloutYaml = YAML.stringify(rollout);
/** A Deployment document that does not parse (RW000, an error rule, on a document). */
const malformed = 'apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: x\n  labels: {a: b\n';
/** A Deployment whose rollwise.dev fact cannot be read (RW903, about rollwise's own input). */
const badFact: Obj = {
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'api', annotations: { 'rollwise.dev/readiness-p99-seconds': '250ms' } },
  spec: {
    replicas: 2,
    selector: { matchLabels: { app: 'api' } },
    template: {
      metadata: { labels: { app: 'api' } },
      spec: {
        containers: [
          {
            name: 'api',
            image: 'api:1',
            readinessProbe: { httpGet: { path: '/ready', port: 8080 }, timeoutSeconds: 1 },
          },
        ],
      },
    },
  },
};

const of = (fs_: Finding[], prefix: string): string[] =>
  fs_.filter((f) => f.ruleId.startsWith(prefix)).map((f) => `${prefix} ${f.severity}`);

describe('the error level only where a file is shown to be applied as written', () => {
  test('a file nothing applies: the error is a warning that says so and names the missing evidence', () => {
    const { code, findings } = lint([tempRepo('rw-gate-', { 'rollout.yaml': rolloutYaml })]);
    expect(of(findings, 'RW707')).toEqual(['RW707 warning']);
    const m = findings.find((f) => f.ruleId.startsWith('RW707'))!.message;
    expect(m).toMatch(/^if this file were applied as written: spec\.strategy has neither canary nor blueGreen/);
    expect(m).toMatch(
      /no kustomization lists it .* no README or other document, script, Makefile, Taskfile, justfile or GitHub Actions workflow .* no Flux Kustomization .* so this is not an error\)$/,
    );
    expect(code).toBe(0);
  });

  test('listed by a kustomization that changes nothing: an error', () => {
    const { code, findings } = lint([appliedRepo('rw-gate-', { 'rollout.yaml': rolloutYaml })]);
    expect(of(findings, 'RW707')).toEqual(['RW707 error']);
    expect(findings.find((f) => f.ruleId.startsWith('RW707'))!.message).not.toContain('if this file were');
    expect(code).toBe(1);
  });

  test('a README beside it runs kubectl apply -f on it: an error; on another file: a warning', () => {
    const shown = lint([
      tempRepo('rw-gate-', { 'rollout.yaml': rolloutYaml, 'README.md': '    kubectl apply -f rollout.yaml\n' }),
    ]);
    expect(of(shown.findings, 'RW707')).toEqual(['RW707 error']);
    const other = lint([
      tempRepo('rw-gate-', { 'rollout.yaml': rolloutYaml, 'README.md': '    kubectl apply -f rollout-v2.yaml\n' }),
    ]);
    expect(of(other.findings, 'RW707')).toEqual(['RW707 warning']);
  });

  test('a README.txt or README beside it runs kubectl apply -f on it: an error (only readmeApplies reads those)', () => {
    // The repository-wide document walk (repoDocApplies) reads .md, .markdown, .rst and .adoc files
    // only, so these are the README beside the file alone (applied-evidence.ts README).
    for (const name of ['README.txt', 'README']) {
      const shown = lint([
        tempRepo('rw-gate-', { 'rollout.yaml': rolloutYaml, [name]: 'kubectl apply -f rollout.yaml\n' }),
      ]);
      expect(of(shown.findings, 'RW707')).toEqual(['RW707 error']);
      const other = lint([
        tempRepo('rw-gate-', { 'rollout.yaml': rolloutYaml, [name]: 'kubectl apply -f other.yaml\n' }),
      ]);
      expect(of(other.findings, 'RW707')).toEqual(['RW707 warning']);
    }
  });

  test('a document anywhere in the repository applies it (path, folder, raw URL): an error; near misses: a warning', () => {
    const sev = (files: Record<string, string>): string[] =>
      of(lint([tempRepo('rw-gate-', { 'yaml/rollout.yaml': rolloutYaml, ...files })]).findings, 'RW707');
    // denniszielke/container_demos Ingress_Traefik.md: a raw URL whose tail is the file's path here.
    const raw = 'https://raw.githubusercontent.com/o/r/master/yaml/rollout.yaml';
    expect(sev({ 'docs/Demos.md': `kubectl apply -f ${raw}\n` })).toEqual(['RW707 error']);
    expect(sev({ 'docs/Demos.md': `kubectl apply -f ${raw.replace('rollout', 'other')}\n` })).toEqual([
      'RW707 warning',
    ]);
    // Relative to the repository root, or to the document's folder.
    expect(sev({ 'docs/Demos.md': 'kubectl apply -f yaml/rollout.yaml\n' })).toEqual(['RW707 error']);
    expect(sev({ 'docs/Demos.md': 'kubectl create -f ../yaml/rollout.yaml\n' })).toEqual(['RW707 error']);
    // denniszielke/container_demos SM_OSM.md: `kubectl apply -f tracing -n debugdemo`, a folder holding it.
    expect(sev({ 'SM_OSM.md': 'kubectl apply -f yaml -n demo\n' })).toEqual(['RW707 error']);
    // A folder above it: its subfolders only with --recursive (kubectl reads only the folder's own files).
    const above = (doc: string): string[] =>
      of(
        lint([tempRepo('rw-gate-', { 'deploy/yaml/rollout.yaml': rolloutYaml, 'deploy/Demo.md': doc })]).findings,
        'RW707',
      );
    expect(above('kubectl apply -f .\n')).toEqual(['RW707 warning']);
    expect(above('kubectl apply -f . --recursive\n')).toEqual(['RW707 error']);
    // The whole repository applied recursively says nothing of one file (sourcegraph's configure/executors README).
    expect(sev({ 'Demo.md': 'kubectl apply -f . --recursive\n' })).toEqual(['RW707 warning']);
    // Another verb, or a file of the same name elsewhere: not evidence.
    expect(sev({ 'Demo.md': 'kubectl delete -f yaml/rollout.yaml\n' })).toEqual(['RW707 warning']);
    expect(sev({ 'Demo.md': 'kubectl apply -f rollout.yaml\n' })).toEqual(['RW707 warning']);
  });

  test('standard input is what is applied: an error', () => {
    const { findings } = lint(['-'], rolloutYaml);
    expect(of(findings, 'RW707')).toEqual(['RW707 error']);
  });

  test('a document that does not parse (RW000): gated by its file', () => {
    const alone = lint([tempRepo('rw-gate-', { 'bad.yaml': malformed, 'rollout.yaml': rolloutYaml })]);
    expect(of(alone.findings, 'RW000')).toEqual(['RW000 warning']);
    expect(alone.findings.find((f) => f.ruleId.startsWith('RW000'))!.message).toMatch(
      /^if this file were applied as written: /,
    );
    const listed = lint([appliedRepo('rw-gate-', { 'bad.yaml': malformed, 'rollout.yaml': rolloutYaml })]);
    expect(of(listed.findings, 'RW000')).toEqual(['RW000 error']);
  });

  test('RW001 carries its evidence: an error only where a kustomization lists the file, which kustomize refuses', () => {
    const dup = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\ndata:\n  a: "1"\n  a: "2"\n';
    // A kustomization that transforms (namePrefix): nothing but the listing shows the file is read as written.
    const kustomization = 'namePrefix: p-\nresources:\n- cm.yaml\n- rollout.yaml\n';
    const listed = lint([
      tempRepo('rw-gate-', { 'cm.yaml': dup, 'rollout.yaml': rolloutYaml, 'kustomization.yaml': kustomization }),
    ]);
    expect(of(listed.findings, 'RW707')).toEqual(['RW707 warning']);
    expect(of(listed.findings, 'RW001')).toEqual(['RW001 error']);
    expect(listed.findings.find((f) => f.ruleId.startsWith('RW001'))!.message).not.toContain('if this file were');
    const alone = lint([tempRepo('rw-gate-', { 'cm.yaml': dup, 'rollout.yaml': rolloutYaml })]);
    expect(of(alone.findings, 'RW001')).toEqual(['RW001 warning']);
  });

  test("RW903 is about rollwise's own input: an error whether or not the file is applied", () => {
    const dir = tempRepo('rw-gate-', { 'api.yaml': YAML.stringify(badFact) });
    expect(fs.existsSync(path.join(dir, 'kustomization.yaml'))).toBe(false);
    const { findings } = lint([dir]);
    expect(of(findings, 'RW903')).toEqual(['RW903 error']);
  });

  test('objects given directly (lintObjects, lintText, as synth lints its own) are not gated', () => {
    expect(of(lintObjects([rollout]), 'RW707')).toEqual(['RW707 error']);
    expect(of(lintText(rolloutYaml, 'rollout.yaml').findings, 'RW707')).toEqual(['RW707 error']);
  });
});
