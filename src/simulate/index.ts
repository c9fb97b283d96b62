/** Public API of the fleet simulator (`rollwise simulate`). */
export {
  simulate,
  mulberry32,
  lognormalFromP50P99,
  handlerLatency,
  capacityRps,
  loadAt,
  isBadVerdict,
  VERDICT_RANK,
  estimateWork,
  MAX_WORK_POD_STEPS,
  MAX_SAMPLES,
  type WorkEstimate,
  type Verdict,
  type SimResult,
  type SimSeries,
  type SimSummary,
} from './model';
export {
  parseScenario,
  loadScenarioFile,
  scenarioFromObject,
  readManifestSettings,
  parseCpuQuantity,
  ScenarioError,
  DEFAULTS,
  type Scenario,
  type ScenarioProblem,
  type ParseOptions,
  type ProbeSettings,
  type ReadinessSettings,
  type LivenessSettings,
  type DependencySettings,
  type CapacityModel,
  type LoadProfile,
  type SimEvent,
  type ManifestSettings,
} from './scenario';
export {
  simulateDrainAtPeak,
  drainAtPeakScenario,
  type DrainAtPeakOptions,
  type DrainAtPeakResult,
} from './drain-at-peak';
export { renderSvg } from './svg';
export { formatReport, sparkline } from './report';
export { runSimulate, type RunSimulateOptions } from './command';
