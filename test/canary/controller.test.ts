import { Chart, Duration, JsonPatch, Testing } from 'cdk8s';
import { checkRolloutSpec } from '../../src/checks/rollout-spec';
import { ArgoCdApplication } from '../../src/constructs/argo-cd-application';
import { HttpService } from '../../src/constructs/http-service';
import { CanaryStep, Delivery } from '../../src/decisions/canary';
import { checkoutApiProps, examplePlatform } from '../../src/example';
import { SchemaValidator } from '../../src/schemas/validator';
import { find, Manifest, synthService, workload } from '../support/manifests';

const validator = SchemaValidator.load();
const base = synthService();
const clone = (): Manifest[] => JSON.parse(JSON.stringify(base)) as Manifest[];

/** Applies `mutate` to a copy of the example's Rollout and returns the controller errors. */
function errorsAfter(mutate: (rollout: Manifest, objs: Manifest[]) => void): string[] {
  const objs = clone();
  const ro = workload(objs);
  mutate(ro, objs);
  return checkRolloutSpec(ro, objs);
}

describe('controller validation (what Argo Rollouts checks at reconcile time)', () => {
  test('the example passes', () => expect(checkRolloutSpec(workload(base), base)).toEqual([]));

  test.each<[string, (ro: Manifest, objs: Manifest[]) => void, RegExp]>([
    // The controller's checks case by case are in test/checks/controller-parity.test.ts; these
    // run them on rollwise's own output.
    [
      'pause: 1d',
      (ro) => {
        ro.spec.strategy.canary.steps[1] = { pause: { duration: '1d' } };
      },
      /^Rollout checkout-api: spec\.strategy\.canary\.steps\[1\]\.pause\.duration = "1d": neither whole seconds nor a Go duration.*use "24h"/m,
    ],
    [
      'count below the limits',
      (ro, objs) => {
        const step = ro.spec.strategy.canary.steps.find((x: { analysis?: unknown }) => x.analysis);
        find(objs, 'AnalysisTemplate', step.analysis.templates[0].templateName).spec.metrics[0].failureLimit = 99;
      },
      /^AnalysisTemplate .*count \d+ is below failureLimit \+ consecutiveSuccessLimit \(99 \+ \d+\)/m,
    ],
    [
      'a Service whose selector misses the pods',
      (ro, objs) => {
        find(objs, 'Service', ro.spec.strategy.canary.canaryService).spec.selector = { app: 'other' };
      },
      /has unmatch label "app" in rollout/,
    ],
    [
      'HTTPRoute without the canary backendRef',
      (ro, objs) => {
        const r = find(objs, 'HTTPRoute');
        for (const rule of r.spec.rules)
          rule.backendRefs = rule.backendRefs.filter(
            (b: { name: string }) => b.name !== ro.spec.strategy.canary.canaryService,
          );
      },
      /backendRef was not found in httpRoute/,
    ],
  ])('%s', (_title, mutate, message) => {
    const errs = errorsAfter(mutate);
    expect(errs.join('\n')).toMatch(message);
  });
});

function synthWith(props: Parameters<typeof synthService>[0]): Manifest[] {
  return synthService(props);
}

describe('canary steps', () => {
  test('typed steps render and validate', () => {
    const objs = synthWith({
      delivery: Delivery.canary({
        steps: [
          CanaryStep.setWeight(10),
          CanaryStep.pause(Duration.minutes(5)),
          CanaryStep.analysisGate(),
          CanaryStep.setWeight(50),
          CanaryStep.pauseUntilPromoted(),
        ],
      }),
    });
    const ro = workload(objs);
    expect(ro.spec.strategy.canary.steps).toEqual([
      { setWeight: 10 },
      { pause: { duration: '5m' } },
      {
        analysis: {
          templates: [{ templateName: 'checkout-api-canary-gate' }],
          args: [{ name: 'canary-hash', valueFrom: { podTemplateHashValue: 'Latest' } }],
        },
      },
      { setWeight: 50 },
      { pause: {} },
    ]);
    expect(ro.spec.strategy.canary.analysis.startingStep).toBe(1);
    expect(validator.validate(ro)).toEqual([]);
  });

  test('a raw step written as pause: 1d fails synth naming the step', () => {
    const app = Testing.app();
    const chart = new Chart(app, 'c', { namespace: 'checkout' });
    new HttpService(chart, 'checkout-api', {
      ...checkoutApiProps(),
      delivery: Delivery.canary({
        steps: [CanaryStep.setWeight(5), CanaryStep.fromJson({ pause: { duration: '1d' } }), CanaryStep.analysisGate()],
      }),
    });
    expect(() => app.synth()).toThrow(
      /RW720-canary-pause-duration-invalid Rollout\/checkout\/checkout-api spec.strategy.canary.steps\[1\].pause.duration: .*"1d": neither whole seconds nor a Go duration/,
    );
  });

  test('an escape-hatch patch that removes the canary Service fails synth naming it', () => {
    const app = Testing.app();
    const chart = new Chart(app, 'c', { namespace: 'checkout' });
    const svc = new HttpService(chart, 'checkout-api', checkoutApiProps());
    svc.workload.addJsonPatch(JsonPatch.remove('/spec/strategy/canary/canaryService'));
    expect(() => Testing.synth(chart)).toThrow(
      /RW780-gateway-plugin-without-services .*spec.strategy.canary.canaryService: .*is empty: the controller accepts this for plugin routers, but the Gateway API plugin/,
    );
  });

  test('canary delivery without a route or platform gateway fails early with the fix', () => {
    expect(() => synthWith({ route: undefined })).toThrow(
      /route = null: canary delivery splits traffic on an HTTPRoute.*Fix: add route: \{ hostnames/,
    );
    expect(() => synthWith({ platform: undefined })).toThrow(/platform.gateway = unset: canary delivery needs it/);
  });

  test('rolling-update delivery emits a Deployment and no canary objects', () => {
    const objs = synthWith({ delivery: Delivery.rollingUpdate(), route: undefined });
    expect(objs.map((o) => o.kind).sort()).toEqual(['Deployment', 'PodDisruptionBudget', 'PrometheusRule', 'Service']);
  });
});

describe('Argo CD Application and autoscaling', () => {
  function build(autoscaling?: { maxReplicas: number; targetCpuUtilisationPercent: number }) {
    const app = Testing.app();
    const chart = new Chart(app, 'svc', { namespace: 'checkout' });
    const service = new HttpService(chart, 'checkout-api', { ...checkoutApiProps(), autoscaling });
    const apps = new Chart(app, 'apps');
    new ArgoCdApplication(apps, 'checkout-api', {
      service,
      settings: examplePlatform().argoCd!,
      include: 'checkout-api.k8s.yaml',
    });
    return { svc: Testing.synth(chart) as Manifest[], apps: Testing.synth(apps) as Manifest[] };
  }

  test('automated sync with self-heal and prune, weights ignored, no RespectIgnoreDifferences (it would freeze spec.rules)', () => {
    const { apps, svc } = build();
    const a = find(apps, 'Application');
    expect(validator.validate(a)).toEqual([]);
    expect(a.spec.syncPolicy).toEqual({
      automated: { prune: true, selfHeal: true },
      syncOptions: ['ApplyOutOfSyncOnly=true', 'CreateNamespace=true'],
      managedNamespaceMetadata: {
        labels: expect.objectContaining({
          'pod-security.kubernetes.io/enforce': 'restricted',
          'pod-security.kubernetes.io/enforce-version': 'v1.28',
        }),
      },
    });
    expect(a.spec.ignoreDifferences).toEqual([
      {
        group: 'gateway.networking.k8s.io',
        kind: 'HTTPRoute',
        name: 'checkout-api',
        namespace: 'checkout',
        jqPathExpressions: ['.spec.rules[].backendRefs[].weight'],
      },
    ]);
    expect(a.spec.source.directory.include).toBe('checkout-api.k8s.yaml');
    expect(a.metadata.annotations?.['rollwise.dev/reasons']).toContain('git revert');
    expect(workload(svc).spec.replicas).toBe(12);
  });

  test('with an autoscaler: HPA on the Rollout, no replicas in Git, and Argo CD ignores them', () => {
    const { apps, svc } = build({ maxReplicas: 30, targetCpuUtilisationPercent: 70 });
    const hpa = find(svc, 'HorizontalPodAutoscaler');
    expect(validator.validate(hpa)).toEqual([]);
    expect(hpa.spec.scaleTargetRef).toEqual({
      apiVersion: 'argoproj.io/v1alpha1',
      kind: 'Rollout',
      name: 'checkout-api',
    });
    expect(hpa.spec.minReplicas).toBe(12);
    expect(workload(svc).spec.replicas).toBeUndefined();
    expect(find(apps, 'Application').spec.ignoreDifferences[1]).toEqual({
      group: 'argoproj.io',
      kind: 'Rollout',
      name: 'checkout-api',
      namespace: 'checkout',
      jsonPointers: ['/spec/replicas'],
    });
  });

  test('an autoscaler maximum below the floor is refused', () => {
    expect(() => build({ maxReplicas: 4, targetCpuUtilisationPercent: 70 })).toThrow(
      /autoscaling.maxReplicas = 4: must be a whole number from 12/,
    );
  });
});
