import { ApiObject } from 'cdk8s';
import { k8s } from 'cdk8s-plus-28';
import { Construct } from 'constructs';
import { MigrationDecisions } from '../decisions/migrations';
import { ServiceDecisions } from '../decisions/service';
import { Reasons } from '../justify/reasons';
import { renderMigrationPodTemplate } from './pod-template';
import { registerDecidedValuesCheck } from '../invariants/decided-values';

export interface MigrationJobConstructProps {
  readonly decisions: ServiceDecisions;
  readonly migration: MigrationDecisions;
  /** @default none (the Argo CD Application's destination namespace applies) */
  readonly namespace?: string;
  /** The platform labels and managed-by; the selector label is replaced. */
  readonly labels: Record<string, string>;
}

/**
 * The service's schema migration as an Argo CD PreSync hook Job `<service>-migrate`, run once per
 * sync before anything of the release is applied, with the app's image and security context
 * (docs/mechanisms.md#migrations). Rendered only from decisions.
 */
export class MigrationJob extends Construct {
  public readonly job: ApiObject;

  constructor(scope: Construct, id: string, props: MigrationJobConstructProps) {
    super(scope, id);
    registerDecidedValuesCheck(this);
    const d = props.decisions;
    const m = props.migration;
    const r = new Reasons();
    const { 'app.kubernetes.io/name': _selector, ...rest } = props.labels;
    const labels = {
      ...rest,
      'app.kubernetes.io/name': m.name,
      'app.kubernetes.io/part-of': d.name,
      'app.kubernetes.io/component': 'migration',
    };
    const hook = r.use('metadata.annotations["argocd.argoproj.io/hook"]', m.hook);
    const deletePolicy = r.use('metadata.annotations["argocd.argoproj.io/hook-delete-policy"]', m.deletePolicy);
    const spec: k8s.JobSpec = {
      backoffLimit: r.use('spec.backoffLimit', m.backoffLimit),
      activeDeadlineSeconds: r.use('spec.activeDeadlineSeconds', m.activeDeadlineSeconds),
      ttlSecondsAfterFinished: r.use('spec.ttlSecondsAfterFinished', m.ttlSecondsAfterFinished),
      template: renderMigrationPodTemplate(d, m, labels, r),
    };
    this.job = new ApiObject(this, 'job', {
      ...k8s.KubeJob.GVK,
      metadata: {
        name: m.name,
        namespace: props.namespace,
        labels,
        annotations: {
          'argocd.argoproj.io/hook': hook,
          'argocd.argoproj.io/hook-delete-policy': deletePolicy,
          ...r.annotations(),
        },
      },
      spec: k8s.toJson_JobSpec(spec),
    });
  }
}
