import { decided, Decision } from './decision';
import { NamespaceDecisions } from './namespaces';

// How the Argo CD Application of a service syncs (src/constructs/argo-cd-application.ts renders
// it): the one file it applies, automated sync with self-heal and prune, and the sync options.

export interface ApplicationSyncInputs {
  /** The service's manifest file(s) inside `path` (a glob). */
  readonly include: string;
  /** Whether `include` was given (ArgoCdApplicationProps.include) or is the chart's file. */
  readonly includeGiven: boolean;
  /** The environment's folder in the repository (argoCd.path). */
  readonly path: string;
  readonly destinationNamespace: string;
  /** How the destination namespace comes to exist (decideNamespace). */
  readonly namespace: NamespaceDecisions;
  /** The service's name: its HTTPRoute's and its workload's. */
  readonly serviceName: string;
  /** Whether the service is delivered by canary (the Gateway API plugin sets the route's weights). */
  readonly canary: boolean;
  /** Whether an autoscaler owns the workload's replicas (absent from Git). */
  readonly replicasOwnedByAutoscaler: boolean;
  /** The service's workload (a Rollout or a Deployment). */
  readonly workload: { readonly apiVersion: string; readonly kind: string };
}

/** One entry of an Application's spec.ignoreDifferences. */
export interface IgnoreDifference {
  group?: string;
  kind: string;
  name?: string;
  namespace?: string;
  jqPathExpressions?: string[];
  jsonPointers?: string[];
}

export interface ApplicationSyncDecisions {
  /** spec.source.directory.include */
  readonly include: Decision<string>;
  /** spec.syncPolicy.automated */
  readonly automated: Decision<{ prune: boolean; selfHeal: boolean }>;
  /** spec.syncPolicy.syncOptions */
  readonly syncOptions: Decision<string[]>;
  /** spec.ignoreDifferences, when a controller changes a field at runtime (none otherwise). */
  readonly ignoreDifferences?: Decision<IgnoreDifference[]>;
}

/**
 * The fields controllers change at runtime, left out of Argo CD's diff: the route's backendRef
 * weights during a canary (the Gateway API plugin sets them) and the workload's replicas when an
 * autoscaler owns them. Undefined when there are none.
 */
function ignoreDifferences(inp: ApplicationSyncInputs): Decision<IgnoreDifference[]> | undefined {
  const ignore: IgnoreDifference[] = [];
  const what: string[] = [];
  if (inp.canary) {
    ignore.push({
      group: 'gateway.networking.k8s.io',
      kind: 'HTTPRoute',
      name: inp.serviceName,
      namespace: inp.destinationNamespace,
      jqPathExpressions: ['.spec.rules[].backendRefs[].weight'],
    });
    what.push('the HTTPRoute backendRef weights (set by the Argo Rollouts Gateway API plugin during a canary)');
  }
  if (inp.replicasOwnedByAutoscaler) {
    const apiVersion = inp.workload.apiVersion;
    ignore.push({
      group: apiVersion.includes('/') ? apiVersion.split('/')[0] : '',
      kind: inp.workload.kind,
      name: inp.serviceName,
      namespace: inp.destinationNamespace,
      jsonPointers: ['/spec/replicas'],
    });
    what.push(`${inp.workload.kind} /spec/replicas (owned by the autoscaler, and absent from Git)`);
  }
  if (ignore.length === 0) return undefined;
  return decided(
    ignore,
    `Fields controllers change at runtime: ${what.join('; ')}; ` +
      'without this Argo CD reports drift and self-heal fights the controllers (reference: Argo CD and ' +
      `Rollouts). They only leave the diff: every other field of these objects, the route's rules included, is ` +
      'still applied from Git.',
  );
}

/** The Application's sync values, each with its reason. */
export function decideApplicationSync(inp: ApplicationSyncInputs): ApplicationSyncDecisions {
  const ignored = ignoreDifferences(inp);
  return {
    include: decided(
      inp.include,
      `Only the service's own file (${inp.include}${!inp.includeGiven ? ', the file its chart is written to' : ''}): ` +
        `the folder ${inp.path} is the whole environment's, where the other services' manifests and the Backstage ` +
        `catalog-info.yaml files are written too, which must not be applied into ${inp.destinationNamespace}.`,
    ),
    automated: decided(
      { prune: true, selfHeal: true },
      'Git is the only way in: self-heal reverts hand edits (including `kubectl argo rollouts undo`, which self-heal ' +
        're-applies from Git within seconds), prune removes what Git no longer holds. Roll back with `git revert` ' +
        '(docs/mechanisms.md#gitops-rollback).',
    ),
    syncOptions: decided(
      ['ApplyOutOfSyncOnly=true', ...(inp.namespace.createNamespace.value ? ['CreateNamespace=true'] : [])],
      `${inp.namespace.createNamespace.reason} ` +
        'ApplyOutOfSyncOnly=true applies only objects that differ from ' +
        'Git after the ignore rules below, so a release (a Rollout change) never re-applies the HTTPRoute and the ' +
        "plugin's canary weights stay as they are. No RespectIgnoreDifferences=true: for custom resources Argo CD " +
        'copies ignored fields from live with a JSON merge patch, which replaces arrays whole (controller/sync.go ' +
        'normalizeTargetResources, v3.5.1; argo-cd#17694, #25284), so with the weight rule it would copy the live ' +
        "spec.rules into every sync and a Git change to the route's rules would never apply. The price: a commit " +
        "that changes the route itself, applied during a canary, writes Git's 100/0 (all traffic to stable, the " +
        'safe side) until the controller sets the weight again.',
    ),
    ...(ignored ? { ignoreDifferences: ignored } : {}),
  };
}
