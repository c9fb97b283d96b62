/*
 * Issue 21, round 13: two more kinds of evidence that a file is applied as it is written, for the
 * error gate (applied-gate.ts): a script or CI workflow of the repository that runs
 * `kubectl apply|create -f` on it (applied-evidence.ts), and a Flux Kustomization of the scan that
 * applies its folder from this repository (flux-sources.ts). Each shape is from a public
 * repository, named at its test, and each has near misses that must stay warnings.
 */
import * as fs from 'fs';
import * as path from 'path';
import * as YAML from 'yaml';
import { Finding, layoutScan, runLint } from '../../src/rules';
import { runsKubectl } from '../../src/rules/applied-evidence';
import { Obj, tempRepo } from './helpers';

function lint(paths: string[]): Finding[] {
  let out = '';
  runLint({
    paths,
    format: 'json',
    failOn: 'error',
    kustomize: false,
    write: (s) => {
      out += s;
    },
    writeError: () => undefined,
    readStdin: () => '',
  });
  return (JSON.parse(out) as { findings: Finding[] }).findings;
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

/** The RW707 finding of a repository (one Rollout), its level and message. */
function rw707(files: Record<string, string>, scan = ''): Finding {
  const root = tempRepo('rw-gate13-', files);
  const found = lint([path.join(root, scan)]).filter((f) => f.ruleId.startsWith('RW707'));
  expect(found).toHaveLength(1);
  return found[0];
}
const level = (files: Record<string, string>, scan = ''): string => rw707(files, scan).severity;

/** The evidence layoutScan gives for one file of a repository (ObjectScope.appliedAsIs of the file). */
function evidence(files: Record<string, string>, file: string): string | undefined {
  const root = tempRepo('rw-gate13-', files);
  const inputs = Object.keys(files)
    .filter((f) => /\.ya?ml$/.test(f) && !f.startsWith('.github'))
    .map((f) => ({ file: path.join(root, f), text: files[f] }));
  return layoutScan(inputs, { kustomize: null, repoRoot: root }).appliedFiles.get(path.join(root, file));
}

describe('scripts and CI that kubectl apply -f a file', () => {
  test('a shell script run from the root (akiru-91/resume-builder scripts/deploy.sh): an error naming file and line', () => {
    // scripts/deploy.sh: "kubectl apply -f k8s/deployment.yaml", a path from the repository root.
    const script =
      '#!/bin/bash\n\necho "Applying Kubernetes configurations..."\nkubectl apply -f k8s/deployment.yaml\n';
    const f = rw707({ 'k8s/deployment.yaml': rolloutYaml, 'scripts/deploy.sh': script });
    expect(f.severity).toBe('error');
    expect(f.message).not.toContain('if this file were');
    expect(evidence({ 'k8s/deployment.yaml': rolloutYaml, 'scripts/deploy.sh': script }, 'k8s/deployment.yaml')).toBe(
      'scripts/deploy.sh:4 applies it as written ("kubectl apply -f k8s/deployment.yaml")',
    );
  });

  test("a script's relative path is taken from its own folder (k8s/deploy.sh: kubectl apply -f deployment.yaml)", () => {
    // The shape of a deploy script kept beside its manifests (code search: "# k8s/deploy.sh").
    expect(level({ 'k8s/deployment.yaml': rolloutYaml, 'k8s/deploy.sh': 'kubectl apply -f deployment.yaml\n' })).toBe(
      'error',
    );
    expect(level({ 'k8s/deployment.yaml': rolloutYaml, 'ops/deploy.sh': 'kubectl apply -f ./deployment.yaml\n' })).toBe(
      'warning',
    );
    // A sibling folder: ../k8s from the script's folder is the file's folder; ../other is not.
    expect(level({ 'k8s/deployment.yaml': rolloutYaml, 'ops/deploy.sh': 'kubectl apply -f ../k8s\n' })).toBe('error');
    expect(level({ 'k8s/deployment.yaml': rolloutYaml, 'ops/deploy.sh': 'kubectl apply -f ../k8s-prod\n' })).toBe(
      'warning',
    );
  });

  test('near misses in scripts: a variable path, a comment, an echo, another verb, a vendored script', () => {
    const k = { 'k8s/deployment.yaml': rolloutYaml };
    // MarekDudek/azure-for-java-quickstarts kubernetes/kustomize/web-client/create.sh: "${DIR}"/k8s/...
    expect(level({ ...k, 'create.sh': 'kubectl create -f "${DIR}"/k8s/deployment.yaml\n' })).toBe('warning');
    expect(level({ ...k, 'deploy.sh': 'for f in k8s/*.yaml; do kubectl apply -f $f; done\n' })).toBe('warning');
    expect(level({ ...k, 'deploy.sh': '# kubectl apply -f k8s/deployment.yaml\n' })).toBe('warning');
    expect(level({ ...k, 'deploy.sh': 'echo "When connected, run: kubectl apply -f k8s/deployment.yaml"\n' })).toBe(
      'warning',
    );
    expect(level({ ...k, 'deploy.sh': 'kubectl delete -f k8s/deployment.yaml\n' })).toBe('warning');
    expect(level({ ...k, 'vendor/github.com/x/y/hack/deploy.sh': 'kubectl apply -f ../../../../../k8s\n' })).toBe(
      'warning',
    );
    // A script that is not a shell script (a .py file) is not read.
    expect(level({ ...k, 'deploy.py': 'os.system("kubectl apply -f k8s/deployment.yaml")\n' })).toBe('warning');
  });

  test('a continued line, a Makefile recipe, a justfile and a Taskfile task', () => {
    const k = { 'k8s/deployment.yaml': rolloutYaml };
    expect(level({ ...k, 'deploy.bash': 'kubectl apply \\\n  -f k8s/deployment.yaml\n' })).toBe('error');
    // A Makefile's deploy target (code search: "deploy: ## Apply all k8s manifests", `\tkubectl apply -f k8s/...`).
    const make = 'deploy: ## Apply all k8s manifests\n\tkubectl apply -f k8s/deployment.yaml\n';
    expect(level({ ...k, Makefile: make })).toBe('error');
    expect(level({ ...k, 'build/deploy.mk': 'deploy:\n\t@kubectl apply -f ../k8s/deployment.yaml\n' })).toBe('error');
    // make's commented-out recipe line (code search: "#\tkubectl apply -f k8s/config/...").
    expect(level({ ...k, Makefile: 'up:\n#\tkubectl apply -f k8s/deployment.yaml\n' })).toBe('warning');
    expect(level({ ...k, Makefile: 'up:\n\tkubectl apply -f $(K8S)/deployment.yaml\n' })).toBe('warning');
    expect(level({ ...k, justfile: 'deploy:\n    kubectl apply -f k8s/deployment.yaml\n' })).toBe('error');
    const task = (dir: string): string =>
      `version: '3'\ntasks:\n  deploy:\n${dir}    cmds:\n      - kubectl apply -f ./deployment.yaml\n`;
    expect(level({ ...k, 'Taskfile.yml': task('    dir: k8s\n') })).toBe('error');
    expect(level({ ...k, 'Taskfile.yml': task('') })).toBe('warning');
    expect(level({ ...k, 'Taskfile.yml': task("    dir: '{{.USER_WORKING_DIR}}'\n") })).toBe('warning');
  });

  test('a GitHub Actions run step (BenSmit95/ticketing .github/workflows/deploy-manifests.yaml)', () => {
    // "- run: kubectl apply -f infra/k8s": a folder from the repository root, the step's default directory.
    const wf = (step: string, defaults = ''): string =>
      'name: deploy-manifests\non:\n  push:\n    branches:\n      - master\n' +
      `${defaults}jobs:\n  build:\n    runs-on: ubuntu-latest\n    steps:\n      - uses: actions/checkout@v2\n` +
      '      - run: doctl kubernetes cluster kubeconfig save ticketing\n' +
      step;
    const k = { 'infra/k8s/depl.yaml': rolloutYaml };
    const f = rw707({
      ...k,
      '.github/workflows/deploy-manifests.yaml': wf('      - run: kubectl apply -f infra/k8s\n'),
    });
    expect(f.severity).toBe('error');
    // working-directory on the step, or the workflow's defaults.run: the path is taken from there.
    const step = '      - run: kubectl apply -f k8s\n        working-directory: infra\n';
    expect(level({ ...k, '.github/workflows/d.yml': wf(step) })).toBe('error');
    expect(level({ ...k, '.github/workflows/d.yml': wf('      - run: kubectl apply -f k8s\n') })).toBe('warning');
    const defaults = 'defaults:\n  run:\n    working-directory: infra\n';
    expect(level({ ...k, '.github/workflows/d.yml': wf('      - run: kubectl apply -f k8s\n', defaults) })).toBe(
      'error',
    );
    // Near misses: an expression as the path or the directory, a workflow-like file outside .github/workflows.
    const expr = '      - run: kubectl apply -f ${{ inputs.dir }}\n';
    expect(level({ ...k, '.github/workflows/d.yml': wf(expr) })).toBe('warning');
    const exprDir = '      - run: kubectl apply -f k8s\n        working-directory: ${{ inputs.dir }}\n';
    expect(level({ ...k, '.github/workflows/d.yml': wf(exprDir) })).toBe('warning');
    expect(level({ ...k, 'ci/workflows/d.yml': wf('      - run: kubectl apply -f infra/k8s\n') })).toBe('warning');
  });

  test('the evidence names the script and its line (a `run: |` block: the line in the workflow file)', () => {
    const wf =
      'on: push\njobs:\n  d:\n    steps:\n      - run: |\n          kubectl get ns\n          kubectl apply -f k8s\n';
    expect(
      evidence({ 'k8s/deployment.yaml': rolloutYaml, '.github/workflows/deploy.yaml': wf }, 'k8s/deployment.yaml'),
    ).toBe('.github/workflows/deploy.yaml:7 applies it as written ("kubectl apply -f k8s")');
  });

  test('runsKubectl: a command, not a comment or a message', () => {
    expect(runsKubectl('kubectl apply -f x.yaml')).toBe(true);
    expect(runsKubectl('\t@kubectl apply -f x.yaml')).toBe(true);
    expect(runsKubectl('make a && kubectl apply -f x.yaml')).toBe(true);
    expect(runsKubectl('if true; then kubectl apply -f x.yaml; fi')).toBe(true);
    expect(runsKubectl('# kubectl apply -f x.yaml')).toBe(false);
    expect(runsKubectl('echo "run: kubectl apply -f x.yaml"')).toBe(false);
    expect(runsKubectl('log_info "DRY RUN: kubectl apply -f $m"')).toBe(false);
  });
});

/** A Flux Kustomization (fluxcd/flux2-kustomize-helm-example clusters/staging/apps.yaml, at v1). */
function fluxKs(spec: Record<string, unknown>, meta: Record<string, unknown> = { namespace: 'flux-system' }): string {
  return YAML.stringify({
    apiVersion: 'kustomize.toolkit.fluxcd.io/v1',
    kind: 'Kustomization',
    metadata: { name: 'apps', ...meta },
    spec: {
      interval: '10m0s',
      sourceRef: { kind: 'GitRepository', name: 'flux-system' },
      path: './apps/staging',
      prune: true,
      ...spec,
    },
  });
}

describe('a Flux Kustomization that applies a folder of this repository', () => {
  const app = { 'apps/staging/podinfo/rollout.yaml': rolloutYaml };

  test('bootstrap source flux-system, a folder without a kustomization: an error naming the Kustomization', () => {
    const f = rw707({ ...app, 'clusters/staging/apps.yaml': fluxKs({}) });
    expect(f.severity).toBe('error');
    expect(evidence({ ...app, 'clusters/staging/apps.yaml': fluxKs({}) }, 'apps/staging/podinfo/rollout.yaml')).toBe(
      'applied by Flux: Kustomization/flux-system/apps in clusters/staging/apps.yaml (spec.path ./apps/staging) has ' +
        "kustomize-controller apply its folder's manifests as written (no kustomization there, no patch, prefix, " +
        'namespace or substitution)',
    );
    // Recursively: scanManifests walks subfolders; .yml too.
    expect(level({ 'apps/staging/a/b/rollout.yml': rolloutYaml, 'clusters/staging/apps.yaml': fluxKs({}) })).toBe(
      'error',
    );
  });

  test('near misses: another repository, a sibling folder, a kustomization between, changes in the spec', () => {
    // sourceRef to another GitRepository (not in the scan, or naming another repository's url).
    expect(
      level({
        ...app,
        'clusters/staging/apps.yaml': fluxKs({ sourceRef: { kind: 'GitRepository', name: 'podinfo' } }),
      }),
    ).toBe('warning');
    // flux-system in another namespace is not bootstrap's GitRepository.
    expect(level({ ...app, 'clusters/staging/apps.yaml': fluxKs({}, { namespace: 'apps' }) })).toBe('warning');
    // A sibling folder.
    expect(level({ ...app, 'clusters/staging/apps.yaml': fluxKs({ path: './apps/production' }) })).toBe('warning');
    // A kustomization in the folder or between: kustomize's render, judged by the kustomize evidence.
    const between = { ...app, 'apps/staging/podinfo/kustomization.yaml': 'resources: []\n' };
    expect(level({ ...between, 'clusters/staging/apps.yaml': fluxKs({}) })).toBe('warning');
    // The spec changes the objects on the way.
    for (const change of [
      { targetNamespace: 'podinfo' },
      { namePrefix: 'x-' },
      { postBuild: { substitute: { cluster: 'staging' } } },
      { patches: [{ patch: '- op: remove\n  path: /spec/replicas' }] },
    ])
      expect(level({ ...app, 'clusters/staging/apps.yaml': fluxKs(change) })).toBe('warning');
    // A variable path, and a Flux Kustomization under docs/ (an example, not a cluster's).
    expect(level({ ...app, 'clusters/staging/apps.yaml': fluxKs({ path: './apps/${CLUSTER}' }) })).toBe('warning');
    expect(level({ ...app, 'docs/examples/apps.yaml': fluxKs({}) })).toBe('warning');
    // An older API version not read here (v1beta1, as flux2-kustomize-helm-example had it).
    const v1beta1 = fluxKs({}).replace('kustomize.toolkit.fluxcd.io/v1', 'kustomize.toolkit.fluxcd.io/v1beta1');
    expect(level({ ...app, 'clusters/staging/apps.yaml': v1beta1 })).toBe('warning');
  });

  test('a GitRepository of the scan whose url names this repository (its origin remote); another url does not', () => {
    const gitRepo = (url: string): string =>
      YAML.stringify({
        apiVersion: 'source.toolkit.fluxcd.io/v1',
        kind: 'GitRepository',
        metadata: { name: 'home', namespace: 'flux-system' },
        spec: { interval: '1m', url, ref: { branch: 'main' } },
      });
    const ks = fluxKs({ sourceRef: { kind: 'GitRepository', name: 'home' } });
    const repo = (url: string): string => {
      const root = tempRepo('rw-gate13-', {
        ...app,
        'clusters/staging/apps.yaml': ks,
        'clusters/git.yaml': gitRepo(url),
      });
      fs.writeFileSync(
        path.join(root, '.git', 'config'),
        '[remote "origin"]\n\turl = https://github.com/budimanjojo/home-cluster.git\n',
      );
      return lint([root]).find((f) => f.ruleId.startsWith('RW707'))!.severity;
    };
    expect(repo('ssh://git@github.com/budimanjojo/home-cluster')).toBe('error');
    expect(repo('https://github.com/stefanprodan/podinfo')).toBe('warning');
  });
});
