import * as fs from 'fs';
import * as path from 'path';
import Ajv from 'ajv';
import * as YAML from 'yaml';
import { Glob, lintText, runLint, runLintCli } from '../../src/rules';
import { c0, cleanDeployment, pdb, service, tempRepo } from './helpers';

const ROOT = path.join(__dirname, '..', '..');
const SARIF_SCHEMA = path.join(
  ROOT,
  'node_modules',
  '@microsoft',
  'jest-sarif',
  'lib',
  'schemas',
  'sarif-2.1.0-rtm.5.json',
);

const repo = (files: Record<string, string>): string => tempRepo('rw-scan-', files);

function run(
  paths: string[],
  extra: Partial<Parameters<typeof runLint>[0]> = {},
): { code: number; out: string; err: string } {
  let out = '';
  let err = '';
  const code = runLint({
    paths,
    format: 'text',
    failOn: 'error',
    write: (s) => {
      out += s;
    },
    writeError: (s) => {
      err += s;
    },
    ...extra,
  });
  return { code, out, err };
}

const yaml = (...objs: object[]): string => objs.map((o) => YAML.stringify(o)).join('---\n');
const clean = (): string => yaml(cleanDeployment(), pdb(), service());
/** failureThreshold 1 (RW102, a warning) and one replica with maxUnavailable 1 (RW305, an error). */
const broken = (): string => {
  const d = cleanDeployment();
  c0(d).readinessProbe.failureThreshold = 1;
  d.spec.replicas = 1;
  return yaml(d, pdb(), service());
};

const NON_MANIFESTS = {
  'charts/app/values.yaml': 'replicaCount: 3\nimage:\n  repository: nginx\n',
  'charts/app/templates/deployment.yaml':
    'apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: {{ include "app.fullname" . }}\nspec:\n  replicas: {{ .Values.replicaCount }}\n{{- if .Values.probes }}\n  x: 1\n{{- end }}\n',
  'schema/values.schema.json': JSON.stringify({
    $schema: 'http://json-schema.org/draft-07/schema#',
    type: 'object',
    properties: { replicaCount: { type: 'integer' } },
  }),
  'api/swagger.yaml': 'swagger: "2.0"\ninfo:\n  title: shop\n  version: "1"\npaths: {}\n',
  '.github/workflows/ci.yml': 'on: push\njobs: {}\n',
  'config/settings.yml': 'key: [unclosed\n',
};

describe('scans of whole repositories', () => {
  test('non-manifest files are counted as skipped, never errors; the summary names files, objects, findings and kinds', () => {
    const job = {
      apiVersion: 'batch/v1',
      kind: 'Job',
      metadata: { name: 'migrate' },
      spec: { template: { spec: { containers: [{ name: 'm', image: 'x' }] } } },
    };
    const dir = repo({
      ...NON_MANIFESTS,
      'deploy/app.yaml': clean(),
      'deploy/jobs.yaml': yaml(
        job,
        { ...job, metadata: { name: 'seed' } },
        { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' }, data: {} },
      ),
    });
    const { code, out } = run([dir], { failOn: 'info' });
    expect(out).not.toContain('RW000');
    expect(out).toBe(
      '7 file(s) read (1 Helm/Go template(s) skipped, 4 without Kubernetes objects skipped); kinds no rule checks: Job 2, ConfigMap 1\n6 object(s): 0 error(s), 0 warning(s), 0 info, 0 suppressed, 0 accepted override(s)\n',
    );
    expect(code).toBe(0);
  });

  test('--exclude globs and .rollwiseignore leave files out', () => {
    const dir = repo({
      'deploy/app.yaml': clean(),
      'test/bad.yaml': broken(),
      'vendor/x/bad.yaml': broken(),
      '.rollwiseignore': '# vendored\nvendor/\n',
    });
    // broken()'s errors are warnings here (nothing shows the files are applied as written): fail on those.
    expect(run([dir], { failOn: 'warning' }).code).toBe(1);
    const r = run([dir], { exclude: ['test/**'] });
    expect(r.code).toBe(0);
    expect(r.out).toContain('1 file(s) read (2 excluded)');
    expect(new Glob('*.yaml').matches('a/b/c.yaml', false)).toBe(true);
    expect(new Glob('a/*.yaml').matches('a/b/c.yaml', false)).toBe(false);
    expect(new Glob('a/**/c.yaml').matches('a/b/c.yaml', false)).toBe(true);
    expect(new Glob('build/').matches('build', false)).toBe(false);
  });

  test('YAML kubectl refuses is RW000 (collection keys, no kind); a duplicate key is RW001 and the object is still linted with the last value, as kubectl reads it', () => {
    // kubectl v1.32 (sigs.k8s.io/yaml v1.4.0, non-strict) keeps the last value of a repeated key;
    // the object is read the same way, and rules run on it.
    const dup = lintText('apiVersion: v1\nkind: Service\nmetadata:\n  name: a\n  name: b\n', 'dup.yaml');
    expect(dup.findings.map((f) => `${f.ruleId} ${f.severity} ${f.line} ${f.message}`)).toEqual([
      'RW001-duplicate-key warning 5 the key "name" appears twice in one mapping (lines 4 and 5): "a", then "b"; kubectl applies the second and silently drops the first.',
    ]);
    expect(dup.objects).toBe(1);
    const same = lintText('apiVersion: v1\nkind: Service\nmetadata:\n  name: a\n  name: a\n', 'same.yaml');
    expect(same.findings.map((f) => `${f.ruleId} ${f.severity}`)).toEqual(['RW001-duplicate-key info']);
    const d = cleanDeployment();
    c0(d).readinessProbe.failureThreshold = 1;
    const text = YAML.stringify(d).replace('  replicas: 12\n', '  replicas: 12\n  replicas: 1\n');
    const linted = lintText(text, 'dup-deploy.yaml');
    expect(linted.findings.filter((f) => f.status === 'open').map((f) => f.ruleId.split('-')[0])).toEqual([
      'RW001',
      'RW305',
      'RW102',
    ]);
    const noKind = lintText('apiVersion: v1\nmetadata:\n  name: a\n', 'nokind.yaml');
    expect(noKind.findings.map((f) => `${f.ruleId} ${f.severity}`)).toEqual(['RW000-malformed-document error']);
    // An Azure ARM template resource (denniszielke/container_demos extensions/ctl-mng-restarter/v1/
    // template-link.json): an apiVersion no Kubernetes API has, and no kind: not a manifest at all.
    const arm =
      '{"name": "[concat(\'vm\', \'CtlMngRestarter\')]", "type": "Microsoft.Resources/deployments", "apiVersion": "[variables(\'apiVersionDeployments\')]", "properties": {"mode": "Incremental"}}';
    expect(lintText(arm, 'template-link.json').findings).toEqual([]);
    expect(
      lintText('{"type": "Microsoft.Web/sites", "apiVersion": "2020-06-01", "name": "web"}', 'site.json').findings,
    ).toEqual([]);
    // The near miss: a Kubernetes group/version without a kind is still refused.
    expect(
      lintText('apiVersion: apps/v1\nmetadata:\n  name: a\n', 'nokind-apps.yaml').findings.map((f) => f.ruleId),
    ).toEqual(['RW000-malformed-document']);
    const coll = lintText('apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\ndata:\n  {{x}}: 1\n', 'coll.yaml');
    expect(coll.findings.map((f) => `${f.ruleId} ${f.line}`)).toEqual(['RW000-malformed-document 6']);
    expect(coll.findings[0].message).toContain('is itself a mapping or a list');
    const half = lintText('kind: Deployment\nmetadata:\n  name: a\n', 'half.yaml');
    expect(half.findings.map((f) => `${f.severity} ${f.message}`)).toEqual([
      'warning the document has kind Deployment but no apiVersion; kubectl\'s client-side validation refuses it ("apiVersion not set")',
    ]);
  });

  test('a document that does not parse is an error, or info when its kind is one no rule checks', () => {
    const body =
      "metadata:\n  name: x\nspec:\n  versions:\n    - columns:\n        - description: 'a long text\n        continued under the key'\n";
    const crd = lintText(`apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\n${body}`, 'crd.yaml');
    expect(crd.findings.map((f) => `${f.ruleId} ${f.severity}`)).toEqual(['RW000-malformed-document info']);
    expect(crd.findings[0].message).toContain('kind CustomResourceDefinition, which no rule checks');
    const dep = lintText(`apiVersion: apps/v1\nkind: Deployment\n${body}`, 'dep.yaml');
    expect(dep.findings.map((f) => `${f.ruleId} ${f.severity}`)).toEqual(['RW000-malformed-document error']);
  });

  test('a file that cannot be read is reported and the rest is still linted (self-looping symlink, dangling link)', () => {
    const dir = repo({ 'deploy/app.yaml': broken() });
    fs.symlinkSync('loop.yaml', path.join(dir, 'deploy', 'loop.yaml'));
    fs.symlinkSync('missing.yaml', path.join(dir, 'deploy', 'dangling.yaml'));
    const { code, out } = run([dir], { failOn: 'warning' });
    expect(code).toBe(1);
    // Nothing shows these files are applied as written (applied-gate.ts): warnings that say so.
    expect(out).toMatch(
      /dangling\.yaml warning RW000-malformed-document .*if this file were applied as written: .*the file cannot be read \(ENOENT/,
    );
    expect(out).toMatch(
      /loop\.yaml warning RW000-malformed-document .*if this file were applied as written: .*the file cannot be read \(ELOOP/,
    );
    expect(out).toContain('RW102-readiness-failure-threshold-one');
    expect(out).toContain('(2 unreadable)');
  });

  test('items of nested kind: List are expanded', () => {
    const d = cleanDeployment();
    c0(d).readinessProbe.failureThreshold = 1;
    const text = JSON.stringify({
      apiVersion: 'v1',
      kind: 'List',
      items: [{ apiVersion: 'v1', kind: 'List', items: [d] }, pdb(), service()],
    });
    const r = lintText(text, 'nested.json');
    expect(r.findings.filter((f) => f.status === 'open').map((f) => f.ruleId)).toEqual([
      'RW102-readiness-failure-threshold-one',
    ]);
  });
});

describe('SARIF for code scanning', () => {
  const schema = JSON.parse(fs.readFileSync(SARIF_SCHEMA, 'utf8')) as Record<string, unknown>;
  delete schema.$schema;
  schema.$id = schema.id;
  delete schema.id;
  const validate = new Ajv({ strict: false, allErrors: true, validateFormats: false, unicodeRegExp: false }).compile(
    schema,
  );

  test('URIs are relative to the repository root of the linted path, with uriBaseId SRCROOT', () => {
    const dir = repo({ 'deploy/prod/app.yaml': broken() });
    const { out, code } = run([path.join(dir, 'deploy')], { format: 'sarif', failOn: 'warning' });
    expect(code).toBe(1);
    const log = JSON.parse(out);
    expect(validate(log)).toBe(true);
    const loc = log.runs[0].results[0].locations[0].physicalLocation.artifactLocation;
    expect(loc).toEqual({ uri: 'deploy/prod/app.yaml', uriBaseId: 'SRCROOT' });
    expect(log.runs[0].originalUriBaseIds.SRCROOT.uri).toBe(`file://${dir}/`);
  });

  test.each([
    ['a missing path', (dir: string) => [path.join(dir, 'nope.yaml')]],
    ['a folder without manifests', (dir: string) => [path.join(dir, 'empty')]],
    ['nothing parseable', (dir: string) => [path.join(dir, 'values.yaml')]],
  ])('exit 2 on %s still writes a valid SARIF log with the problem as a notification', (_name, paths) => {
    const dir = repo({ 'values.yaml': 'replicaCount: 1\n', 'empty/README.md': '# nothing\n' });
    const { out, err, code } = run(paths(dir), { format: 'sarif' });
    expect(code).toBe(2);
    expect(err).toMatch(/^rollwise lint: /);
    const log = JSON.parse(out);
    expect(validate(log)).toBe(true);
    expect(log.runs[0].results).toEqual([]);
    expect(log.runs[0].invocations[0].executionSuccessful).toBe(false);
    expect(log.runs[0].invocations[0].toolExecutionNotifications[0].level).toBe('error');
  });

  test('a malformed option with --format sarif also writes a valid log', () => {
    let out = '';
    expect(
      runLintCli(
        ['.'],
        { format: 'sarif', p99: ['checkout-api'] },
        (s) => {
          out += s;
        },
        () => undefined,
      ),
    ).toBe(2);
    const log = JSON.parse(out);
    expect(validate(log)).toBe(true);
    expect(log.runs[0].invocations[0].toolExecutionNotifications[0].message.text).toContain(
      '--p99 checkout-api: expected <name>=<value>',
    );
  });
});
