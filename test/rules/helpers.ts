import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';

/* Builders for near-identical manifests: a clean checkout-api (no findings) and mutations of it. */
export type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- test fixtures are free-form manifests mutated by path

export function cleanDeployment(): Obj {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: {
      name: 'checkout-api',
      namespace: 'checkout',
      annotations: {
        'rollwise.dev/readiness-p99-seconds': '0.25',
        'rollwise.dev/readiness-calls-dependency': 'false',
        'rollwise.dev/peak-rps': '3700',
        'rollwise.dev/saturation-rps-per-replica': '450',
      },
    },
    spec: {
      replicas: 12,
      minReadySeconds: 30,
      strategy: { rollingUpdate: { maxSurge: '25%', maxUnavailable: 1 } },
      selector: { matchLabels: { app: 'checkout-api' } },
      template: {
        metadata: { labels: { app: 'checkout-api' } },
        spec: {
          containers: [
            {
              name: 'app',
              image: 'ghcr.io/acme/checkout-api:1.4.2',
              ports: [{ name: 'http', containerPort: 8080 }],
              resources: { requests: { cpu: '250m', memory: '512Mi' }, limits: { memory: '512Mi' } },
              readinessProbe: {
                httpGet: { path: '/healthz', port: 'http' },
                timeoutSeconds: 3,
                periodSeconds: 10,
                failureThreshold: 3,
                successThreshold: 3,
              },
              livenessProbe: { tcpSocket: { port: 'http' }, timeoutSeconds: 6, periodSeconds: 20, failureThreshold: 6 },
              startupProbe: { tcpSocket: { port: 'http' }, timeoutSeconds: 3, periodSeconds: 5, failureThreshold: 12 },
            },
          ],
        },
      },
    },
  };
}

export function pdb(maxUnavailable: number | string = 1): Obj {
  return {
    apiVersion: 'policy/v1',
    kind: 'PodDisruptionBudget',
    metadata: { name: 'checkout-api', namespace: 'checkout' },
    spec: { maxUnavailable, selector: { matchLabels: { app: 'checkout-api' } } },
  };
}

export function service(annotations: Record<string, string> = {}): Obj {
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name: 'checkout-api', namespace: 'checkout', annotations },
    spec: { selector: { app: 'checkout-api' }, ports: [{ port: 80, targetPort: 'http' }] },
  };
}

export function route(): Obj {
  return {
    apiVersion: 'gateway.networking.k8s.io/v1',
    kind: 'HTTPRoute',
    metadata: { name: 'checkout-api', namespace: 'checkout' },
    spec: {
      parentRefs: [{ name: 'public', namespace: 'gateway' }],
      rules: [{ backendRefs: [{ group: '', kind: 'Service', name: 'checkout-api', port: 80 }] }],
    },
  };
}

export function routePolicy(idle: string): Obj {
  return {
    apiVersion: 'gateway.envoyproxy.io/v1alpha1',
    kind: 'BackendTrafficPolicy',
    metadata: { name: 'checkout-api', namespace: 'checkout' },
    spec: {
      mergeType: 'StrategicMerge',
      targetRefs: [{ group: 'gateway.networking.k8s.io', kind: 'HTTPRoute', name: 'checkout-api' }],
      timeout: { http: { connectionIdleTimeout: idle } },
    },
  };
}

export function gatewayPolicy(spec: Obj): Obj {
  return {
    apiVersion: 'gateway.envoyproxy.io/v1alpha1',
    kind: 'BackendTrafficPolicy',
    metadata: { name: 'public', namespace: 'gateway' },
    spec: { targetRefs: [{ group: 'gateway.networking.k8s.io', kind: 'Gateway', name: 'public' }], ...spec },
  };
}

export function rollout(): Obj {
  const d = cleanDeployment();
  return {
    apiVersion: 'argoproj.io/v1alpha1',
    kind: 'Rollout',
    metadata: d.metadata,
    spec: {
      replicas: 12,
      minReadySeconds: 30,
      progressDeadlineAbort: true,
      selector: d.spec.selector,
      template: d.spec.template,
      strategy: {
        canary: {
          canaryService: 'checkout-api-canary',
          stableService: 'checkout-api',
          maxUnavailable: 0,
          trafficRouting: {
            plugins: { 'argoproj-labs/gatewayAPI': { httpRoute: 'checkout-api', namespace: 'checkout' } },
          },
          analysis: { startingStep: 1, templates: [{ templateName: 'error-ratio' }] },
          steps: [
            { setWeight: 5 },
            { pause: { duration: '10m' } },
            { setWeight: 25 },
            { analysis: { templates: [{ templateName: 'error-ratio' }] } },
          ],
        },
      },
    },
  };
}

/** The Services and HTTPRoute that rollout() names (the controller and the Gateway API plugin need them). */
export function rolloutPeers(): Obj[] {
  const svc = (name: string): Obj => ({
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name, namespace: 'checkout' },
    spec: { selector: { app: 'checkout-api' }, ports: [{ port: 80, targetPort: 'http' }] },
  });
  const httpRoute = route();
  httpRoute.spec.rules[0].backendRefs.push({ group: '', kind: 'Service', name: 'checkout-api-canary', port: 80 });
  return [svc('checkout-api'), svc('checkout-api-canary'), httpRoute];
}

export function analysisTemplate(successCondition: string, query: string): Obj {
  return {
    apiVersion: 'argoproj.io/v1alpha1',
    kind: 'AnalysisTemplate',
    metadata: { name: 'error-ratio', namespace: 'checkout' },
    spec: {
      metrics: [
        {
          name: 'error-ratio',
          interval: '1m',
          count: 10,
          failureLimit: 1,
          successCondition,
          provider: { prometheus: { address: 'http://prometheus:9090', query } },
        },
      ],
    },
  };
}

export const GUARDED = 'len(result) > 0 && !isNaN(result[0]) && result[0] < 0.01';
export const QUERY =
  'sum(rate(envoy_cluster_upstream_rq_xx{envoy_response_code_class="5"}[2m])) / sum(rate(envoy_cluster_upstream_rq_total[2m]))';

/** Container 0 of a workload. */
export function c0(o: Obj): Obj {
  return o.spec.template.spec.containers[0];
}

const tempDirs: string[] = [];
afterAll(() => {
  for (const d of tempDirs) fs.rmSync(d, { recursive: true, force: true });
});

/** A throwaway repository (a `.git` folder and the files by relative path), removed after the file's tests. */
/**
 * A temporary repository whose files a kustomization at its root lists as resources, with nothing
 * else: the objects are shown to be applied as written (layout.ts appliedAsIs), so the cluster
 * stage reports what the API server refuses as errors.
 */
export function appliedRepo(prefix: string, files: Record<string, string>): string {
  const resources = Object.keys(files)
    .filter((f) => !/(^|\/)kustomization\.ya?ml$/.test(f))
    .map((f) => `- ${f}\n`)
    .join('');
  return tempRepo(prefix, { ...files, 'kustomization.yaml': `resources:\n${resources}` });
}

export function tempRepo(prefix: string, files: Record<string, string>): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  tempDirs.push(dir);
  fs.mkdirSync(path.join(dir, '.git'));
  for (const [rel, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
    fs.writeFileSync(path.join(dir, rel), text);
  }
  return dir;
}
