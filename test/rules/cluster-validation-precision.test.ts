/*
 * The cluster-validation stage (RW801-RW803) on the shapes a blind judge found it wrong on (issue
 * 21, held-out set): each case is built from a public manifest (named in its title), is accepted by
 * the API server (or never reaches one) and must not be an error; its near miss, one thing changed,
 * is refused and must still be.
 */
import * as path from 'path';
import * as YAML from 'yaml';
import { findKustomize, Finding, runLint } from '../../src/rules';
import { containsPlaceholder, isPlaceholder } from '../../src/rules/placeholders';
import { builtinProblems } from '../../src/schemas/builtin';
import { KubernetesVersion } from '../../src/decisions/kubernetes-version';
import { appliedRepo, Obj, tempRepo } from './helpers';

const folder = (files: Record<string, string>): string => tempRepo('rw-cluster-', files);
/** Files a kustomization lists as resources, unchanged: applied as written. */
const applied = (files: Record<string, string>): string => appliedRepo('rw-cluster-', files);

function lintFolder(dir: string, kustomize = false): Finding[] {
  let out = '';
  runLint({
    paths: [dir],
    format: 'json',
    failOn: 'none',
    kustomize,
    write: (s) => {
      out += s;
    },
  });
  return (JSON.parse(out) as { findings: Finding[] }).findings;
}

const docs = (...objs: Obj[]): string => objs.map((o) => YAML.stringify(o)).join('---\n');
const lintObjs = (...objs: Obj[]): Finding[] => lintFolder(applied({ 'manifests.yaml': docs(...objs) }));
/** The open error findings of the cluster stage, as "RWnnn path: message". */
const clusterErrors = (fs_: Finding[]): string[] =>
  fs_
    .filter((f) => /^RW80[123]-/.test(f.ruleId) && f.severity === 'error' && f.status === 'open')
    .map((f) => `${f.ruleId.slice(0, 5)} ${f.path}: ${f.message}`);

describe('object names: each kind by its own name function', () => {
  /** kubernetes-sigs/metrics-server manifests/base/rbac.yaml (the ClusterRoles and bindings of its components.yaml). */
  const metricsServerRbac = (): Obj[] => [
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRole',
      metadata: {
        name: 'system:aggregated-metrics-reader',
        labels: { 'k8s-app': 'metrics-server', 'rbac.authorization.k8s.io/aggregate-to-view': 'true' },
      },
      rules: [{ apiGroups: ['metrics.k8s.io'], resources: ['pods', 'nodes'], verbs: ['get', 'list', 'watch'] }],
    },
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRole',
      metadata: { name: 'system:metrics-server', labels: { 'k8s-app': 'metrics-server' } },
      rules: [{ apiGroups: [''], resources: ['nodes/metrics'], verbs: ['get'] }],
    },
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRoleBinding',
      metadata: { name: 'metrics-server:system:auth-delegator', labels: { 'k8s-app': 'metrics-server' } },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'system:auth-delegator' },
      subjects: [{ kind: 'ServiceAccount', name: 'metrics-server', namespace: 'kube-system' }],
    },
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'RoleBinding',
      metadata: { name: 'metrics-server-auth-reader', namespace: 'kube-system' },
      roleRef: {
        apiGroup: 'rbac.authorization.k8s.io',
        kind: 'Role',
        name: 'extension-apiserver-authentication-reader',
      },
      subjects: [{ kind: 'ServiceAccount', name: 'metrics-server', namespace: 'kube-system' }],
    },
  ];

  test("RBAC names with colons (metrics-server's system:metrics-server) are valid path segments: no error", () => {
    expect(clusterErrors(lintObjs(...metricsServerRbac()))).toEqual([]);
  });

  test('near misses: an RBAC name with "/" and a Service named my:svc are still refused', () => {
    const [role] = metricsServerRbac();
    const service = {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 'my:svc' },
      spec: { selector: { 'k8s-app': 'metrics-server' }, ports: [{ port: 443, targetPort: 10250 }] },
    };
    const errors = clusterErrors(lintObjs({ ...role, metadata: { name: 'system/metrics-server' } }, service));
    expect(errors).toEqual([
      expect.stringMatching(
        /^RW803 metadata.name: "system\/metrics-server" is not a valid name for this kind \(a path segment: .*ValidateRBACName = path.IsValidPathSegmentName\)/,
      ),
      expect.stringMatching(
        /^RW803 metadata.name: "my:svc" is not a valid name for this kind \(a DNS-1035 label: .*ValidateServiceName\)/,
      ),
    ]);
  });

  test('a roleRef without apiGroup (GoogleCloudPlatform/kubernetes-engine-samples gke-inference-gateway inference-pool.yaml shape) is defaulted, not refused', () => {
    const binding = {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRoleBinding',
      metadata: { name: 'pod-read-binding' },
      subjects: [{ kind: 'ServiceAccount', name: 'default', namespace: 'default' }],
      roleRef: { kind: 'ClusterRole', name: 'pod-read' },
    };
    expect(clusterErrors(lintObjs(binding))).toEqual([]);
    // without a roleRef at all it is refused (kind and name are not defaulted)
    expect(
      clusterErrors(lintObjs({ ...binding, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole' } })),
    ).toEqual([expect.stringMatching(/^RW801 roleRef.name: roleRef.name is required/)]);
  });

  test('a NetworkPolicy without podSelector (kubernetes/website examples/service/networking/network-policy-default-deny-ingress.yaml, selector left out) selects every pod: accepted', () => {
    const deny = {
      apiVersion: 'networking.k8s.io/v1',
      kind: 'NetworkPolicy',
      metadata: { name: 'default-deny-ingress' },
      spec: { policyTypes: ['Ingress'] },
    };
    expect(clusterErrors(lintObjs(deny))).toEqual([]);
    expect(clusterErrors(lintObjs({ ...deny, spec: { podSelector: 'all', policyTypes: ['Ingress'] } }))).toEqual([
      expect.stringMatching(/^RW801 spec.podSelector: must be of type object/),
    ]);
  });

  test('per kind: a StatefulSet name is a DNS label, a CronJob name at most 52, a PodDisruptionBudget name a path segment', () => {
    const v = KubernetesVersion.V1_33;
    const named = (apiVersion: string, kind: string, name: string) =>
      builtinProblems({ apiVersion, kind, metadata: { name } }, v).map((p) => p.message);
    expect(named('apps/v1', 'StatefulSet', 'web.v1')).toEqual([expect.stringMatching(/a DNS-1123 label/)]);
    expect(named('apps/v1', 'Deployment', 'web.v1')).toEqual([]);
    expect(named('batch/v1', 'CronJob', 'a'.repeat(53))).toEqual([
      expect.stringMatching(/53 characters, more than the 52/),
    ]);
    expect(named('batch/v1', 'CronJob', 'a'.repeat(52))).toEqual([]);
    expect(named('policy/v1', 'PodDisruptionBudget', 'Web_PDB')).toEqual([]);
    expect(named('argoproj.io/v1alpha1', 'Rollout', 'Web_Rollout')).toEqual([
      expect.stringMatching(
        /a DNS-1123 subdomain.*apiextensions-apiserver v0.33.0 pkg\/registry\/customresource\/validator.go/,
      ),
    ]);
  });

  test('a namespace is checked on namespaced kinds only (the API server clears it on cluster-scoped ones)', () => {
    const v = KubernetesVersion.V1_33;
    expect(
      builtinProblems(
        {
          apiVersion: 'rbac.authorization.k8s.io/v1',
          kind: 'ClusterRole',
          metadata: { name: 'reader', namespace: 'Not_A_Namespace' },
        },
        v,
      ),
    ).toEqual([]);
    expect(
      builtinProblems(
        { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'reader', namespace: 'Not_A_Namespace' } },
        v,
      ).map((p) => p.path),
    ).toEqual(['/metadata/namespace']);
  });
});

describe('pod templates: only what the API server validates for each workload kind', () => {
  /** The nginx StatefulSet of kubernetes/website content/en/examples/application/web/web.yaml: /usr/share/nginx/html from volumeClaimTemplate www. */
  const web = (mount = 'www'): Obj => ({
    apiVersion: 'apps/v1',
    kind: 'StatefulSet',
    metadata: { name: 'web' },
    spec: {
      serviceName: 'nginx',
      replicas: 2,
      selector: { matchLabels: { app: 'nginx' } },
      template: {
        metadata: { labels: { app: 'nginx' } },
        spec: {
          containers: [
            {
              name: 'nginx',
              image: 'registry.k8s.io/nginx-slim:0.21',
              ports: [{ containerPort: 80, name: 'web' }],
              volumeMounts: [{ name: mount, mountPath: '/usr/share/nginx/html' }],
            },
          ],
        },
      },
      volumeClaimTemplates: [
        {
          metadata: { name: 'www' },
          spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } },
        },
      ],
    },
  });

  test('a StatefulSet mount of its volumeClaimTemplate is a volume of each pod: no error', () => {
    expect(clusterErrors(lintObjs(web()))).toEqual([]);
  });

  test('near misses: a StatefulSet mount of nothing is refused on each pod; a Deployment mounting an undeclared volume is refused', () => {
    const sts = clusterErrors(lintObjs(web('html')));
    expect(sts).toEqual([
      expect.stringMatching(
        /^RW803 spec.template.spec.containers\[0\].volumeMounts\[0\].name: the volume "html" is not a volume of the pod nor a volumeClaimTemplate \(the API server accepts the StatefulSet, .* but refuses each Pod its controller creates from the template: no replica starts\)/,
      ),
    ]);
    const { volumeClaimTemplates: _unused, serviceName: _s, ...spec } = web().spec;
    const deployment = { ...web(), kind: 'Deployment', spec };
    expect(clusterErrors(lintObjs(deployment))).toEqual([
      expect.stringMatching(
        /^RW803 spec.template.spec.containers\[0\].volumeMounts\[0\].name: the volume "www" is not a volume of the pod \(Kubernetes 1.33\)$/,
      ),
    ]);
  });

  test('a status the manifest carries (`status: {}`, as kubectl create --dry-run -o yaml writes it) is discarded on create: its required fields are not', () => {
    expect(clusterErrors(lintObjs({ ...web(), status: {} }))).toEqual([]);
    // a wrong type there still fails decoding
    expect(clusterErrors(lintObjs({ ...web(), status: { replicas: 'two' } }))).toEqual([
      expect.stringMatching(/^RW801 status.replicas: must be of type integer/),
    ]);
  });

  test('a Knative Service (serving.knative.dev, not a pinned CRD) is not checked as a core Service or a workload', () => {
    // digitalocean/kubernetes-sample-apps game-2048-example/knative-service.yaml shape, with a real image name
    const ksvc = {
      apiVersion: 'serving.knative.dev/v1',
      kind: 'Service',
      metadata: { name: 'game-2048' },
      spec: {
        template: {
          spec: {
            containers: [{ image: 'registry.digitalocean.com/Acme/2048-game', ports: [{ containerPort: 8080 }] }],
          },
        },
      },
    };
    expect(clusterErrors(lintObjs(ksvc))).toEqual([]);
  });
});

describe('objects never sent to an API server', () => {
  /** eksctl-io/eksctl examples/01-simple-cluster.yaml, with a cluster name as eksctl allows it (upper case). */
  const clusterConfig = {
    apiVersion: 'eksctl.io/v1alpha5',
    kind: 'ClusterConfig',
    metadata: { name: 'Cluster-1', region: 'eu-north-1' },
    nodeGroups: [{ name: 'ng-1', instanceType: 'm5.large', desiredCapacity: 10 }],
  };

  test('an eksctl ClusterConfig (neither a Kubernetes kind nor a pinned CRD) gets no cluster validation', () => {
    expect(clusterErrors(lintObjs(clusterConfig))).toEqual([]);
  });

  test('near misses: a ConfigMap and a Rollout (a pinned CRD) with that name are still refused', () => {
    const errors = clusterErrors(
      lintObjs(
        { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'Cluster-1' }, data: { region: 'eu-north-1' } },
        {
          apiVersion: 'argoproj.io/v1alpha1',
          kind: 'Rollout',
          metadata: { name: 'Cluster-1' },
          spec: {
            selector: { matchLabels: { app: 'a' } },
            template: {
              metadata: { labels: { app: 'a' } },
              spec: { containers: [{ name: 'a', image: 'nginx:1.27' }] },
            },
            strategy: { canary: { steps: [{ setWeight: 20 }] } },
          },
        },
      ),
    );
    expect(errors).toEqual([
      expect.stringMatching(
        /^RW803 metadata.name: "Cluster-1" is not a valid name for this kind \(a DNS-1123 subdomain/,
      ),
      expect.stringMatching(
        /^RW803 metadata.name: "Cluster-1" is not a valid name for this kind \(a DNS-1123 subdomain/,
      ),
    ]);
  });
});

describe('unrendered placeholders are not what is applied', () => {
  test('the placeholder forms: envsubst, angle brackets, pipeline tokens, upper-case fill-ins where lower case is required', () => {
    for (const p of [
      '${EKS_CLUSTER_NAME}',
      '${REPLICAS:-1}',
      '$IMAGE_URL',
      '<ADD LUN ID Here>',
      '<<PROJECT>>',
      '#{IMAGE}#',
      '__IMAGE__',
      '{{ .Values.image }}',
      '{{HF_TOKEN}}',
      '{.backend-namespace}',
      '{.registry}/calc:{.tag}',
    ])
      expect([p, isPlaceholder(p)]).toEqual([p, true]);
    expect(isPlaceholder('us-central1-docker.pkg.dev/PROJECT_ID/models/t5-small:1.0-gpu', true)).toBe(true);
    expect(isPlaceholder('PORT', 'number')).toBe(true);
    expect(isPlaceholder('HTTP', true)).toBe(false); // a port name in upper case is a mistake, not a fill-in
    // Kubernetes' own expansion, Argo Rollouts' arguments and a mixed-case typo are not placeholders
    for (const p of [
      '$(POD_IP)',
      'http://$(POD_IP):8080',
      '{{args.service-name}}',
      'weaveworksdemos/User:0.4.7',
      '{"a": 1}',
      'x{.y',
    ])
      expect([p, isPlaceholder(p, true)]).toEqual([p, false]);
    expect(isPlaceholder('PROJECT_ID')).toBe(false); // upper case counts only where lower case is required
    expect(containsPlaceholder({ subnet: '${SUBNET_AZ_1}' })).toBe(true); // Jinja, Ansible and Go template fill-ins, braced words, batch tokens (held-out set 6)
    for (const p of [
      'reg/ca:{{ ca_version }}',
      'reg/ca:v{{ca_version}}',
      'reg/ca:{{ image tag }}',
      'swr.example.com/{Organization name}/ca:dev',
      'reg/ca:%IMAGE_TAG%',
    ])
      expect([p, isPlaceholder(p)]).toEqual([p, true]);
    // near misses: Argo Rollouts' arguments (also spaced), empty braces, a single braced word, a percentage, a URL escape
    for (const p of [
      'reg/ca:{{ args.version }}',
      'reg/ca:{{args.version}}',
      'reg/ca:{{ }}',
      'reg/ca:{version}',
      '50%',
      'a%2Fb%3A',
    ])
      expect([p, isPlaceholder(p)]).toEqual([p, false]);
  });

  /** GoogleCloudPlatform/kubernetes-engine-samples ai-ml/llm-finetuning-gemma/finetune.yaml (a Job of $IMAGE_URL) and ai-ml/t5-model-serving/kubernetes/serving-gpu.yaml (PROJECT_ID). */
  const finetune = (image: string, sa = 'default'): Obj => ({
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: { name: 'finetune-job', namespace: 'default' },
    spec: {
      backoffLimit: 2,
      template: {
        metadata: { annotations: { 'kubectl.kubernetes.io/default-container': 'finetuner' } },
        spec: {
          serviceAccountName: sa,
          restartPolicy: 'OnFailure',
          containers: [
            {
              name: 'finetuner',
              image,
              resources: { limits: { 'nvidia.com/gpu': '8' } },
              env: [
                { name: 'MODEL_NAME', value: 'google/gemma-2b' },
                { name: 'POD_IP', valueFrom: { fieldRef: { fieldPath: 'status.podIP' } } },
                { name: 'ENDPOINT', value: 'http://$(POD_IP):8000' },
              ],
            },
          ],
        },
      },
    },
  });

  test('an image and a service account left as $IMAGE_URL, ${KSA_NAME} or PROJECT_ID: no error', () => {
    expect(clusterErrors(lintObjs(finetune('$IMAGE_URL', '${KSA_NAME}')))).toEqual([]);
    expect(
      clusterErrors(lintObjs(finetune('us-central1-docker.pkg.dev/PROJECT_ID/models/t5-small:1.0-gpu', 'KSA_NAME'))),
    ).toEqual([]);
  });

  test("near misses: Kubernetes' $(VAR) where it is not expanded, and a mixed-case repository, are still refused", () => {
    expect(clusterErrors(lintObjs(finetune('us-docker.pkg.dev/acme/finetune:$(VERSION)')))).toEqual([
      expect.stringMatching(
        /^RW803 spec.template.spec.containers\[0\].image: the image "us-docker.pkg.dev\/acme\/finetune:\$\(VERSION\)" is not a valid image reference/,
      ),
    ]);
    expect(clusterErrors(lintObjs(finetune('us-docker.pkg.dev/Acme/finetune:1.0')))).toEqual([
      expect.stringMatching(/upper-case repository name/),
    ]);
  });

  test('a fill-in repeated in the object is a fill-in everywhere (kubernetes-engine-samples networking/sctp/sctp-deployment.yaml: port: PORT, targetPort: PORT)', () => {
    const sctp = {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 'sctp-service' },
      spec: {
        selector: { app: 'sctp-app' },
        ports: [{ protocol: 'SCTP', port: 'PORT', targetPort: 'PORT' }],
        type: 'ClusterIP',
      },
    };
    expect(clusterErrors(lintObjs(sctp))).toEqual([]);
    // near miss: a port number and an upper-case port name is a mistake, refused
    expect(
      clusterErrors(
        lintObjs({ ...sctp, spec: { ...sctp.spec, ports: [{ protocol: 'SCTP', port: 9000, targetPort: 'PORT' }] } }),
      ),
    ).toEqual([expect.stringMatching(/^RW803 spec.ports\[0\].targetPort: "PORT" is not a port name/)]);
  });

  test('near miss: a Service port named HTTP (upper case, no fill-in form) is still refused', () => {
    const svc = {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 'finetune' },
      spec: { selector: { app: 'finetune' }, ports: [{ name: 'HTTP', port: 80, targetPort: 8000 }] },
    };
    expect(clusterErrors(lintObjs(svc))).toEqual([
      expect.stringMatching(/^RW803 spec.ports\[0\].name: "HTTP" is not a DNS label/),
    ]);
  });

  /** kubernetes/examples volumes/iscsi/iscsi.yaml (the iscsipd Pod) with the LUN left for the reader to fill in. */
  const iscsiPod = (lun: unknown): Obj => ({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'iscsipd' },
    spec: {
      containers: [
        {
          name: 'iscsipd-rw',
          image: 'kubernetes/pause',
          volumeMounts: [{ mountPath: '/mnt/iscsipd', name: 'iscsipd-rw' }],
        },
      ],
      volumes: [
        {
          name: 'iscsipd-rw',
          iscsi: {
            targetPortal: '10.0.2.15:3260',
            iqn: 'iqn.2001-04.com.example:storage.kube.sys1.xyz',
            lun,
            fsType: 'ext4',
            readOnly: true,
          },
        },
      ],
    },
  });

  test('a LUN of <ADD LUN ID Here> (a string where the schema wants an integer) is a placeholder: no error', () => {
    expect(clusterErrors(lintObjs(iscsiPod('<ADD LUN ID Here>')))).toEqual([]);
  });

  test('near miss: a LUN of "zero" is still refused', () => {
    expect(clusterErrors(lintObjs(iscsiPod('zero')))).toEqual([
      expect.stringMatching(/^RW801 spec.volumes\[0\].iscsi.lun: must be of type integer, not string "zero"/),
    ]);
  });
});

describe('kustomize patch files are fragments, never checked as whole objects', () => {
  /** A StatefulSet patch of the kind overlays carry: replicas and a container's args and env, no selector, no image. */
  /** The Service beside it, so that the folder has an object to lint. */
  const service =
    'apiVersion: v1\nkind: Service\nmetadata:\n  name: redis\nspec:\n  selector:\n    app: redis\n  ports:\n  - port: 6379\n';
  const stsPatch =
    'apiVersion: apps/v1\nkind: StatefulSet\nmetadata:\n  name: redis\nspec:\n  replicas: 3\n  template:\n    spec:\n      containers:\n      - name: redis\n        args: ["--maxmemory", "256mb"]\n        env:\n        - name: REDIS_REPLICAS\n          value: "3"\n';
  /** argoproj/argocd-example-apps plugins/kustomized-helm: `patches` lists the file as a bare path, and all.yaml (helm template's output) is not committed. */
  const kustomizedHelm = {
    'kustomization.yaml':
      'namePrefix: kustomize-\n\nresources:\n- ./all.yaml\n- service.yaml\n\npatches:\n- overlays/redis-statefulset.yaml\n',
    'overlays/redis-statefulset.yaml': stsPatch,
    'service.yaml': service,
  };
  const mechanisms: [string, Record<string, string>][] = [
    ['patches: a bare path (argocd-example-apps plugins/kustomized-helm)', kustomizedHelm],
    [
      'patches[].path',
      {
        'kustomization.yaml':
          'resources:\n- ./all.yaml\n- service.yaml\npatches:\n- path: overlays/redis-statefulset.yaml\n  target:\n    kind: StatefulSet\n',
        'overlays/redis-statefulset.yaml': stsPatch,
        'service.yaml': service,
      },
    ],
    [
      'patchesStrategicMerge',
      {
        'kustomization.yaml':
          'resources:\n- ./all.yaml\n- service.yaml\npatchesStrategicMerge:\n- overlays/redis-statefulset.yaml\n',
        'overlays/redis-statefulset.yaml': stsPatch,
        'service.yaml': service,
      },
    ],
    [
      'patchesJson6902[].path',
      {
        'kustomization.yaml':
          'resources:\n- ./all.yaml\n- service.yaml\npatchesJson6902:\n- target: {group: apps, version: v1, kind: StatefulSet, name: redis}\n  path: overlays/redis-statefulset.yaml\n',
        'overlays/redis-statefulset.yaml': stsPatch,
        'service.yaml': service,
      },
    ],
    [
      "a Component's patches",
      {
        'overlays/prod/kustomization.yaml': 'resources:\n- ../../base\ncomponents:\n- ../../components/ha\n',
        'base/kustomization.yaml': 'resources:\n- service.yaml\n',
        'base/service.yaml': service,
        'components/ha/kustomization.yaml':
          'apiVersion: kustomize.config.k8s.io/v1alpha1\nkind: Component\npatches:\n- path: redis-statefulset.yaml\n',
        'components/ha/redis-statefulset.yaml': stsPatch,
      },
    ],
    [
      'replacements[].path',
      {
        'kustomization.yaml':
          'resources:\n- ./all.yaml\n- service.yaml\nreplacements:\n- path: overlays/redis-statefulset.yaml\n',
        'overlays/redis-statefulset.yaml': stsPatch,
        'service.yaml': service,
      },
    ],
    [
      'an inline patch beside a patch file',
      {
        'kustomization.yaml':
          'resources:\n- ./all.yaml\n- service.yaml\npatches:\n- patch: |-\n    - op: replace\n      path: /spec/replicas\n      value: 3\n  target:\n    kind: StatefulSet\n- path: overlays/redis-statefulset.yaml\n',
        'overlays/redis-statefulset.yaml': stsPatch,
        'service.yaml': service,
      },
    ],
    [
      'a kustomization that is not valid YAML',
      {
        'kustomization.yaml':
          'resources:\n- ./all.yaml\n- service.yaml\n\tnamePrefix: x\npatchesStrategicMerge:\n- overlays/redis-statefulset.yaml\n',
        'overlays/redis-statefulset.yaml': stsPatch,
        'service.yaml': service,
      },
    ],
  ];

  test.each(mechanisms)('%s: the patch file gets no RW801 (file by file)', (_name, files) => {
    expect(clusterErrors(lintFolder(folder(files)))).toEqual([]);
  });

  test('a patch named by a kustomization above the linted folder (lint overlays/prod/patches/ alone) is still a patch', () => {
    const dir = folder({
      'overlays/prod/kustomization.yaml':
        'resources:\n- ../../base\npatches:\n- path: patches/redis-statefulset.yaml\n',
      'overlays/prod/patches/redis-statefulset.yaml': stsPatch,
      'overlays/prod/patches/service.yaml': service,
    });
    let out = '';
    runLint({
      paths: [path.join(dir, 'overlays/prod/patches')],
      format: 'json',
      failOn: 'none',
      kustomize: false,
      write: (s) => {
        out += s;
      },
    });
    expect(clusterErrors((JSON.parse(out) as { findings: Finding[] }).findings)).toEqual([]);
  });

  const installed = findKustomize({ PATH: process.env.PATH });
  (installed ? test : test.skip)(
    `argocd-example-apps plugins/kustomized-helm, with ${installed?.label ?? 'kustomize (SKIPPED: not on PATH)'}: the build fails (RW010) and the patch file is not linted`,
    () => {
      const findings = lintFolder(folder(kustomizedHelm), true);
      expect(clusterErrors(findings)).toEqual([]);
      expect(findings.filter((f) => f.ruleId === 'RW010-kustomization-not-rendered').map((f) => f.message)).toEqual([
        expect.stringMatching(/failed \(.*cannot unmarshal string into Go struct field Kustomization.patches.*\)/),
      ]);
    },
  );

  test('near miss: the same fragment listed by a kustomization as a resource is output unchanged by kustomize, and refused; listed by none, it is a fragment', () => {
    // apps ValidateStatefulSetSpec: "spec.selector: Required value" (the API server's own rule, as the schema says)
    expect(clusterErrors(lintFolder(applied({ 'redis-statefulset.yaml': stsPatch, 'service.yaml': service })))).toEqual(
      ['RW801 spec.selector: spec.selector is required (Kubernetes 1.33)'],
    );
    expect(
      clusterFindings(lintFolder(folder({ 'redis-statefulset.yaml': stsPatch, 'service.yaml': service }))),
    ).toEqual([]);
  });
});

/** Open cluster-stage findings of any severity, as "RWnnn severity path: message". */
function clusterFindings(fs_: Finding[]): string[] {
  return fs_
    .filter((f) => /^RW80[123]-/.test(f.ruleId) && f.status === 'open')
    .map((f) => `${f.ruleId.slice(0, 5)} ${f.severity} ${f.path}: ${f.message}`);
}

describe('held-out set 2: what the second blind judge found wrong (issue 21)', () => {
  /** kubeflow/manifests applications/profiles/upstream/default (kubebuilder config/default): the patch entries are commented out. */
  const authProxyPatch =
    'apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: controller-manager\n  namespace: system\nspec:\n  template:\n    spec:\n      containers:\n      - name: kube-rbac-proxy\n        image: quay.io/brancz/kube-rbac-proxy:v0.11.0\n        ports:\n        - containerPort: 8443\n          protocol: TCP\n          name: https\n      - name: manager\n        args:\n        - "--metrics-bind-address=127.0.0.1:8080"\n';
  const webhookPatch =
    'apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: deployment\nspec:\n  template:\n    spec:\n      containers:\n      - name: manager\n        ports:\n        - containerPort: 443\n          name: webhook-server\n          protocol: TCP\n';
  const managerDeployment =
    'apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: deployment\nspec:\n  selector:\n    matchLabels:\n      control-plane: controller-manager\n  template:\n    metadata:\n      labels:\n        control-plane: controller-manager\n    spec:\n      containers:\n      - name: manager\n        image: docker.io/kubeflownotebookswg/profile-controller\n';
  const configDefault = (extra: Record<string, string> = {}): Record<string, string> => ({
    'default/kustomization.yaml':
      'namespace: profiles-system\nnamePrefix: profiles-\nbases:\n- ../manager\npatchesStrategicMerge:\n# Only one of manager_auth_proxy_patch.yaml and\n# manager_prometheus_metrics_patch.yaml should be enabled.\n#- manager_auth_proxy_patch.yaml\n',
    'default/manager_auth_proxy_patch.yaml': authProxyPatch,
    'default/manager_webhook_patch.yaml': webhookPatch,
    'manager/kustomization.yaml': 'resources:\n- manager.yaml\n',
    'manager/manager.yaml': managerDeployment,
    ...extra,
  });

  test('kubebuilder config/default (kubeflow/manifests applications/profiles/upstream/default): a patch the kustomization names only in a comment, and an unlisted patch-shaped file, are fragments', () => {
    expect(clusterFindings(lintFolder(folder(configDefault())))).toEqual([]);
  });

  test('near misses: an unlisted Deployment beside the kustomization with every image but no selector, and the patch outside any kustomization folder, are refused', () => {
    const whole = managerDeployment
      .replace(/ {2}selector:\n {4}matchLabels:\n {6}control-plane: controller-manager\n/, '')
      .replace('name: deployment', 'name: extra');
    // Unlisted, so not shown to be applied: what the API server would refuse, as warnings.
    expect(clusterFindings(lintFolder(folder(configDefault({ 'default/extra-deployment.yaml': whole }))))).toEqual([
      expect.stringMatching(
        /^RW801 warning spec.selector: if this file were applied as written: spec.selector is required .*nothing shows this file is applied as it is written/,
      ),
      expect.stringMatching(
        /^RW803 warning spec.selector: if this file were applied as written: spec.selector is required/,
      ),
    ]);
    // The patch, listed as a resource by a kustomization: kustomize outputs it as it is, refused.
    expect(clusterErrors(lintFolder(applied({ 'manager_webhook_patch.yaml': webhookPatch })))).toEqual([
      expect.stringMatching(/^RW801 spec.selector: spec.selector is required/),
      expect.stringMatching(/^RW803 spec.selector: spec.selector is required/),
    ]);
  });

  /** nginx/nginx-gateway-fabric examples/external-authentication/cafe-routes.yaml: an ExternalAuth filter (Gateway API experimental channel). */
  const externalAuthRoute = {
    apiVersion: 'gateway.networking.k8s.io/v1',
    kind: 'HTTPRoute',
    metadata: { name: 'coffee' },
    spec: {
      parentRefs: [{ name: 'gateway', sectionName: 'http' }],
      hostnames: ['cafe.example.com'],
      rules: [
        {
          matches: [{ path: { type: 'PathPrefix', value: '/coffee' } }],
          filters: [
            { type: 'ExternalAuth', externalAuth: { protocol: 'HTTP', backendRef: { name: 'auth', port: 80 } } },
          ],
          backendRefs: [{ name: 'coffee', port: 80 }],
        },
      ],
    },
  };

  test('a custom resource with a field of another CRD channel (nginx-gateway-fabric cafe-routes.yaml, ExternalAuth) is a warning naming the pinned CRD, not an error', () => {
    const found = clusterFindings(lintObjs(externalAuthRoute));
    expect(found.length).toBeGreaterThan(0);
    for (const f of found)
      expect(f).toMatch(
        /^RW801 warning .*checked against the CRD of kubernetes-sigs\/gateway-api v1\.6\.1, standard channel; the cluster's installed CRD version or channel may accept it/,
      );
  });

  test("near miss: the same route with a wrong type where the kind's API server code decides (an invalid name) is still an error", () => {
    expect(clusterErrors(lintObjs({ ...externalAuthRoute, metadata: { name: 'Coffee_Route' } }))).toEqual([
      expect.stringMatching(/^RW803 metadata.name: "Coffee_Route" is not a valid name/),
    ]);
  });

  test('fill-ins where base64 belongs: <TOKEN> (nginx-gateway-fabric examples/waf-policy/n1c-creds.yaml), a certificate cut short with ... (aws-application-networking-k8s files/examples/mixed-standalone-routes.yaml), "...base64 encoded data..." (ingress-nginx ssl-dh-param.yaml): no error', () => {
    const secret = (data: Record<string, string>) => ({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'creds' },
      type: 'Opaque',
      data,
    });
    expect(
      clusterFindings(
        lintObjs(
          secret({ token: '<TOKEN>' }),
          secret({
            'tls.crt': 'LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0t...',
            'tls.key': 'LS0tLS1CRUdJTiBQUklWQVRFIEtFWS0tLS0t...',
          }),
          secret({ 'dhparam.pem': '...base64 encoded data...' }),
        ),
      ),
    ).toEqual([]);
  });

  test('an upper-case fill-in where base64 belongs (CONNECTION_STRING_B64, dapr/samples functions-and-keda/deploy/python-function-publisher.yaml, set 4): no error', () => {
    const secret = {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'creds' },
      type: 'Opaque',
      data: { connectionString: 'CONNECTION_STRING_B64' },
    };
    expect(clusterFindings(lintObjs(secret))).toEqual([]);
  });

  test('near miss: an upper-case word without an underscore, or plain text, in data is still refused', () => {
    expect(
      clusterErrors(
        lintObjs({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 'creds' }, data: { password: 'PASSWORD!' } }),
      ),
    ).toEqual([expect.stringMatching(/^RW803 data.password: is not base64/)]);
  });

  test('near miss: plain text in data (a password written as is) is still refused', () => {
    expect(
      clusterErrors(
        lintObjs({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 'creds' }, data: { password: 'hunter2!' } }),
      ),
    ).toEqual([expect.stringMatching(/^RW803 data.password: is not base64/)]);
  });

  /** kubernetes/ingress-nginx deploy/static/provider/aws/nlb-with-tls-termination/deploy.yaml: containerPort 80 twice (http and https to the same port). */
  const controller = (ports: Obj[]): Obj => ({
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'ingress-nginx-controller', namespace: 'ingress-nginx' },
    spec: {
      selector: { matchLabels: { app: 'ingress-nginx' } },
      template: {
        metadata: { labels: { app: 'ingress-nginx' } },
        spec: {
          containers: [{ name: 'controller', image: 'registry.k8s.io/ingress-nginx/controller:v1.13.0', ports }],
        },
      },
    },
  });

  test('the same containerPort and protocol twice (ingress-nginx nlb-with-tls-termination) is a warning naming server-side apply: create and client-side apply only warn', () => {
    const found = clusterFindings(
      lintObjs(
        controller([
          { name: 'http', containerPort: 80, protocol: 'TCP' },
          { name: 'https', containerPort: 80, protocol: 'TCP' },
        ]),
      ),
    );
    expect(found).toEqual([
      expect.stringMatching(
        /^RW801 warning spec.template.spec.containers\[0\].ports: two items have the same containerPort, protocol \[80,"TCP"\].*server-side apply .* refuses it/,
      ),
    ]);
  });

  test("near miss: the same port name twice is refused by the API server's validation (an error)", () => {
    expect(
      clusterErrors(
        lintObjs(
          controller([
            { name: 'http', containerPort: 80, protocol: 'TCP' },
            { name: 'http', containerPort: 443, protocol: 'TCP' },
          ]),
        ),
      ),
    ).toEqual([expect.stringMatching(/^RW803 .*the port name "http" is used twice/)]);
  });
});

describe('set 4: a field path keeps a map key holding "/" or "." as one segment (issue 21)', () => {
  /** jpetazzo/container.training k8s/M6-ingress-nginx-svc-patch.yaml: an annotation written as a bare YAML true. */
  const svc = (annotations: Record<string, unknown>): Obj => ({
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name: 'ingress-nginx-controller', annotations },
    spec: { selector: { app: 'x' }, ports: [{ port: 80 }] },
  });

  test('metadata.annotations["service.beta.kubernetes.io/scw-loadbalancer-use-hostname"], not split at its "/"', () => {
    const found = clusterFindings(lintObjs(svc({ 'service.beta.kubernetes.io/scw-loadbalancer-use-hostname': true })));
    expect(found).toEqual([
      expect.stringContaining('metadata.annotations["service.beta.kubernetes.io/scw-loadbalancer-use-hostname"]: '),
    ]);
  });

  test('near miss: a key without "." or "/" is still a plain segment, and a string value is not reported', () => {
    expect(clusterFindings(lintObjs(svc({ owner: true })))).toEqual([
      expect.stringContaining('metadata.annotations.owner: '),
    ]);
    expect(
      clusterFindings(lintObjs(svc({ 'service.beta.kubernetes.io/scw-loadbalancer-use-hostname': 'true' }))),
    ).toEqual([]);
  });
});

describe('held-out set 6: objects not applied as written (issue 21)', () => {
  /** kubernetes/autoscaler cluster-autoscaler/cloudprovider/azure/examples/cluster-autoscaler-autodiscover.yaml (shortened). */
  const autoscaler = (image: string): Obj => ({
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'cluster-autoscaler', namespace: 'kube-system', labels: { app: 'cluster-autoscaler' } },
    spec: {
      replicas: 1,
      selector: { matchLabels: { app: 'cluster-autoscaler' } },
      template: {
        metadata: { labels: { app: 'cluster-autoscaler' } },
        spec: {
          serviceAccountName: 'cluster-autoscaler',
          containers: [
            {
              name: 'cluster-autoscaler',
              image,
              command: [
                './cluster-autoscaler',
                '--cloud-provider=azure',
                '--node-group-auto-discovery=label:cluster-autoscaler-enabled=true,cluster-autoscaler-name=<YOUR CLUSTER NAME>',
              ],
            },
          ],
        },
      },
    },
  });

  test("an image tag of {{ ca_version }} (a doc example's template fill-in) is a placeholder: no error, no warning", () => {
    expect(
      clusterFindings(lintObjs(autoscaler('registry.k8s.io/autoscaling/cluster-autoscaler:{{ ca_version }}'))),
    ).toEqual([]);
    expect(
      clusterFindings(
        lintFolder(
          folder({ 'ca.yaml': docs(autoscaler('iad.ocir.io/oracle/oci-cluster-autoscaler:{{ image tag }}')) }),
        ),
      ),
    ).toEqual([]);
  });

  test("near misses: Argo Rollouts' {{args.version}} (never substituted in a Deployment) and an image with a stray brace are still refused", () => {
    expect(
      clusterErrors(lintObjs(autoscaler('registry.k8s.io/autoscaling/cluster-autoscaler:{{args.version}}'))),
    ).toEqual([
      expect.stringMatching(
        /^RW803 spec.template.spec.containers\[0\].image: the image .* is not a valid image reference/,
      ),
    ]);
    expect(clusterErrors(lintObjs(autoscaler('registry.k8s.io/autoscaling/cluster-autoscaler:{v1.32}')))).toEqual([
      expect.stringMatching(/^RW803 spec.template.spec.containers\[0\].image: /),
    ]);
  });

  /** kubernetes/autoscaler cluster-autoscaler/cloudprovider/alicloud/examples/cluster-autoscaler-standard.yaml: `access-key-id: [YOUR_BASE64_AK_ID]`. */
  const cloudConfig = (value: unknown): Obj => ({
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: 'cloud-config', namespace: 'kube-system' },
    type: 'Opaque',
    data: { 'access-key-id': value },
  });

  test('a fill-in in square brackets that YAML reads as a list ([YOUR_BASE64_AK_ID]) is a placeholder', () => {
    expect(clusterFindings(lintObjs(cloudConfig(['YOUR_BASE64_AK_ID'])))).toEqual([]);
  });

  test('near miss: a real list, or a lower-case word in brackets, where a string belongs is still refused', () => {
    expect(clusterErrors(lintObjs(cloudConfig(['abc'])))).toEqual([
      expect.stringMatching(/^RW801 data.access-key-id: must be of type string, not array \["abc"\]/),
    ]);
    expect(clusterErrors(lintObjs(cloudConfig(['YOUR_AK', 'YOUR_SECRET'])))).toEqual([
      expect.stringMatching(/^RW801 .*must be of type string, not array/),
    ]);
  });

  /** xunholy/k8s-gitops kubernetes/apps/base/flux-system/flux-instance/extras/secret.enc.age.yaml (sops with age, values shortened). */
  const sopsSecret = (sops: Record<string, unknown> | undefined, token: string, name = 'webhook-token'): string =>
    YAML.stringify({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name, namespace: 'flux-system' },
      type: 'Opaque',
      data: { token },
      ...(sops ? { sops } : {}),
    });
  const enc =
    'ENC[AES256_GCM,data:O3HFn7k8QHDrI08N7Zm9ltdb227dGUYRi25XbqN9JVZ7Kk4Cv1fL1aWgfPulUzm3BT/s3y9xs6k=,iv:nUhnWKD2Ra4bp2NXU3jr46fulOHIQCkuA4HebiDWXak=,tag:3Z0Oc7Ov1yPnmXaRvY0v2w==,type:str]';
  const metadata = {
    age: [
      {
        recipient: 'age19gj66fq5v2veu940ftyj4pkw0w5tgxgddlyqnd00pnjzyndevurqx70g4t',
        enc: '-----BEGIN AGE ENCRYPTED FILE-----\nYWdlLWVuY3J5cHRpb24ub3JnL3YxCi0+IFgyNTUxOSBLVHAzTk5TZ0dSKytyK0JU\n-----END AGE ENCRYPTED FILE-----\n',
      },
    ],
    lastmodified: '2025-12-22T01:21:04Z',
    mac: 'ENC[AES256_GCM,data:CYZ7OY9wz6ahH1WLiv3g+hSlrpclDSUMCJTYZ55afXyLH+/e5/FNIKr3d6gd5wh5Rca5uRdSDrS7FE8j1Isnldya3ykCFEuL4iE1im2XshsGXl78q0CQYfIrhMY=,iv:Zm9vYmFyYmF6cXV4MTIzNA==,tag:c3RhbXBzdGFtcHN0YW1wcw==,type:str]',
    encrypted_regex: '^(data|stringData)$',
    mac_only_encrypted: true,
    version: '3.11.0',
  };

  test('a SOPS-encrypted Secret (sops metadata with a mac, ENC[...] values): neither the sops key nor the encrypted value is reported', () => {
    expect(clusterFindings(lintFolder(applied({ 'secret.enc.age.yaml': sopsSecret(metadata, enc) })))).toEqual([]);
  });

  /**
   * thoth-station/thoth-application amun/overlays/moc-prod/amun-api/secrets.enc.yaml (held-out
   * set 7, values shortened): a `kind: List` of Secrets whose one top-level `sops` block covers
   * the items; the items are linted one by one and carry no `sops` key of their own.
   */
  const sopsList = (token: string, name = 'kafka'): string =>
    YAML.stringify({
      apiVersion: 'v1',
      kind: 'List',
      items: [
        {
          apiVersion: 'v1',
          kind: 'Secret',
          metadata: { name, namespace: 'thoth-amun-inspection-stage' },
          type: 'Opaque',
          data: { 'kafka_ca.crt': token },
        },
      ],
      sops: metadata,
    });

  test('a SOPS-encrypted List of Secrets: the ENC[...] values of its items are not reported', () => {
    expect(clusterFindings(lintFolder(applied({ 'secrets.enc.yaml': sopsList(enc) })))).toEqual([]);
  });

  test('an ENC[...] value in the exact sops format is ciphertext even without sops metadata beside it', () => {
    expect(clusterFindings(lintFolder(applied({ 's.yaml': sopsSecret(undefined, enc) })))).toEqual([]);
  });

  test("near misses: a plain field of an encrypted Secret or List item, a value only like sops's, and a sops key without a mac are still refused", () => {
    // metadata stays plain text (encrypted_regex), so a bad name is applied as written
    expect(clusterErrors(lintFolder(applied({ 's.yaml': sopsSecret(metadata, enc, 'Webhook_Token') })))).toEqual([
      expect.stringMatching(/^RW803 metadata.name: /),
    ]);
    expect(clusterErrors(lintFolder(applied({ 's.yaml': sopsList(enc, 'Kafka_CA') })))).toEqual([
      expect.stringMatching(/^RW803 metadata.name: /),
    ]);
    // not sops's format (no iv or tag): nothing decrypts it, and the API server refuses it
    const notSops = 'ENC[AES256_GCM,data:O3HFn7k8QHDrI08N7Zm9ltdb227dGUYRi25XbqN9JVZ7Kk4Cv1fL1aWgfPulUzm3BT/s3y9xs6k=]';
    expect(clusterErrors(lintFolder(applied({ 's.yaml': sopsSecret(undefined, notSops) })))).toEqual([
      expect.stringMatching(/^RW803 data.token: is not base64/),
    ]);
    // a plain value that is not base64, in an encrypted List: still refused
    expect(clusterErrors(lintFolder(applied({ 's.yaml': sopsList('not base64!') })))).toEqual([
      expect.stringMatching(/^RW803 data\["kafka_ca.crt"\]: is not base64/),
    ]);
    // a sops key without a mac: Flux does not decrypt it (isSOPSEncryptedResource), so the key is applied
    const errors = clusterErrors(lintFolder(applied({ 's.yaml': sopsSecret({ version: '3.11.0' }, 'aGVsbG8=') })));
    expect(errors).toEqual([expect.stringMatching(/^RW801 sops: /)]);
  });
});

describe('held-out set 8: single-brace fill-ins (issue 21 round 9)', () => {
  /** kserve/kserve docs/samples/v1beta1/custom/torchserve/pv.yaml (and torchserve/model-archiver/pv.yaml), as published. */
  const pv = (volumeID: string): string => `apiVersion: v1
kind: PersistentVolume
metadata:
  name: model-pv-volume
  labels:
    type: "amazonEBS"
spec:
  capacity:
    storage: 5Gi
  accessModes:
      - ReadWriteOnce
  awsElasticBlockStore:
    volumeID: ${volumeID} #vol-074ea8934f7b80df5
    fsType: ext4
`;

  test('volumeID: {volume-id}, which YAML reads as a map of one key with no value, is a fill-in', () => {
    expect(YAML.parse(pv('{volume-id}')).spec.awsElasticBlockStore.volumeID).toEqual({ 'volume-id': null });
    expect(clusterFindings(lintFolder(applied({ 'pv.yaml': pv('{volume-id}') })))).toEqual([]);
  });

  test('near misses: a map with a value, or of two keys, where a string belongs is still refused', () => {
    expect(clusterErrors(lintFolder(applied({ 'pv.yaml': pv('{volume-id: vol-074ea8934f7b80df5}') })))).toEqual([
      expect.stringMatching(/^RW801 spec.awsElasticBlockStore.volumeID: must be of type string, not object/),
    ]);
    expect(clusterErrors(lintFolder(applied({ 'pv.yaml': pv('{volume, id}') })))).toEqual([
      expect.stringMatching(/^RW801 .*must be of type string, not object/),
    ]);
  });

  /** kserve/kserve docs/samples/v1beta1/transformer/feast/feast_server.yaml: image "{username}/feast-server:latest". */
  const feast = (image: string): Obj => ({
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'feature-server' },
    spec: {
      replicas: 1,
      selector: { matchLabels: { app: 'feature-server' } },
      template: {
        metadata: { labels: { app: 'feature-server' } },
        spec: { containers: [{ name: 'feature-server', image }] },
      },
    },
  });

  test('an image whose repository path starts with {username}/ is a fill-in', () => {
    expect(clusterFindings(lintObjs(feast('{username}/feast-server:latest')))).toEqual([]);
    expect(clusterFindings(lintObjs(feast('docker.io/{username}/feast-server:latest')))).toEqual([]);
  });

  test('near misses: a braced tag and a braced number are still refused', () => {
    for (const image of ['kserve/feast-server:{latest}', '{1}/feast-server:latest']) {
      expect([image, clusterErrors(lintObjs(feast(image)))]).toEqual([
        image,
        [expect.stringMatching(/^RW803 spec.template.spec.containers\[0\].image: /)],
      ]);
    }
  });
});

describe('a YAML .nan or .inf where a string belongs (tektoncd/plumbing tekton/cronjobs, held-out set 10)', () => {
  const cronJob = (value: string): string =>
    [
      'apiVersion: batch/v1',
      'kind: CronJob',
      'metadata:',
      '  name: image-build',
      'spec:',
      '  schedule: "0 2 * * *"',
      '  jobTemplate:',
      '    spec:',
      '      template:',
      '        spec:',
      '          restartPolicy: Never',
      '          containers:',
      '            - name: trigger',
      '              image: curlimages/curl:8.10.1',
      '              env:',
      '                - name: CONTEXT_PATH',
      `                  value: ${value}`,
      '',
    ].join('\n');
  const lintCronJob = (value: string): string[] =>
    clusterErrors(lintFolder(applied({ 'cronjob.yaml': cronJob(value) })));

  test('an unquoted .nan is refused and the message shows it as written, not as null', () => {
    expect(lintCronJob('.nan')).toEqual([
      expect.stringMatching(/env\[0\]\.value: must be of type string, not number \.nan\b/),
    ]);
  });

  test('.inf and -.inf are shown as written', () => {
    expect(lintCronJob('.inf')[0]).toMatch(/not number \.inf\b/);
    expect(lintCronJob('-.inf')[0]).toMatch(/not number -\.inf\b/);
  });

  test('near miss: the same text quoted is a string and is accepted', () => {
    expect(lintCronJob('".nan"')).toEqual([]);
  });
});
