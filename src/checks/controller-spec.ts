/**
 * The Argo Rollouts controller's verdict on a Rollout, an AnalysisTemplate or a
 * ClusterAnalysisTemplate, before the cluster's. The controller has no admission webhook: the API
 * server accepts a Rollout the controller cannot run, which then only shows up as an InvalidSpec
 * condition (Degraded in Argo CD), and an AnalysisRun it cannot run goes to Error and aborts the
 * rollout. Each check ports one condition of the controller at v1.9.1, named in its comment:
 *
 * - pkg/apis/rollouts/validation/validation.go (ValidateRolloutSpec and what it calls),
 * - pkg/apis/rollouts/validation/validation_references.go and rollout/controller.go
 *   (getRolloutValidationErrors: referenced Services and analysis templates),
 * - utils/analysis/helpers.go (ValidateMetrics, MergeArgs, FlattenTemplates, GetDryRunMetrics),
 *   run by analysis/analysis.go reconcileAnalysisRun when an AnalysisRun starts.
 *
 * Rules whose key starts with `rw` are rollwise's own refusals of specs the controller accepts;
 * each says why (the Gateway API plugin fails at runtime, or the spec silently loses a gate).
 *
 * One file per upstream area, under controller/: templateref.ts (rollout/templateref.go),
 * validation.go's checks in validation.ts, references.ts (validation_references.go and
 * controller.go), gateway-plugin.ts (the Gateway API plugin), analysis-references.ts (the
 * templates a Rollout references, merged as the controller builds the run), analysis-metrics.ts
 * (ValidateMetrics); findings.ts holds the shared types and JSON readers.
 */
import { validateTemplate } from './controller/analysis-metrics';
import { ControllerFinding, Findings, Json, ObjectLookup } from './controller/findings';
import { validateReferences } from './controller/references';
import { resolveWorkloadRef } from './controller/templateref';
import { validateRolloutSpec } from './controller/validation';

export type { ControllerCheck, ControllerFinding, ObjectLookup } from './controller/findings';
export { pauseDurationSeconds } from './controller/validation';

/** Which kinds the checker reads. */
export const CONTROLLER_KINDS = ['Rollout', 'AnalysisTemplate', 'ClusterAnalysisTemplate'] as const;

/** Everything the controller (and, for `rw*` checks, the plugin) would refuse in `obj`. */
export function checkController(obj: Json, lookup: ObjectLookup): ControllerFinding[] {
  const out = new Findings();
  if (obj.kind === 'Rollout') {
    validateRolloutSpec(resolveWorkloadRef(obj, lookup, out), out);
    validateReferences(obj, lookup, out);
  } else if (obj.kind === 'AnalysisTemplate' || obj.kind === 'ClusterAnalysisTemplate') {
    validateTemplate(obj, out);
  }
  return out.list;
}
