import { ServiceDecisions } from '../decisions/service';
import { MIGRATION_CONTAINER } from './pod-template';

/** Kinds that run pods from a template; each one under a service is checked (invariants, undeclared containers). */
export const WORKLOAD_KINDS = [
  'Rollout',
  'Deployment',
  'StatefulSet',
  'DaemonSet',
  'ReplicaSet',
  'Job',
  'CronJob',
  'Pod',
];

/**
 * Containers added to the pod template by an escape-hatch patch: rollwise decided none of their
 * resources, probes or security context, so synth refuses them instead of shipping them unchecked.
 */
export function undeclaredContainers(workload: unknown, d: ServiceDecisions): string[] {
  type PodSpec = { containers?: { name?: string }[]; initContainers?: { name?: string }[] };
  const w = workload as {
    kind?: string;
    metadata?: { name?: string };
    spec?: PodSpec & { template?: { spec?: PodSpec }; jobTemplate?: { spec?: { template?: { spec?: PodSpec } } } };
  };
  // where each kind keeps its pod spec (a Pod or CronJob under the service is read too)
  const spec =
    w.kind === 'Pod'
      ? w.spec
      : w.kind === 'CronJob'
        ? w.spec?.jobTemplate?.spec?.template?.spec
        : w.spec?.template?.spec;
  const base =
    w.kind === 'Pod' ? 'spec' : w.kind === 'CronJob' ? 'spec.jobTemplate.spec.template.spec' : 'spec.template.spec';
  // The service's own migration Job runs MIGRATION_CONTAINER (decided in src/decisions/migrations.ts) instead of the
  // app.
  const migration = d.migration !== undefined && w.kind === 'Job' && w.metadata?.name === d.migration.name;
  const known = new Set([
    migration ? MIGRATION_CONTAINER : 'app',
    ...d.pod.sidecars.map((x) => x.name),
    ...d.pod.initContainers.map((x) => x.name),
  ]);
  const out: string[] = [];
  for (const list of ['containers', 'initContainers'] as const) {
    (spec?.[list] ?? []).forEach((c, i) => {
      if (!known.has(c?.name ?? '')) {
        out.push(
          `${w.metadata?.name ?? d.name} ${base}.${list}[${i}]: container "${c?.name}" was added by a patch, so ` +
            'rollwise decided none of its resources, probes or security context and no rule vouches for them. Fix: ' +
            'declare it in sidecars (or initContainers), where it is checked like the app.',
        );
      }
    });
  }
  return out;
}
