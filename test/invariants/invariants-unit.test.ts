import * as fs from 'fs';
import * as path from 'path';
import * as YAML from 'yaml';
import {
  checkInvariants,
  formatInvariantFailure,
  INVARIANTS,
  isGatewayHostname,
} from '../../src/invariants/invariants';

/**
 * Each invariant at its edges, on the committed example output (dist/prod/checkout-api.k8s.yaml,
 * kept in sync by check:dist) edited one field at a time. Fast (no synth), so StrykerJS
 * (npm run mutation) can run it for every mutant; the boundaries are the ones a mutated
 * comparison would move.
 */
type J = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- edited freely by the cases
const text = fs.readFileSync(path.join(__dirname, '..', '..', 'dist', 'prod', 'checkout-api.k8s.yaml'), 'utf8');
const base = YAML.parseAllDocuments(text, { version: '1.1' })
  .map((d) => d.toJS() as J)
  .filter(Boolean);

const of = (objs: J[], kind: string, name?: string) =>
  objs.find((o) => o.kind === kind && (name === undefined || o.metadata.name === name))!;
const pod = (objs: J[]) => of(objs, 'Rollout').spec.template.spec;
const app = (objs: J[]) => pod(objs).containers.find((c: J) => c.name === 'app');

function run(
  edit: (objs: J[]) => void,
  extra: { endpointPropagationSeconds?: number; shutdownInApplication?: boolean } = {},
): string[] {
  const objs = structuredClone(base);
  edit(objs);
  return checkInvariants({ objects: objs, endpointPropagationSeconds: 1, ...extra }).map(
    (f) => `${f.invariant.id} ${f.object} ${f.path}`,
  );
}

test('the example output holds every invariant', () => {
  expect(run(() => undefined)).toEqual([]);
  expect(INVARIANTS.map((i) => i.id)).toEqual([...new Set(INVARIANTS.map((i) => i.id))]);
});

const cases: [string, (o: J[]) => void, string | null][] = [
  // INV02
  [
    'image :latest',
    (o) => {
      app(o).image = 'ghcr.io/acme/x:latest';
    },
    'INV02-image-pinned Rollout/checkout-api spec.template.spec.containers[0].image',
  ],
  [
    'image without tag',
    (o) => {
      app(o).image = 'ghcr.io/acme/x';
    },
    'INV02-image-pinned',
  ],
  [
    'image with a trailing colon',
    (o) => {
      app(o).image = 'ghcr.io/acme/x:';
    },
    'INV02-image-pinned',
  ],
  [
    'image with whitespace',
    (o) => {
      app(o).image = 'ghcr.io/acme/x:1 ';
    },
    'INV02-image-pinned',
  ],
  [
    'image empty',
    (o) => {
      app(o).image = '';
    },
    'INV02-image-pinned',
  ],
  [
    'image by digest',
    (o) => {
      app(o).image = `ghcr.io/acme/x@sha256:${'a'.repeat(64)}`;
    },
    null,
  ],
  [
    'registry port is not a tag',
    (o) => {
      app(o).image = 'registry:5000/acme/x';
    },
    'INV02-image-pinned',
  ],
  // INV03
  [
    'replicas 1',
    (o) => {
      of(o, 'Rollout').spec.replicas = 1;
    },
    'INV03-replicas Rollout/checkout-api spec.replicas',
  ],
  [
    'replicas 2',
    (o) => {
      of(o, 'Rollout').spec.replicas = 2;
      of(o, 'PodDisruptionBudget').spec.maxUnavailable = 1;
    },
    null,
  ],
  [
    'replicas absent (1)',
    (o) => {
      delete of(o, 'Rollout').spec.replicas;
    },
    'INV03-replicas',
  ],
  [
    'replicas 2.5',
    (o) => {
      of(o, 'Rollout').spec.replicas = 2.5;
    },
    'INV03-replicas',
  ],
  [
    'autoscaler min 1',
    (o) => {
      delete of(o, 'Rollout').spec.replicas;
      o.push({
        kind: 'HorizontalPodAutoscaler',
        apiVersion: 'autoscaling/v2',
        metadata: { name: 'checkout-api' },
        spec: {
          minReplicas: 1,
          scaleTargetRef: { apiVersion: 'argoproj.io/v1alpha1', kind: 'Rollout', name: 'checkout-api' },
        },
      });
    },
    'INV03-replicas HorizontalPodAutoscaler/checkout-api spec.minReplicas',
  ],
  [
    'autoscaler min 2',
    (o) => {
      delete of(o, 'Rollout').spec.replicas;
      o.push({
        kind: 'HorizontalPodAutoscaler',
        apiVersion: 'autoscaling/v2',
        metadata: { name: 'checkout-api' },
        spec: {
          minReplicas: 2,
          scaleTargetRef: { apiVersion: 'argoproj.io/v1alpha1', kind: 'Rollout', name: 'checkout-api' },
        },
      });
    },
    null,
  ],
  // adversarial catalogue patch/hpa/target-wrong-kind: the HPA scales what scaleTargetRef names.
  [
    'autoscaler targets a StatefulSet',
    (o) => {
      delete of(o, 'Rollout').spec.replicas;
      o.push({
        kind: 'HorizontalPodAutoscaler',
        apiVersion: 'autoscaling/v2',
        metadata: { name: 'checkout-api' },
        spec: {
          minReplicas: 2,
          scaleTargetRef: { apiVersion: 'argoproj.io/v1alpha1', kind: 'StatefulSet', name: 'checkout-api' },
        },
      });
    },
    'INV03-replicas HorizontalPodAutoscaler/checkout-api spec.scaleTargetRef',
  ],
  [
    'autoscaler targets another name',
    (o) => {
      o.push({
        kind: 'HorizontalPodAutoscaler',
        apiVersion: 'autoscaling/v2',
        metadata: { name: 'checkout-api' },
        spec: {
          minReplicas: 2,
          scaleTargetRef: { apiVersion: 'argoproj.io/v1alpha1', kind: 'Rollout', name: 'orders' },
        },
      });
    },
    'INV03-replicas HorizontalPodAutoscaler/checkout-api spec.scaleTargetRef',
  ],
  [
    'autoscaler targets another group',
    (o) => {
      delete of(o, 'Rollout').spec.replicas;
      o.push({
        kind: 'HorizontalPodAutoscaler',
        apiVersion: 'autoscaling/v2',
        metadata: { name: 'checkout-api' },
        spec: { minReplicas: 2, scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Rollout', name: 'checkout-api' } },
      });
    },
    'INV03-replicas HorizontalPodAutoscaler/checkout-api spec.scaleTargetRef',
  ],
  [
    'no workload',
    (o) => {
      o.splice(o.indexOf(of(o, 'Rollout')), 1);
    },
    'INV03-replicas (service) kind',
  ],
  // INV04
  [
    'no readiness probe',
    (o) => {
      delete app(o).readinessProbe;
    },
    'INV04-readiness-probe Rollout/checkout-api spec.template.spec.containers[0].readinessProbe',
  ],
  [
    'readiness without handler',
    (o) => {
      delete app(o).readinessProbe.httpGet;
    },
    'INV04-readiness-probe',
  ],
  [
    'timeout equal to the period',
    (o) => {
      app(o).readinessProbe.timeoutSeconds = app(o).readinessProbe.periodSeconds;
    },
    'INV04-readiness-probe Rollout/checkout-api spec.template.spec.containers[0].readinessProbe.timeoutSeconds',
  ],
  [
    'timeout one below the period',
    (o) => {
      app(o).readinessProbe.timeoutSeconds = app(o).readinessProbe.periodSeconds - 1;
    },
    null,
  ],
  [
    'failureThreshold 1',
    (o) => {
      app(o).readinessProbe.failureThreshold = 1;
      app(o).readinessProbe.successThreshold = 1;
    },
    'INV04-readiness-probe Rollout/checkout-api spec.template.spec.containers[0].readinessProbe.failureThreshold',
  ],
  [
    'successThreshold below failureThreshold',
    (o) => {
      app(o).readinessProbe.successThreshold = app(o).readinessProbe.failureThreshold - 1;
    },
    'INV04-readiness-probe Rollout/checkout-api spec.template.spec.containers[0].readinessProbe.successThreshold',
  ],
  [
    'successThreshold equal to failureThreshold',
    (o) => {
      app(o).readinessProbe.successThreshold = app(o).readinessProbe.failureThreshold;
    },
    null,
  ],
  // INV05
  [
    'no liveness probe',
    (o) => {
      delete app(o).livenessProbe;
    },
    'INV05-liveness-and-startup Rollout/checkout-api spec.template.spec.containers[0].livenessProbe',
  ],
  [
    'liveness the same check as readiness',
    (o) => {
      app(o).livenessProbe = { ...app(o).readinessProbe, failureThreshold: 30 };
    },
    'INV05-liveness-and-startup',
  ],
  [
    'liveness window equal to the readiness leave window',
    (o) => {
      const r = app(o).readinessProbe;
      Object.assign(app(o).livenessProbe, { periodSeconds: r.periodSeconds, failureThreshold: r.failureThreshold });
    },
    'INV05-liveness-and-startup Rollout/checkout-api spec.template.spec.containers[0].livenessProbe.failureThreshold',
  ],
  [
    'liveness window one period longer',
    (o) => {
      const r = app(o).readinessProbe;
      Object.assign(app(o).livenessProbe, {
        periodSeconds: r.periodSeconds,
        failureThreshold: r.failureThreshold + 1,
        timeoutSeconds: 1,
      });
    },
    null,
  ],
  [
    'no startup probe',
    (o) => {
      delete app(o).startupProbe;
    },
    'INV05-liveness-and-startup Rollout/checkout-api spec.template.spec.containers[0].startupProbe',
  ],
  // INV06, INV07
  [
    'a CPU limit',
    (o) => {
      app(o).resources.limits.cpu = '1';
    },
    'INV06-no-cpu-limit Rollout/checkout-api spec.template.spec.containers[0].resources.limits.cpu',
  ],
  [
    'no CPU request',
    (o) => {
      delete app(o).resources.requests.cpu;
    },
    'INV07-memory-and-cpu-request Rollout/checkout-api spec.template.spec.containers[0].resources.requests.cpu',
  ],
  [
    'no memory request',
    (o) => {
      delete app(o).resources.requests.memory;
    },
    'INV07-memory-and-cpu-request Rollout/checkout-api spec.template.spec.containers[0].resources.requests.memory',
  ],
  [
    'memory limit above the request',
    (o) => {
      app(o).resources.limits.memory = '1Gi';
    },
    'INV07-memory-and-cpu-request Rollout/checkout-api spec.template.spec.containers[0].resources.limits.memory',
  ],
  // INV08
  [
    'no PDB',
    (o) => {
      o.splice(o.indexOf(of(o, 'PodDisruptionBudget')), 1);
    },
    'INV08-disruption-budget Rollout/checkout-api kind',
  ],
  [
    'PDB selects nothing',
    (o) => {
      of(o, 'PodDisruptionBudget').spec.selector = { matchLabels: { app: 'other' } };
    },
    'INV08-disruption-budget PodDisruptionBudget/checkout-api spec.selector',
  ],
  [
    'PDB without a budget',
    (o) => {
      delete of(o, 'PodDisruptionBudget').spec.maxUnavailable;
    },
    'INV08-disruption-budget PodDisruptionBudget/checkout-api spec.maxUnavailable',
  ],
  [
    'PDB maxUnavailable 0',
    (o) => {
      of(o, 'PodDisruptionBudget').spec.maxUnavailable = 0;
    },
    'INV08-disruption-budget PodDisruptionBudget/checkout-api spec.maxUnavailable',
  ],
  [
    'PDB maxUnavailable all',
    (o) => {
      of(o, 'PodDisruptionBudget').spec.maxUnavailable = of(o, 'Rollout').spec.replicas;
    },
    'INV08-disruption-budget',
  ],
  [
    'PDB maxUnavailable all but one',
    (o) => {
      of(o, 'PodDisruptionBudget').spec.maxUnavailable = of(o, 'Rollout').spec.replicas - 1;
    },
    null,
  ],
  [
    'PDB minAvailable all',
    (o) => {
      const p = of(o, 'PodDisruptionBudget').spec;
      delete p.maxUnavailable;
      p.minAvailable = of(o, 'Rollout').spec.replicas;
    },
    'INV08-disruption-budget PodDisruptionBudget/checkout-api spec.minAvailable',
  ],
  [
    'PDB minAvailable one below all',
    (o) => {
      const p = of(o, 'PodDisruptionBudget').spec;
      delete p.maxUnavailable;
      p.minAvailable = of(o, 'Rollout').spec.replicas - 1;
    },
    null,
  ],
  [
    'PDB maxUnavailable not a count',
    (o) => {
      of(o, 'PodDisruptionBudget').spec.maxUnavailable = 'many';
    },
    'INV08-disruption-budget',
  ],
  // INV09
  [
    'route without hostnames',
    (o) => {
      of(o, 'HTTPRoute').spec.hostnames = [];
    },
    'INV09-route-hostnames HTTPRoute/checkout-api spec.hostnames',
  ],
  [
    'route with an invalid hostname',
    (o) => {
      of(o, 'HTTPRoute').spec.hostnames = ['Checkout.example.com'];
    },
    'INV09-route-hostnames HTTPRoute/checkout-api spec.hostnames[0]',
  ],
  [
    'route without a Gateway',
    (o) => {
      of(o, 'HTTPRoute').spec.parentRefs = [];
    },
    'INV09-route-hostnames HTTPRoute/checkout-api spec.parentRefs',
  ],
  // INV10
  [
    'a metric that succeeds on no data',
    (o) => {
      of(o, 'AnalysisTemplate').spec.metrics[0].successCondition = 'true';
    },
    'INV10-analysis-guarded-and-can-fail',
  ],
  [
    'a template with no metrics',
    (o) => {
      of(o, 'AnalysisTemplate').spec.metrics = [];
    },
    'INV10-analysis-guarded-and-can-fail',
  ],
  [
    'a metric without provider',
    (o) => {
      delete of(o, 'AnalysisTemplate').spec.metrics[0].provider;
    },
    'INV10-analysis-guarded-and-can-fail',
  ],
  // INV11
  [
    'no background analysis',
    (o) => {
      delete of(o, 'Rollout').spec.strategy.canary.analysis;
    },
    'INV11-rollout-analysis-wired Rollout/checkout-api spec.strategy.canary.analysis',
  ],
  [
    'no gate step',
    (o) => {
      const c = of(o, 'Rollout').spec.strategy.canary;
      c.steps = c.steps.filter((s: J) => s.analysis === undefined);
    },
    'INV11-rollout-analysis-wired Rollout/checkout-api spec.strategy.canary.steps',
  ],
  [
    'no traffic routing',
    (o) => {
      delete of(o, 'Rollout').spec.strategy.canary.trafficRouting;
    },
    'INV11-rollout-analysis-wired Rollout/checkout-api spec.strategy.canary.trafficRouting',
  ],
  [
    'no canary Service',
    (o) => {
      delete of(o, 'Rollout').spec.strategy.canary.canaryService;
    },
    'INV11-rollout-analysis-wired Rollout/checkout-api spec.strategy.canary.stableService',
  ],
  // INV12
  [
    'hostNetwork',
    (o) => {
      pod(o).hostNetwork = true;
    },
    'INV12-restricted-security Rollout/checkout-api spec.template.spec.hostNetwork',
  ],
  [
    'pod runAsUser 0',
    (o) => {
      pod(o).securityContext.runAsUser = 0;
    },
    'INV12-restricted-security Rollout/checkout-api spec.template.spec.securityContext.runAsUser',
  ],
  [
    'hostPath volume',
    (o) => {
      pod(o).volumes = [...(pod(o).volumes ?? []), { name: 'h', hostPath: { path: '/' } }];
    },
    'INV12-restricted-security',
  ],
  [
    'privileged',
    (o) => {
      app(o).securityContext.privileged = true;
    },
    'INV12-restricted-security Rollout/checkout-api spec.template.spec.containers[0].securityContext.privileged',
  ],
  [
    'privilege escalation',
    (o) => {
      app(o).securityContext.allowPrivilegeEscalation = true;
    },
    'INV12-restricted-security Rollout/checkout-api spec.template.spec.containers[0].securityContext.allowPrivilegeEscalation',
  ],
  [
    'capabilities not dropped',
    (o) => {
      app(o).securityContext.capabilities.drop = [];
    },
    'INV12-restricted-security Rollout/checkout-api spec.template.spec.containers[0].securityContext.capabilities.drop',
  ],
  [
    'a capability added',
    (o) => {
      app(o).securityContext.capabilities.add = ['SYS_ADMIN'];
    },
    'INV12-restricted-security Rollout/checkout-api spec.template.spec.containers[0].securityContext.capabilities.add',
  ],
  [
    'NET_BIND_SERVICE added is allowed',
    (o) => {
      app(o).securityContext.capabilities.add = ['NET_BIND_SERVICE'];
    },
    null,
  ],
  [
    'seccomp Unconfined',
    (o) => {
      app(o).securityContext.seccompProfile = { type: 'Unconfined' };
      pod(o).securityContext.seccompProfile = { type: 'Unconfined' };
    },
    'INV12-restricted-security Rollout/checkout-api spec.template.spec.containers[0].securityContext.seccompProfile',
  ],
  [
    'runAsNonRoot false',
    (o) => {
      app(o).securityContext.runAsNonRoot = false;
    },
    'INV12-restricted-security Rollout/checkout-api spec.template.spec.containers[0].securityContext.runAsNonRoot',
  ],
  [
    'a hostPort',
    (o) => {
      app(o).ports[0].hostPort = 8080;
    },
    'INV12-restricted-security Rollout/checkout-api spec.template.spec.containers[0].ports[0].hostPort',
  ],
  // INV13, INV14
  [
    'token mounted',
    (o) => {
      pod(o).automountServiceAccountToken = true;
    },
    'INV13-no-service-account-token Rollout/checkout-api spec.template.spec.automountServiceAccountToken',
  ],
  [
    'token absent (true)',
    (o) => {
      delete pod(o).automountServiceAccountToken;
    },
    'INV13-no-service-account-token',
  ],
  [
    'no preStop',
    (o) => {
      delete app(o).lifecycle;
    },
    'INV14-shutdown-delay Rollout/checkout-api spec.template.spec.containers[0].lifecycle.preStop',
  ],
  [
    'grace equal to the propagation',
    (o) => {
      pod(o).terminationGracePeriodSeconds = 1;
    },
    'INV14-shutdown-delay Rollout/checkout-api spec.template.spec.terminationGracePeriodSeconds',
  ],
  [
    'grace one above the propagation',
    (o) => {
      pod(o).terminationGracePeriodSeconds = 2;
    },
    null,
  ],
  // INV15
  [
    'maxUnavailable 1',
    (o) => {
      of(o, 'Rollout').spec.strategy.canary.maxUnavailable = 1;
    },
    'INV15-rollout-safety Rollout/checkout-api spec.strategy.canary.maxUnavailable',
  ],
  [
    'maxUnavailable absent (25 %)',
    (o) => {
      delete of(o, 'Rollout').spec.strategy.canary.maxUnavailable;
    },
    'INV15-rollout-safety',
  ],
  [
    'minReadySeconds one below the leave window',
    (o) => {
      const r = app(o).readinessProbe;
      of(o, 'Rollout').spec.minReadySeconds = r.failureThreshold * r.periodSeconds - 1;
    },
    'INV15-rollout-safety Rollout/checkout-api spec.minReadySeconds',
  ],
  [
    'minReadySeconds equal to the leave window',
    (o) => {
      const r = app(o).readinessProbe;
      of(o, 'Rollout').spec.minReadySeconds = r.failureThreshold * r.periodSeconds;
    },
    null,
  ],
  [
    'progress deadline equal to minReadySeconds',
    (o) => {
      of(o, 'Rollout').spec.progressDeadlineSeconds = of(o, 'Rollout').spec.minReadySeconds;
    },
    'INV15-rollout-safety Rollout/checkout-api spec.progressDeadlineSeconds',
  ],
  // INV16
  [
    'workload selector misses its pods',
    (o) => {
      of(o, 'Rollout').spec.selector = { matchLabels: { app: 'other' } };
    },
    'INV16-services-select-pods Rollout/checkout-api spec.selector',
  ],
  [
    'Service selects nothing',
    (o) => {
      of(o, 'Service', 'checkout-api').spec.selector = { app: 'other' };
    },
    'INV16-services-select-pods Service/checkout-api spec.selector',
  ],
  [
    'Service with an empty selector',
    (o) => {
      of(o, 'Service', 'checkout-api').spec.selector = {};
    },
    'INV16-services-select-pods Service/checkout-api spec.selector',
  ],
  [
    'Service targets no container port',
    (o) => {
      of(o, 'Service', 'checkout-api').spec.ports[0].targetPort = 'nope';
    },
    'INV16-services-select-pods Service/checkout-api spec.ports[0].targetPort',
  ],
  [
    'Service targets the port by number',
    (o) => {
      of(o, 'Service', 'checkout-api').spec.ports[0].targetPort = app(o).ports[0].containerPort;
    },
    null,
  ],
  // INV17
  [
    'no metadata',
    (o) => {
      delete of(o, 'PodDisruptionBudget').metadata;
    },
    'INV17-metadata-well-formed PodDisruptionBudget/? metadata',
  ],
  [
    'an upper-case name',
    (o) => {
      of(o, 'PodDisruptionBudget').metadata.name = 'Checkout';
    },
    'INV17-metadata-well-formed PodDisruptionBudget/Checkout metadata.name',
  ],
  [
    'a namespace that is not a label',
    (o) => {
      of(o, 'PodDisruptionBudget').metadata.namespace = 'a.b';
    },
    'INV17-metadata-well-formed PodDisruptionBudget/checkout-api metadata.namespace',
  ],
  [
    'labels not a map',
    (o) => {
      of(o, 'PodDisruptionBudget').metadata.labels = ['x'];
    },
    'INV17-metadata-well-formed PodDisruptionBudget/checkout-api metadata.labels',
  ],
  [
    'a bad label key',
    (o) => {
      of(o, 'PodDisruptionBudget').metadata.labels['-x'] = 'y';
    },
    'INV17-metadata-well-formed PodDisruptionBudget/checkout-api metadata.labels["-x"]',
  ],
  [
    'a bad label value',
    (o) => {
      of(o, 'PodDisruptionBudget').metadata.labels.team = 'a b';
    },
    'INV17-metadata-well-formed PodDisruptionBudget/checkout-api metadata.labels["team"]',
  ],
  [
    'a label value of 64',
    (o) => {
      of(o, 'PodDisruptionBudget').metadata.labels.team = 'a'.repeat(64);
    },
    'INV17-metadata-well-formed',
  ],
  [
    'a label value of 63',
    (o) => {
      of(o, 'PodDisruptionBudget').metadata.labels.team = 'a'.repeat(63);
    },
    null,
  ],
  [
    'a non-string annotation',
    (o) => {
      of(o, 'PodDisruptionBudget').metadata.annotations['acme.com/x'] = 5;
    },
    'INV17-metadata-well-formed PodDisruptionBudget/checkout-api metadata.annotations["acme.com/x"]',
  ],
  [
    'a prefixed key with an empty prefix',
    (o) => {
      of(o, 'PodDisruptionBudget').metadata.labels['/x'] = 'y';
    },
    'INV17-metadata-well-formed',
  ],
  [
    'a name of 253 characters in labels of 63',
    (o) => {
      of(o, 'PodDisruptionBudget').metadata.name = [
        'a'.repeat(63),
        'b'.repeat(63),
        'c'.repeat(63),
        'd'.repeat(61),
      ].join('.');
    },
    null,
  ],
];

test.each(cases)('%s', (_, edit, expected) => {
  const found = run(edit);
  if (expected === null) expect(found).toEqual([]);
  else expect(found.some((f) => f.startsWith(expected))).toBe(true);
});

describe('overrides', () => {
  const withOverride = (o: J[], p: string, why: string) => {
    const w = of(o, 'Rollout');
    w.metadata.annotations['rollwise.dev/overrides'] = `${p}: ${why}`;
  };
  test('an overridable violation is accepted with a real reason at its path or a parent', () => {
    expect(
      run((o) => {
        app(o).resources.limits.cpu = '1';
        withOverride(
          o,
          'spec.template.spec.containers[0].resources.limits.cpu',
          'this cluster bills by limit; throttling measured at 0.3 %',
        );
      }),
    ).toEqual([]);
    expect(
      run((o) => {
        app(o).resources.limits.cpu = '1';
        withOverride(
          o,
          'spec.template.spec.containers[0].resources',
          'this cluster bills by limit; throttling measured at 0.3 %',
        );
      }),
    ).toEqual([]);
    expect(
      run((o) => {
        pod(o).automountServiceAccountToken = true;
        withOverride(o, 'spec.template.spec', 'reads its own ConfigMap through the API (reviewed)');
      }),
    ).toEqual([]);
  });
  test('a placeholder reason, another path, or a non-overridable invariant is not accepted', () => {
    expect(
      run((o) => {
        app(o).resources.limits.cpu = '1';
        withOverride(o, 'spec.template.spec.containers[0].resources.limits.cpu', 'TODO');
      }),
    ).not.toEqual([]);
    expect(
      run((o) => {
        app(o).resources.limits.cpu = '1';
        withOverride(
          o,
          'spec.template.spec.containers[0].resources.limits.cp',
          'this cluster bills by limit; throttling measured at 0.3 %',
        );
      }),
    ).not.toEqual([]);
    expect(
      run((o) => {
        of(o, 'Rollout').spec.replicas = 1;
        withOverride(o, 'spec.replicas', 'a single replica is fine for this batch service');
      }),
    ).not.toEqual([]);
    // a hard violation of an overridable invariant
    expect(
      run((o) => {
        app(o).readinessProbe.timeoutSeconds = 30;
        withOverride(
          o,
          'spec.template.spec.containers[0].readinessProbe',
          'the handler is slow by design and measured so',
        );
      }),
    ).not.toEqual([]);
  });
  test('the message says how to fix, by invariant kind', () => {
    const objs = structuredClone(base);
    app(objs).resources.limits.cpu = '1';
    of(objs, 'Rollout').spec.replicas = 1;
    const lines = checkInvariants({ objects: objs }).map(formatInvariantFailure);
    expect(lines.find((l) => l.startsWith('INV06'))).toMatch(/HttpService\.acceptPatch/);
    expect(lines.find((l) => l.startsWith('INV03'))).toMatch(/no override can make this safe/);
  });
});

describe('INV01: a decided value a patch changed', () => {
  test('is reported at the leaf, and accepted with a reason', () => {
    const before = structuredClone(base);
    const after = structuredClone(base);
    app(after).readinessProbe.periodSeconds = 11;
    const found = checkInvariants({ objects: after, unpatched: before }).map((f) => `${f.invariant.id} ${f.path}`);
    expect(found).toContain(
      'INV01-decided-values-unpatched spec.template.spec.containers[0].readinessProbe.periodSeconds',
    );
    expect(
      checkInvariants({ objects: after, unpatched: after }).filter((f) => f.invariant.id.startsWith('INV01')),
    ).toEqual([]);
  });
});

test('isGatewayHostname', () => {
  expect(isGatewayHostname('*.example.com')).toBe(true);
  expect(isGatewayHostname(`${'a'.repeat(64)}.com`)).toBe(false);
  expect(isGatewayHostname(`${'a.'.repeat(126)}ab`)).toBe(false);
  expect(isGatewayHostname(5)).toBe(false);
});
