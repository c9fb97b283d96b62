/*
 * Every error-level rule, on a manifest built from the shape of a public one (named in each case)
 * and on a near miss that must not be an error. The controller rules (RW7xx) have theirs in
 * test/checks/controller-parity.test.ts, whose baseline is the Gateway API plugin's
 * examples/envoygateway/rollout.yaml shape. A rule added at error level without a case here (or
 * without its upstream citation) fails the last test.
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { allRules, Finding, lintObjects, lintText, runLint } from '../../src/rules';
import * as YAML from 'yaml';
import { Obj } from './helpers';

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});

function folder(files: Record<string, string>): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rw-errors-'));
  dirs.push(dir);
  for (const [rel, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
    fs.writeFileSync(path.join(dir, rel), text);
  }
  return dir;
}

/**
 * Files a kustomization lists as resources with nothing between them and the output: shown to be
 * applied as written, where the cluster stage (RW801-RW803) is an error (cluster-rules.ts).
 */
function applied(files: Record<string, string>): string {
  return folder({
    ...files,
    'kustomization.yaml': `resources:\n${Object.keys(files)
      .map((f) => `- ${f}\n`)
      .join('')}`,
  });
}

function lintFolder(dir: string): Finding[] {
  let out = '';
  runLint({
    paths: [dir],
    format: 'json',
    failOn: 'none',
    kustomize: false,
    write: (s) => {
      out += s;
    },
  });
  return (JSON.parse(out) as { findings: Finding[] }).findings;
}

const errorsOf = (fs_: Finding[], id: string): Finding[] =>
  fs_.filter((f) => f.ruleId === id && f.severity === 'error' && f.status === 'open');

/** Sock Shop's `user` Deployment (microservices-demo/microservices-demo deploy/kubernetes/complete-demo.yaml). */
function sockShopUser(): Obj {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'user', namespace: 'sock-shop', labels: { name: 'user' } },
    spec: {
      replicas: 1,
      selector: { matchLabels: { name: 'user' } },
      template: {
        metadata: { labels: { name: 'user' } },
        spec: {
          containers: [
            {
              name: 'user',
              image: 'weaveworksdemos/user:0.4.7',
              ports: [{ containerPort: 80 }],
              resources: { limits: { cpu: '300m', memory: '200Mi' }, requests: { cpu: '100m', memory: '100Mi' } },
              livenessProbe: { httpGet: { path: '/health', port: 80 }, initialDelaySeconds: 300, periodSeconds: 3 },
              readinessProbe: { httpGet: { path: '/health', port: 80 }, initialDelaySeconds: 180, periodSeconds: 3 },
            },
          ],
        },
      },
    },
  };
}

/** Envoy Gateway's quickstart backend (envoyproxy/gateway examples/kubernetes/quickstart.yaml), serving with uvicorn. */
function quickstart(command: string[], policy?: string): Obj[] {
  const labels = { app: 'backend', version: 'v1' };
  return [
    {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 'backend', labels: { app: 'backend', service: 'backend' } },
      spec: { ports: [{ name: 'http', port: 3000, targetPort: 3000 }], selector: { app: 'backend' } },
    },
    {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'backend' },
      spec: {
        replicas: 1,
        selector: { matchLabels: labels },
        template: {
          metadata: { labels },
          spec: {
            containers: [
              {
                name: 'backend',
                image: 'ghcr.io/acme/orders:1.0',
                command,
                ports: [{ containerPort: 3000 }],
                readinessProbe: { httpGet: { path: '/healthz', port: 3000 } },
              },
            ],
          },
        },
      },
    },
    {
      apiVersion: 'gateway.networking.k8s.io/v1',
      kind: 'HTTPRoute',
      metadata: { name: 'backend' },
      spec: {
        parentRefs: [{ name: 'eg' }],
        hostnames: ['www.example.com'],
        rules: [
          {
            backendRefs: [{ group: '', kind: 'Service', name: 'backend', port: 3000, weight: 1 }],
            matches: [{ path: { type: 'PathPrefix', value: '/' } }],
          },
        ],
      },
    },
    ...(policy
      ? [
          {
            apiVersion: 'gateway.envoyproxy.io/v1alpha1',
            kind: 'BackendTrafficPolicy',
            metadata: { name: 'backend' },
            spec: {
              targetRefs: [{ group: 'gateway.networking.k8s.io', kind: 'HTTPRoute', name: 'backend' }],
              timeout: { http: { connectionIdleTimeout: policy } },
            },
          },
        ]
      : []),
  ];
}

/** podinfo's kustomize/ Deployment and HPA (stefanprodan/podinfo: minReplicas 2, maxReplicas 4) with a PDB. */
function podinfo(saturation: string): Obj[] {
  const labels = { app: 'podinfo' };
  return [
    {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: {
        name: 'podinfo',
        annotations: { 'rollwise.dev/peak-rps': '1000', 'rollwise.dev/saturation-rps-per-replica': saturation },
      },
      spec: {
        minReadySeconds: 3,
        strategy: { rollingUpdate: { maxUnavailable: 0 } },
        selector: { matchLabels: labels },
        template: {
          metadata: { labels },
          spec: {
            containers: [
              {
                name: 'podinfod',
                image: 'ghcr.io/stefanprodan/podinfo:6.7.1',
                ports: [{ name: 'http', containerPort: 9898 }],
                resources: { requests: { cpu: '100m', memory: '64Mi' } },
                readinessProbe: {
                  exec: { command: ['podcli', 'check', 'http', 'localhost:9898/readyz'] },
                  initialDelaySeconds: 5,
                  timeoutSeconds: 5,
                },
                livenessProbe: {
                  exec: { command: ['podcli', 'check', 'http', 'localhost:9898/healthz'] },
                  initialDelaySeconds: 5,
                  timeoutSeconds: 5,
                },
              },
            ],
          },
        },
      },
    },
    {
      apiVersion: 'autoscaling/v2',
      kind: 'HorizontalPodAutoscaler',
      metadata: { name: 'podinfo' },
      spec: {
        scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'podinfo' },
        minReplicas: 2,
        maxReplicas: 4,
      },
    },
    {
      apiVersion: 'policy/v1',
      kind: 'PodDisruptionBudget',
      metadata: { name: 'podinfo' },
      spec: { maxUnavailable: 1, selector: { matchLabels: labels } },
    },
  ];
}

/** An AnalysisTemplate of Argo Rollouts' docs/analysis/datadog.md or cloudwatch.md (v1.9.1) shape. */
function providerTemplate(provider: Obj, successCondition: string): Obj {
  return {
    apiVersion: 'argoproj.io/v1alpha1',
    kind: 'AnalysisTemplate',
    metadata: { name: 'loq-error-rate' },
    spec: {
      args: [{ name: 'service-name' }],
      metrics: [{ name: 'error-rate', interval: '5m', successCondition, failureLimit: 3, provider }],
    },
  };
}
const DATADOG = {
  datadog: { apiVersion: 'v2', interval: '5m', query: 'sum:requests.error.rate{service:{{args.service-name}}}' },
};
const CLOUDWATCH = {
  cloudWatch: { interval: '5m', metricDataQueries: [{ id: 'rate', expression: 'errors / requests' }] },
};

interface ErrorCase {
  readonly id: string;
  /** The public manifest the case is built from. */
  readonly shape: string;
  readonly bad: () => Finding[];
  /** The near miss: the same shape, one thing changed, and no error of the rule. */
  readonly nearMiss: () => Finding[];
  readonly message: RegExp;
}

const CASES: ErrorCase[] = [
  {
    id: 'RW000-malformed-document',
    shape:
      'Argo Rollouts examples/traffic-management/rollout-linkerd.yaml (an unquoted {{args.linkerd-enabled}} annotation value)',
    bad: () =>
      lintText(
        'apiVersion: argoproj.io/v1alpha1\nkind: AnalysisTemplate\nmetadata:\n  name: linkerd\nspec:\n  metrics:\n    - name: m\n      provider:\n        job:\n          spec:\n            template:\n              metadata:\n                annotations:\n                  linkerd.io/inject: {{args.linkerd-enabled}}\n',
        'rollout-linkerd.yaml',
      ).findings,
    nearMiss: () =>
      lintText(
        'apiVersion: argoproj.io/v1alpha1\nkind: AnalysisTemplate\nmetadata:\n  name: linkerd\nspec:\n  metrics:\n    - name: m\n      provider:\n        job:\n          spec:\n            template:\n              metadata:\n                annotations:\n                  linkerd.io/inject: "{{args.linkerd-enabled}}"\n',
        'rollout-linkerd.yaml',
      ).findings,
    message: /the mapping key \{"args.linkerd-enabled":null\} is itself a mapping or a list/,
  },
  {
    id: 'RW001-duplicate-key',
    shape:
      "the Gateway API plugin's examples/kong/rollout.yml (revisionHistoryLimit on lines 7 and 25), in a kustomization",
    bad: () =>
      lintFolder(
        folder({
          'kustomization.yaml': 'resources:\n- rollout.yml\n',
          'rollout.yml':
            'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: kong-rollout\ndata:\n  revisionHistoryLimit: "1"\n  revisionHistoryLimit: "2"\n',
        }),
      ),
    // The same file that no kustomization includes: kubectl keeps the last value (a warning).
    nearMiss: () =>
      lintFolder(
        folder({
          'rollout.yml':
            'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: kong-rollout\ndata:\n  revisionHistoryLimit: "1"\n  revisionHistoryLimit: "2"\n',
        }),
      ),
    message:
      /kustomization.yaml includes this file, and kustomize refuses it \("mapping key already defined"\), so it does not build/,
  },
  {
    id: 'RW108-readiness-calls-dependency',
    shape:
      "Online Boutique's cartservice (GoogleCloudPlatform/microservices-demo kubernetes-manifests/cartservice.yaml, gRPC readiness) declared to call Redis",
    bad: () => lintObjects([cartservice('true')]),
    nearMiss: () => lintObjects([cartservice('false')]),
    message:
      /the readiness handler grpc:\{"port":7070\} calls a dependency \(annotation rollwise.dev\/readiness-calls-dependency/,
  },
  {
    id: 'RW111-proxy-health-server-unreachable',
    shape:
      "the Cloud SQL Auth Proxy's examples/k8s-health-check/proxy_with_http_health_check.yaml (v2.14.1) without CSQL_PROXY_HTTP_ADDRESS",
    bad: () => lintObjects([cloudSqlProxyExample(undefined, ['CSQL_PROXY_HTTP_ADDRESS'])]),
    // as published: the variables set what the flags would
    nearMiss: () => lintObjects([cloudSqlProxyExample()]),
    message:
      /container "cloud-sql-proxy" \(Cloud SQL Auth Proxy\), probed by its readinessProbe on port 9801: the proxy's health server listens on --http-address "localhost" \(its default/,
  },
  {
    id: 'RW112-proxy-readiness-dials-database',
    shape:
      "the Cloud SQL Auth Proxy's examples/k8s-health-check/proxy_with_http_health_check.yaml at image 2.8.0 (its /readiness dials every instance)",
    bad: () => lintObjects([cloudSqlProxyExample('gcr.io/cloud-sql-connectors/cloud-sql-proxy:2.8.0')]),
    nearMiss: () => lintObjects([cloudSqlProxyExample()]),
    message:
      /container "cloud-sql-proxy" \(gcr\.io\/cloud-sql-connectors\/cloud-sql-proxy:2\.8\.0\) is Ready only while its \/readiness can dial every Cloud SQL instance/,
  },
  {
    id: 'RW109-readiness-cascade-composition',
    shape:
      "Sock Shop's user Deployment (CPU limit 300m over 100m, HTTP readiness every 3 s with the 1 s default timeout), at 3 replicas with failureThreshold 2",
    bad: () => {
      const d = sockShopUser();
      d.spec.replicas = 3;
      d.spec.template.spec.containers[0].readinessProbe.failureThreshold = 2;
      return lintObjects([d]);
    },
    // As published: the default failureThreshold 3 tolerates two misses (RW201's warning only).
    nearMiss: () => {
      const d = sockShopUser();
      d.spec.replicas = 3;
      return lintObjects([d]);
    },
    message:
      /CPU limit 300m over request 100m .*readiness timeout 1 s \(default\); period 3 s, failureThreshold 2, successThreshold 1 \(default\) \(leaves after 6 s, returns after 3 s\); 3 replicas/,
  },
  {
    id: 'RW305-single-replica-rolling-update-unavailable',
    shape:
      "Sock Shop's monitoring Prometheus (deploy/kubernetes/manifests-monitoring/06-prometheus-dep.yaml: replicas 1, maxUnavailable 1, and its Service 07-prometheus-svc.yaml), with its maxSurge: 0 removed",
    bad: () => lintObjects([prometheusDeployment(undefined), prometheusService()]),
    // As published: maxSurge 0 makes it a deliberate stop-then-start.
    nearMiss: () => lintObjects([prometheusDeployment(0), prometheusService()]),
    message:
      /replicas 1 with maxUnavailable 1: at each rollout the controller may remove the only pod before its replacement is available/,
  },
  {
    id: 'RW405-analysis-condition-wrong-result-shape',
    shape:
      'Argo Rollouts docs/analysis/datadog.md (v1.9.1, successCondition result <= 0.01) written with the Prometheus-style result[0]',
    bad: () => lintObjects([providerTemplate(DATADOG, 'result[0] <= 0.01')]),
    nearMiss: () => lintObjects([providerTemplate(DATADOG, 'result <= 0.01')]),
    message:
      /the Datadog provider hands the condition one number \(or nil without data\), not a list, so result\[...\] cannot be evaluated; every measurement is an Error/,
  },
  {
    id: 'RW405-analysis-condition-wrong-result-shape',
    shape:
      'Argo Rollouts docs/analysis/cloudwatch.md (v1.9.1, all(result[0].Values, ...)) with result[0] compared as a number',
    bad: () => lintObjects([providerTemplate(CLOUDWATCH, 'result[0] <= 0.01')]),
    nearMiss: () =>
      lintObjects([providerTemplate(CLOUDWATCH, 'len(result[0].Values) >= 5 and all(result[0].Values, {# <= 0.01})')]),
    message: /the CloudWatch provider hands the condition a list of MetricDataResult objects/,
  },
  {
    id: 'RW501-proxy-idle-timeout-not-below-keepalive',
    shape:
      "Envoy Gateway's examples/kubernetes/quickstart.yaml backend served by `uvicorn main:app` (FastAPI's container docs), with a 10s idle-timeout policy",
    bad: () => lintObjects(quickstart(['uvicorn', 'main:app', '--host', '0.0.0.0', '--port', '3000'], '10s')),
    nearMiss: () => lintObjects(quickstart(['uvicorn', 'main:app', '--host', '0.0.0.0', '--port', '3000'], '3s')),
    message:
      /connectionIdleTimeout 10s \(10 s\) is not below the app keep-alive 5 s of Service\/backend behind HTTPRoute\/backend \(read from the manifest: container "backend" command of Deployment\/backend: uvicorn without --timeout-keep-alive keeps idle connections 5 s/,
  },
  {
    id: 'RW502-route-without-idle-timeout-policy',
    shape:
      "Envoy Gateway's examples/kubernetes/quickstart.yaml backend served by `uvicorn main:app`, without a BackendTrafficPolicy",
    bad: () => lintObjects(quickstart(['uvicorn', 'main:app', '--host', '0.0.0.0', '--port', '3000'])),
    // uvicorn told to keep connections longer than Envoy's default hour: no race.
    nearMiss: () =>
      lintObjects(
        quickstart(['uvicorn', 'main:app', '--host', '0.0.0.0', '--port', '3000', '--timeout-keep-alive', '3700']),
      ),
    message:
      /backend Service\/backend has an app keep-alive of 5 s \(read from the manifest: container "backend" command of Deployment\/backend: uvicorn without --timeout-keep-alive keeps idle connections 5 s \(its default, uvicorn 0.35.0 uvicorn\/main.py\)\) but no BackendTrafficPolicy targets the route/,
  },
  {
    id: 'RW602-pdb-survivors-above-saturation',
    shape:
      "podinfo's kustomize/ Deployment and HPA (stefanprodan/podinfo: minReplicas 2) with a PDB of maxUnavailable 1, declared peak 1000 req/s",
    bad: () => lintObjects(podinfo('600')),
    nearMiss: () => lintObjects(podinfo('1200')),
    message:
      /maxUnavailable 1 lets 1 of 2 pods of Deployment\/podinfo go at once: 1 survivors carry 1000 \/ 1 = 1000 req\/s each at peak, above saturation 600 req\/s per replica/,
  },
  {
    id: 'RW801-kind-schema',
    shape:
      "Sock Shop's user Deployment (microservices-demo deploy/kubernetes/complete-demo.yaml) with readinessProbe typed in lower case",
    bad: () =>
      lintFolder(
        applied({ 'user-dep.yaml': YAML.stringify(renamed(sockShopUser(), 'readinessProbe', 'readinessprobe')) }),
      ),
    nearMiss: () => lintFolder(applied({ 'user-dep.yaml': YAML.stringify(sockShopUser()) })),
    message: /^is not a field of this kind \(unknown field/,
  },
  {
    id: 'RW802-crd-validation-rule',
    shape:
      "Envoy Gateway's quickstart HTTPRoute (envoyproxy/gateway examples/kubernetes/quickstart.yaml) with a path prefix of /api//v1",
    bad: () =>
      lintFolder(
        applied({
          'quickstart.yaml': quickstart(['uvicorn', 'app:app', '--timeout-keep-alive', '75'], '60s')
            .map((o) => YAML.stringify(withPath(o, '/api//v1')))
            .join('---\n'),
        }),
      ),
    nearMiss: () =>
      lintFolder(
        applied({
          'quickstart.yaml': quickstart(['uvicorn', 'app:app', '--timeout-keep-alive', '75'], '60s')
            .map((o) => YAML.stringify(withPath(o, '/api/v1')))
            .join('---\n'),
        }),
      ),
    message: /must not contain '\/\/'/,
  },
  {
    id: 'RW803-api-server-validation',
    shape:
      "Sock Shop's user Deployment (microservices-demo deploy/kubernetes/complete-demo.yaml) with an upper-case image repository",
    bad: () =>
      lintFolder(applied({ 'user-dep.yaml': YAML.stringify(withImage(sockShopUser(), 'weaveworksdemos/User:0.4.7')) })),
    nearMiss: () =>
      lintFolder(applied({ 'user-dep.yaml': YAML.stringify(withImage(sockShopUser(), 'weaveworksdemos/user:0.4.7')) })),
    message: /the image "weaveworksdemos\/User:0.4.7" has an upper-case repository name .*InvalidImageName/,
  },
  {
    id: 'RW903-invalid-fact',
    shape:
      'rollwise\'s own example output (dist/prod/checkout-api.k8s.yaml) with its readiness p99 annotation written as "250ms"',
    bad: () => lintObjects([cartservice('false', '250ms')]),
    nearMiss: () => lintObjects([cartservice('false', '0.25')]),
    message: /rollwise.dev\/readiness-p99-seconds = "250ms" .* is not seconds, a positive number/,
  },
];

/** The same object with one key of its first container renamed (a typo as users make them). */
function renamed(o: Obj, from: string, to: string): Obj {
  const c = structuredClone(o) as { spec: { template: { spec: { containers: Record<string, unknown>[] } } } };
  const c0 = c.spec.template.spec.containers[0];
  c0[to] = c0[from];
  delete c0[from];
  return c as unknown as Obj;
}

/** The same object with the image of its first container replaced. */
function withImage(o: Obj, image: string): Obj {
  const c = structuredClone(o) as { spec: { template: { spec: { containers: Record<string, unknown>[] } } } };
  c.spec.template.spec.containers[0].image = image;
  return c as unknown as Obj;
}

/** An HTTPRoute with its first match's path prefix replaced; other objects unchanged. */
function withPath(o: Obj, value: string): Obj {
  if (o.kind !== 'HTTPRoute') return o;
  const c = structuredClone(o) as { spec: { rules: { matches: { path: { value: string } }[] }[] } };
  c.spec.rules[0].matches[0].path.value = value;
  return c as unknown as Obj;
}

/** Online Boutique's cartservice Deployment (gRPC probes on 7070, CPU request 200m, limit 300m). */
function cartservice(callsDependency: string, p99?: string): Obj {
  const labels = { app: 'cartservice' };
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: {
      name: 'cartservice',
      labels,
      annotations: {
        'rollwise.dev/readiness-calls-dependency': callsDependency,
        ...(p99 ? { 'rollwise.dev/readiness-p99-seconds': p99 } : {}),
      },
    },
    spec: {
      selector: { matchLabels: labels },
      template: {
        metadata: { labels },
        spec: {
          containers: [
            {
              name: 'server',
              image: 'us-central1-docker.pkg.dev/google-samples/microservices-demo/cartservice:v0.10.2',
              ports: [{ containerPort: 7070 }],
              env: [{ name: 'REDIS_ADDR', value: 'redis-cart:6379' }],
              resources: { requests: { cpu: '200m', memory: '64Mi' } },
              readinessProbe: { initialDelaySeconds: 15, grpc: { port: 7070 } },
              livenessProbe: { initialDelaySeconds: 15, periodSeconds: 10, tcpSocket: { port: 7070 } },
            },
          ],
        },
      },
    },
  };
}

/**
 * The Cloud SQL Auth Proxy's own health-check example (GoogleCloudPlatform/cloud-sql-proxy v2.14.1
 * examples/k8s-health-check/proxy_with_http_health_check.yaml): configured through CSQL_PROXY_*
 * variables, probed on 9801. `image` and `drop` (variables left out) vary it.
 */
export function cloudSqlProxyExample(
  image = 'gcr.io/cloud-sql-connectors/cloud-sql-proxy:2.11.4',
  drop: string[] = [],
): Obj {
  const labels = { app: 'orders' };
  const env = [
    ['CSQL_PROXY_PORT', '5432'],
    ['CSQL_PROXY_HEALTH_CHECK', 'true'],
    ['CSQL_PROXY_HTTP_PORT', '9801'],
    ['CSQL_PROXY_HTTP_ADDRESS', '0.0.0.0'],
    ['CSQL_PROXY_EXIT_ZERO_ON_SIGTERM', 'true'],
  ]
    .filter(([n]) => !drop.includes(n))
    .map(([name, value]) => ({ name, value }));
  const probe = (path: string, extra: Record<string, number>) => ({
    httpGet: { path, port: 9801, scheme: 'HTTP' },
    ...extra,
  });
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'orders' },
    spec: {
      selector: { matchLabels: labels },
      template: {
        metadata: { labels },
        spec: {
          containers: [
            {
              name: 'orders',
              image: 'ghcr.io/acme/orders:1.0.0',
              env: [{ name: 'DB_USER', valueFrom: { secretKeyRef: { name: 'db', key: 'username' } } }],
            },
            {
              name: 'cloud-sql-proxy',
              image,
              args: ['acme-prod:europe-west1:orders'],
              env,
              startupProbe: probe('/startup', { failureThreshold: 60, periodSeconds: 1, timeoutSeconds: 10 }),
              livenessProbe: probe('/liveness', { failureThreshold: 3, periodSeconds: 10, timeoutSeconds: 10 }),
              readinessProbe: probe('/readiness', {
                initialDelaySeconds: 10,
                periodSeconds: 10,
                timeoutSeconds: 10,
                failureThreshold: 6,
              }),
              ports: [{ containerPort: 9801, protocol: 'TCP' }],
              resources: { requests: { memory: '2Gi', cpu: '1' } },
            },
          ],
        },
      },
    },
  };
}

/** Sock Shop's deploy/kubernetes/manifests-monitoring/07-prometheus-svc.yaml: routes to the Deployment's pods. */
function prometheusService(): Obj {
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name: 'prometheus', namespace: 'monitoring' },
    spec: {
      selector: { app: 'prometheus' },
      type: 'NodePort',
      ports: [{ name: 'prometheus', protocol: 'TCP', port: 9090, targetPort: 9090, nodePort: 31090 }],
    },
  };
}

function prometheusDeployment(maxSurge: number | undefined): Obj {
  const labels = { app: 'prometheus' };
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'prometheus-deployment', namespace: 'monitoring' },
    spec: {
      replicas: 1,
      strategy: {
        type: 'RollingUpdate',
        rollingUpdate: { ...(maxSurge !== undefined ? { maxSurge } : {}), maxUnavailable: 1 },
      },
      selector: { matchLabels: labels },
      template: {
        metadata: { labels },
        spec: {
          containers: [
            {
              name: 'prometheus',
              image: 'prom/prometheus:v2.26.0',
              args: ['--config.file=/etc/prometheus/prometheus.yml'],
              ports: [{ name: 'web', containerPort: 9090 }],
            },
          ],
        },
      },
    },
  };
}

describe('each error-level rule on a public manifest shape, and its near miss', () => {
  test.each(CASES.map((c) => [`${c.id}: ${c.shape}`, c] as const))('%s', (_title, c) => {
    const bad = errorsOf(c.bad(), c.id);
    expect(bad.map((f) => f.message).join('\n')).toMatch(c.message);
    expect(errorsOf(c.nearMiss(), c.id)).toEqual([]);
  });

  test('every rule that can report an error has a case here (RW7xx: controller-parity) and names its upstream behaviour', () => {
    const covered = new Set(CASES.map((c) => c.id));
    const errorRules = allRules().filter((r) => r.severity === 'error' || r.id === 'RW001-duplicate-key');
    expect(errorRules.filter((r) => !covered.has(r.id) && !/^RW7\d\d-/.test(r.id)).map((r) => r.id)).toEqual([]);
    // RW901 (a suppression without a reason) is a warning: the finding it meant to hide still counts.
    expect(
      errorRules
        .filter((r) => !r.upstream || !/(v\d|commit [0-9a-f]{8}|src\/rules\/)/.test(r.upstream))
        .map((r) => r.id),
    ).toEqual([]);
  });
});
