import * as fs from 'fs';
import * as path from 'path';
import * as YAML from 'yaml';
import { checkInvariants, INVARIANTS, isGatewayHostname, ServiceObjects } from '../../src/invariants/invariants';

/**
 * The invariants on malformed objects (what an escape-hatch patch can leave: a missing spec, a
 * container without resources) and at the remaining edges StrykerJS found unpinned: each must
 * report, never crash, and report exactly once.
 */
type J = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- edited freely by the cases
const base = YAML.parseAllDocuments(
  fs.readFileSync(path.join(__dirname, '..', '..', 'dist', 'prod', 'checkout-api.k8s.yaml'), 'utf8'),
  { version: '1.1' },
)
  .map((d) => d.toJS() as J)
  .filter(Boolean);
const of = (objs: J[], kind: string, name?: string) =>
  objs.find((o) => o.kind === kind && (name === undefined || o.metadata?.name === name))!;
const pod = (objs: J[]) => of(objs, 'Rollout').spec.template.spec;
const app = (objs: J[]) => pod(objs).containers.find((c: J) => c.name === 'app');

function failures(objs: J[], extra: Partial<ServiceObjects> = {}) {
  return checkInvariants({ objects: objs, endpointPropagationSeconds: 1, ...extra });
}
function edited(edit: (o: J[]) => void): J[] {
  const o = structuredClone(base);
  edit(o);
  return o;
}
const lines = (objs: J[], extra: Partial<ServiceObjects> = {}) =>
  failures(objs, extra).map((f) => `${f.invariant.id} ${f.object} ${f.path}: ${f.message}`);

describe('malformed objects: reported, never a crash, every failure well-formed', () => {
  const skeletons: [string, J[]][] = [
    ['a bare Rollout', [{ kind: 'Rollout' }]],
    ['a Rollout without a template', [{ kind: 'Rollout', metadata: { name: 'a' }, spec: {} }]],
    ['a template without a spec', [{ kind: 'Rollout', metadata: { name: 'a' }, spec: { template: {} } }]],
    ['a pod without containers', [{ kind: 'Rollout', metadata: { name: 'a' }, spec: { template: { spec: {} } } }]],
    [
      'an empty container',
      [{ kind: 'Rollout', metadata: { name: 'a' }, spec: { template: { spec: { containers: [{}] } } } }],
    ],
    [
      'a container with empty parts',
      [
        {
          kind: 'Rollout',
          metadata: { name: 'a' },
          spec: {
            strategy: {},
            template: {
              spec: {
                containers: [{ name: 'app', resources: {}, securityContext: {}, ports: [{}], lifecycle: {} }],
                volumes: [{}],
              },
            },
          },
        },
      ],
    ],
    [
      'a Deployment with an empty strategy',
      [
        {
          kind: 'Deployment',
          metadata: { name: 'a' },
          spec: {
            strategy: { rollingUpdate: {} },
            template: { spec: { containers: [{ name: 'app', resources: { limits: {}, requests: {} } }] } },
          },
        },
      ],
    ],
    [
      'bare companions',
      [
        { kind: 'Rollout', metadata: { name: 'a' }, spec: { template: { spec: { containers: [{ name: 'app' }] } } } },
        { kind: 'Service' },
        { kind: 'Service', spec: { ports: [{}] } },
        { kind: 'HTTPRoute' },
        { kind: 'AnalysisTemplate' },
        { kind: 'AnalysisTemplate', spec: { metrics: [{}] } },
        { kind: 'PodDisruptionBudget' },
        { kind: 'PodDisruptionBudget', spec: {} },
        { kind: 'HorizontalPodAutoscaler' },
      ],
    ],
    [
      'a canary Rollout with an empty strategy',
      [{ kind: 'Rollout', metadata: { name: 'a' }, spec: { strategy: { canary: { steps: [{}] } } } }],
    ],
    ['no objects', []],
  ];
  test.each(skeletons)('%s', (_, objs) => {
    const fs0 = failures(objs);
    expect(fs0.length).toBeGreaterThan(0);
    for (const f of fs0) {
      expect(typeof f.message).toBe('string');
      expect(typeof f.path).toBe('string');
      expect(f.path.length).toBeGreaterThan(0);
      expect(typeof f.object).toBe('string');
    }
  });
  test('without a workload: the workload invariants say so once, and nothing else about pods', () => {
    const found = lines([]);
    expect(found).toEqual(['INV03-replicas (service) kind: no Rollout or Deployment is emitted']);
  });
  test('a workload without a pod spec: the pod invariants stay silent', () => {
    const ids = failures([
      { kind: 'Rollout', apiVersion: 'argoproj.io/v1alpha1', metadata: { name: 'a' }, spec: { replicas: 3 } },
    ]).map((f) => f.invariant.id);
    for (const id of [
      'INV02-image-pinned',
      'INV04-readiness-probe',
      'INV05-liveness-and-startup',
      'INV06-no-cpu-limit',
      'INV07-memory-and-cpu-request',
      'INV12-restricted-security',
      'INV13-no-service-account-token',
      'INV14-shutdown-delay',
    ])
      expect(ids).not.toContain(id);
  });
});

test('which invariants an override may accept is policy, pinned here', () => {
  expect(Object.fromEntries(INVARIANTS.map((i) => [i.id.split('-')[0], i.overridable]))).toEqual({
    INV01: true,
    INV02: false,
    INV03: false,
    INV04: true,
    INV05: false,
    INV06: true,
    INV07: false,
    INV08: false,
    INV09: false,
    INV10: false,
    INV11: false,
    INV12: false,
    INV13: true,
    INV14: false,
    INV15: false,
    INV16: false,
    INV17: false,
  });
});

describe('hard violations of overridable invariants are not accepted by an override', () => {
  const reason = 'the handler is slow by design; measured and reviewed';
  const withOverride = (o: J[], p: string) => {
    of(o, 'Rollout').metadata.annotations['rollwise.dev/overrides'] = `${p}: ${reason}`;
  };
  test.each([
    [
      'no readiness probe',
      (o: J[]) => {
        delete app(o).readinessProbe;
      },
    ],
    [
      'a readiness probe without handler',
      (o: J[]) => {
        delete app(o).readinessProbe.httpGet;
      },
    ],
    [
      'returns faster than it leaves',
      (o: J[]) => {
        app(o).readinessProbe.successThreshold = 1;
      },
    ],
  ])('%s', (_, edit) => {
    const o = edited((x) => {
      edit(x);
      withOverride(x, 'spec.template.spec.containers[0].readinessProbe');
    });
    expect(failures(o).map((f) => f.invariant.id)).toContain('INV04-readiness-probe');
  });
  test('a failureThreshold of 1 is accepted with a reason (not hard)', () => {
    const o = edited((x) => {
      Object.assign(app(x).readinessProbe, { failureThreshold: 1, successThreshold: 1 });
      withOverride(x, 'spec.template.spec.containers[0].readinessProbe.failureThreshold');
    });
    expect(failures(o)).toEqual([]);
  });
  test('an override of a list parent ("containers") accepts its items', () => {
    const o = edited((x) => {
      app(x).resources.limits.cpu = '1';
      of(x, 'Rollout').metadata.annotations['rollwise.dev/overrides'] = `spec.template.spec.containers: ${reason}`;
    });
    expect(failures(o)).toEqual([]);
    const other = edited((x) => {
      app(x).resources.limits.cpu = '1';
      of(x, 'Rollout').metadata.annotations['rollwise.dev/overrides'] = `spec.template.spec.container: ${reason}`;
    });
    expect(failures(other).map((f) => f.invariant.id)).toEqual(['INV06-no-cpu-limit']);
  });
});

describe('messages carry the compared figures', () => {
  test('readiness return vs leave window', () => {
    const o = edited((x) =>
      Object.assign(app(x).readinessProbe, { periodSeconds: 10, failureThreshold: 3, successThreshold: 2 }),
    );
    expect(lines(o)).toContain(
      'INV04-readiness-probe Rollout/checkout-api spec.template.spec.containers[0].readinessProbe.successThreshold: successThreshold 2 returns a pod after 20 s, faster than it leaves (30 s)',
    );
  });
  test('liveness window vs readiness window', () => {
    const o = edited((x) => {
      Object.assign(app(x).readinessProbe, { periodSeconds: 10, failureThreshold: 3, successThreshold: 3 });
      Object.assign(app(x).livenessProbe, { periodSeconds: 5, failureThreshold: 4 });
    });
    expect(lines(o)).toContain(
      'INV05-liveness-and-startup Rollout/checkout-api spec.template.spec.containers[0].livenessProbe.failureThreshold: the liveness failure window 20 s is not longer than the readiness leave window 30 s',
    );
  });
  test('absent, NaN and long values are shown as such', () => {
    expect(
      lines(
        edited((x) => {
          delete of(x, 'Rollout').spec.replicas;
        }),
      ),
    ).toContain('INV03-replicas Rollout/checkout-api spec.replicas: replicas absent is below 2 (absent means 1)');
    expect(
      lines(
        edited((x) => {
          of(x, 'Rollout').spec.replicas = NaN;
        }),
      ),
    ).toContain('INV03-replicas Rollout/checkout-api spec.replicas: replicas NaN is below 2 (absent means 1)');
    const long = lines(
      edited((x) => {
        of(x, 'PodDisruptionBudget').spec.selector = { matchLabels: { app: 'x'.repeat(100) } };
      }),
    ).find((l) => l.startsWith('INV08'))!;
    expect(long).toMatch(/the selector \{"matchLabels":\{"app":"x{50,}\.\.\. does not select/);
    const exact = lines(
      edited((x) => {
        of(x, 'PodDisruptionBudget').spec.selector = { matchLabels: { a: 'x'.repeat(56) } };
      }),
    ).find((l) => l.startsWith('INV08'))!;
    expect(exact).toContain(`the selector {"matchLabels":{"a":"${'x'.repeat(56)}"}} does not`); // 80 characters: shown whole
  });
  test('the memory limit message names both', () => {
    expect(
      lines(
        edited((x) => {
          app(x).resources.limits.memory = '1Gi';
        }),
      ),
    ).toContain(
      'INV07-memory-and-cpu-request Rollout/checkout-api spec.template.spec.containers[0].resources.limits.memory: memory limit "1Gi" is not the request "512Mi"',
    );
  });
});

describe('the app container is the one named "app", wherever it is', () => {
  test('a sidecar listed first', () => {
    const o = edited((x) => {
      const cs = pod(x).containers;
      cs.unshift({ ...structuredClone(cs[0]), name: 'proxy' });
      delete app(x).readinessProbe;
    });
    expect(lines(o).filter((l) => l.startsWith('INV04'))).toEqual([
      'INV04-readiness-probe Rollout/checkout-api spec.template.spec.containers[1].readinessProbe: the app container has no readiness probe',
    ]);
  });
  test('without one named "app", the first', () => {
    const o = edited((x) => {
      pod(x).containers[0].name = 'main';
      delete pod(x).containers[0].startupProbe;
    });
    expect(lines(o).filter((l) => l.startsWith('INV05'))).toEqual([
      'INV05-liveness-and-startup Rollout/checkout-api spec.template.spec.containers[0].startupProbe: the app container has no startup probe with a handler',
    ]);
  });
  test('init containers are checked too', () => {
    const o = edited((x) => {
      pod(x).initContainers = [{ ...structuredClone(app(x)), name: 'init', image: 'busybox' }];
    });
    expect(lines(o)).toContain(
      'INV02-image-pinned Rollout/checkout-api spec.template.spec.initContainers[0].image: image "busybox" is not pinned by a version tag or a digest',
    );
  });
});

describe('a Deployment', () => {
  const deployment = () =>
    edited((x) => {
      const r = of(x, 'Rollout');
      r.kind = 'Deployment';
      r.apiVersion = 'apps/v1';
      r.spec.strategy = { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 0, maxSurge: '25%' } };
      for (const k of ['Service', 'HTTPRoute', 'AnalysisTemplate'])
        for (const o of x.filter((y) => y.kind === k && /canary/.test(y.metadata.name))) x.splice(x.indexOf(o), 1);
      x.splice(x.indexOf(of(x, 'HTTPRoute')), 1);
    });
  test('with a rolling update holds the invariants', () => {
    expect(lines(deployment())).toEqual([]);
  });
  test('Recreate takes every pod down', () => {
    const o = deployment();
    of(o, 'Deployment').spec.strategy = { type: 'Recreate' };
    expect(lines(o)).toContain(
      'INV15-rollout-safety Deployment/checkout-api spec.strategy.type: strategy "Recreate" takes every pod down at once',
    );
  });
  test('strategy type absent is a rolling update; maxUnavailable 1 is not 0', () => {
    const o = deployment();
    delete of(o, 'Deployment').spec.strategy.type;
    expect(lines(o)).toEqual([]);
    of(o, 'Deployment').spec.strategy.rollingUpdate.maxUnavailable = 1;
    expect(lines(o)).toContain(
      'INV15-rollout-safety Deployment/checkout-api spec.strategy.rollingUpdate.maxUnavailable: maxUnavailable 1 is not 0 (absent means 25 %)',
    );
  });
  test('minReadySeconds without a readiness probe: the 30 s default window', () => {
    const o = deployment();
    delete app(o.map((y) => (y.kind === 'Deployment' ? { ...y, kind: 'Rollout' } : y)))?.readinessProbe;
    const d = of(o, 'Deployment');
    d.spec.template.spec.containers[0].readinessProbe = undefined;
    d.spec.minReadySeconds = 29;
    expect(lines(o)).toContain(
      'INV15-rollout-safety Deployment/checkout-api spec.minReadySeconds: minReadySeconds 29 is below the readiness leave window 30 s',
    );
  });
});

describe('two workloads: each checked, and every failure reported once', () => {
  test('a second Rollout with one replica', () => {
    const o = edited((x) => {
      const r = structuredClone(of(x, 'Rollout'));
      r.metadata.name = 'second';
      r.spec.replicas = 1;
      x.push(r);
      of(x, 'PodDisruptionBudget').metadata.labels = ['x'];
    });
    const found = lines(o);
    expect(found).toContain('INV03-replicas Rollout/second spec.replicas: replicas 1 is below 2 (absent means 1)');
    expect(found.filter((l) => l.startsWith('INV17')).length).toBe(1);
  });
});

describe('metadata syntax at its edges (IsDNS1123Subdomain, IsDNS1123Label, IsQualifiedName)', () => {
  const meta = (edit: (m: J) => void) =>
    lines(edited((x) => edit(of(x, 'PodDisruptionBudget').metadata))).filter((l) => l.startsWith('INV17'));
  test.each([
    [
      'name empty',
      (m: J) => {
        m.name = '';
      },
      1,
    ],
    [
      'name a number',
      (m: J) => {
        m.name = 5;
      },
      1,
    ],
    [
      'name of 254',
      (m: J) => {
        m.name = `${'a'.repeat(63)}.${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(62)}`;
      },
      1,
    ],
    [
      'name with an empty label',
      (m: J) => {
        m.name = 'a..b';
      },
      1,
    ],
    [
      'name ending in "-"',
      (m: J) => {
        m.name = 'a-';
      },
      1,
    ],
    [
      'name of one character',
      (m: J) => {
        m.name = 'a';
      },
      0,
    ],
    [
      'namespace of 63',
      (m: J) => {
        m.namespace = 'a'.repeat(63);
      },
      0,
    ],
    [
      'namespace of 64',
      (m: J) => {
        m.namespace = 'a'.repeat(64);
      },
      1,
    ],
    [
      'namespace ending in "-"',
      (m: J) => {
        m.namespace = 'a-';
      },
      1,
    ],
    [
      'namespace a number',
      (m: J) => {
        m.namespace = 5;
      },
      1,
    ],
    [
      'label value empty',
      (m: J) => {
        m.labels.x = '';
      },
      0,
    ],
    [
      'label value ending in "."',
      (m: J) => {
        m.labels.x = 'a.';
      },
      1,
    ],
    [
      'annotation value of 100 is fine',
      (m: J) => {
        m.annotations['acme.com/x'] = 'a'.repeat(100);
      },
      0,
    ],
    [
      'annotation key invalid',
      (m: J) => {
        m.annotations['a b'] = 'x';
      },
      1,
    ],
    [
      'label key with a valid prefix',
      (m: J) => {
        m.labels['acme.com/team'] = 'x';
      },
      0,
    ],
    [
      'label key with an empty prefix',
      (m: J) => {
        m.labels['/team'] = 'x';
      },
      1,
    ],
    [
      'label key with an upper-case prefix',
      (m: J) => {
        m.labels['Acme.com/team'] = 'x';
      },
      1,
    ],
    [
      'label key with a prefix of 253',
      (m: J) => {
        m.labels[`${'a'.repeat(63)}.${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(61)}/x`] = 'x';
      },
      0,
    ],
    [
      'label key with a prefix of 254',
      (m: J) => {
        m.labels[`${'a'.repeat(63)}.${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(62)}/x`] = 'x';
      },
      1,
    ],
    [
      'label key with a prefix label of 64',
      (m: J) => {
        m.labels[`${'a'.repeat(64)}.com/x`] = 'x';
      },
      1,
    ],
    [
      'label key with a prefix label ending in "-"',
      (m: J) => {
        m.labels['a-.com/x'] = 'x';
      },
      1,
    ],
    [
      'label key name of 63',
      (m: J) => {
        m.labels['a'.repeat(63)] = 'x';
      },
      0,
    ],
    [
      'label key name of 64',
      (m: J) => {
        m.labels['a'.repeat(64)] = 'x';
      },
      1,
    ],
    [
      'label key with an empty name',
      (m: J) => {
        m.labels['acme.com/'] = 'x';
      },
      1,
    ],
    [
      'label key name of one character',
      (m: J) => {
        m.labels.a = 'x';
      },
      0,
    ],
    [
      'label key name ending in "_"',
      (m: J) => {
        m.labels.a_ = 'x';
      },
      1,
    ],
  ])('%s', (_, edit, count) => {
    expect(meta(edit as (m: J) => void).length).toBe(count);
  });
});

describe('hostnames at their edges', () => {
  test.each([
    [`${'a'.repeat(63)}.${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(61)}`, true],
    [`${'a'.repeat(63)}.${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(62)}`, false],
    [`${'a'.repeat(63)}.com`, true],
    [`${'a'.repeat(64)}.com`, false],
    ['*.example.com', true],
    ['a..b', false],
    ['-a.com', false],
    ['a-.com', false],
    ['a', true],
    ['A.com', false],
    ['a.b.', false],
  ])('%s', (h, ok) => {
    expect(isGatewayHostname(h)).toBe(ok);
  });
});

describe('images', () => {
  test.each([
    ['ghcr.io/acme/x@sha256:' + 'a'.repeat(64) + ':latest', true],
    ['ghcr.io/acme/:1.0', true],
    ['x:1 ', true],
    ['x:1\t', true],
    ['x:1', false],
  ])('%s unpinned: %s', (image, unpinned) => {
    const ids = failures(
      edited((x) => {
        app(x).image = image;
      }),
    ).map((f) => f.invariant.id);
    expect(ids.includes('INV02-image-pinned')).toBe(unpinned);
  });
});

describe('analysis templates', () => {
  test('an empty template: one failure, not also "cannot fail"', () => {
    const found = lines(
      edited((x) => {
        of(x, 'AnalysisTemplate').spec.metrics = [];
      }),
    ).filter((l) => l.startsWith('INV10'));
    expect(found).toEqual([
      `INV10-analysis-guarded-and-can-fail AnalysisTemplate/${of(base, 'AnalysisTemplate').metadata.name} spec.metrics: the template has no metrics`,
    ]);
  });
  test('a metric that can never fail', () => {
    const found = lines(
      edited((x) => {
        for (const m of of(x, 'AnalysisTemplate').spec.metrics) {
          m.successCondition = 'len(result) > 0 && result[0] >= 0';
          delete m.failureCondition;
        }
      }),
    ).filter((l) => l.startsWith('INV10'));
    expect(found.some((l) => l.includes('no metric can fail'))).toBe(true);
  });
  test('a metric that is Failed on no data', () => {
    const found = lines(
      edited((x) => {
        const m = of(x, 'AnalysisTemplate').spec.metrics[0];
        m.failureCondition = 'len(result) == 0 || result[0] > 0.01';
      }),
    ).filter((l) => l.startsWith('INV10'));
    expect(found.some((l) => /is Failed on no data/.test(l))).toBe(true);
  });
});

describe('INV01 differences', () => {
  test('arrays of another length differ as a whole; map keys that are not identifiers are quoted', () => {
    const before = edited((x) => {
      of(x, 'Rollout').spec.template.metadata.annotations ??= {};
    });
    const after = edited((x) => {
      app(x).args = ['--a'];
      of(x, 'Rollout').spec.template.metadata.annotations = {
        ...of(x, 'Rollout').spec.template.metadata.annotations,
        'x/y': 'z',
      };
    });
    before.find((o) => o.kind === 'Rollout')!.metadata.annotations['rollwise.dev/reasons'] +=
      '\nspec.template.spec.containers[0].args: decided\nspec.template.metadata.annotations: decided';
    after.find((o) => o.kind === 'Rollout')!.metadata.annotations['rollwise.dev/reasons'] = before.find(
      (o) => o.kind === 'Rollout',
    )!.metadata.annotations['rollwise.dev/reasons'];
    const found = checkInvariants({ objects: after, unpatched: before })
      .filter((f) => f.invariant.id.startsWith('INV01'))
      .map((f) => f.path);
    expect(found).toContain('spec.template.spec.containers[0].args');
    expect(found).toContain('spec.template.metadata.annotations["x/y"]');
  });
});

describe('the defaults the invariants assume, at their edges', () => {
  const only = (id: string, objs: J[], extra: Partial<ServiceObjects> = {}) =>
    lines(objs, extra).filter((l) => l.startsWith(id));
  const grace = (seconds: number | undefined) =>
    edited((x) => {
      if (seconds === undefined) delete pod(x).terminationGracePeriodSeconds;
      else pod(x).terminationGracePeriodSeconds = seconds;
    });
  test('INV14: the grace period must outlast the propagation given', () => {
    expect(only('INV14', grace(5), { endpointPropagationSeconds: 5 })).toEqual([
      'INV14-shutdown-delay Rollout/checkout-api spec.template.spec.terminationGracePeriodSeconds: grace period 5 s does not outlast the 5 s endpoint propagation',
    ]);
    expect(only('INV14', grace(6), { endpointPropagationSeconds: 5 })).toEqual([]);
  });
  test('INV14: without a propagation given, 1 s is assumed', () => {
    expect(only('INV14', grace(1), { endpointPropagationSeconds: undefined })).toEqual([
      'INV14-shutdown-delay Rollout/checkout-api spec.template.spec.terminationGracePeriodSeconds: grace period 1 s does not outlast the 1 s endpoint propagation',
    ]);
    expect(only('INV14', grace(2), { endpointPropagationSeconds: undefined })).toEqual([]);
  });
  test('INV14: an absent grace period is the Kubernetes default of 30 s', () => {
    expect(only('INV14', grace(undefined), { endpointPropagationSeconds: 30 })).toEqual([
      'INV14-shutdown-delay Rollout/checkout-api spec.template.spec.terminationGracePeriodSeconds: grace period absent s does not outlast the 30 s endpoint propagation',
    ]);
    expect(only('INV14', grace(undefined), { endpointPropagationSeconds: 29 })).toEqual([]);
  });
  // replicas absent under an autoscaler (INV03 allows it with minReplicas >= 2): the budgets are read against 2 replicas
  const autoscaled = (edit: (x: J[]) => void) =>
    edited((x) => {
      delete of(x, 'Rollout').spec.replicas;
      x.push({
        kind: 'HorizontalPodAutoscaler',
        apiVersion: 'autoscaling/v2',
        metadata: { name: 'checkout-api' },
        spec: {
          minReplicas: 2,
          scaleTargetRef: { apiVersion: 'argoproj.io/v1alpha1', kind: 'Rollout', name: 'checkout-api' },
        },
      });
      edit(x);
    });
  test('INV08: replicas absent are read as 2', () => {
    expect(
      only(
        'INV03',
        autoscaled(() => undefined),
      ),
    ).toEqual([]);
    expect(
      only(
        'INV08',
        autoscaled(() => undefined),
      ),
    ).toEqual([]);
    expect(
      only(
        'INV08',
        autoscaled((x) => {
          of(x, 'PodDisruptionBudget').spec.maxUnavailable = 2;
        }),
      ),
    ).toEqual([
      'INV08-disruption-budget PodDisruptionBudget/checkout-api spec.maxUnavailable: the budget lets every pod go (2 of 2)',
    ]);
  });
  test('INV15: replicas absent are read as 2, and maxUnavailable rounds down (49 % of 2 is 0)', () => {
    const mu = (value: unknown) =>
      autoscaled((x) => {
        of(x, 'Rollout').spec.strategy.canary.maxUnavailable = value;
      });
    expect(only('INV15', mu('49%'))).toEqual([]);
    expect(only('INV15', mu('50%'))).toEqual([
      'INV15-rollout-safety Rollout/checkout-api spec.strategy.canary.maxUnavailable: maxUnavailable "50%" is not 0 (absent means 25 %)',
    ]);
  });
  test('INV08: percentages round up, as the disruption controller rounds them', () => {
    const budget = (b: J) =>
      edited((x) => {
        const spec = of(x, 'PodDisruptionBudget').spec;
        delete spec.maxUnavailable;
        Object.assign(spec, b);
      });
    // 12 replicas: 5 % is 0.6 pods, rounded up to 1 allowed down; 95 % available is 11.4, rounded up to 12: none allowed down
    expect(only('INV08', budget({ maxUnavailable: '5%' }))).toEqual([]);
    expect(only('INV08', budget({ minAvailable: '95%' }))).toEqual([
      'INV08-disruption-budget PodDisruptionBudget/checkout-api spec.minAvailable: the budget lets no pod go (0 of 12): every node drain blocks',
    ]);
    expect(only('INV08', budget({ minAvailable: '90%' }))).toEqual([]);
    expect(only('INV08', budget({ minAvailable: 'most' }))).toEqual([
      'INV08-disruption-budget PodDisruptionBudget/checkout-api spec.minAvailable: "most" is not a count or a percentage',
    ]);
  });
});
