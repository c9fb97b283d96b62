/**
 * Benchmark of the fleet simulator: one simulated hour of a 100-replica fleet
 * at 100 ms resolution (target: under 1 s), and the scaling in replicas and in
 * simulated time, so linearity in replica-seconds is visible.
 *
 * Run: npx tsc -p tsconfig.build.json && node lib/bench/simulate.js
 */
import { scenarioFromObject, simulate, simulateDrainAtPeak, type Scenario } from '../src/simulate';
import { medianMs } from './stats';

/**
 * A busy but healthy fleet: readiness period 10 s with a dependency call (so
 * every probe draws a random number), a liveness probe, load on a daily curve
 * near its peak, and a drain of 10 % after 5 minutes: every mechanism runs.
 */
function fleet(replicas: number, hours: number): Scenario {
  return scenarioFromObject({
    name: `bench ${replicas} x ${hours} h`,
    seed: 1,
    durationSeconds: hours * 3600,
    replicas,
    readiness: {
      periodSeconds: 10,
      timeoutSeconds: 3,
      failureThreshold: 3,
      successThreshold: 3,
      dependency: { p50Seconds: 0.05, p99Seconds: 0.4 },
    },
    liveness: { periodSeconds: 10, timeoutSeconds: 5, failureThreshold: 6, handler: 'tcp' },
    capacity: { cpu: { requestCores: 1, cpuSecondsPerRequest: 0.0025 } },
    load: { daily: { troughRps: 100 * replicas, peakRps: 350 * replicas, peakAtSeconds: 1800 } },
    events: [{ drain: { atSeconds: 300, count: Math.max(1, Math.round(replicas / 10)), replaceAfterSeconds: 120 } }],
  });
}

export async function benchSimulate(): Promise<string> {
  const rows: string[] = [];
  const row = (label: string, replicas: number, hours: number, repeat: number): void => {
    const s = fleet(replicas, hours);
    const ms = medianMs(() => simulate(s), repeat);
    const replicaSeconds = replicas * hours * 3600;
    const steps = Math.round(s.durationSeconds / s.stepSeconds);
    rows.push(
      `| ${label} | ${replicas} | ${hours} h | ${((replicas * steps) / 1e6).toFixed(2)} M | ${ms.toFixed(0)} ms | ${((ms * 1e6) / replicaSeconds).toFixed(0)} ns |`,
    );
  };
  row('**target: 100 replicas, 1 h (< 1 s)**', 100, 1, 5);
  for (const n of [50, 100, 200]) row('replicas scaling', n, 1, 3);
  for (const h of [0.5, 1, 2]) row('time scaling', 100, h, 3);

  // The golden-path check, cold (first call in this process was above, so also show warm).
  const drainOpts = {
    replicas: 12,
    drain: 1,
    peakRps: 3700,
    saturationRpsPerReplica: 500,
    readiness: { periodSeconds: 10, timeoutSeconds: 3, failureThreshold: 3, successThreshold: 3 },
  };
  const drainMs = medianMs(() => simulateDrainAtPeak(drainOpts), 9);

  return [
    '### rollwise simulate',
    '',
    '| run | replicas | simulated | pod-steps | time (median) | per replica-second |',
    '|---|---|---|---|---|---|',
    ...rows,
    '',
    `simulateDrainAtPeak (12 replicas, 10 min, warm): ${drainMs.toFixed(1)} ms`,
    '',
  ].join('\n');
}

if (require.main === module) {
  // Cold timing of the per-synth check first, before anything warms the JIT.
  const t0 = process.hrtime.bigint();
  simulateDrainAtPeak({
    replicas: 12,
    drain: 1,
    peakRps: 3700,
    saturationRpsPerReplica: 500,
    readiness: { periodSeconds: 10, timeoutSeconds: 3, failureThreshold: 3, successThreshold: 3 },
  });
  const coldMs = Number(process.hrtime.bigint() - t0) / 1e6;
  benchSimulate().then(
    (md) => {
      process.stdout.write(md + `simulateDrainAtPeak cold (first call in a fresh process): ${coldMs.toFixed(1)} ms\n`);
    },
    (e: unknown) => {
      process.stderr.write(`${String(e)}\n`);
      process.exit(1);
    },
  );
}
