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
  apiVersion: 'admissionregistration.k8s.io/v1',
  kind: 'MutatingWebhookConfiguration',
  metadata: { name: 'mutating-webhook-configuration' },
  webhooks: [
    {
      name: 'mcluster.cnpg.io',
      admissionReviewVersions: ['v1'],
      sideEffects: 'None',
      failurePolicy: 'Fail',
      clientConfig: {
        service: { name: 'webhook-service', namespace: 'system', path: '/mutate-postgresql-cnpg-io-v1-cluster' },
      },
      rules: [
        {
          apiGroups: ['postgresql.cnpg.io'],
          apiVersions: ['v1'],
          operations: ['CREATE', 'UPDATE'],
          resources: ['clusters'],
        },
      ],
    },
  ],
});

/** cloudnative-pg config/olm-default/webhook_mutating_port_patch.yaml's shape. */
const portPatch = YAML.stringify({
  apiVersion: 'admissionregistration.k8s.io/v1',
  kind: 'MutatingWebhookConfiguration',
  metadata: { name: 'mutating-webhook-configuration' },
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
    runLint({
      paths: ['.'],
      format,
      failOn: 'none',
      kustomize: true,
      env: { PATH: process.env.PATH, ROLLWISE_KUSTOMIZE_CACHE: 'off' },
      write: (s) => {
        out += s;
      },
    });
  } finally {
    process.chdir(cwd);
  }
  return out;
}

const findings = (dir: string): Finding[] =>
  (JSON.parse(lintJson(dir)) as { findings: Finding[] }).findings.filter((f) => f.ruleId.startsWith('RW8'));

describe('a finding on a rendered object names the render', () => {
  withKustomize(
    `a field only a patch of the render adds (cloudnative-pg's containerPort): the message names the render and the patch file${why}`,
    () => {
      const dir = tempRepo('rw-render-origin-', {
        ...CNPG,
        'config/ports/kustomization.yaml':
          'resources:\n- ../default\npatches:\n- path: webhook_mutating_port_patch.yaml\n  target:\n    kind: MutatingWebhookConfiguration\n    name: mutating-webhook-configuration\n',
        'config/ports/webhook_mutating_port_patch.yaml': portPatch,
      });
      const f = findings(dir);
      expect(f.map((x) => `${x.ruleId.slice(0, 5)} ${x.severity} ${x.file} ${x.path} ${x.render}`)).toEqual([
        'RW801 error config/webhook/manifests.yaml webhooks[0].clientConfig.service.containerPort config/ports',
      ]);
      expect(f[0].message).toContain(
        'in the render of config/ports; config/webhook/manifests.yaml does not have this field: config/ports/webhook_mutating_port_patch.yaml adds it',
      );
      // SARIF carries the render in the result's properties.
      const sarif = JSON.parse(lintJson(dir, 'sarif')) as {
        runs: { results: { ruleId: string; properties: { render?: string } }[] }[];
      };
      expect(sarif.runs[0].results.filter((r) => r.ruleId.startsWith('RW801')).map((r) => r.properties.render)).toEqual(
        ['config/ports'],
      );
    },
  );

  withKustomize(
    `near miss: a field the object's own file has is named in the render without blaming a patch${why}`,
    () => {
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
    },
  );
});

/** cloudnative-pg config/olm-manifests/bases/cloudnative-pg.clusterserviceversion.yaml, cut to its identity. */
const csv = YAML.stringify({
  apiVersion: 'operators.coreos.com/v1alpha1',
  kind: 'ClusterServiceVersion',
  metadata: { name: 'cloudnative-pg.v0.0.0' },
  spec: { displayName: 'CloudNativePG', install: { strategy: 'deployment', spec: { deployments: null } } },
});

const OLM = {
  ...CNPG,
  // cloudnative-pg config/olm-default/kustomization.yaml and config/olm-manifests/kustomization.yaml.
  'config/olm-default/kustomization.yaml':
    'resources:\n- ../default\npatches:\n- path: webhook_mutating_port_patch.yaml\n  target:\n    group: admissionregistration.k8s.io\n    version: v1\n    kind: MutatingWebhookConfiguration\n    name: mutating-webhook-configuration\n',
  'config/olm-default/webhook_mutating_port_patch.yaml': portPatch,
  'config/olm-manifests/kustomization.yaml':
    'resources:\n- bases/cloudnative-pg.clusterserviceversion.yaml\n- ../olm-default\n',
  'config/olm-manifests/bases/cloudnative-pg.clusterserviceversion.yaml': csv,
};

describe('an OLM bundle input is not applied with kubectl', () => {
  withKustomize(
    `cloudnative-pg's config/olm-manifests (lists a ClusterServiceVersion): containerPort added by config/olm-default is info, naming the render${why}`,
    () => {
      const dir = tempRepo('rw-olm-bundle-', OLM);
      const f = findings(dir);
      expect(f.map((x) => `${x.ruleId.slice(0, 5)} ${x.severity} ${x.file} ${x.path} ${x.render}`)).toEqual([
        'RW801 info config/webhook/manifests.yaml webhooks[0].clientConfig.service.containerPort config/olm-manifests',
      ]);
      expect(f[0].message).toMatch(/^if this render were applied with kubectl: /);
      expect(f[0].message).toContain(
        'in the render of config/olm-manifests; config/webhook/manifests.yaml does not have this field: config/olm-default/webhook_mutating_port_patch.yaml adds it',
      );
      expect(f[0].message).toContain(
        'config/olm-manifests/kustomization.yaml lists the ClusterServiceVersion config/olm-manifests/bases/cloudnative-pg.clusterserviceversion.yaml',
      );
    },
  );

  withKustomize(
    `near miss: a wrong field in the file config/default renders is still an error there (what make deploy applies), and info in the bundle${why}`,
    () => {
      const doc = YAML.parse(webhooks) as { webhooks: Record<string, unknown>[] };
      doc.webhooks[0].timeoutSecond = 5; // a typo of timeoutSeconds
      const dir = tempRepo('rw-olm-bundle-', { ...OLM, 'config/webhook/manifests.yaml': YAML.stringify(doc) });
      const f = findings(dir);
      expect(f.map((x) => `${x.ruleId.slice(0, 5)} ${x.severity} ${x.path} ${x.render}`).sort()).toEqual([
        'RW801 error webhooks[0].timeoutSecond config/default',
        'RW801 info webhooks[0].clientConfig.service.containerPort config/olm-manifests',
        'RW801 info webhooks[0].timeoutSecond config/olm-manifests',
      ]);
    },
  );

  withKustomize(
    `near miss: without the ClusterServiceVersion, config/olm-manifests is an ordinary render and its patch's field an error${why}`,
    () => {
      const files: Record<string, string> = {
        ...OLM,
        'config/olm-manifests/kustomization.yaml': 'resources:\n- ../olm-default\n',
      };
      delete files['config/olm-manifests/bases/cloudnative-pg.clusterserviceversion.yaml'];
      const f = findings(tempRepo('rw-olm-bundle-', files));
      expect(f.map((x) => `${x.ruleId.slice(0, 5)} ${x.severity} ${x.path} ${x.render}`)).toEqual([
        'RW801 error webhooks[0].clientConfig.service.containerPort config/olm-manifests',
      ]);
    },
  );
});
