import { ApiObject } from 'cdk8s';
import { Construct } from 'constructs';
import { Application } from '../../imports/application-argoproj.io';
import { decided } from '../decisions/decision';
import { checkName } from '../decisions/inputs';
import { ArgoCdSettings } from '../decisions/platform';
import { RollwiseInputError } from '../errors';
import { Reasons } from '../justify/reasons';
import { HttpService } from './http-service';

export interface ArgoCdApplicationProps {
  /** The service whose committed manifests this Application applies. */
  readonly service: HttpService;
  /** Repository, revision, path and destination. */
  readonly settings: ArgoCdSettings;
  /** The service's manifest file(s) inside `settings.path` (a glob), e.g. "checkout-api.k8s.yaml". */
  readonly include: string;
  /**
   * Destination namespace.
   * @default the service's namespace
   */
  readonly destinationNamespace?: string;
}

/**
 * The Argo CD Application for one service: automated sync with self-heal and prune, applying only
 * the service's own committed file, ignoring the fields controllers change at runtime. The rollback
 * is `git revert` (docs/mechanisms.md#gitops-rollback). The object is named after the construct id.
 */
export class ArgoCdApplication extends Construct {
  public readonly application: ApiObject;

  constructor(scope: Construct, id: string, props: ArgoCdApplicationProps) {
    super(scope, id);
    const name = checkName('id', id);
    const s = props.settings;
    const svc = props.service;
    const destNs = props.destinationNamespace ?? svc.namespace;
    if (!destNs) throw new RollwiseInputError('destinationNamespace', 'unset', 'the service has no namespace and none was given: Argo CD would apply into its own namespace.', 'give the chart a namespace or set destinationNamespace.');
    if (!/^(https?|ssh):\/\/|^git@/.test(s.repoURL)) throw new RollwiseInputError('argoCd.repoURL', s.repoURL, 'is not a Git URL Argo CD can clone.', 'use e.g. "https://github.com/acme/deploy.git".');
    const r = new Reasons();
    const ignore: { group?: string; kind: string; name?: string; namespace?: string; jqPathExpressions?: string[]; jsonPointers?: string[] }[] = [];
    if (svc.canary) {
      ignore.push({ group: 'gateway.networking.k8s.io', kind: 'HTTPRoute', name: svc.name, namespace: destNs, jqPathExpressions: ['.spec.rules[].backendRefs[].weight'] });
    }
    if (svc.replicasOwnedByAutoscaler) {
      ignore.push({ group: svc.workload.apiVersion.includes('/') ? svc.workload.apiVersion.split('/')[0] : '', kind: svc.workload.kind, name: svc.name, namespace: destNs, jsonPointers: ['/spec/replicas'] });
    }
    const spec = {
      project: s.project ?? 'default',
      source: {
        repoURL: s.repoURL,
        targetRevision: s.targetRevision ?? 'main',
        path: s.path,
        directory: { include: r.use('spec.source.directory.include', decided(props.include, `Only the service's own file (${props.include}): the folder also holds other services and the Applications themselves, which must not be applied into ${destNs}.`)) },
      },
      destination: { server: s.server ?? 'https://kubernetes.default.svc', namespace: destNs },
      syncPolicy: {
        automated: r.use('spec.syncPolicy.automated', decided({ prune: true, selfHeal: true }, 'Git is the only way in: self-heal reverts hand edits (including `kubectl argo rollouts undo`, which self-heal re-applies from Git within seconds), prune removes what Git no longer holds. Roll back with `git revert` (docs/mechanisms.md#gitops-rollback).')),
        syncOptions: r.use('spec.syncPolicy.syncOptions', decided(['RespectIgnoreDifferences=true', 'ApplyOutOfSyncOnly=true'],
          'RespectIgnoreDifferences=true keeps sync from resetting the fields below (the plugin\'s canary weights mid-rollout would otherwise snap back to 100/0); ApplyOutOfSyncOnly=true applies only changed objects, so a sync never touches a Rollout that did not change.')),
      },
      ...(ignore.length ? { ignoreDifferences: ignore } : {}),
    };
    if (ignore.length) {
      r.note('spec.ignoreDifferences', `Fields controllers change at runtime: ${[svc.canary ? 'the HTTPRoute backendRef weights (set by the Argo Rollouts Gateway API plugin during a canary)' : '', svc.replicasOwnedByAutoscaler ? `${svc.workload.kind} /spec/replicas (owned by the autoscaler)` : ''].filter(Boolean).join('; ')}; without this Argo CD reports drift and self-heal fights the controllers (reference: Argo CD and Rollouts).`);
    }
    this.application = new ApiObject(this, 'application', {
      ...Application.GVK,
      metadata: { name, namespace: s.namespace ?? 'argocd', labels: { 'app.kubernetes.io/managed-by': 'rollwise' }, annotations: r.annotations() },
      spec,
    });
  }
}
