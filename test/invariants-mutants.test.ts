import { Chart, Testing } from 'cdk8s';
import { HttpService } from '../src/constructs/http-service';
import { checkoutApiProps } from '../src/example';
import { checkInvariants, ServiceObjects } from '../src/invariants/invariants';

/**
 * Boundary cases of the invariants that hand mutations (and StrykerJS, npm run mutation) showed the
 * other tests did not pin: each compares at the exact edge.
 */
function objects(): ServiceObjects {
  const app = Testing.app();
  const chart = new Chart(app, 'test', { namespace: 'checkout' });
  const svc = new HttpService(chart, 'checkout-api', checkoutApiProps());
  return {
    objects: Testing.synth(chart) as Record<string, unknown>[],
    endpointPropagationSeconds: svc.platform.endpointPropagationSeconds.value,
  };
}

function withPod(set: ServiceObjects, edit: (pod: Record<string, unknown>) => void): ServiceObjects {
  const objs = structuredClone(set.objects) as Record<string, unknown>[];
  const w = objs.find((o) => o.kind === 'Rollout')!;
  edit(((w.spec as Record<string, unknown>).template as { spec: Record<string, unknown> }).spec);
  return { ...set, objects: objs };
}

const ids = (set: ServiceObjects) => checkInvariants(set).map((f) => f.invariant.id);

describe('INV14: the grace period must outlast the endpoint propagation', () => {
  test('equal to the propagation: refused (<=, not <)', () => {
    const set = objects();
    const prop = set.endpointPropagationSeconds!;
    expect(
      ids(
        withPod(set, (p) => {
          p.terminationGracePeriodSeconds = prop;
        }),
      ),
    ).toContain('INV14-shutdown-delay');
  });
  test('one second above: accepted', () => {
    const set = objects();
    const prop = set.endpointPropagationSeconds!;
    expect(
      ids(
        withPod(set, (p) => {
          p.terminationGracePeriodSeconds = prop + 1;
        }),
      ),
    ).not.toContain('INV14-shutdown-delay');
  });
  test('absent means 30 s; a string is refused', () => {
    const set = objects();
    expect(
      ids(
        withPod(set, (p) => {
          delete p.terminationGracePeriodSeconds;
        }),
      ),
    ).toEqual(
      ids(
        withPod(set, (p) => {
          p.terminationGracePeriodSeconds = 30;
        }),
      ),
    );
    expect(
      ids(
        withPod(set, (p) => {
          p.terminationGracePeriodSeconds = 'x';
        }),
      ),
    ).toContain('INV14-shutdown-delay');
  });
  test('no preStop on the app container: refused unless the app delays its own shutdown', () => {
    const set = objects();
    const noPreStop = withPod(set, (p) => {
      delete ((p.containers as Record<string, unknown>[])[0].lifecycle as Record<string, unknown>).preStop;
    });
    expect(ids(noPreStop)).toContain('INV14-shutdown-delay');
    expect(ids({ ...noPreStop, shutdownInApplication: true })).not.toContain('INV14-shutdown-delay');
  });
});

describe('every workload under a service is checked, not only the first', () => {
  test('a second Rollout with one replica is reported', () => {
    const set = objects();
    const objs = structuredClone(set.objects) as Record<string, unknown>[];
    const second = structuredClone(objs.find((o) => o.kind === 'Rollout')!) as {
      metadata: { name: string };
      spec: { replicas: number };
    };
    second.metadata.name = 'second';
    second.spec.replicas = 1;
    const failures = checkInvariants({ ...set, objects: [...objs, second as unknown as Record<string, unknown>] });
    expect(failures.map((f) => `${f.invariant.id} ${f.object}`)).toContain('INV03-replicas Rollout/second');
  });
});
