/** Public API of the rollout rehearsal (`rollwise rehearse`, and synth's rehearsal check). */
export {
  readRollouts,
  readRolloutObjects,
  parseDuration,
  RehearseInputError,
  type RolloutModel,
  type MetricSpec as RehearsalMetric,
  type RunSpec,
  type StepSpec,
  type ReadOptions,
} from './manifest';
export { RELEASES, SYNTH_RELEASES, releaseById, type Release, type Expectation, type TrafficLevel } from './releases';
export { buildWorld, firstReady, gateDuration, type World, type Series, type WorldOptions } from './world';
export {
  analysisLoop,
  runLoop,
  runLoopSync,
  ERROR_RETRY_SECONDS,
  type Verdict as RehearsalVerdict,
  type Measurement,
  type QueryAnswer,
  type QueryRequest,
  type Outcome,
} from './loop';
export {
  evalCondition,
  assessResult,
  parseCondition as parseExprCondition,
  ConditionSyntaxError,
  type Phase,
} from './condition';
export { evaluateInstant, parsePromql, supportsQuery, PromqlUnsupported } from './promql';
export {
  PrometheusHarness,
  DEFAULT_BINARIES,
  toOpenMetrics,
  resultFromApi,
  EPOCH_SECONDS,
  PrometheusUnavailable,
  type PrometheusBinaries,
} from './prometheus';
export {
  rehearseOnPrometheus,
  rehearseInProcess,
  firstWeight,
  humanAtFirstWeight,
  sentence,
  meets,
  type Rehearsal,
  type ReleaseResult,
  type RehearseOptions,
} from './rehearse';
export { formatRehearsal, rehearsalJson, renderRehearsalSvg } from './report';
export { runRehearse, type RunRehearseOptions } from './command';
export { rehearseForSynth, type SynthRehearsal, type Refusal } from './synth-check';
