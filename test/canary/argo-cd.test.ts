import { Chart, Testing } from 'cdk8s';
import { arrayFreezingIgnores, ArgoCdApplication } from '../../src/constructs/argo-cd-application';
import { HttpService } from '../../src/constructs/http-service';
import { Delivery } from '../../src/decisions/canary';
import { checkoutApiProps, examplePlatform } from '../../src/example';
import { SchemaValidator } from '../../src/schemas/validator';
import { Manifest } from '../support/manifests';

/**
 * The property the Application relies on (controller/sync.go normalizeTargetResources, argo-cd
 * v3.5.1; argo-cd#17694, #25284): with RespectIgnoreDifferences=true, an ignore rule on an array
 * element makes Argo CD apply the whole live array, so Git changes to it never land. rollwise's
 * Applications must never combine the two, for every kind of service it emits.
 */
const validator = SchemaValidator.load();

function application(variant: { canary: boolean; autoscaling: boolean; destinationNamespace?: string }): Manifest {
  const app = Testing.app();
  const chart = new Chart(app, 'svc', { namespace: 'checkout' });
  const service = new HttpService(chart, 'checkout-api', {
    ...checkoutApiProps(),
    ...(variant.canary ? {} : { delivery: Delivery.rollingUpdate(), route: undefined }),
    ...(variant.autoscaling ? { autoscaling: { maxReplicas: 30, targetCpuUtilisationPercent: 70 } } : {}),
  });
  const apps = new Chart(app, 'apps');
  new ArgoCdApplication(apps, 'checkout-api', {
    service,
    settings: examplePlatform().argoCd!,
    include: 'checkout-api.k8s.yaml',
    destinationNamespace: variant.destinationNamespace,
  });
  return (Testing.synth(apps) as Manifest[]).find((o) => o.kind === 'Application')!;
}

const variants = [false, true].flatMap((canary) =>
  [false, true].flatMap((autoscaling) =>
    [undefined, 'checkout'].map((destinationNamespace) => ({ canary, autoscaling, destinationNamespace })),
  ),
);

describe('Argo CD Application: the canary weights stay out of self-heal, every other route change applies from Git', () => {
  test.each(variants)(
    '%o: no ignore rule on an array element together with RespectIgnoreDifferences=true',
    (variant) => {
      const a = application(variant);
      expect(validator.validate(a)).toEqual([]);
      expect(arrayFreezingIgnores(a.spec)).toEqual([]);
      const options: string[] = a.spec.syncPolicy.syncOptions;
      const rules: { kind: string; jqPathExpressions?: string[]; jsonPointers?: string[] }[] =
        a.spec.ignoreDifferences ?? [];
      const namesArrayElement = rules.some(
        (r) =>
          (r.jqPathExpressions ?? []).some((e) => e.includes('[')) ||
          (r.jsonPointers ?? []).some((p) => /\/\d+(\/|$)/.test(p)),
      );
      expect(namesArrayElement && options.includes('RespectIgnoreDifferences=true')).toBe(false);
      // the release path: only what differs from Git is applied, so a Rollout change never re-applies the route
      expect(options).toContain('ApplyOutOfSyncOnly=true');
      expect(a.spec.syncPolicy.automated).toEqual({ prune: true, selfHeal: true });
      const route = rules.find((r) => r.kind === 'HTTPRoute');
      if (variant.canary) {
        // only the weights are ignored: matches, hostnames, filters and ports stay in the diff
        expect(route?.jqPathExpressions).toEqual(['.spec.rules[].backendRefs[].weight']);
        expect(route?.jsonPointers).toBeUndefined();
      } else {
        expect(route).toBeUndefined();
      }
      expect(a.metadata.annotations?.['rollwise.dev/reasons']).toMatch(
        /No RespectIgnoreDifferences=true.*argo-cd#17694, #25284/,
      );
    },
  );

  test('the check refuses the configuration that freezes spec.rules (the previous output) and array pointers', () => {
    const weights = { kind: 'HTTPRoute', jqPathExpressions: ['.spec.rules[].backendRefs[].weight'] };
    expect(
      arrayFreezingIgnores({
        syncPolicy: { syncOptions: ['RespectIgnoreDifferences=true', 'ApplyOutOfSyncOnly=true'] },
        ignoreDifferences: [weights],
      }),
    ).toEqual([
      expect.stringMatching(
        /HTTPRoute jqPathExpression \.spec\.rules\[\]\.backendRefs\[\]\.weight names an array element while RespectIgnoreDifferences=true/,
      ),
    ]);
    expect(
      arrayFreezingIgnores({
        syncPolicy: { syncOptions: ['RespectIgnoreDifferences=true'] },
        ignoreDifferences: [{ kind: 'HTTPRoute', jsonPointers: ['/spec/rules/0/backendRefs/1/weight'] }],
      }),
    ).toHaveLength(1);
    // a map field (no array on the way) is safe with RespectIgnoreDifferences, and nothing freezes without it
    expect(
      arrayFreezingIgnores({
        syncPolicy: { syncOptions: ['RespectIgnoreDifferences=true'] },
        ignoreDifferences: [{ kind: 'Rollout', jsonPointers: ['/spec/replicas'] }],
      }),
    ).toEqual([]);
    expect(
      arrayFreezingIgnores({ syncPolicy: { syncOptions: ['ApplyOutOfSyncOnly=true'] }, ignoreDifferences: [weights] }),
    ).toEqual([]);
  });
});
