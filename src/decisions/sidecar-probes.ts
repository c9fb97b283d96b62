import { ExtraContainerDecisions, PodExtrasInputs, SidecarProps } from './pod-extras-props';
import { KubernetesVersion } from './kubernetes-version';
import { MIN_STARTUP_BUDGET_SECONDS, ProcessCheck, STARTUP_FLOOR_WHY, STARTUP_PERIOD_SECONDS } from './probes';
import { ProxyContainer } from '../checks/cloud-sql-proxy';
import { RollwiseInputError } from '../errors';
import { checkDuration, showSeconds } from './inputs';
import { decided, Decision, withOverride } from './decision';
import { knownSidecarImage } from './sidecar-images';

/**
 * A serving sidecar's probes, checked like the app's. Its readiness counts for the pod's (KEP-753:
 * "Readiness probes of sidecars will contribute to determine the whole Pod readiness"; for
 * ordinary containers always), so a readiness path that asks a dependency takes every pod out of
 * the Service at once when the dependency is slow: refused unless declared with a reason. Images
 * rollwise knows (sidecar-images.ts) have their health flags and paths checked. A native sidecar
 * gets a startupProbe sized from its start-up budget: the kubelet starts the next init container
 * and the app only after it passes (KEP-753 "Startup probes"; kubelet
 * pkg/kubelet/kuberuntime/kuberuntime_container.go computeInitContainerActions, which for a
 * running restartable init container with a startupProbe waits until the probe result is Success
 * before it appends the next container; read from the index, the kubernetes repository is too
 * large to mirror here, so no tag).
 */
export function decideSidecarProbes(
  at: string,
  x: SidecarProps,
  port: NonNullable<ExtraContainerDecisions['port']>,
  inp: PodExtrasInputs,
  version: KubernetesVersion,
  container: ProxyContainer,
  warn: (w: string) => void,
): Pick<ExtraContainerDecisions, 'readinessCallsDependency' | 'readinessTiming' | 'startup'> {
  const known = knownSidecarImage(x.image);
  const path = port.readinessPath;
  if (known) {
    for (const w of known.checkConfig(at, container, port.port)) warn(w);
    for (const [field, p] of [
      ['readinessPath', path],
      ['startupPath', x.port?.startupPath],
    ] as const) {
      if (p !== undefined && !known.paths.includes(p.split('?')[0])) {
        throw new RollwiseInputError(
          `${at}.port.${field}`,
          p,
          `the ${known.product}'s health server answers only ${known.paths.join(', ')}; any other path is a 404 and ` +
            'the probe never passes.',
          `use one of ${known.paths.join(', ')} (readiness: "/liveness", or "/readiness" where it does not dial the ` +
            'database).',
        );
      }
    }
  }
  const declared = x.port?.readinessCallsDependency;
  if (
    declared !== undefined &&
    declared !== null &&
    typeof declared === 'object' &&
    'value' in declared &&
    typeof declared.value !== 'boolean'
  ) {
    throw new RollwiseInputError(
      `${at}.port.readinessCallsDependency.value`,
      declared.value,
      'must be true or false.',
      `use ${at}.port.readinessCallsDependency: { value: true, because: '...' } (or false).`,
    );
  }
  let readinessCallsDependency: Decision<boolean>;
  if (path === undefined) {
    readinessCallsDependency = decided(
      false,
      `A TCP connect to ${port.name}: it proves the sidecar listens and asks nothing of a dependency.`,
    );
  } else {
    const recognised = known?.dependencyOf(path);
    const computed = decided(
      recognised?.calls ?? false,
      recognised
        ? `${known?.product}: ${recognised.why}.`
        : `Declared (the default) not to call a dependency: ${path} must answer from the sidecar's own state.`,
    );
    const d = withOverride(`${at}.port.readinessCallsDependency`, computed, declared, String);
    if (declared === undefined && recognised?.calls !== false && recognised !== undefined) {
      const fix =
        'use readinessPath: "/liveness" ' +
        `(${known?.product}: ${recognised.liveness ?? '200 while it serves'})` +
        `${version.nativeSidecars ? `; its startupProbe already waits on ${known?.startupPath}` : ''}` +
        `${
          recognised.calls === undefined
            ? '; or pin a version tag (2.11.1 or later answers /readiness without dialling)'
            : `; ${recognised.upgrade ?? 'or run 2.11.1 or later, whose /readiness does not dial'}`
        }; ` +
        `or, if it must, declare ${at}.port.readinessCallsDependency: { ` +
        `value: ${recognised.calls === undefined ? 'false' : 'true'}, because: '...' }`;
      throw new RollwiseInputError(
        `${at}.port.readinessPath`,
        path,
        `${recognised.why}. A pod is Ready only when every container with a readiness probe is, so a sidecar whose ` +
          'readiness asks a dependency empties the Service when that dependency is slow ' +
          '(docs/mechanisms.md#readiness-calls-a-dependency).',
        `${fix}.`,
      );
    }
    readinessCallsDependency = {
      ...d,
      reason: d.value
        ? `${d.reason} ${path} asks a dependency, accepted with that reason: when it is slow, every pod leaves the ` +
          'Service at once (docs/mechanisms.md#readiness-calls-a-dependency).'
        : `${d.reason} A pod is Ready only when every container with a readiness probe is, so a sidecar's readiness ` +
          'must not ask a dependency (docs/mechanisms.md#readiness-calls-a-dependency).',
    };
  }
  const r = inp.readiness;
  const readinessTiming = decided(
    "the app's" as const,
    `The sidecar serves on port ${port.name} (${port.port}), so it is probed with the app's readiness timing ` +
      `(period ${r.periodSeconds.value} s, timeout ${r.timeoutSeconds.value} s, ` +
      `thresholds ${r.failureThreshold.value}/${r.successThreshold.value}): a pod is Ready only when every serving ` +
      'container is, and one timing keeps the leave and return windows the rest of the output is derived from.',
  );
  if (!version.nativeSidecars) return { readinessCallsDependency, readinessTiming };

  const budget =
    x.startupBudget === undefined
      ? inp.defaultStartupBudgetSeconds
      : checkDuration(
          `${at}.startupBudget`,
          x.startupBudget,
          MIN_STARTUP_BUDGET_SECONDS,
          3600,
          'it bounds how long the kubelet waits for the sidecar before it restarts it, and the app starts only after ' +
            `it; ${STARTUP_FLOOR_WHY}.`,
          `give the longest start you observed plus a margin, at least ${MIN_STARTUP_BUDGET_SECONDS} s, e.g. ` +
            'Duration.seconds(30).',
        );
  const startupPath = x.port?.startupPath ?? known?.startupPath;
  const check = decided<ProcessCheck>(
    startupPath ? { kind: 'http', path: startupPath } : { kind: 'tcp' },
    x.port?.startupPath
      ? `Input (${at}.port.startupPath): the sidecar's own start-up check.`
      : startupPath
        ? (known?.startupReason ?? '')
        : `A TCP connect to ${port.name}: the sidecar has started once it ` +
          'listens (give port.startupPath for a better check).',
  );
  const p = STARTUP_PERIOD_SECONDS;
  const failure = Math.max(1, Math.ceil(budget / p));
  const rt = inp.readiness.timeoutSeconds.value;
  const timeout = Math.min(rt, p - 1);
  const source = x.startupBudget === undefined ? 'platform.startupBudget' : `${at}.startupBudget`;
  return {
    readinessCallsDependency,
    readinessTiming,
    startup: {
      check,
      timing: {
        periodSeconds: decided(
          p,
          `Every ${p} s while the sidecar starts: the app, which the kubelet starts only after this probe passes ` +
            `(KEP-753; kubelet computeInitContainerActions), waits at most ${p} s longer than needed.`,
        ),
        timeoutSeconds: decided(
          timeout,
          `The app's readiness timeout (${rt} s), capped below the ${p} s start-up period: ${timeout} s.`,
          { readinessTimeoutSeconds: rt },
        ),
        failureThreshold: decided(
          failure,
          `Start-up budget ${showSeconds(budget)} (${source}) / ${p} s period = ${failure} attempts: the app starts ` +
            'only once the sidecar has started, and a sidecar not started within its budget is restarted instead of ' +
            'holding the pod forever.',
          { startupBudgetSeconds: budget, periodSeconds: p },
        ),
      },
      // Kubernetes 1.33 kubelet (pkg/kubelet/kuberuntime/kuberuntime_container.go
      // computeInitContainerActions): a running restartable init container with a startupProbe holds
      // the containers after it until the probe has succeeded (restarted when it fails); without one,
      // the next starts as soon as it runs. Its readinessProbe gates only the pod's Ready condition.
      inMigrationJob: decided(
        'startupProbe only',
        'In the migration Job the sidecar keeps its startupProbe and no readinessProbe: the kubelet starts the ' +
          'migration only after the startupProbe has passed (a native sidecar with a startupProbe holds the ' +
          `containers after it; kubelet computeInitContainerActions, Kubernetes 1.33), so the migration's first ` +
          `connection finds ${x.name} serving. Readiness would gate nothing here: no Service or PodDisruptionBudget ` +
          "selects the migration's pod (it lacks the app's selector label) and a Job completes on its containers' " +
          'exit, not on Ready (docs/mechanisms.md#migrations).',
      ),
    },
  };
}
