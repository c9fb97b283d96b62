/**
 * Seeded randomness for the fleet model (never Math.random): one mulberry32 stream per (seed, pod),
 * and the lognormal a dependency's latency is drawn from.
 */
import type { DependencySettings } from './scenario-types';

/** z-score of the 99th percentile of a standard normal, to fit a lognormal to p50 and p99. */
const Z99 = 2.3263478740408408;

/** mulberry32: a small, fast 32-bit PRNG; returns floats in [0, 1). */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** One independent stream per (seed, pod id): mixes the two into a 32-bit seed. */
export function streamSeed(seed: number, podId: number): number {
  let h = Math.imul(seed ^ 0x9e3779b9, 0x85ebca6b) ^ Math.imul(podId + 1, 0xc2b2ae35);
  h = Math.imul(h ^ (h >>> 16), 0x7feb352d);
  h = Math.imul(h ^ (h >>> 15), 0x846ca68b);
  return (h ^ (h >>> 16)) >>> 0;
}

/** Lognormal parameters from p50 and p99: mu = ln p50, sigma = ln(p99 / p50) / z99. */
export function lognormalFromP50P99(d: DependencySettings): { mu: number; sigma: number } {
  return { mu: Math.log(d.p50Seconds), sigma: Math.log(d.p99Seconds / d.p50Seconds) / Z99 };
}

export function drawLognormal(rng: () => number, mu: number, sigma: number): number {
  // Box-Muller; 1 - rng() is in (0, 1] so the log is finite.
  const z = Math.sqrt(-2 * Math.log(1 - rng())) * Math.cos(2 * Math.PI * rng());
  return Math.exp(mu + sigma * z);
}
