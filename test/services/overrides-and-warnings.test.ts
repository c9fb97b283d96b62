import { Chart, Duration, Testing } from 'cdk8s';
import { HttpService, HttpServiceProps } from '../../src/constructs/http-service';
import { KubernetesVersion } from '../../src/decisions/kubernetes-version';
import { Platform } from '../../src/decisions/platform';
import { checkoutApiProps, examplePlatform } from '../../src/example';
import { RollwiseInputError } from '../../src/errors';
import { lintObjects, blockingFindings } from '../../src/rules/synth-check';
import { warningsOf } from '../../src/synth/output';
import { find, Manifest } from '../support/manifests';

function synth(props: Partial<HttpServiceProps>): { objs: Manifest[]; svc: HttpService; warnings: readonly string[] } {
  const app = Testing.app();
  const chart = new Chart(app, 'test', { namespace: 'checkout' });
  const svc = new HttpService(chart, 'checkout-api', { ...checkoutApiProps(), ...props });
  return { objs: Testing.synth(chart) as Manifest[], svc, warnings: warningsOf(app) };
}
const because = 'budget freeze until the Q3 node pool; drains run at night';

describe('a fleet without headroom can be accepted with a reason', () => {
  test('refused without the override, and the fix names it', () => {
    expect(() => synth({ replicas: 11 })).toThrow(
      /replicas = 11: the fleet has no headroom at peak.*Fix: scale out first: set replicas to at least 12; or.*overrides\.acceptNoHeadroom/,
    );
  });

  test('an acceptance without a reason is refused', () => {
    expect(() => synth({ replicas: 11, overrides: { acceptNoHeadroom: { value: true, because: '' } } })).toThrow(
      /overrides\.acceptNoHeadroom = true: an override must carry its reason/,
    );
  });

  test('accepted: PDB 1 with the reason, alert floor at the budget, runbook says so, synth-time rules pass', () => {
    const { objs, svc } = synth({ replicas: 11, overrides: { acceptNoHeadroom: { value: true, because } } });
    const pdb = find(objs, 'PodDisruptionBudget');
    expect(pdb.spec.maxUnavailable).toBe(1);
    expect(pdb.metadata.annotations?.['rollwise.dev/overrides']).toMatch(
      /spec\.maxUnavailable: Overridden \(overrides\.acceptNoHeadroom\): budget freeze .* NO headroom at peak: 3,700 req\/s over 11 replicas/,
    );
    const rule = find(objs, 'PrometheusRule');
    expect(rule.spec.groups[0].rules[0].expr).toContain(
      '< max(rollout_info_replicas_desired{namespace="checkout", name="checkout-api"}) * 10 / 11',
    );
    expect(rule.metadata.annotations?.['rollwise.dev/reasons']).toContain(
      'accepted by override (overrides.acceptNoHeadroom: budget freeze',
    );
    expect(svc.alerts?.runbook).toContain(`**No headroom at peak, accepted by override:** ${because}.`);
    expect(svc.node.validate()).toEqual([]);
    expect(blockingFindings(lintObjects(objs))).toEqual([]);
  });

  test('a simulated one-pod drain that does not hold can be accepted too', () => {
    // 3 replicas, a 2 s p99 and survivors at 97 % of the ceiling: the arithmetic allows one pod, the simulator does not.
    const slow = {
      replicas: 3,
      health: { readinessPath: '/healthz', readinessP99UnderLoad: Duration.seconds(2) },
      capacity: { peakRequestsPerSecond: 155, saturationRequestsPerSecondPerReplica: 100 },
    };
    let refused: unknown;
    try {
      synth(slow);
    } catch (e) {
      refused = e;
    }
    expect((refused as Error).message).toMatch(
      /fleet simulator says even a one-pod drain at peak does not hold.*overrides\.acceptNoHeadroom/,
    );
    const { objs } = synth({ ...slow, overrides: { acceptNoHeadroom: { value: true, because } } });
    expect(find(objs, 'PodDisruptionBudget').metadata.annotations?.['rollwise.dev/overrides']).toMatch(
      /simulated one-pod drain does not hold/,
    );
  });

  test('an acceptance that is not needed is questioned', () => {
    const { warnings } = synth({ overrides: { acceptNoHeadroom: { value: true, because } } });
    expect(warnings.join('\n')).toMatch(/overrides\.acceptNoHeadroom is set, but the fleet has headroom at peak/);
  });
});

describe('the culprit of a refusal is the input that causes it', () => {
  test('a 2 s readiness period is refused as the period, not the handler', () => {
    let e: unknown;
    try {
      new Platform({ readinessPeriod: { value: Duration.seconds(2), because: 'faster detection of dead pods' } });
    } catch (x) {
      e = x;
    }
    expect(e).toBeInstanceOf(RollwiseInputError);
    expect((e as RollwiseInputError).input).toBe('platform.readinessPeriod');
    expect((e as RollwiseInputError).message).toMatch(
      /platform\.readinessPeriod = 2 s: must be between 4 s and 60 s: the period must leave room for the 3 s timeout floor/,
    );
  });

  test('a p99 that fits the default period but not a shortened one blames the period', () => {
    const platform = new Platform({
      ...platformProps(),
      readinessPeriod: { value: Duration.seconds(5), because: 'faster detection of dead pods' },
    });
    expect(() =>
      synth({ platform, health: { readinessPath: '/healthz', readinessP99UnderLoad: Duration.millis(2500) } }),
    ).toThrow(
      /platform\.readinessPeriod = 5 s: the readiness timeout 2 x the health path's p99 \(2\.5 s\) = 5 s does not fit below a 5 s probe period.*Fix: use a period above 5 s/,
    );
  });
});

describe('implausible inputs are questioned at synth, naming both values', () => {
  test('a CPU request ten times the memory scale', () => {
    const { warnings } = synth({ resources: { cpu: '5000m', memory: '512Mi' } });
    expect(warnings.join('\n')).toMatch(
      /checkout-api: resources\.cpu = 5000m is 10 times resources\.memory = 512Mi in cores per GiB/,
    );
    expect(synth({}).warnings.join('\n')).not.toMatch(/resources\.cpu/);
  });

  test('a failureThreshold override that drags the success threshold', () => {
    const { objs, warnings } = synth({
      overrides: { readinessFailureThreshold: { value: 2, because: 'leave faster on real failures' } },
    });
    expect(warnings.join('\n')).toMatch(
      /overrides\.readinessFailureThreshold = 2 also sets readinessSuccessThreshold to 2/,
    );
    const probe = objs.find((o) => o.kind === 'Rollout')?.spec.template.spec.containers[0].readinessProbe;
    expect(probe).toMatchObject({ failureThreshold: 2, successThreshold: 2 });
    const both = synth({
      overrides: {
        readinessFailureThreshold: { value: 2, because: 'leave faster on real failures' },
        readinessSuccessThreshold: { value: 3, because: 'return as slowly as before' },
      },
    });
    expect(both.warnings.join('\n')).not.toMatch(/readinessFailureThreshold/);
  });
});

describe('sidecars on Kubernetes 1.28', () => {
  test('a sidecar that stops with the app is questioned at synth; on 1.33 (native) it is not', () => {
    const sidecars = [
      {
        name: 'sql-proxy',
        image: 'gcr.io/cloud-sql-connectors/cloud-sql-proxy:2.14.1',
        resources: { cpu: '100m', memory: '128Mi' },
      },
    ];
    expect(synth({ sidecars }).warnings.join('\n')).toMatch(
      /sidecars\[0\] \(sql-proxy\) runs as an ordinary container on Kubernetes 1\.28 and gets SIGTERM together with the app/,
    );
    const platform = new Platform({ ...platformProps(), kubernetesVersion: KubernetesVersion.V1_33 });
    expect(synth({ sidecars, platform }).warnings.join('\n')).not.toMatch(/sidecars\[0\]/);
  });
});

function platformProps() {
  const p = examplePlatform();
  return { gateway: p.gateway, prometheusAddress: p.prometheusAddress, runbookBaseUrl: p.runbookBaseUrl };
}
