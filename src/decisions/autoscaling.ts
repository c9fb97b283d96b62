import { decided, Decision } from './decision';
import { checkInteger } from './inputs';

/** Autoscaling on CPU; `replicas` is the floor the capacity figures were checked against. */
export interface AutoscalingProps {
  readonly maxReplicas: number;
  /**
   * Target average CPU utilisation of the request, in percent, measured in a load test (no default: it depends on how
   * CPU tracks load for this service).
   */
  readonly targetCpuUtilisationPercent: number;
}

/** The HorizontalPodAutoscaler's values, each with its reason. */
export interface AutoscalingDecisions {
  readonly minReplicas: Decision<number>;
  readonly maxReplicas: Decision<number>;
  /** The CPU utilisation target (input), and the reason of the metric. */
  readonly targetCpuUtilisationPercent: number;
  readonly metricReason: string;
}

/** A HorizontalPodAutoscaler between `replicas` (the floor) and `maxReplicas`. */
export function decideAutoscaling(a: AutoscalingProps, replicas: number): AutoscalingDecisions {
  checkInteger(
    'autoscaling.maxReplicas',
    a.maxReplicas,
    replicas,
    10000,
    `it must be at least replicas (${replicas}), the floor the capacity figures were checked against.`,
    `use a maximum of at least ${replicas}.`,
  );
  checkInteger(
    'autoscaling.targetCpuUtilisationPercent',
    a.targetCpuUtilisationPercent,
    10,
    95,
    'utilisation is measured against the CPU request; at 100 % and above the pods are already saturated when the ' +
      'autoscaler reacts.',
    'use the utilisation your load test showed at about 80 % of the saturation rate.',
  );
  return {
    minReplicas: decided(
      replicas,
      `The replicas input (${replicas}): the floor the disruption budget and capacity figures were checked against; ` +
        'the autoscaler may add, never go below.',
    ),
    maxReplicas: decided(a.maxReplicas, 'Input: the most replicas the service may run.'),
    targetCpuUtilisationPercent: a.targetCpuUtilisationPercent,
    metricReason:
      `Input: scale out above ${a.targetCpuUtilisationPercent} % average CPU utilisation of the request, ` +
      `as measured in the service's load test.`,
  };
}
