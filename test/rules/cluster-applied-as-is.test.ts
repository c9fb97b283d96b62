/*
 * Issue 21, round 4 (held-out set 3's causes): the cluster stage (RW801-RW803) is an error only on
 * objects shown to be applied as they are written; elsewhere it says what the API server would
 * refuse if the file were applied as written, as a warning (info where a template sign is read).
 * Each case is built from a public manifest named in its title; each near miss changes one thing
 * and must still be reported at the severity it names.
 */
import * as YAML from 'yaml';
import { findKustomize, Finding, runLint } from '../../src/rules';
import { appliedRepo, Obj, tempRepo } from './helpers';

const folder = (files: Record<string, string>): string => tempRepo('rw-asis-', files);
const applied = (files: Record<string, string>): string => appliedRepo('rw-asis-', files);

function lint(paths: string[], opts: { kustomize?: boolean; stdin?: string } = {}): Finding[] {
  let out = '';
  runLint({
    paths,
    format: 'json',
    failOn: 'none',
    kustomize: opts.kustomize ?? false,
    write: (s) => {
      out += s;
    },
    readStdin: () => opts.stdin ?? '',
  });
  return (JSON.parse(out) as { findings: Finding[] }).findings;
}

/** Open cluster-stage findings as "RWnnn severity path". */
const cluster = (fs_: Finding[]): string[] =>
  fs_
    .filter((f) => /^RW80[123]-/.test(f.ruleId) && f.status === 'open')
    .map((f) => `${f.ruleId.slice(0, 5)} ${f.severity} ${f.path}`);
const messages = (fs_: Finding[]): string[] =>
  fs_.filter((f) => /^RW80[123]-/.test(f.ruleId) && f.status === 'open').map((f) => f.message);

/** Sock Shop's user Deployment (microservices-demo deploy/kubernetes/complete-demo.yaml) with an upper-case image repository. */
const sockShopUser = (image = 'weaveworksdemos/User:0.4.7'): Obj => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'user', labels: { name: 'user' } },
  spec: {
    replicas: 1,
    selector: { matchLabels: { name: 'user' } },
    template: { metadata: { labels: { name: 'user' } }, spec: { containers: [{ name: 'user', image }] } },
  },
});
const userYaml = YAML.stringify(sockShopUser());
const IMAGE = 'spec.template.spec.containers[0].image';

describe('what shows a file is applied as written', () => {
  test('a file nothing lists (kubectl apply -f by hand, or never): a warning that says "if this file were applied as written" and why it is not an error', () => {
    const found = lint([folder({ 'user-dep.yaml': userYaml })]);
    expect(cluster(found)).toEqual([`RW803 warning ${IMAGE}`]);
    expect(messages(found)[0]).toMatch(
      /^if this file were applied as written: the image "weaveworksdemos\/User:0.4.7".*nothing shows this file is applied as it is written \(no kustomization lists it/,
    );
  });

  test('near miss: the same file listed as a resource by a kustomization that changes nothing is an error', () => {
    expect(cluster(lint([applied({ 'user-dep.yaml': userYaml })]))).toEqual([`RW803 error ${IMAGE}`]);
  });

  test('a kustomization with a patch between the file and the output, not rendered (kustomize off): a warning', () => {
    const dir = folder({
      'kustomization.yaml': 'resources:\n- user-dep.yaml\npatches:\n- path: replicas.yaml\n',
      'user-dep.yaml': userYaml,
      'replicas.yaml': 'apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: user\nspec:\n  replicas: 2\n',
    });
    expect(cluster(lint([dir]))).toEqual([`RW803 warning ${IMAGE}`]);
  });

  const installed = findKustomize({ PATH: process.env.PATH });
  (installed ? test : test.skip)(
    `the same kustomization rendered with ${installed?.label ?? 'kustomize (SKIPPED: not on PATH)'}: its output is what is applied, an error`,
    () => {
      const dir = folder({
        'kustomization.yaml': 'resources:\n- user-dep.yaml\npatches:\n- path: replicas.yaml\n',
        'user-dep.yaml': userYaml,
        'replicas.yaml': 'apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: user\nspec:\n  replicas: 2\n',
      });
      expect(cluster(lint([dir], { kustomize: true }))).toEqual([`RW803 error ${IMAGE}`]);
    },
  );

  /** argoproj/argocd-example-apps guestbook: an Application whose source path is a plain folder of manifests. */
  const guestbookApp = (extra = ''): string =>
    `apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata:\n  name: guestbook\n  namespace: argocd\nspec:\n  project: default\n  source:\n    repoURL: https://github.com/argoproj/argocd-example-apps.git\n    targetRevision: HEAD\n    path: guestbook\n${extra}  destination:\n    server: https://kubernetes.default.svc\n    namespace: guestbook\n`;

  test('a folder an Argo CD Application syncs as a plain directory (argocd-example-apps guestbook): an error', () => {
    expect(
      cluster(lint([folder({ 'apps/guestbook.yaml': guestbookApp(), 'guestbook/user-dep.yaml': userYaml })])),
    ).toEqual([`RW803 error ${IMAGE}`]);
  });

  test('near misses: the Application renders the folder with Helm values, or the folder holds a Chart.yaml: a warning', () => {
    expect(
      cluster(
        lint([
          folder({
            'apps/guestbook.yaml': guestbookApp('    helm:\n      valueFiles: [values.yaml]\n'),
            'guestbook/user-dep.yaml': userYaml,
          }),
        ]),
      ),
    ).toEqual([`RW803 warning ${IMAGE}`]);
    expect(
      cluster(
        lint([
          folder({
            'apps/guestbook.yaml': guestbookApp(),
            'guestbook/user-dep.yaml': userYaml,
            'guestbook/Chart.yaml': 'apiVersion: v2\nname: guestbook\nversion: 0.1.0\n',
          }),
        ]),
      ),
    ).toEqual([`RW803 warning ${IMAGE}`]);
  });

  /** nginx/kubernetes-ingress examples/custom-resources/external-auth-oauth2: README.md says `kubectl apply -f oauth2-proxy-client-secret.yaml`; its data is not base64. */
  const secret =
    'apiVersion: v1\nkind: Secret\nmetadata:\n  name: oauth2-proxy-client-secret\ntype: Opaque\ndata:\n  client-secret: abcbase64==\n';

  test('a file the README beside it tells the reader to kubectl apply -f (nginx/kubernetes-ingress external-auth-oauth2): an error', () => {
    const dir = folder({
      'examples/oauth2/README.md': '## Deploy\n\n    kubectl apply -f oauth2-proxy-client-secret.yaml\n',
      'examples/oauth2/oauth2-proxy-client-secret.yaml': secret,
    });
    expect(cluster(lint([dir]))).toEqual(['RW803 error data.client-secret']);
  });

  test('near miss: a README that deletes the file, or applies another one, is no evidence: a warning', () => {
    const dir = folder({
      'examples/oauth2/README.md':
        'kubectl delete -f oauth2-proxy-client-secret.yaml\nkubectl apply -f oauth2-proxy-client-secret.yaml.orig\n',
      'examples/oauth2/oauth2-proxy-client-secret.yaml': secret,
    });
    expect(cluster(lint([dir]))).toEqual(['RW803 warning data.client-secret']);
  });

  test("standard input (`kubectl kustomize overlays/prod | rollwise lint -`, RW010's fix) is what is applied: an error", () => {
    expect(cluster(lint(['-'], { stdin: userYaml }))).toEqual([`RW803 error ${IMAGE}`]);
  });
});

describe('signs that a file is a template another program fills in', () => {
  /** openshift/cluster-monitoring-operator assets/thanos-querier/deployment.yaml: image "" slots, a mount of a volume the operator adds. */
  const cmoAsset = (managedBy: string | undefined): string =>
    YAML.stringify({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: {
        name: 'thanos-querier',
        namespace: 'openshift-monitoring',
        labels: {
          'app.kubernetes.io/name': 'thanos-query',
          ...(managedBy ? { 'app.kubernetes.io/managed-by': managedBy } : {}),
        },
      },
      spec: {
        selector: { matchLabels: { 'app.kubernetes.io/name': 'thanos-query' } },
        template: {
          metadata: { labels: { 'app.kubernetes.io/name': 'thanos-query' } },
          spec: {
            containers: [
              {
                name: 'thanos-query',
                image: '',
                volumeMounts: [{ name: 'secret-grpc-tls', mountPath: '/etc/tls/grpc' }],
              },
            ],
          },
        },
      },
    });

  test('cluster-monitoring-operator assets (managed-by: cluster-monitoring-operator, listed nowhere): info naming the sign, never an error', () => {
    const found = lint([folder({ 'assets/thanos-querier/deployment.yaml': cmoAsset('cluster-monitoring-operator') })]);
    expect(cluster(found)).toEqual([
      'RW803 info spec.template.spec.containers[0].image',
      'RW803 info spec.template.spec.containers[0].volumeMounts[0].name',
    ]);
    expect(messages(found)[0]).toMatch(/app.kubernetes.io\/managed-by: cluster-monitoring-operator names an operator/);
  });

  test("near misses: without the label it is a warning; managed by Helm (a deploy tool) and listed by a kustomization it is an error; an operator's file listed by a kustomization is at most a warning", () => {
    expect(cluster(lint([folder({ 'deployment.yaml': cmoAsset(undefined) })]))).toEqual([
      'RW803 warning spec.template.spec.containers[0].image',
      'RW803 warning spec.template.spec.containers[0].volumeMounts[0].name',
    ]);
    expect(cluster(lint([applied({ 'deployment.yaml': cmoAsset('Helm') })]))).toEqual([
      'RW803 error spec.template.spec.containers[0].image',
      'RW803 error spec.template.spec.containers[0].volumeMounts[0].name',
    ]);
    expect(cluster(lint([applied({ 'deployment.yaml': cmoAsset('cluster-monitoring-operator') })]))).toEqual([
      'RW803 warning spec.template.spec.containers[0].image',
      'RW803 warning spec.template.spec.containers[0].volumeMounts[0].name',
    ]);
  });

  test('ko:// images (knative/serving config/core/deployments/controller.yaml, resolved by ko) are not reported, even when listed', () => {
    expect(
      cluster(
        lint([applied({ 'controller.yaml': YAML.stringify(sockShopUser('ko://knative.dev/serving/cmd/controller')) })]),
      ),
    ).toEqual([]);
  });

  test('near miss: an import path without ko:// is still an image reference the kubelet cannot parse', () => {
    expect(
      cluster(
        lint([applied({ 'controller.yaml': YAML.stringify(sockShopUser('knative.dev/serving/cmd/Controller')) })]),
      ),
    ).toEqual([`RW803 error ${IMAGE}`]);
  });

  /** redhat-na-ssa/demo-ai-gitops-catalog components/app-configs/pgadmin4/base/pgadmin4-deployement.yml: image " " filled from an ImageStreamTag. */
  const pgadmin = (triggers: boolean): string => {
    const o = sockShopUser(' ') as { metadata: { annotations?: Record<string, string> } };
    if (triggers)
      o.metadata.annotations = {
        'image.openshift.io/triggers':
          '[{"from":{"kind":"ImageStreamTag","name":"pgadmin4:latest"},"fieldPath":"spec.template.spec.containers[?(@.name==\\"user\\")].image"}]',
      };
    return YAML.stringify(o);
  };

  test('image " " with an image.openshift.io/triggers annotation (OpenShift\'s image trigger sets it) is not reported, even when listed', () => {
    expect(cluster(lint([applied({ 'pgadmin4-deployement.yml': pgadmin(true) })]))).toEqual([]);
  });

  test('near miss: image " " without the trigger annotation is still refused where listed', () => {
    expect(cluster(lint([applied({ 'pgadmin4-deployement.yml': pgadmin(false) })]))).toEqual([`RW803 error ${IMAGE}`]);
  });

  /** openshift/cluster-monitoring-operator assets/thanos-ruler/service-account.yaml: an annotation key ending in "-" (library-go: delete it). */
  const sa = (key: string): string =>
    `apiVersion: v1\nkind: ServiceAccount\nmetadata:\n  name: thanos-ruler\n  namespace: openshift-user-workload-monitoring\n  annotations:\n    ${key}: ""\n`;

  test('an annotation key ending in "-" is library-go\'s deletion marker: at most a warning naming it, even when listed', () => {
    const found = lint([
      applied({ 'service-account.yaml': sa('serviceaccounts.openshift.io/oauth-redirectreference.thanos-ruler-') }),
    ]);
    expect(found.filter((f) => /^RW803/.test(f.ruleId)).map((f) => f.severity)).toEqual(['warning']);
    expect(messages(found)[0]).toMatch(
      /ends in "-", openshift\/library-go resourcemerge's marker to delete that annotation/,
    );
  });

  test('near miss: a key ending in "_" is refused where listed (an error)', () => {
    expect(
      lint([
        applied({ 'service-account.yaml': sa('serviceaccounts.openshift.io/oauth-redirectreference.thanos-ruler_') }),
      ])
        .filter((f) => /^RW803/.test(f.ruleId))
        .map((f) => f.severity),
    ).toEqual(['error']);
  });
});

describe('patch fragments and patched objects', () => {
  /** sourcegraph/deploy-sourcegraph overlays/non-privileged/otel-collector/otel-collector.Deployment.yaml: a securityContext only. */
  const otelCollector =
    'apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: otel-collector\nspec:\n  template:\n    spec:\n      containers:\n        - name: otel-collector\n          securityContext:\n            allowPrivilegeEscalation: false\n            runAsUser: 100\n';
  /** vfarcic/cncf-demo kustomize/overlays/prod/deployment-otel.yaml: a sidecar with an image, no selector, no labels. */
  const cncfOtel =
    'apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: cncf-demo\nspec:\n  template:\n    spec:\n      containers:\n        - image: otel/autoinstrumentation-go\n          name: instrumentation\n      shareProcessNamespace: true\n';

  test('workloads without a selector whose template has no labels or a container without an image, that nothing lists: fragments, not checked as objects', () => {
    expect(
      cluster(
        lint([
          folder({
            'overlays/non-privileged/otel-collector/otel-collector.Deployment.yaml': otelCollector,
            'overlays/prod/deployment-otel.yaml': cncfOtel,
          }),
        ]),
      ),
    ).toEqual([]);
  });

  test('near miss: the same sidecar fragment listed by a kustomization as a resource (kustomize outputs it unchanged) is refused', () => {
    expect(cluster(lint([applied({ 'deployment-otel.yaml': cncfOtel })]))).toEqual([
      'RW801 error spec.selector',
      'RW803 error spec.selector',
    ]);
  });

  /** cloud-native-toolkit/multi-tenancy-gitops 0-bootstrap/single-cluster/3-apps: Applications without repoURL, named in commented-out entries; the kustomization's JSON 6902 patch adds it by label. */
  const app = (layer: string): string =>
    `apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata:\n  name: apps-es-dev\n  labels:\n    gitops.tier.layer: ${layer}\nspec:\n  destination:\n    namespace: openshift-gitops\n    server: https://kubernetes.default.svc\n  project: applications\n  source:\n    path: es/config/argocd/dev\n`;
  const kustomization =
    'resources:\n#- argocd/es/dev.yaml\n\npatches:\n- target:\n    group: argoproj.io\n    kind: Application\n    labelSelector: "gitops.tier.layer=applications"\n  patch: |-\n    - op: add\n      path: /spec/source/repoURL\n      value: ${GIT_BASEURL}/${GIT_ORG}/${GIT_GITOPS_APPLICATIONS}\n    - op: add\n      path: /spec/source/targetRevision\n      value: ${GIT_GITOPS_APPLICATIONS_BRANCH}\n';

  test("an Application whose repoURL a parent kustomization's patch adds by label selector: the missing field is not reported", () => {
    expect(
      cluster(
        lint([
          folder({ '3-apps/kustomization.yaml': kustomization, '3-apps/argocd/es/dev.yaml': app('applications') }),
        ]),
      ),
    ).toEqual([]);
  });

  test('near miss: an Application the selector does not match still lacks repoURL (a warning: not shown applied, and a CRD schema)', () => {
    expect(
      cluster(
        lint([folder({ '3-apps/kustomization.yaml': kustomization, '3-apps/argocd/es/dev.yaml': app('services') })]),
      ),
    ).toEqual(['RW801 warning spec.source.repoURL']);
  });
});
