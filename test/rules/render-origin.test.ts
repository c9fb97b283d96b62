/*
 * Issue 21, round 6: a finding on an object read from a kustomize render names that render (the
 * kustomization folder, in the message and in the JSON/SARIF `render` field), and says so when the
 * object's own file does not have the field: a patch of the render adds it. Held-out set 5's
 * cloudnative-pg/cloudnative-pg showed seven RW801 errors on config/webhook/manifests.yaml, a file
 * without the field, because config/olm-default/webhook_mutating_port_patch.yaml adds
 * `containerPort` to webhooks[].clientConfig.service.
 */
import * as YAML from 'yaml';
import { findKustomize, Finding, runLint } from '../../src/rules';
import { tempRepo } from './helpers';

const installed = findKustomize({ PATH: process.env.PATH });
const withKustomize = installed ? test : test.skip;
const why = installed ? '' : ' (SKIPPED: neither kustomize nor kubectl is on PATH, nothing renders)';

/** cloudnative-pg config/webhook/manifests.yaml's shape: a webhook with a service reference and no port. */
const webhooks = YAML.stringify({
  apiVersion: 'admissionregistration.k8s.io/v1', kind: 'MutatingWebhookConfiguration', metadata: { name: 'mutating-webhook-configuration' },
  webhooks: [{
    name: 'mcluster.cnpg.io', admissionReviewVersions: ['v1'], sideEffects: 'None', failurePolicy: 'Fail',
    clientConfig: { service: { name: 'webhook-service', namespace: 'system', path: '/mutate-postgresql-cnpg-io-v1-cluster' } },
    rules: [{ apiGroups: ['postgresql.cnpg.io'], apiVersions: ['v1'], operations: ['CREATE', 'UPDATE'], resources: ['clusters'] }],
  }],
});

/** cloudnative-pg config/olm-default/webhook_mutating_port_patch.yaml's shape. */
const portPatch = YAML.stringify({
  apiVersion: 'admissionregistration.k8s.io/v1', kind: 'MutatingWebhookConfiguration', metadata: { name: 'mutating-webhook-configuration' },
  webhooks: [{ name: 'mcluster.cnpg.io', clientConfig: { service: { containerPort: 9443 } } }],
});

export const CNPG = {
  'config/webhook/kustomization.yaml': 'resources:\n- manifests.yaml\n',
  'config/webhook/manifests.yaml': webhooks,
  'config/default/kustomization.yaml': 'namespace: cnpg-system\nnamePrefix: cnpg-\nresources:\n- ../webhook\n',
};

export function lintJson(dir: string, format: 'json' | 'sarif' = 'json'): string {
  let out = '';
  const cwd = process.cwd();
  process.chdir(dir);
  try {
    runLint({ paths: ['.'], format, failOn: 'none', kustomize: true, env: { PATH: process.env.PATH, ROLLWISE_KUSTOMIZE_CACHE: 'off' }, write: (s) => { out += s; } });
  } finally {
    process.chdir(cwd);
  }
  return out;
}

const findings = (dir: string): Finding[] => (JSON.parse(lintJson(dir)) as { findings: Finding[] }).findings.filter((f) => f.ruleId.startsWith('RW8'));

describe('a finding on a rendered object names the render', () => {
  withKustomize(`a field only a patch of the render adds (cloudnative-pg's containerPort): the message names the render and the patch file${why}`, () => {
    const dir = tempRepo('rw-render-origin-', {
      ...CNPG,
      'config/ports/kustomization.yaml': 'resources:\n- ../default\npatches:\n- path: webhook_mutating_port_patch.yaml\n  target:\n    kind: MutatingWebhookConfiguration\n    name: mutating-webhook-configuration\n',
      'config/ports/webhook_mutating_port_patch.yaml': portPatch,
    });
    const f = findings(dir);
    expect(f.map((x) => `${x.ruleId.slice(0, 5)} ${x.severity} ${x.file} ${x.path} ${x.render}`)).toEqual([
      'RW801 error config/webhook/manifests.yaml webhooks[0].clientConfig.service.containerPort config/ports',
    ]);
    expect(f[0].message).toContain('in the render of config/ports; config/webhook/manifests.yaml does not have this field: config/ports/webhook_mutating_port_patch.yaml adds it');
    // SARIF carries the render in the result's properties.
    const sarif = JSON.parse(lintJson(dir, 'sarif')) as { runs: { results: { ruleId: string; properties: { render?: string } }[] }[] };
    expect(sarif.runs[0].results.filter((r) => r.ruleId.startsWith('RW801')).map((r) => r.properties.render)).toEqual(['config/ports']);
  });

  withKustomize(`near miss: a field the object's own file has is named in the render without blaming a patch${why}`, () => {
    const doc = YAML.parse(webhooks) as { webhooks: { clientConfig: { service: Record<string, unknown> } }[] };
    doc.webhooks[0].clientConfig.service.containerPort = 9443;
    const own = YAML.stringify(doc);
    const dir = tempRepo('rw-render-origin-', { ...CNPG, 'config/webhook/manifests.yaml': own });
    const f = findings(dir);
    expect(f.map((x) => `${x.ruleId.slice(0, 5)} ${x.severity} ${x.file}:${x.line} ${x.render}`)).toEqual([
      `RW801 error config/webhook/manifests.yaml:${own.split('\n').findIndex((l) => l.includes('containerPort')) + 1} config/default`,
    ]);
    expect(f[0].message).toContain('in the render of config/default)');
    expect(f[0].message).not.toContain('does not have this field');
  });
});
