/**
 * successCondition / failureCondition for `rollwise rehearse` and its synth-time check. The
 * evaluator (Argo Rollouts utils/evaluate/evaluate.go v1.9.1, expr v1.15.5) is the one in
 * src/checks/analysis-condition.ts; a ConditionSyntaxError from it is what the rehearsal reports as
 * unusable input, a ConditionRuntimeError an Error measurement.
 */

export {
  ConditionSyntaxError,
  ConditionRuntimeError,
  parseCondition,
  evalCondition,
  assessResult,
  type Phase,
} from '../checks/analysis-condition';

/** What the Prometheus provider hands the conditions: a scalar's float or a vector's sample values. */
export type Result = number | number[];
