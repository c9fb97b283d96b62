import type { IConstruct } from 'constructs';
import type { Platform } from './decisions/platform';
import type { ServiceDecisions } from './decisions/service';

/**
 * What a service construct decided, as commands that load an app read it from the construct tree
 * (`rollwise measure` takes the namespace, Prometheus, workload kind and disruption budget from it).
 * A module below both the constructs and the commands, so that a command needs no construct class.
 */
export interface DecidedService {
  readonly name: string;
  /** @default none (the Argo CD Application's destination namespace applies) */
  readonly namespace?: string;
  readonly platform: Platform;
  readonly decisions: ServiceDecisions;
  /** Which controller runs the pods: an Argo Rollout (canary delivery) or a Deployment. */
  readonly workload: 'rollout' | 'deployment';
}

const SERVICES = new WeakMap<IConstruct, DecidedService>();

/** Records what the service construct `scope` decided (HttpService does, once it is complete). */
export function registerDecidedService(scope: IConstruct, service: DecidedService): void {
  SERVICES.set(scope, service);
}

/** The services decided under `root`, in construct-tree order. */
export function decidedServices(root: IConstruct): DecidedService[] {
  return root.node.findAll().flatMap((c) => {
    const s = SERVICES.get(c);
    return s ? [s] : [];
  });
}
