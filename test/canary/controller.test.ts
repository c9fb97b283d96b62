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
    ['two kinds in one step', (ro) => { ro.spec.strategy.canary.steps[0] = { setWeight: 5, pause: {} }; }, /steps\[0\] .*exactly one of setWeight/],
    ['an unknown step kind', (ro) => { ro.spec.strategy.canary.steps[1] = { wait: '10m' }; }, /steps\[1\] .*exactly one of/],
    ['weight above 100', (ro) => { ro.spec.strategy.canary.steps[2] = { setWeight: 150 }; }, /steps\[2\]: setWeight 150 must be a whole percentage from 0 to 100/],
    ['pause: 1d', (ro) => { ro.spec.strategy.canary.steps[1] = { pause: { duration: '1d' } }; }, /steps\[1\]: pause.duration "1d" is not a number of seconds or a Go duration.*use "24h"/],
    ['setCanaryScale without traffic routing', (ro) => { delete ro.spec.strategy.canary.trafficRouting; delete ro.spec.strategy.canary.scaleDownDelaySeconds; ro.spec.strategy.canary.steps[0] = { setCanaryScale: { replicas: 1 } }; }, /steps\[0\]: setCanaryScale requires trafficRouting/],
    ['setMirrorRoute with the Gateway API plugin', (ro) => { ro.spec.strategy.canary.steps[0] = { setMirrorRoute: { name: 'm' } }; }, /setMirrorRoute is supported only with Istio/],
    ['inline analysis without a finite count', (_ro, objs) => { for (const m of find(objs, 'AnalysisTemplate', 'checkout-api-canary-gate').spec.metrics) delete m.count; }, /steps\[4\].analysis: AnalysisTemplate checkout-api-canary-gate metric "canary-error-ratio" has no finite count/],
    ['count below the limits', (_ro, objs) => { find(objs, 'AnalysisTemplate', 'checkout-api-canary-gate').spec.metrics[0].failureLimit = 7; }, /count 5 is below failureLimit \+ consecutiveSuccessLimit \(7\)/],
    ['missing canary Service', (ro) => { delete ro.spec.strategy.canary.canaryService; }, /canaryService is missing: the Gateway API plugin finds the HTTPRoute backendRefs/],
    ['same canary and stable Service', (ro) => { ro.spec.strategy.canary.canaryService = 'checkout-api'; }, /canaryService and stableService must differ/],
    ['a Service whose selector misses the pods', (_ro, objs) => { find(objs, 'Service', 'checkout-api-canary').spec.selector = { app: 'other' }; }, /Service checkout-api-canary's selector .* does not match the pod template labels/],
    ['a canary Service that does not exist', (ro) => { ro.spec.strategy.canary.canaryService = 'nope'; }, /canaryService "nope" names no Service/],
    ['progress deadline not above minReadySeconds', (ro) => { ro.spec.progressDeadlineSeconds = 30; }, /progressDeadlineSeconds \(30\) must exceed spec.minReadySeconds \(30\)/],
    ['maxSurge and maxUnavailable both 0', (ro) => { ro.spec.strategy.canary.maxSurge = 0; }, /maxSurge and maxUnavailable are both 0/],
    ['dynamicStableScale with scaleDownDelaySeconds', (ro) => { ro.spec.strategy.canary.dynamicStableScale = true; }, /dynamicStableScale cannot be combined with scaleDownDelaySeconds/],
    ['HTTPRoute without the canary backendRef', (_ro, objs) => { find(objs, 'HTTPRoute').spec.rules[0].backendRefs.pop(); }, /HTTPRoute checkout-api rule 0 has no backendRef to "checkout-api-canary"/],
    ['plugin pointing at a missing route', (ro) => { ro.spec.strategy.canary.trafficRouting.plugins['argoproj-labs/gatewayAPI'].httpRoute = 'gone'; }, /httpRoute "gone" names no synthesized HTTPRoute/],
    ['background analysis starting after the last step', (ro) => { ro.spec.strategy.canary.analysis.startingStep = 9; }, /startingStep 9 is outside the 5 steps/],
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
    const objs = synthWith({ delivery: Delivery.canary({ steps: [CanaryStep.setWeight(10), CanaryStep.pause(Duration.minutes(5)), CanaryStep.analysisGate(), CanaryStep.setWeight(50), CanaryStep.pauseUntilPromoted()] }) });
    const ro = workload(objs);
    expect(ro.spec.strategy.canary.steps).toEqual([
      { setWeight: 10 }, { pause: { duration: '5m' } },
      { analysis: { templates: [{ templateName: 'checkout-api-canary-gate' }], args: [{ name: 'canary-hash', valueFrom: { podTemplateHashValue: 'Latest' } }] } },
      { setWeight: 50 }, { pause: {} },
    ]);
    expect(ro.spec.strategy.canary.analysis.startingStep).toBe(1);
    expect(validator.validate(ro)).toEqual([]);
  });

  test('a raw step written as pause: 1d fails synth naming the step', () => {
    const app = Testing.app();
    const chart = new Chart(app, 'c', { namespace: 'checkout' });
    new HttpService(chart, 'checkout-api', { ...checkoutApiProps(), delivery: Delivery.canary({ steps: [CanaryStep.setWeight(5), CanaryStep.fromJson({ pause: { duration: '1d' } }), CanaryStep.analysisGate()] }) });
    expect(() => app.synth()).toThrow(/Rollout checkout-api: spec.strategy.canary.steps\[1\]: pause.duration "1d" is not a number of seconds or a Go duration/);
  });

  test('an escape-hatch patch that removes the canary Service fails synth naming it', () => {
    const app = Testing.app();
    const chart = new Chart(app, 'c', { namespace: 'checkout' });
    const svc = new HttpService(chart, 'checkout-api', checkoutApiProps());
    svc.workload.addJsonPatch(JsonPatch.remove('/spec/strategy/canary/canaryService'));
    expect(() => Testing.synth(chart)).toThrow(/spec.strategy.canary.canaryService is missing/);
  });

  test('canary delivery without a route or platform gateway fails early with the fix', () => {
    expect(() => synthWith({ route: undefined })).toThrow(/route = null: canary delivery splits traffic on an HTTPRoute.*Fix: add route: \{ hostnames/);
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
    new ArgoCdApplication(apps, 'checkout-api', { service, settings: examplePlatform().argoCd!, include: 'checkout-api.k8s.yaml' });
    return { svc: Testing.synth(chart) as Manifest[], apps: Testing.synth(apps) as Manifest[] };
  }

  test('automated sync with self-heal and prune, weights ignored, no RespectIgnoreDifferences (it would freeze spec.rules)', () => {
    const { apps, svc } = build();
    const a = find(apps, 'Application');
    expect(validator.validate(a)).toEqual([]);
    expect(a.spec.syncPolicy).toEqual({ automated: { prune: true, selfHeal: true }, syncOptions: ['ApplyOutOfSyncOnly=true'] });
    expect(a.spec.ignoreDifferences).toEqual([{ group: 'gateway.networking.k8s.io', kind: 'HTTPRoute', name: 'checkout-api', namespace: 'checkout', jqPathExpressions: ['.spec.rules[].backendRefs[].weight'] }]);
    expect(a.spec.source.directory.include).toBe('checkout-api.k8s.yaml');
    expect(a.metadata.annotations?.['rollwise.dev/reasons']).toContain('git revert');
    expect(workload(svc).spec.replicas).toBe(12);
  });

  test('with an autoscaler: HPA on the Rollout, no replicas in Git, and Argo CD ignores them', () => {
    const { apps, svc } = build({ maxReplicas: 30, targetCpuUtilisationPercent: 70 });
    const hpa = find(svc, 'HorizontalPodAutoscaler');
    expect(validator.validate(hpa)).toEqual([]);
    expect(hpa.spec.scaleTargetRef).toEqual({ apiVersion: 'argoproj.io/v1alpha1', kind: 'Rollout', name: 'checkout-api' });
    expect(hpa.spec.minReplicas).toBe(12);
    expect(workload(svc).spec.replicas).toBeUndefined();
    expect(find(apps, 'Application').spec.ignoreDifferences[1]).toEqual({ group: 'argoproj.io', kind: 'Rollout', name: 'checkout-api', namespace: 'checkout', jsonPointers: ['/spec/replicas'] });
  });

  test('an autoscaler maximum below the floor is refused', () => {
    expect(() => build({ maxReplicas: 4, targetCpuUtilisationPercent: 70 })).toThrow(/autoscaling.maxReplicas = 4: must be a whole number from 12/);
  });
});

