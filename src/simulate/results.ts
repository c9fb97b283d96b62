/** What a run of the fleet model returns: the verdict, the summary and the sampled series. */

export type Verdict = 'stable' | 'degraded' | 'flapping' | 'oscillating' | 'cascade';

/** Severity order used by the verdict and by the "never worse" properties. */
export const VERDICT_RANK: Record<Verdict, number> = {
  stable: 0,
  degraded: 1,
  flapping: 2,
  oscillating: 3,
  cascade: 3,
};

/** Verdicts that fail `rollwise simulate` (exit code 1). */
export function isBadVerdict(v: Verdict): boolean {
  return v === 'flapping' || v === 'oscillating' || v === 'cascade';
}

/** Time series, one entry per sample (`sampleSeconds`). */
export interface SimSeries {
  /** End of the sample interval, seconds. */
  t: number[];
  /** Endpoints the proxy routes to (its view, after the propagation delay), at the end of the sample. */
  readyEndpoints: number[];
  /** Pods the kubelet reports ready, at the end of the sample. */
  readyPods: number[];
  /** Offered req/s divided by ready endpoints (null when there are none). */
  loadPerReady: Array<number | null>;
  offeredRps: number[];
  /** Readiness and liveness probes that failed within the sample. */
  probeFailures: number[];
  /** Failed requests / offered requests within the sample. */
  errorRatio: number[];
}

export interface SimSummary {
  name: string;
  seed: number;
  replicas: number;
  durationSeconds: number;
  stepSeconds: number;
  floor: number;
  errorBudget: number;
  /** Per-replica rate where requests start to queue, req/s. */
  capacityRpsPerReplica: number;
  minReady: number;
  minReadyAtSeconds: number;
  readyAtEnd: number;
  timeBelowFloorSeconds: number;
  /** Times the proxy's ready endpoints fell to 0. */
  collapses: number;
  /** Times they came back to the floor after a collapse. */
  recoveries: number;
  /** Time average of live pods the proxy does not route to. */
  meanNotReady: number;
  /** Ready -> not-ready transitions caused by probes (readiness or liveness), not by drains or rollouts. */
  departures: number;
  /** Most departures of a single pod. */
  maxDeparturesPerPod: number;
  restarts: number;
  /** When the last rollout event finished (all replicas new and available), or null. */
  rolloutCompletedAtSeconds: number | null;
  probeFailures: number;
  requests: number;
  errors: { total: number; noEndpoint: number; refused: number; timeout: number; reset: number };
  errorRatio: number;
  verdict: Verdict;
  explanation: string;
}

export interface SimResult {
  summary: SimSummary;
  series: SimSeries;
}
