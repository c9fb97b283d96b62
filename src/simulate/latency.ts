/**
 * Load and latency in the fleet model: the offered load at a time, a replica's capacity and the
 * health handler's latency under load (the M/G/1 processor-sharing term, CFS throttling under a
 * CPU limit, and queued work; see the header of model.ts).
 */
import type { Scenario } from './scenario-types';

/** CFS bandwidth period: the kernel accounts `limits.cpu` quota per 100 ms (cpu.cfs_period_us default). */
const CFS_PERIOD_SECONDS = 0.1;
/** Cap on utilisation in the processor-sharing term; beyond it the backlog term models overload. */
const PS_UTILISATION_CAP = 0.99;

/** Offered load (req/s) at time t. */
export function loadAt(s: Scenario, t: number): number {
  const l = s.load;
  switch (l.kind) {
    case 'constant':
      return l.rps;
    case 'steps': {
      let rps = l.steps[0].rps;
      for (const st of l.steps) if (st.atSeconds <= t) rps = st.rps;
      return rps;
    }
    case 'daily': {
      // One cosine peak per 24 h: trough 12 h away from the peak.
      const phase = (2 * Math.PI * (t - l.peakAtSeconds)) / 86400;
      return l.troughRps + ((l.peakRps - l.troughRps) * (1 + Math.cos(phase))) / 2;
    }
  }
}

/** Per-replica rate (req/s) above which requests queue. */
export function capacityRps(s: Scenario): number {
  const c = s.capacity;
  if (c.kind === 'points') return c.saturationRps;
  const cores = c.limitCores !== undefined ? Math.min(c.limitCores, c.burstCores) : c.burstCores;
  return cores / c.cpuSecondsPerRequest;
}

/** Health handler latency (seconds) of a pod receiving `rps` with `backlog` seconds of queued work. */
export function handlerLatency(s: Scenario, rps: number, backlog: number): number {
  const c = s.capacity;
  if (c.kind === 'points') return interpolate(c.points, rps) + backlog;
  const u = rps / capacityRps(s);
  const shared = c.healthSeconds / (1 - Math.min(u, PS_UTILISATION_CAP));
  const throttled = c.limitCores !== undefined ? CFS_PERIOD_SECONDS * Math.min(u, 1) : 0;
  return shared + throttled + backlog;
}

/** Piecewise-linear through the points; extrapolates the last segment (flat below the first point). */
function interpolate(points: Array<{ rps: number; p99Seconds: number }>, rps: number): number {
  if (points.length === 1 || rps <= points[0].rps) return points[0].p99Seconds;
  for (let i = 1; i < points.length; i++) {
    if (rps <= points[i].rps || i === points.length - 1) {
      const a = points[i - 1];
      const b = points[i];
      return Math.max(0, a.p99Seconds + ((b.p99Seconds - a.p99Seconds) * (rps - a.rps)) / (b.rps - a.rps));
    }
  }
  return points[points.length - 1].p99Seconds; // not reached
}
