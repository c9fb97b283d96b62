import { ApiObject, Chart, JsonPatch, Testing } from 'cdk8s';
import { HttpService, HttpServiceProps } from '../../src/constructs/http-service';
import { checkoutApiProps } from '../../src/example';
import { INVARIANTS } from '../../src/invariants/invariants';

type Target = (s: HttpService) => ApiObject;
const rollout: Target = (s) => s.workload;
const pdb: Target = (s) => s.podDisruptionBudget;
const route: Target = (s) => s.canary!.route;
const background: Target = (s) => s.canary!.backgroundTemplate;
const service: Target = (s) => s.service;
const POD = '/spec/template/spec';
const APP = `${POD}/containers/0`;

interface Probe {
  readonly name: string;
  readonly target: Target;
  readonly patches: JsonPatch[];
  /** The field path the refusal must name. */
  readonly path: string;
  /** Accepted by HttpService.acceptPatch with a reason (else refused even with one). */
  readonly overridable?: boolean;
}

/** The 24 escape-hatch patches of issue 13 and the three that were warnings only. */
const PROBES: Probe[] = [
  {
    name: 'route hostnames emptied',
    target: route,
    patches: [JsonPatch.replace('/spec/hostnames', [])],
    path: 'spec.hostnames',
  },
  {
    name: 'PDB maxUnavailable removed',
    target: pdb,
    patches: [JsonPatch.remove('/spec/maxUnavailable')],
    path: 'spec.maxUnavailable',
  },
  {
    name: 'PDB maxUnavailable replaced (dropped by the L1 converter)',
    target: pdb,
    patches: [JsonPatch.replace('/spec/maxUnavailable', 5)],
    path: 'spec.maxUnavailable',
  },
  {
    name: 'analysis successCondition "true"',
    target: background,
    patches: [JsonPatch.replace('/spec/metrics/0/successCondition', 'true')],
    path: 'spec.metrics[0].successCondition',
  },
  {
    name: 'readiness probe removed',
    target: rollout,
    patches: [JsonPatch.remove(`${APP}/readinessProbe`)],
    path: 'spec.template.spec.containers[0].readinessProbe',
  },
  { name: 'replicas 1', target: rollout, patches: [JsonPatch.replace('/spec/replicas', 1)], path: 'spec.replicas' },
  {
    name: 'image :latest',
    target: rollout,
    patches: [JsonPatch.replace(`${APP}/image`, 'ghcr.io/acme/checkout-api:latest')],
    path: 'spec.template.spec.containers[0].image',
  },
  {
    name: 'minReadySeconds 0',
    target: rollout,
    patches: [JsonPatch.replace('/spec/minReadySeconds', 0)],
    path: 'spec.minReadySeconds',
  },
  {
    name: 'canary maxUnavailable 100 %',
    target: rollout,
    patches: [JsonPatch.replace('/spec/strategy/canary/maxUnavailable', '100%')],
    path: 'spec.strategy.canary.maxUnavailable',
  },
  {
    name: 'privileged container',
    target: rollout,
    patches: [JsonPatch.add(`${APP}/securityContext/privileged`, true)],
    path: 'spec.template.spec.containers[0].securityContext.privileged',
  },
  {
    name: 'service-account token mounted',
    target: rollout,
    patches: [JsonPatch.replace(`${POD}/automountServiceAccountToken`, true)],
    path: 'spec.template.spec.automountServiceAccountToken',
    overridable: true,
  },
  {
    name: 'preStop removed',
    target: rollout,
    patches: [JsonPatch.remove(`${APP}/lifecycle`)],
    path: 'spec.template.spec.containers[0].lifecycle.preStop',
  },
  {
    name: 'grace period 0',
    target: rollout,
    patches: [JsonPatch.replace(`${POD}/terminationGracePeriodSeconds`, 0)],
    path: 'spec.template.spec.terminationGracePeriodSeconds',
  },
  {
    name: 'pod runAsNonRoot false',
    target: rollout,
    patches: [
      JsonPatch.replace(`${POD}/securityContext/runAsNonRoot`, false),
      JsonPatch.remove(`${APP}/securityContext/runAsNonRoot`),
    ],
    path: 'spec.template.spec.containers[0].securityContext.runAsNonRoot',
  },
  {
    name: 'hostNetwork',
    target: rollout,
    patches: [JsonPatch.add(`${POD}/hostNetwork`, true)],
    path: 'spec.template.spec.hostNetwork',
  },
  {
    name: 'capability SYS_ADMIN added',
    target: rollout,
    patches: [JsonPatch.add(`${APP}/securityContext/capabilities/add`, ['SYS_ADMIN'])],
    path: 'spec.template.spec.containers[0].securityContext.capabilities.add',
  },
  {
    name: 'readiness failureThreshold 1',
    target: rollout,
    patches: [JsonPatch.replace(`${APP}/readinessProbe/failureThreshold`, 1)],
    path: 'spec.template.spec.containers[0].readinessProbe.failureThreshold',
    overridable: true,
  },
  {
    name: 'liveness on the readiness path',
    target: rollout,
    patches: [
      JsonPatch.replace(`${APP}/livenessProbe`, {
        httpGet: { path: '/healthz', port: 'http' },
        periodSeconds: 10,
        timeoutSeconds: 3,
        failureThreshold: 3,
        successThreshold: 3,
      }),
    ],
    path: 'spec.template.spec.containers[0].livenessProbe',
  },
  {
    name: 'startup probe removed',
    target: rollout,
    patches: [JsonPatch.remove(`${APP}/startupProbe`)],
    path: 'spec.template.spec.containers[0].startupProbe',
  },
  {
    name: 'analysis gate step removed',
    target: rollout,
    patches: [JsonPatch.remove('/spec/strategy/canary/steps/4')],
    path: 'spec.strategy.canary.steps',
  },
  {
    name: 'background analysis removed',
    target: rollout,
    patches: [JsonPatch.remove('/spec/strategy/canary/analysis')],
    path: 'spec.strategy.canary.analysis',
  },
  {
    name: 'Service selects other pods',
    target: service,
    patches: [JsonPatch.replace('/spec/selector', { app: 'other' })],
    path: 'spec.selector',
  },
  {
    name: 'hostPath volume',
    target: rollout,
    patches: [JsonPatch.add(`${POD}/volumes/-`, { name: 'host', hostPath: { path: '/' } })],
    path: 'spec.template.spec.volumes[1].hostPath',
  },
  // volumeDevices is a field rollwise never renders, so the path runs through a list that does not exist
  // (env/0 would not do: the example's env[0] exists since issue 12, and removing its absent key is a no-op).
  {
    name: 'remove of an absent path',
    target: rollout,
    patches: [JsonPatch.remove(`${APP}/volumeDevices/0`)],
    path: `remove ${APP}/volumeDevices/0`,
  },
  // the three that were warnings only
  {
    name: 'CPU limit added',
    target: rollout,
    patches: [JsonPatch.add(`${APP}/resources/limits/cpu`, '500m')],
    path: 'spec.template.spec.containers[0].resources.limits.cpu',
    overridable: true,
  },
  {
    name: 'readiness successThreshold 1',
    target: rollout,
    patches: [JsonPatch.replace(`${APP}/readinessProbe/successThreshold`, 1)],
    path: 'spec.template.spec.containers[0].readinessProbe.successThreshold',
  },
  {
    name: 'PDB selector matching nothing',
    target: pdb,
    patches: [JsonPatch.replace('/spec/selector', { matchLabels: { app: 'nothing' } })],
    path: 'spec.selector',
  },
];

function synth(probe: Probe, accept?: string, props: Partial<HttpServiceProps> = {}): unknown[] {
  const app = Testing.app();
  const chart = new Chart(app, 'test', { namespace: 'checkout' });
  const svc = new HttpService(chart, 'checkout-api', { ...checkoutApiProps(), ...props });
  const obj = probe.target(svc);
  obj.addJsonPatch(...probe.patches);
  if (accept !== undefined) svc.acceptPatch(obj, probe.path, accept);
  return Testing.synth(chart);
}

function refusal(probe: Probe, accept?: string): string {
  try {
    synth(probe, accept);
  } catch (e) {
    return (e as Error).message;
  }
  return '';
}

const REASON = 'this service calls the Kubernetes API to read its own ConfigMap (measured, reviewed by platform)';

test('27 probes: 24 patches and the three warning-only cases', () => {
  expect(PROBES).toHaveLength(27);
});

describe.each(PROBES)('$name', (probe) => {
  test('is refused, naming the patched path', () => {
    const message = refusal(probe);
    expect(message).not.toBe('');
    expect(message).toContain(probe.path);
    expect(message).not.toMatch(/TypeError|Cannot read propert/);
  });

  if (probe.overridable) {
    test('is accepted with a reason, which then explains the value', () => {
      const objs = synth(probe, REASON) as { metadata: { annotations?: Record<string, string> } }[];
      const annotated = objs.find((o) =>
        (o.metadata.annotations?.['rollwise.dev/overrides'] ?? '').includes(probe.path),
      );
      expect(annotated?.metadata.annotations?.['rollwise.dev/reasons']).toContain(`${probe.path}: Patched: ${REASON}`);
    });
    test.each(['TODO: fill in later', 'xxxxxxxxxx', 'ok'])('is refused with the placeholder reason %p', (because) => {
      expect(refusal(probe, because)).toMatch(/acceptPatch\(.*\)\.because = .*(placeholder|shorter|repeats)/);
    });
  } else if (!probe.path.startsWith('remove ')) {
    test('is refused even with a reason', () => {
      expect(refusal(probe, REASON)).toContain(probe.path);
    });
  }
});

test('a patch that keeps every invariant (an added environment variable) synthesizes', () => {
  const probe: Probe = {
    name: 'env',
    target: rollout,
    patches: [JsonPatch.add(`${APP}/env`, [{ name: 'LOG_LEVEL', value: 'info' }])],
    path: '',
  };
  const objs = synth(probe) as { kind: string; spec: { template: { spec: { containers: { env?: unknown }[] } } } }[];
  expect(objs.find((o) => o.kind === 'Rollout')!.spec.template.spec.containers[0].env).toEqual([
    { name: 'LOG_LEVEL', value: 'info' },
  ]);
});

test('a decided value changed by a patch is refused until accepted, and the reason then describes it', () => {
  const probe: Probe = {
    name: 'minReadySeconds 45',
    target: rollout,
    patches: [JsonPatch.replace('/spec/minReadySeconds', 45)],
    path: 'spec.minReadySeconds',
  };
  expect(refusal(probe)).toMatch(
    /INV01-decided-values-unpatched Rollout\/checkout-api spec.minReadySeconds: a patch changed spec.minReadySeconds from 30 to 45/,
  );
  const objs = synth(probe, 'slow JIT warm-up measured at 40 s in the load test') as {
    kind: string;
    metadata: { annotations: Record<string, string> };
  }[];
  expect(objs.find((o) => o.kind === 'Rollout')!.metadata.annotations['rollwise.dev/reasons']).toMatch(
    /^spec.minReadySeconds: Patched: slow JIT warm-up/m,
  );
});

test('every invariant has an id, a why with a mechanism, and a check', () => {
  const ids = INVARIANTS.map((i) => i.id);
  expect(new Set(ids).size).toBe(ids.length);
  for (const i of INVARIANTS) expect(i.id).toMatch(/^INV\d\d-[a-z-]+$/);
});

test('every invariant refuses something: memory limit above the request (INV07), a malformed label (INV17)', () => {
  const memory: Probe = {
    name: 'memory',
    target: rollout,
    patches: [JsonPatch.replace(`${APP}/resources/limits/memory`, '1Gi')],
    path: 'spec.template.spec.containers[0].resources.limits.memory',
  };
  expect(refusal(memory, 'the JVM heap grows past the request at peak, measured')).toMatch(
    /INV07-memory-and-cpu-request Rollout\/checkout-api spec.template.spec.containers\[0\].resources.limits.memory: memory limit "1Gi" is not the request "512Mi"/,
  );
  const label: Probe = {
    name: 'label',
    target: service,
    patches: [JsonPatch.add('/metadata/labels/team name', 'payments')],
    path: 'metadata.labels',
  };
  expect(refusal(label)).toMatch(
    /INV17-metadata-well-formed Service\/checkout-api metadata.labels\["team name"\]: "team name" is not a valid label key/,
  );
  const probed = new Set(PROBES.flatMap((p) => [...refusal(p).matchAll(/INV\d\d-[a-z-]+/g)].map((m) => m[0])));
  for (const id of ['INV07-memory-and-cpu-request', 'INV17-metadata-well-formed']) probed.add(id);
  expect(INVARIANTS.map((i) => i.id).filter((id) => !probed.has(id))).toEqual([]);
});
