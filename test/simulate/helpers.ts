import { scenarioFromObject, type Scenario } from '../../src/simulate';

/** A small valid scenario object; tests override fields. */
export function baseScenario(over: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    name: 'test',
    seed: 1,
    durationSeconds: 300,
    replicas: 6,
    readiness: { periodSeconds: 5, timeoutSeconds: 1, failureThreshold: 2, successThreshold: 1 },
    capacity: { cpu: { requestCores: 1, cpuSecondsPerRequest: 0.0025 } },
    load: { constantRps: 1000 },
    ...over,
  };
}

export function scenario(over: Record<string, unknown> = {}): Scenario {
  return scenarioFromObject(baseScenario(over));
}

/** Standard normal CDF (Abramowitz & Stegun 7.1.26 erf, |error| < 1.5e-7), independent of the model's code. */
export function phi(x: number): number {
  const z = Math.abs(x) / Math.SQRT2;
  const t = 1 / (1 + 0.3275911 * z);
  const erf =
    1 -
    ((((1.061405429 * t - 1.453152027) * t + 1.421413741) * t - 0.284496736) * t + 0.254829592) * t * Math.exp(-z * z);
  return x >= 0 ? (1 + erf) / 2 : (1 - erf) / 2;
}
