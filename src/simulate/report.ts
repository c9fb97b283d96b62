/**
 * Text output of a simulation: summary, verdict and a compact terminal chart
 * (sparklines of ready endpoints and error ratio over time).
 */
import { loadAt } from './latency';
import type { SimResult } from './results';
import type { Scenario } from './scenario-types';

const BLOCKS = ['▁', '▂', '▃', '▄', '▅', '▆', '▇', '█'];

/**
 * One character per column, each the MINIMUM (for ready endpoints: a dip must
 * show) or MAXIMUM (for errors) of the samples it covers. 0 is drawn as '_' so a
 * collapse is visible even where a terminal trims blanks.
 */
export function sparkline(values: number[], width: number, max: number, pick: 'min' | 'max' = 'min'): string {
  if (values.length === 0) return '';
  const cols = Math.min(width, values.length);
  let out = '';
  for (let c = 0; c < cols; c++) {
    const from = Math.floor((c * values.length) / cols);
    const to = Math.max(from + 1, Math.floor(((c + 1) * values.length) / cols));
    let v = values[from];
    for (let i = from + 1; i < to; i++) v = pick === 'min' ? Math.min(v, values[i]) : Math.max(v, values[i]);
    if (v <= 0 || max <= 0) out += '_';
    else out += BLOCKS[Math.min(BLOCKS.length - 1, Math.max(0, Math.ceil((v / max) * BLOCKS.length) - 1))];
  }
  return out;
}

function pct(x: number): string {
  return `${(100 * x).toFixed(x > 0 && x < 0.01 ? 3 : 1)} %`;
}

function num(x: number): string {
  return Math.round(x)
    .toString()
    .replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

function describeFleet(s: Scenario): string[] {
  const r = s.readiness;
  const lines = [
    `fleet     ${s.replicas} replicas; readiness period ${r.periodSeconds}s timeout ${r.timeoutSeconds}s ` +
      `failure ${r.failureThreshold} success ${r.successThreshold}` +
      (r.dependency ? `; calls a dependency (p50 ${r.dependency.p50Seconds}s, p99 ${r.dependency.p99Seconds}s)` : ''),
  ];
  if (s.liveness) {
    const l = s.liveness;
    lines.push(
      `liveness  ${l.handler} period ${l.periodSeconds}s timeout ${l.timeoutSeconds}s failure ${l.failureThreshold}`,
    );
  }
  const c = s.capacity;
  lines.push(
    c.kind === 'cpu'
      ? 'capacity  cpu ' +
          `request ${c.requestCores}, ${
            c.limitCores !== undefined
              ? `limit ${c.limitCores} (CFS throttled)`
              : `no limit (bursts to ${c.burstCores})`
          }, ${c.cpuSecondsPerRequest * 1000} ` +
          `ms CPU/request, idle health ${c.healthSeconds * 1000} ms`
      : `capacity  ${c.points.length} latency point(s), saturation ${num(c.saturationRps)} req/s per replica`,
  );
  const l = s.load;
  lines.push(
    `load      ${
      l.kind === 'constant'
        ? `${num(l.rps)} req/s constant`
        : l.kind === 'steps'
          ? `steps ${l.steps.map((x) => `${num(x.rps)}@${x.atSeconds}s`).join(', ')}`
          : `daily ${num(l.troughRps)}..${num(l.peakRps)} ` + `req/s, peak at ${l.peakAtSeconds}s`
    }` + `; proxy propagation ${s.proxy.propagationSeconds}s, request timeout ${s.proxy.requestTimeoutSeconds}s`,
  );
  for (const e of s.events) {
    lines.push(
      e.kind === 'drain'
        ? `event     drain ${e.count} pod(s) ` +
            `at ${e.atSeconds}s${
              e.replaceAfterSeconds !== undefined ? `, replaced after ${e.replaceAfterSeconds}s` : ', not replaced'
            }`
        : `event     new ReplicaSet at ${e.atSeconds}s (maxSurge ${e.maxSurge}, maxUnavailable ${e.maxUnavailable}, ` +
            `minReadySeconds ${e.minReadySeconds})`,
    );
  }
  return lines;
}

/** The human-readable report `rollwise simulate` prints. */
export function formatReport(s: Scenario, r: SimResult, width = 72): string {
  const m = r.summary;
  const col = Math.max(m.durationSeconds / Math.min(width, r.series.t.length || 1), 0);
  // no spread: series can hold 10^6 samples
  const peakLoad = r.series.offeredRps.reduce((a, b) => Math.max(a, b), loadAt(s, 0));
  const lines: string[] = [];
  lines.push(`scenario  ${s.name}`);
  lines.push(...describeFleet(s));
  lines.push(
    `simulated ${m.durationSeconds}s in ${m.stepSeconds}s steps, seed ${m.seed}; ` +
      `capacity ${num(m.capacityRpsPerReplica)} req/s per replica`,
  );
  lines.push('');
  lines.push(
    `ready endpoints (proxy view), 0..${m.replicas}, one column = ${col.toFixed(col < 10 ? 1 : 0)}s, min per column`,
  );
  lines.push(`  ${sparkline(r.series.readyEndpoints, width, m.replicas, 'min')}`);
  lines.push(`error ratio, 0..100 %, max per column`);
  lines.push(`  ${sparkline(r.series.errorRatio, width, 1, 'max')}`);
  lines.push(
    `  0s${' '.repeat(
      Math.max(1, Math.min(width, r.series.t.length) - 2 - `${m.durationSeconds}s`.length),
    )}${m.durationSeconds}s`,
  );
  lines.push('');
  lines.push(`min ready            ${m.minReady}/${m.replicas} (at ${m.minReadyAtSeconds}s)`);
  lines.push(`ready at end         ${m.readyAtEnd}`);
  lines.push(`time below floor     ${m.timeBelowFloorSeconds}s (floor ${m.floor})`);
  lines.push(`collapses to 0       ${m.collapses} (recoveries to the floor ${m.recoveries})`);
  lines.push(`mean pods out        ${m.meanNotReady.toFixed(2)}`);
  lines.push(`probe failures       ${m.probeFailures}; departures ${m.departures}; restarts ${m.restarts}`);
  lines.push(
    `errors               ${pct(m.errorRatio)} of ${num(m.requests)} requests (peak ${num(peakLoad)} req/s): ` +
      `no endpoint (UH) ${num(m.errors.noEndpoint)}, refused (UF) ${num(m.errors.refused)}, timed out ` +
      `(UT) ${num(m.errors.timeout)}, reset (UC) ${num(m.errors.reset)}`,
  );
  lines.push('');
  lines.push(`verdict: ${m.verdict} - ${m.explanation}`);
  return lines.join('\n') + '\n';
}
