import { Finding, lintObjects, lintText } from '../../src/rules';
import {
  analysisTemplate,
  c0,
  cleanDeployment,
  GUARDED,
  Obj,
  pdb,
  QUERY,
  rollout,
  rolloutPeers,
  service,
} from './helpers';

function open(findings: Finding[]): Finding[] {
  return findings.filter((f) => f.status === 'open');
}

function errors(findings: Finding[]): string[] {
  return open(findings)
    .filter((f) => f.severity === 'error')
    .map((f) => f.ruleId);
}

/**
 * A service with no hazard and no capacity facts: no CPU limit, timeout 3, thresholds 3/3, one
 * replica, maxUnavailable 0 (one replica with maxUnavailable 1 is RW305's outage).
 */
function base(): Obj {
  const d = cleanDeployment();
  delete d.metadata.annotations['rollwise.dev/peak-rps'];
  delete d.metadata.annotations['rollwise.dev/saturation-rps-per-replica'];
  d.spec.replicas = 1;
  d.spec.strategy.rollingUpdate.maxUnavailable = 0;
  return d;
}

const PARTS: Record<string, (d: Obj) => void> = {
  'CPU limit 500m over a 250m request': (d) => {
    c0(d).resources.limits.cpu = '500m';
  },
  'readiness timeout 1 s': (d) => {
    c0(d).readinessProbe.timeoutSeconds = 1;
  },
  'period 5 s, failureThreshold 2, successThreshold 1': (d) => {
    Object.assign(c0(d).readinessProbe, { periodSeconds: 5, failureThreshold: 2, successThreshold: 1 });
  },
  '12 replicas': (d) => {
    d.spec.replicas = 12;
  },
};

describe('severity from the composition (the readiness cascade)', () => {
  test('the whole composition is one error naming the limit, the timeout, the thresholds and the replicas', () => {
    const d = base();
    for (const apply of Object.values(PARTS)) apply(d);
    const f = lintObjects([d, pdb(), service()]);
    const errs = open(f).filter((x) => x.severity === 'error');
    expect(errs.map((x) => x.ruleId)).toEqual(['RW109-readiness-cascade-composition']);
    expect(errs[0].message).toContain('CPU limit 500m over request 250m');
    expect(errs[0].message).toContain('readiness timeout 1 s');
    expect(errs[0].message).toContain('failureThreshold 2, successThreshold 1');
    expect(errs[0].message).toContain('12 replicas');
    expect(errs[0].message).toMatch(/rollwise.dev\/peak-rps .* would let the simulated drain at peak decide it/);
    expect(errs[0].mechanism).toContain(
      '(docs/mechanisms.md#readiness-control-loop, #readiness-calls-a-dependency, #leave-slowly-return-slower)',
    );
  });

  test.each(Object.keys(PARTS))('%s alone is not an error', (part) => {
    const d = base();
    PARTS[part](d);
    expect(errors(lintObjects([d, pdb(), service()]))).toEqual([]);
  });

  test.each(Object.keys(PARTS))('the composition without %s is not an error', (part) => {
    const d = base();
    for (const [name, apply] of Object.entries(PARTS)) if (name !== part) apply(d);
    expect(errors(lintObjects([d, pdb(), service()]))).toEqual([]);
  });

  test('with capacity facts the simulator decides: a drain that empties the fleet is an error quoting the verdict', () => {
    const d = base();
    for (const apply of Object.values(PARTS)) apply(d);
    d.metadata.annotations['rollwise.dev/peak-rps'] = '3720';
    d.metadata.annotations['rollwise.dev/saturation-rps-per-replica'] = '400';
    const f = open(lintObjects([d, pdb(3), service()])).find(
      (x) => x.ruleId === 'RW109-readiness-cascade-composition',
    )!;
    expect(f.severity).toBe('error');
    expect(f.message).toMatch(
      /simulated: a drain of 3 of 12 \(PodDisruptionBudget\/checkout\/checkout-api maxUnavailable 3\) at 3,720 req\/s: ready endpoints reach 0 after \d+ s \(cascade/,
    );
    expect(f.values.simulatedMinReady).toBe(0);
  });

  test('with capacity facts that hold, the composition is a warning quoting the simulated drain', () => {
    const d = base();
    for (const apply of Object.values(PARTS)) apply(d);
    d.metadata.annotations['rollwise.dev/peak-rps'] = '3720';
    d.metadata.annotations['rollwise.dev/saturation-rps-per-replica'] = '450';
    const f = open(lintObjects([d, pdb(3), service()])).find(
      (x) => x.ruleId === 'RW109-readiness-cascade-composition',
    )!;
    expect(f.severity).toBe('warning');
    expect(f.message).toMatch(/keeps 9\/9 remaining pods ready \(stable/);
    // --no-simulate: the heuristic decides, and says the simulator is off.
    const off = open(lintObjects([d, pdb(3), service()], { simulate: false })).find(
      (x) => x.ruleId === 'RW109-readiness-cascade-composition',
    )!;
    expect(off.severity).toBe('error');
    expect(off.message).toContain('the simulator is off');
  });

  test('the simulator also finds a cascade the heuristic does not (no CPU limit, thresholds 3/3)', () => {
    const d = cleanDeployment();
    d.metadata.annotations['rollwise.dev/saturation-rps-per-replica'] = '300';
    const f = open(lintObjects([d, pdb(3), service()])).filter(
      (x) => x.ruleId === 'RW109-readiness-cascade-composition',
    );
    expect(f.map((x) => x.severity)).toEqual(['error']);
    expect(f[0].message).toMatch(/ready endpoints reach \d+ after/);
  });

  test('replicas come from an HPA that targets the workload', () => {
    const d = base();
    for (const [name, apply] of Object.entries(PARTS)) if (name !== '12 replicas') apply(d);
    const hpa = {
      apiVersion: 'autoscaling/v2',
      kind: 'HorizontalPodAutoscaler',
      metadata: { name: 'checkout-api', namespace: 'checkout' },
      spec: {
        scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'checkout-api' },
        minReplicas: 4,
        maxReplicas: 20,
      },
    };
    const f = open(lintObjects([d, pdb(), service(), hpa])).find(
      (x) => x.ruleId === 'RW109-readiness-cascade-composition',
    )!;
    expect(f.message).toContain(
      '4-20 replicas (HorizontalPodAutoscaler/checkout/checkout-api minReplicas 4, maxReplicas 20)',
    );
  });
});

describe('precision: Kubernetes defaults and mechanisms that cannot occur', () => {
  test('Kubernetes default probe thresholds on a service without a CPU limit are quiet', () => {
    const d = cleanDeployment();
    c0(d).readinessProbe = { httpGet: { path: '/healthz', port: 'http' } };
    c0(d).livenessProbe = { tcpSocket: { port: 'http' } };
    expect(open(lintObjects([d, pdb(), service()]))).toEqual([]);
  });

  test('the same defaults under a CPU limit: one RW201 warning that names the fast return (RW103 does not repeat it), no error', () => {
    const d = cleanDeployment();
    c0(d).readinessProbe = { httpGet: { path: '/healthz', port: 'http' } };
    delete c0(d).livenessProbe;
    c0(d).resources.limits.cpu = '500m';
    const f = open(lintObjects([d, pdb(), service()]));
    expect(f.map((x) => `${x.ruleId.split('-')[0]} ${x.severity}`).sort()).toEqual(['RW201 warning']);
    expect(f[0].message).toContain(
      'readiness returns after 10 s but leaves after 30 s, so a fleet the throttling emptied re-enters at once',
    );
  });

  test('RW201 leaves out a generous limit (a core or more, over twice the request), and warns about a tight one', () => {
    const d = cleanDeployment();
    c0(d).resources.limits.cpu = '2';
    c0(d).resources.requests.cpu = '100m';
    expect(open(lintObjects([d, pdb(), service()]))).toEqual([]);
    c0(d).resources.limits.cpu = '200m';
    expect(open(lintObjects([d, pdb(), service()])).map((x) => `${x.ruleId.split('-')[0]} ${x.severity}`)).toEqual([
      'RW201 warning',
    ]);
    c0(d).resources.limits.cpu = '2';
    c0(d).resources.requests.cpu = '1500m';
    expect(open(lintObjects([d, pdb(), service()])).map((x) => `${x.ruleId.split('-')[0]} ${x.severity}`)).toEqual([
      'RW201 warning',
    ]);
  });

  test('RW106 skips a tcpSocket liveness, and windows equal to readiness (the Kubernetes defaults on two endpoints)', () => {
    const d = cleanDeployment();
    c0(d).livenessProbe = { tcpSocket: { port: 'http' }, timeoutSeconds: 3, periodSeconds: 10, failureThreshold: 3 };
    expect(open(lintObjects([d, pdb(), service()]))).toEqual([]);
    // The judged noise of the issue: /livez and /readyz with the same default windows.
    c0(d).livenessProbe = {
      httpGet: { path: '/livez', port: 'http' },
      timeoutSeconds: 3,
      periodSeconds: 10,
      failureThreshold: 3,
    };
    expect(open(lintObjects([d, pdb(), service()]))).toEqual([]);
    c0(d).livenessProbe = {
      httpGet: { path: '/livez', port: 'http' },
      timeoutSeconds: 3,
      periodSeconds: 5,
      failureThreshold: 3,
    };
    expect(open(lintObjects([d, pdb(), service()])).map((x) => `${x.ruleId} ${x.severity}`)).toEqual([
      'RW106-liveness-stricter-than-readiness warning',
    ]);
  });

  test('RW105 skips identical tcpSocket probes (a TCP connect does not measure load); exec copies are reported', () => {
    const d = cleanDeployment();
    c0(d).readinessProbe = {
      tcpSocket: { port: 'http' },
      timeoutSeconds: 3,
      periodSeconds: 10,
      failureThreshold: 3,
      successThreshold: 3,
    };
    c0(d).livenessProbe = { tcpSocket: { port: 'http' }, timeoutSeconds: 3, periodSeconds: 10, failureThreshold: 3 };
    expect(open(lintObjects([d, pdb(), service()]))).toEqual([]);
    const exec = { exec: { command: ['/bin/healthcheck'] }, timeoutSeconds: 3, periodSeconds: 10, failureThreshold: 3 };
    c0(d).readinessProbe = { ...exec, successThreshold: 3 };
    c0(d).livenessProbe = exec;
    expect(open(lintObjects([d, pdb(), service()])).map((x) => x.ruleId)).toEqual([
      'RW105-liveness-identical-to-readiness',
    ]);
  });

  test('RW302 skips blue-green Rollouts', () => {
    const r = rollout();
    delete r.spec.progressDeadlineAbort;
    r.spec.strategy = { blueGreen: { activeService: 'checkout-api', previewService: 'checkout-api-preview' } };
    expect(open(lintObjects([r, pdb()]))).toEqual([]);
  });

  test('RW303 skips a canary without steps (a plain rolling update) and describes the steps it has', () => {
    const r = rollout();
    delete r.spec.strategy.canary.analysis;
    r.spec.strategy.canary.steps = [];
    expect(open(lintObjects([r, pdb(), ...rolloutPeers()]))).toEqual([]);
    r.spec.strategy.canary.steps = [{ setCanaryScale: { replicas: 1 } }, { pause: { duration: '5m' } }];
    const f = open(lintObjects([r, pdb(), ...rolloutPeers()])).find(
      (x) => x.ruleId === 'RW303-canary-without-analysis',
    )!;
    expect(f.severity).toBe('warning');
    expect(f.message).toContain('canary with 2 step(s) (1 setCanaryScale step(s), 1 pause step(s))');
    expect(f.message).not.toContain('no steps');
  });

  test('a canary gated by pause: {} is promoted by a person: RW304 info, not RW303 (the getting-started shape)', () => {
    // Argo Rollouts docs/getting-started/basic/rollout.yaml (v1.9.1): setWeight 20, pause {}, then timed pauses.
    const r = rollout();
    delete r.spec.strategy.canary.analysis;
    r.spec.strategy.canary.steps = [
      { setWeight: 20 },
      { pause: {} },
      { setWeight: 40 },
      { pause: { duration: 10 } },
      { setWeight: 60 },
      { pause: { duration: 10 } },
    ];
    const f = open(lintObjects([r, pdb(), ...rolloutPeers()]));
    expect(f.map((x) => `${x.ruleId} ${x.severity}`)).toEqual(['RW304-canary-promoted-by-hand info']);
    expect(f[0].message).toContain('1 of them an indefinite pause (pause: {}), and no analysis: a person promotes');
  });
});

test("RW601 skips an incomplete object (a kustomize patch with only replicas) and follows a Rollout's workloadRef", () => {
  const patch = {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'checkout-api', namespace: 'checkout' },
    spec: { replicas: 3, template: { spec: { containers: [{ name: 'app' }] } } },
  };
  expect(open(lintObjects([patch]))).toEqual([]);
  const d = cleanDeployment();
  d.spec.replicas = 0;
  const r = {
    apiVersion: 'argoproj.io/v1alpha1',
    kind: 'Rollout',
    metadata: { name: 'checkout-api', namespace: 'checkout' },
    spec: {
      replicas: 5,
      workloadRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'checkout-api' },
      progressDeadlineAbort: true,
      strategy: { canary: {} },
    },
  };
  expect(open(lintObjects([d, r])).map((f) => f.message)).toEqual([
    '5 replicas and no PodDisruptionBudget in the linted manifests selects labels {"app":"checkout-api"}.',
  ]);
  expect(open(lintObjects([d, r, pdb()]))).toEqual([]);
});

describe('recall', () => {
  test.each([
    ['grpc', { grpc: { port: 9090 } }],
    ['exec', { exec: { command: ['/bin/grpc_health_probe', '-addr=:9090'] } }],
  ])('a %s readiness probe under a CPU limit is checked like an HTTP one', (handler, probe) => {
    const d = cleanDeployment();
    c0(d).readinessProbe = { ...probe, timeoutSeconds: 1, periodSeconds: 5, failureThreshold: 2, successThreshold: 1 };
    c0(d).resources.limits.cpu = '300m';
    delete d.metadata.annotations['rollwise.dev/peak-rps'];
    const f = open(lintObjects([d, pdb(), service()]));
    expect(f.find((x) => x.ruleId.startsWith('RW201'))!.message).toContain(`readinessProbe (${handler})`);
    expect(f.filter((x) => x.severity === 'error').map((x) => x.ruleId)).toEqual([
      'RW109-readiness-cascade-composition',
    ]);
  });

  test("RW601 counts an HPA's replicas; RW602 uses its floor", () => {
    const d = cleanDeployment();
    delete d.spec.replicas;
    const hpa = {
      apiVersion: 'autoscaling/v2',
      kind: 'HorizontalPodAutoscaler',
      metadata: { name: 'checkout-api', namespace: 'checkout' },
      spec: {
        scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'checkout-api' },
        minReplicas: 6,
        maxReplicas: 30,
      },
    };
    const noPdb = open(lintObjects([d, service(), hpa])).find((x) => x.ruleId.startsWith('RW601'))!;
    expect(noPdb.message).toContain('HorizontalPodAutoscaler/checkout/checkout-api minReplicas 6');
    const tight = open(lintObjects([d, service(), hpa, pdb(2)])).find((x) => x.ruleId.startsWith('RW602'))!;
    expect(tight.message).toContain('lets 2 of 6 pods');
  });

  test('a KEDA ScaledObject owns the replica count too', () => {
    const d = cleanDeployment();
    d.spec.replicas = 1;
    const so = {
      apiVersion: 'keda.sh/v1alpha1',
      kind: 'ScaledObject',
      metadata: { name: 'checkout-api', namespace: 'checkout' },
      spec: { scaleTargetRef: { name: 'checkout-api' }, minReplicaCount: 3, maxReplicaCount: 10 },
    };
    const f = open(lintObjects([d, service(), so])).find((x) => x.ruleId.startsWith('RW601'))!;
    expect(f.message).toContain('ScaledObject/checkout/checkout-api minReplicaCount 3');
  });

  test('bare Pods and ReplicaSets are probe-checked; Jobs and CronJobs are counted as skipped kinds', () => {
    const d = cleanDeployment();
    const pod = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'debug', namespace: 'checkout' },
      spec: { containers: [{ ...c0(d), readinessProbe: { ...c0(d).readinessProbe, failureThreshold: 1 } }] },
    };
    const rs = {
      apiVersion: 'apps/v1',
      kind: 'ReplicaSet',
      metadata: { name: 'checkout-api-7d9', namespace: 'checkout' },
      spec: {
        replicas: 1,
        selector: d.spec.selector,
        template: {
          metadata: d.spec.template.metadata,
          spec: { containers: [{ ...c0(d), readinessProbe: { ...c0(d).readinessProbe, failureThreshold: 1 } }] },
        },
      },
    };
    const job = {
      apiVersion: 'batch/v1',
      kind: 'Job',
      metadata: { name: 'migrate' },
      spec: { template: { spec: { containers: [{ name: 'm', image: 'x' }] } } },
    };
    const text = [pod, rs, job].map((o) => JSON.stringify(o)).join('\n---\n');
    const r = lintText(text, 'mixed.yaml');
    expect(open(r.findings).map((x) => `${x.ruleId.split('-')[0]} ${x.kind} ${x.path}`)).toEqual([
      'RW102 Pod spec.containers[0].readinessProbe.failureThreshold',
      'RW102 ReplicaSet spec.template.spec.containers[0].readinessProbe.failureThreshold',
    ]);
    expect(r.skippedKinds).toEqual({ Job: 1 });
  });
});

describe('no data: every form that turns it into a pass is reported (a warning: the gate fails to stop a release, it causes nothing)', () => {
  const datadog = (cond: string): Obj => ({
    apiVersion: 'argoproj.io/v1alpha1',
    kind: 'AnalysisTemplate',
    metadata: { name: 'dd', namespace: 'checkout' },
    spec: {
      metrics: [
        {
          name: 'errors',
          interval: '1m',
          successCondition: cond,
          provider: { datadog: { apiVersion: 'v2', query: 'sum:requests.error{*}.as_count()' } },
        },
      ],
    },
  });
  test.each([
    ['default(result, 0) < 10 (Datadog: no data is nil)', [datadog('default(result, 0) < 10')], 'RW403'],
    [
      'isNaN(result[0]) || result[0] < 0.01',
      [analysisTemplate('len(result) > 0 && (isNaN(result[0]) || result[0] < 0.01)', QUERY)],
      'RW403',
    ],
    [
      'len(result) == 0 || result[0] < 0.01',
      [analysisTemplate('len(result) == 0 || !isNaN(result[0]) && result[0] < 0.01', QUERY)],
      'RW403',
    ],
    ['missing NaN guard', [analysisTemplate('len(result) > 0 && result[0] < 0.01', QUERY)], 'RW401'],
    ['or vector(1) around the ratio', [analysisTemplate(GUARDED, `${QUERY} or vector(1)`)], 'RW402'],
    [
      'or vector(0) in the denominator',
      [analysisTemplate(GUARDED, 'sum(rate(err[2m])) / (sum(rate(all[2m])) or vector(0))')],
      'RW402',
    ],
  ])('%s', (_name, objs, rule) => {
    expect(open(lintObjects(objs)).map((f) => `${f.ruleId.split('-')[0]} ${f.severity}`)).toEqual([`${rule} warning`]);
  });

  test.each([
    [
      'a defaulted numerator',
      [analysisTemplate(GUARDED, '(sum(rate(err[2m])) or on() vector(0)) / sum(rate(all[2m]))')],
    ],
    ['the guarded Datadog form', [datadog('!isNil(result) && result < 10')]],
    ['the guarded Prometheus form', [analysisTemplate(GUARDED, QUERY)]],
  ])('%s stays quiet', (_name, objs) => {
    expect(open(lintObjects(objs))).toEqual([]);
  });
});
