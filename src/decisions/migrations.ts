import { Duration } from 'cdk8s';
import { RollwiseInputError } from '../errors';
import { checkOverrideShape, decided, Decision, Override, withOverride } from './decision';
import { checkInteger, checkWholeSeconds, showSeconds } from './inputs';
import { KubernetesVersion } from './kubernetes-version';

/**
 * A schema migration, run once per release before the new pods start and outside them: an Argo CD
 * PreSync hook Job with the app's image, environment, identity and security context. Why a PreSync
 * hook and not an Argo Rollouts step: docs/mechanisms.md#migrations.
 */

/** What the migration Job runs and how long it may take. Every prop of `migrations` is declared here. */
export interface MigrationJobProps {
  /** The migration command, without a shell, e.g. ["python", "manage.py", "migrate", "--noinput"]. */
  readonly command: string[];
  /** @default none */
  readonly args?: string[];
  /**
   * The image to run it with.
   * @default the app's image: the migration that ships with the code is the one that runs
   */
  readonly image?: string;
  /**
   * The longest the migration may run, retries included (the Job's activeDeadlineSeconds).
   * @default 10 min, with the reason
   */
  readonly deadline?: Duration;
  /**
   * Retries after a failed attempt (the Job's backoffLimit), with the reason.
   * @default 1
   */
  readonly retries?: Override<number>;
  /**
   * How long the finished Job and its pod (and so its log) are kept.
   * @default 7 days, with the reason
   */
  readonly keepFor?: Duration;
  /**
   * Run the app's sidecars (a database proxy) beside the migration, as native sidecars that stop
   * when it exits.
   * @default true where the sidecars are native (Kubernetes 1.29+); on 1.28, with sidecars, refused unless declared
   * false (the migration then reaches its database without them)
   */
  readonly withSidecars?: boolean;
}

/** How a service's schema migration runs. */
export class Migration {
  /**
   * A Job that Argo CD runs as a PreSync hook: at every sync (each release), before anything of it
   * is applied, so the new pods start on a migrated schema and a failed migration stops the sync
   * with the old release still serving. The command must be idempotent and backward compatible.
   */
  public static job(props: MigrationJobProps): Migration {
    return new Migration(props);
  }

  private constructor(public readonly props: MigrationJobProps) {}
}

/** The migration Job, decided. */
export interface MigrationDecisions {
  /** The Job's name, `<service>-migrate`. */
  readonly name: string;
  /** The migration container's image: migrations.image, or the app's. */
  readonly image: Decision<string>;
  /** The migration container's environment, Secret references and mounts: the app's. */
  readonly environment: Decision<"the app's">;
  /** The migration pod's labels: the platform's, without the app's selector label. */
  readonly podLabels: Decision<'without the selector label'>;
  readonly command: string[];
  readonly args?: string[];
  readonly hook: Decision<string>;
  readonly deletePolicy: Decision<string>;
  readonly backoffLimit: Decision<number>;
  readonly activeDeadlineSeconds: Decision<number>;
  readonly ttlSecondsAfterFinished: Decision<number>;
  readonly restartPolicy: Decision<string>;
  readonly withSidecars: Decision<boolean>;
  /** The migration container's CPU limit: none unless the app's was overridden (then the same). */
  readonly cpuLimit: Decision<string | undefined>;
  /** Questions for synth. */
  readonly warnings: readonly string[];
}

/** The suffix of the Job's name. */
export const MIGRATION_SUFFIX = '-migrate';
const DEFAULT_DEADLINE_SECONDS = 600;
const DEFAULT_KEEP_SECONDS = 7 * 86400;

/**
 * The migration of service `name`. Facts about Argo CD are from argo-cd v3.5.1 (its vendored
 * gitops-engine): PreSync hooks are applied before the manifests and a failing one stops the sync
 * (docs/user-guide/sync-waves.md "How phases work?"); hooks run in every sync, also with
 * ApplyOutOfSyncOnly (gitops-engine/pkg/sync/sync_context.go filterOutOfSyncTasks keeps hooks) and
 * are skipped only by a selective sync; a hook carries argocd.argoproj.io/hook-finalizer until its
 * phase completed (gitops-engine/pkg/sync/hook/hook.go), so a TTL never deletes it mid-sync; and a
 * sync waits for its hooks without a time limit (controller.sync.timeout.seconds "0", no timeout,
 * docs/operator-manual/argocd-cmd-params-cm.yaml).
 */
export function decideMigration(
  name: string,
  appImage: string,
  m: Migration,
  version: KubernetesVersion,
  hasSidecars: boolean,
  argoCd: boolean,
  appCpu?: { readonly request: string; readonly limit: Decision<string | undefined> },
): MigrationDecisions {
  if (!(m instanceof Migration)) {
    throw new RollwiseInputError(
      'migrations',
      m,
      'must be a Migration.',
      'use migrations: Migration.job({ command: ["python", "manage.py", "migrate", "--noinput"] }).',
    );
  }
  const p = m.props ?? ({} as MigrationJobProps);
  const strings = (input: string, v: unknown, required: boolean): string[] | undefined => {
    if (v === undefined && !required) return undefined;
    if (!Array.isArray(v) || (required && v.length === 0) || v.some((x) => typeof x !== 'string' || x === '')) {
      throw new RollwiseInputError(
        input,
        v,
        `must be a ${required ? 'non-empty ' : ''}list of strings: the kubelet runs it without a shell, one argument ` +
          'per item.',
        `write it as a list, e.g. ${input}: ["python", "manage.py", "migrate", "--noinput"].`,
      );
    }
    return [...(v as string[])];
  };
  const command = strings('migrations.command', p.command, true) as string[];
  const args = strings('migrations.args', p.args, false);
  const image = p.image ?? appImage;
  if (
    typeof image !== 'string' ||
    /\s/.test(image) ||
    /:latest$/.test(image) ||
    !/[:@]/.test(image.split('/').pop() ?? '')
  ) {
    throw new RollwiseInputError(
      'migrations.image',
      image,
      'has no tag or uses "latest": the migration that runs must be the one that ships with the release, named in ' +
        'Git (docs/mechanisms.md#gitops-rollback).',
      "pin a version tag or digest, or leave it out to use the app's image.",
    );
  }
  const deadline =
    p.deadline === undefined
      ? DEFAULT_DEADLINE_SECONDS
      : checkWholeSeconds(
          'migrations.deadline',
          p.deadline,
          30,
          24 * 3600,
          "it is the Job's activeDeadlineSeconds, an integer, and bounds how long a sync waits for the migration.",
          'use e.g. Duration.minutes(30).',
        );
  const keep =
    p.keepFor === undefined
      ? DEFAULT_KEEP_SECONDS
      : checkWholeSeconds(
          'migrations.keepFor',
          p.keepFor,
          3600,
          90 * 86400,
          "it is the Job's ttlSecondsAfterFinished, an integer; under an hour the log is gone before anyone reads it.",
          'use e.g. Duration.days(7).',
        );
  if (p.retries !== undefined) {
    // a bare number (retries: 5) is named as given, with the override's shape (as for cpuLimit)
    checkOverrideShape('migrations.retries', p.retries);
    checkInteger(
      'migrations.retries',
      p.retries.value,
      0,
      6,
      "it is the Job's backoffLimit, and each retry runs the migration again on a database a failed attempt may " +
        'have left half changed.',
      `write migrations.retries: { value: 1, because: '<why this migration may run again>' } with a whole number ` +
        'from 0 to 6 (1, the default, covers one transient failure).',
    );
  }
  if (p.withSidecars !== undefined && typeof p.withSidecars !== 'boolean')
    throw new RollwiseInputError(
      'migrations.withSidecars',
      p.withSidecars,
      'must be true or false.',
      'use withSidecars: true.',
    );
  if (p.withSidecars === true && !version.nativeSidecars) {
    throw new RollwiseInputError(
      'migrations.withSidecars',
      true,
      `on Kubernetes ${version.name} (platform.kubernetesVersion) sidecars are ordinary containers, which never exit ` +
        'when the migration does, so the Job would never complete and the sync would wait until the deadline.',
      'target Kubernetes 1.33 (platform.kubernetesVersion: KubernetesVersion.V1_33), where native sidecars stop with ' +
        'the Job, or let the migration reach its database without the sidecar.',
    );
  }
  const warnings: string[] = [];
  const sidecarsOn = p.withSidecars ?? (hasSidecars && version.nativeSidecars);
  if (hasSidecars && !sidecarsOn && p.withSidecars === undefined) {
    // Refused rather than warned: the app's environment points the migration at the sidecar (a
    // database proxy on 127.0.0.1), which the Job cannot run here, so every sync would fail at
    // its PreSync hook and no release would ship. Only the user knows it needs none.
    throw new RollwiseInputError(
      'migrations.withSidecars',
      'unset',
      `the app has sidecars, and on Kubernetes ${version.name} (platform.kubernetesVersion) the migration Job cannot ` +
        'run them: an ordinary sidecar container never exits, so the Job would never complete, and native sidecars ' +
        '(which stop with the Job) need Kubernetes 1.29 or later. Without them a migration that reaches its database ' +
        'through a sidecar (a Cloud SQL proxy on 127.0.0.1) cannot connect, fails its PreSync hook and stops every ' +
        'sync (docs/mechanisms.md#migrations).',
      'target Kubernetes 1.33 where every cluster runs it (platform.kubernetesVersion: KubernetesVersion.V1_33: the ' +
        'sidecars then run beside the migration and stop with it), or, if the migration reaches its database without ' +
        'them, declare migrations: Migration.job({ ..., withSidecars: false }).',
    );
  }
  if (!argoCd) {
    warnings.push(
      'migrations: the platform has no argoCd settings, and the Job is an Argo CD PreSync hook: applied by kubectl ' +
        'or another tool, the hook annotation means nothing and the migration runs at the same time as the new pods. ' +
        `Deploy ${name} with Argo CD (platform.argoCd), or run ${name}${MIGRATION_SUFFIX} yourself before the ` +
        'release.',
    );
  }

  const appRequest = appCpu ? ` (${appCpu.request})` : '';
  return {
    name: `${name}${MIGRATION_SUFFIX}`,
    image: decided(
      image,
      image === appImage
        ? `The app's image (${appImage}): the migration that ships with this release is the one that runs.`
        : `Input (migrations.image): ${image}.`,
    ),
    environment: decided(
      "the app's",
      "The app's environment, Secret references and mounts: the migration connects to the database the app uses, with " +
        'the same credentials.',
    ),
    podLabels: decided(
      'without the selector label',
      `Not the app's selector label (app.kubernetes.io/name: ${name}): the Service, the PodDisruptionBudget and the ` +
        `canary analysis must never count the migration's pod.`,
    ),
    command,
    args,
    hook: decided(
      'PreSync',
      'An Argo CD PreSync hook: Argo CD runs it before it applies anything of the sync, waits for it to complete and ' +
        'stops the sync if it fails (argo-cd v3.5.1 docs/user-guide/sync-waves.md), so the new pods start only on a ' +
        'migrated schema, once per sync rather than in every pod, and a failed migration leaves the old release ' +
        'serving. Hooks run in every sync, also self-heal syncs (gitops-engine sync_context.go, v3.5.1), so the ' +
        'command must be idempotent (Django migrate, Alembic upgrade head and golang-migrate up are). The old ' +
        'release keeps serving on the new schema through the canary and after a `git revert`, which does not undo ' +
        'the migration: make each one backward compatible (expand now, contract in a later release; ' +
        'docs/mechanisms.md#migrations).',
    ),
    deletePolicy: decided(
      'BeforeHookCreation',
      "The previous run is deleted just before the next one is created, so a fixed name is reused (a Job's pod " +
        'template cannot be changed in place) and the last run stays, with its log, until then. Not HookSucceeded, ' +
        'which would delete the evidence of what ran.',
    ),
    backoffLimit: withOverride(
      'migrations.retries',
      decided(
        1,
        'One retry covers a transient failure (a database failover, a node preemption mid-migration); a migration that ' +
          'fails twice is not transient, and more attempts on a database a failed attempt may have half changed do ' +
          'harm: the sync stops for a human (docs/mechanisms.md#migrations).',
      ),
      p.retries,
      String,
    ),
    activeDeadlineSeconds: decided(
      deadline,
      p.deadline === undefined
        ? `${showSeconds(deadline)} for the migration and its retry: Argo CD waits for a hook without a limit ` +
            '(controller.sync.timeout.seconds "0", argo-cd v3.5.1), so a migration blocked on a table lock would hold ' +
            'this and every later sync; at the deadline the Job fails and the sync stops with the old release serving. ' +
            'Set migrations.deadline for a longer migration.'
        : `Input (migrations.deadline): the migration and its retries may run ${showSeconds(deadline)}; then the Job ` +
            'fails and the sync stops with the old release serving (Argo CD itself waits without a limit).',
      { deadlineSeconds: deadline },
    ),
    ttlSecondsAfterFinished: decided(
      keep,
      `${showSeconds(keep)}${p.keepFor === undefined ? ' (7 days)' : ' (input, migrations.keepFor)'}: long enough to ` +
        `read the migration's log after a release (it lives in the finished pod), then the Job and pod are removed ` +
        `even if no sync replaces them; Argo CD's hook finalizer keeps the TTL from deleting it before the sync saw ` +
        'it finish (gitops-engine hook.go, v3.5.1).',
      { ttlSeconds: keep },
    ),
    restartPolicy: decided(
      'Never',
      "Each retry runs in a new pod, so the failed attempt's pod and its log stay for the post-mortem (OnFailure " +
        'restarts the container in place and keeps only the last log).',
    ),
    withSidecars: decided(
      sidecarsOn,
      sidecarsOn
        ? `The app's sidecars run beside the migration as native sidecars (Kubernetes ${version.name}), started before ` +
            'it (each after its startupProbe) and stopped when it exits, so the Job completes (KEP-753: sidecar ' +
            'containers do not block pod completion).'
        : hasSidecars
          ? `Without the app's ` +
            `sidecars: ${
              p.withSidecars === false
                ? 'input (migrations.withSidecars: false).'
                : `on Kubernetes ${version.name} they are ` +
                  'ordinary containers, which never exit, so the Job would never complete.'
            }`
          : 'The app has no sidecars.',
    ),
    cpuLimit:
      appCpu?.limit.value !== undefined
        ? appCpu.limit
        : decided<string | undefined>(
            undefined,
            'No CPU limit on the migration, like the app: the Job has no probes, so nothing here is timed by a probe, and ' +
              'a CFS quota would only deschedule the migration for the rest of each 100 ms period once its slice is used ' +
              '(docs/mechanisms.md#cpu-limits-and-cfs-throttling), stretching a migration that holds table locks and keeps ' +
              `the sync waiting; its deadline (activeDeadlineSeconds) bounds how long it may run. The app's CPU ` +
              `request${appRequest} still reserves CPU for it on the node and weights its share; ` +
              'the pod stays Burstable.',
          ),
    warnings,
  };
}
