/*
 * Issue 21, round 6: when a kustomize render fails and its files are linted one by one, the
 * objects of the tree share the namespace of the outermost kustomization that declares one, as
 * kustomize's namespace transformer gives it to them (it replaces an object's own namespace), so a
 * PodDisruptionBudget of the tree meets its workload. Held-out set 4's open-policy-agent/gatekeeper:
 * config/overlays/dev names manager_image_patch.yaml, which the Makefile writes before `make
 * deploy`, so the render fails; config/manager/manager.yaml's Deployment is in kubebuilder's
 * `namespace: system` placeholder and config/pdb/pdb.yaml's PDB has no namespace, and RW601 said
 * the Deployment had no PDB (judged wrong).
 */
import * as YAML from 'yaml';
import { findKustomize, Finding, runLint } from '../../src/rules';
import { tempRepo } from './helpers';

const labels = { 'control-plane': 'controller-manager', 'gatekeeper.sh/operation': 'webhook' };
const deployment = YAML.stringify({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'controller-manager', namespace: 'system', labels },
  spec: {
    replicas: 3,
    selector: { matchLabels: labels },
    template: {
      metadata: { labels },
      spec: {
        containers: [
          {
            name: 'manager',
            image: 'openpolicyagent/gatekeeper:v3.18.0',
            ports: [{ containerPort: 8443, name: 'webhook-server' }],
            readinessProbe: { httpGet: { path: '/readyz', port: 9090 } },
          },
        ],
      },
    },
  },
});
const pdb = YAML.stringify({
  apiVersion: 'policy/v1',
  kind: 'PodDisruptionBudget',
  metadata: { name: 'controller-manager' },
  spec: { minAvailable: 1, selector: { matchLabels: labels } },
});

const GATEKEEPER = {
  'config/overlays/dev/kustomization.yaml':
    'namespace: gatekeeper-system\nresources:\n  - ../../default\npatchesStrategicMerge:\n- manager_image_patch.yaml\n',
  'config/default/kustomization.yaml':
    'namespace: gatekeeper-system\nnamePrefix: gatekeeper-\nresources:\n- ../manager\n- ../pdb\n',
  'config/manager/kustomization.yaml': 'resources:\n- manager.yaml\n',
  'config/manager/manager.yaml': deployment,
  'config/pdb/kustomization.yaml': 'resources:\n- pdb.yaml\n',
  'config/pdb/pdb.yaml': pdb,
};

function lint(dir: string): Finding[] {
  let out = '';
  const cwd = process.cwd();
  process.chdir(dir);
  try {
    runLint({
      paths: ['.'],
      format: 'json',
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
  return (JSON.parse(out) as { findings: Finding[] }).findings;
}

const installed = findKustomize({ PATH: process.env.PATH });
const withKustomize = installed ? test : test.skip;
const why = installed ? '' : ' (SKIPPED: neither kustomize nor kubectl is on PATH, so no render can fail)';

describe('a failed render: the tree shares its outermost namespace', () => {
  withKustomize(
    `gatekeeper's config/: the render fails on the missing patch, and the PDB of config/pdb covers the Deployment in namespace system${why}`,
    () => {
      const f = lint(tempRepo('rw-failed-render-', GATEKEEPER));
      expect(f.filter((x) => x.ruleId.startsWith('RW010')).map((x) => x.message)).toEqual([
        expect.stringMatching(
          /^kubectl kustomize config\/overlays\/dev failed \(.*manager_image_patch\.yaml.*no such file or directory/,
        ),
      ]);
      expect(f.filter((x) => x.ruleId.startsWith('RW601'))).toEqual([]);
    },
  );

  withKustomize(
    `near miss: without the PDB in the tree RW601 fires, and one in an unrelated folder is only mentioned (info)${why}`,
    () => {
      const noPdb = 'namespace: gatekeeper-system\nnamePrefix: gatekeeper-\nresources:\n- ../manager\n';
      const rw601 = (files: Record<string, string>): string[] =>
        lint(tempRepo('rw-failed-render-', files))
          .filter((x) => x.ruleId.startsWith('RW601'))
          .map((x) => `${x.severity} ${x.file} ${x.object}`);
      const files: Record<string, string> = { ...GATEKEEPER, 'config/default/kustomization.yaml': noPdb };
      expect(rw601(files)).toEqual(['info config/manager/manager.yaml Deployment/system/controller-manager']);
      delete files['config/pdb/pdb.yaml'];
      delete files['config/pdb/kustomization.yaml'];
      expect(rw601(files)).toEqual(['warning config/manager/manager.yaml Deployment/system/controller-manager']);
    },
  );
});
