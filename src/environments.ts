import { App, Chart } from 'cdk8s';
import { HttpService, HttpServiceProps } from './constructs/http-service';
import { checkInteger, checkName, MAX_REPLICAS } from './decisions/inputs';
import { Platform } from './decisions/platform';
import { inService, RollwiseInputError } from './errors';
import { isCloudSqlProxyImage, readProxyConfig } from './checks/cloud-sql-proxy';
import { declareOutputPath } from './synth/layout';
import { declareCluster } from './invariants/conflicts';

/** Where Argo CD deploys an environment: the cluster's API server and the namespace. */
export interface ClusterDestination {
  /** The destination cluster's API server, e.g. "https://kubernetes.default.svc" (the cluster Argo CD runs in). */
  readonly server: string;
  /** The namespace the environment's services go to (each chart's namespace). */
  readonly namespace: string;
}

/**
 * How the services are sized in an environment. The service's props describe production; an
 * environment can take them as given, run a fixed small fleet, or adjust them with a function.
 */
export class Sizing {
  /** The service's replicas and capacity figures unchanged. */
  public static asGiven(): Sizing {
    return new Sizing('as given', (props) => props);
  }

  /**
   * The same number of replicas for every service, without the production capacity figures: they
   * describe production traffic, which this environment does not see, so the disruption budget falls
   * back to one pod at a time (its reason says so) instead of being sized from a load that is not
   * there. A canary needs the traffic its volume gate is sized from (docs/mechanisms.md#quiet-environments):
   * give the environment's own in `traffic`, or deliver there by rolling update or manual promotion.
   * @param replicas at least 2 (the service refuses fewer)
   * @param traffic this environment's own traffic; the service's per-replica saturation is kept
   * @default no traffic figures: a canary service is refused at synth with the ways out
   */
  public static fixed(replicas: number, traffic?: EnvironmentTraffic): Sizing {
    checkInteger(
      'Sizing.fixed(replicas)',
      replicas,
      2,
      MAX_REPLICAS,
      "it becomes every service's replicas in the environment: one replica cannot survive a node drain or a rollout " +
        'without an outage, and a PodDisruptionBudget either blocks the drain forever or lets it take the service.',
      `use at least 2, e.g. Sizing.fixed(2) for a small environment (at most ${MAX_REPLICAS}).`,
    );
    if (traffic === undefined)
      return new Sizing(`${replicas} replicas, no capacity figures`, (props) => ({
        ...props,
        replicas,
        capacity: undefined,
      }));
    const peak = traffic.peakRequestsPerSecond;
    if (typeof peak !== 'number' || !Number.isFinite(peak) || peak <= 0) {
      throw new RollwiseInputError(
        'Sizing.fixed(traffic).peakRequestsPerSecond',
        peak,
        "must be a positive number of requests per second: the canary's volume gate is sized from it.",
        'give the traffic this environment sees, e.g. { peakRequestsPerSecond: 40 }.',
      );
    }
    return new Sizing(`${replicas} replicas at ${peak} req/s`, (props, service) => {
      const saturation = props.capacity?.saturationRequestsPerSecondPerReplica;
      // Without a canary the traffic sizes nothing a rolling update uses without the saturation figure.
      if (saturation === undefined && props.delivery?.kind === 'rollingUpdate')
        return { ...props, replicas, capacity: undefined };
      if (saturation === undefined) {
        throw new RollwiseInputError(
          `services.${service}.capacity.saturationRequestsPerSecondPerReplica`,
          'missing',
          `Sizing.fixed(${replicas}, { peakRequestsPerSecond: ${peak} }) keeps the service's per-replica saturation ` +
            '(the same pods, measured once) and replaces its traffic, and the service declares none.',
          "declare the service's capacity (peakRequestsPerSecond and saturationRequestsPerSecondPerReplica from a " +
            'load test), or use Sizing.custom.',
        );
      }
      return {
        ...props,
        replicas,
        capacity: {
          peakRequestsPerSecond: peak,
          saturationRequestsPerSecondPerReplica: saturation,
          releaseRequestsPerSecond: traffic.releaseRequestsPerSecond,
        },
      };
    });
  }

  /** Your own adjustment of each service's props (e.g. a smaller memory request in dev). */
  public static custom(
    description: string,
    adjust: (props: HttpServiceProps, service: string) => HttpServiceProps,
  ): Sizing {
    if (typeof adjust !== 'function') {
      throw new RollwiseInputError(
        `Sizing.custom(${JSON.stringify(description)}, adjust)`,
        adjust === undefined
          ? 'undefined'
          : typeof adjust === 'object'
            ? (JSON.stringify(adjust) ?? String(adjust))
            : String(adjust),
        "must be a function from a service's props (and its name) to the props it runs with in the environment.",
        "pass e.g. Sizing.custom('half the memory in dev', (props) => ({ ...props, resources: { " +
          "...props.resources, memory: '256Mi' } })).",
      );
    }
    return new Sizing(description, adjust);
  }

  private constructor(
    /** What the sizing does, in words. */
    public readonly description: string,
    private readonly adjust: (props: HttpServiceProps, service: string) => HttpServiceProps,
  ) {}

  /** The props of `service` in an environment with this sizing. */
  public apply(service: string, props: HttpServiceProps): HttpServiceProps {
    return checkAdjusted(
      `Sizing.custom(${JSON.stringify(this.description)}, adjust)`,
      service,
      this.adjust(props, service),
    );
  }
}

/**
 * What an environment's function (a custom sizing, `adjust`) returned for a service: the service's
 * props, an object. Anything else (null, undefined: a missing `return`) is refused naming the
 * function, rather than reported as the first prop the service then misses.
 */
function checkAdjusted(input: string, service: string, props: unknown): HttpServiceProps {
  if (props === null || typeof props !== 'object' || Array.isArray(props)) {
    throw new RollwiseInputError(
      input,
      props === undefined ? 'undefined' : Array.isArray(props) ? 'a list' : props,
      `returned ${
        props === undefined
          ? 'nothing'
          : props === null
            ? 'null'
            : Array.isArray(props)
              ? 'a list'
              : `a ${typeof props}`
      } ` +
        `for service ${service}, not its props: the function must return the props the service runs with (the ones ` +
        'it was given, changed).',
      'return the props, e.g. (props) => ({ ...props, replicas: 2 }); a function with a block body needs its return ' +
        'statement.',
    );
  }
  return props as HttpServiceProps;
}

/** An environment's own traffic (a dev or staging environment sees far less than production). */
export interface EnvironmentTraffic {
  /** Requests per second for the whole service in this environment at its busiest. */
  readonly peakRequestsPerSecond: number;
  /**
   * Requests per second at the time releases usually happen here.
   * @default the peak
   */
  readonly releaseRequestsPerSecond?: number;
}

export interface EnvironmentProps {
  /**
   * The environment's name: a DNS label ("dev", "staging", "prod"). It is the output folder
   * (`dist/<name>/`) and the prefix of every chart id in the environment.
   */
  readonly name: string;
  /** Where Argo CD deploys the environment's services. */
  readonly destination: ClusterDestination;
  /**
   * Platform settings of this environment (gateway, Prometheus, Argo CD, timings).
   * @default Platform.defaults()
   */
  readonly platform?: Platform;
  /**
   * How the services are sized here.
   * @default Sizing.asGiven()
   */
  readonly sizing?: Sizing;
  /**
   * Any other per-environment change to a service's props, applied after the sizing (e.g. the
   * environment's hostnames).
   * @default none
   */
  readonly adjust?: (props: HttpServiceProps, service: string) => HttpServiceProps;
}

export interface EnvironmentChartOptions {
  /**
   * The chart's output file, relative to the output folder.
   * @default "<environment>/<id><app's file extension>", e.g. "prod/checkout-api.k8s.yaml"
   */
  readonly outputPath?: string;
  /**
   * The chart's namespace.
   * @default the environment's destination namespace
   */
  readonly namespace?: string;
}

/** One environment (dev, staging, prod): a platform, a sizing and an Argo CD destination. */
export class Environment {
  public readonly name: string;
  public readonly destination: ClusterDestination;
  public readonly platform: Platform;
  public readonly sizing: Sizing;
  private readonly adjust: (props: HttpServiceProps, service: string) => HttpServiceProps;

  constructor(props: EnvironmentProps) {
    this.name = checkName('environment.name', props.name);
    const server = props.destination?.server;
    if (typeof server !== 'string' || !/^https:\/\/[^\s/]+(\/\S*)?$/.test(server)) {
      throw new RollwiseInputError(
        `environments.${props.name}.destination.server`,
        server,
        "Argo CD needs the destination cluster's API server as an absolute https URL; with anything else the " +
          'Application never syncs.',
        'use "https://kubernetes.default.svc" for the cluster Argo CD runs in, or the server URL of a cluster ' +
          'registered in Argo CD.',
      );
    }
    checkName(`environments.${props.name}.destination.namespace`, props.destination.namespace);
    this.destination = { server, namespace: props.destination.namespace };
    this.platform = props.platform ?? Platform.defaults();
    this.sizing = props.sizing ?? Sizing.asGiven();
    this.adjust = props.adjust ?? ((p) => p);
  }

  /**
   * A chart of this environment: id "<environment>-<id>", the destination namespace, and its
   * file declared as "<environment>/<id>.k8s.yaml" (see SynthLayout.declared()). Extra output
   * files its constructs add land in the same folder.
   */
  public addChart(app: App, id: string, opts: EnvironmentChartOptions = {}): Chart {
    const chart = new Chart(app, `${this.name}-${id}`, { namespace: opts.namespace ?? this.destination.namespace });
    declareOutputPath(chart, opts.outputPath ?? `${this.name}/${id}${app.outputFileExtension}`);
    declareCluster(chart, this.destination.server);
    return chart;
  }

  /**
   * The props a service runs with in this environment: the sizing and the adjustment applied, and
   * this environment's platform (it replaces a platform given in the service's props).
   */
  public serviceProps(service: string, props: HttpServiceProps): HttpServiceProps {
    return {
      ...checkAdjusted(
        `environments.${this.name}.adjust`,
        service,
        this.adjust(this.sizing.apply(service, props), service),
      ),
      platform: this.platform,
    };
  }

  /** Adds `service` to this environment: its own chart (see addChart) with one HttpService. */
  public addService(app: App, service: string, props: HttpServiceProps): DeployedService {
    const chart = this.addChart(app, service);
    const construct = new HttpService(chart, service, this.serviceProps(service, props));
    return {
      environment: this,
      name: service,
      chart,
      service: construct,
      namespace: props.namespace ?? chart.namespace ?? this.destination.namespace,
    };
  }
}

/** A service in one environment. */
export interface DeployedService {
  readonly environment: Environment;
  /** The service's name (its construct id, the name of every object it emits). */
  readonly name: string;
  /** The service's chart in this environment (file "<environment>/<name>.k8s.yaml"). */
  readonly chart: Chart;
  readonly service: HttpService;
  /** The namespace its objects go to. */
  readonly namespace: string;
}

export interface EstateProps {
  /** The environments, in the order their charts are added. */
  readonly environments: readonly Environment[];
  /** The services by name, with their production props; each runs in every environment. */
  readonly services: Readonly<Record<string, HttpServiceProps>>;
  /**
   * Called once per service and environment, right after the service's chart is built: the place
   * for what belongs to one service in one environment (e.g. its Argo CD Application).
   * @default none
   */
  readonly perService?: (deployed: DeployedService) => void;
  /**
   * Cloud SQL instances that several environments of one service connect to on purpose (e.g.
   * separate databases on one small instance), each with the reason (at least 10 characters).
   * @default none: a service whose Cloud SQL Auth Proxy connects two environments to one instance is refused
   */
  readonly sharedCloudSqlInstances?: Readonly<Record<string, string>>;
}

/**
 * The same services in several environments: for each environment (in order) and each service
 * (in name order, so the output does not depend on object key order), a chart
 * "<environment>-<service>" written to "<environment>/<service>.k8s.yaml". Returns what it added.
 */
export function addEstate(app: App, props: EstateProps): DeployedService[] {
  const seen = new Set<string>();
  for (const env of props.environments) {
    if (seen.has(env.name))
      throw new RollwiseInputError(
        'environments',
        env.name,
        'two environments with the same name would write the same output folder and the same chart ids.',
        'give each environment its own name.',
      );
    seen.add(env.name);
  }
  const names = Object.keys(props.services).sort();
  const deployed: DeployedService[] = [];
  for (const env of props.environments) {
    for (const name of names) {
      const d = env.addService(app, name, props.services[name]);
      props.perService?.(d);
      deployed.push(d);
    }
  }
  checkSharedDatabases(deployed, props.sharedCloudSqlInstances ?? {});
  return deployed;
}

/**
 * Every environment starts from the service's own props, so a database connection written there
 * (the Cloud SQL Auth Proxy's instance) reaches every environment unless an environment's
 * `adjust` replaces it: dev's pods would use prod's database, and dev's migration Job, a PreSync
 * hook run at every dev sync, would migrate prod's schema before prod's release was reviewed.
 * Refused unless `shared` declares the instance with a reason.
 */
function checkSharedDatabases(deployed: readonly DeployedService[], shared: Readonly<Record<string, string>>): void {
  for (const [instance, because] of Object.entries(shared)) {
    if (typeof because !== 'string' || because.trim().length < 10) {
      throw new RollwiseInputError(
        `sharedCloudSqlInstances["${instance}"]`,
        because,
        'an instance shared by environments must say why (at least 10 characters): it is the exception to each ' +
          'environment having its own database.',
        `write sharedCloudSqlInstances: { '${instance}': '<why these environments share it, e.g. separate databases ` +
          `on one instance>' }, or remove it.`,
      );
    }
  }
  const seen = new Map<string, DeployedService>();
  for (const d of deployed) {
    d.service.decisions.pod.sidecars.forEach((c, i) => {
      if (!isCloudSqlProxyImage(c.image)) return;
      for (const instance of readProxyConfig(c).instances) {
        if (shared[instance] !== undefined) continue;
        const key = `${d.name}\0${instance}`;
        const first = seen.get(key);
        if (first === undefined) {
          seen.set(key, d);
          continue;
        }
        if (first.environment === d.environment) continue;
        const migration =
          d.service.migration || first.service.migration
            ? ' Its migration Job, an Argo CD PreSync ' +
              'hook run at every sync of each environment, would change that one schema from whichever environment syncs ' +
              'first (docs/mechanisms.md#migrations).'
            : '';
        const e = new RollwiseInputError(
          `services.${d.name}.sidecars[${i}] (${c.name}) instance`,
          instance,
          `environments ${first.environment.name} and ${d.environment.name} both connect ${d.name}'s Cloud SQL Auth ` +
            `Proxy to ${instance}: every environment starts from the service's props, and neither environment's ` +
            `adjust gives it an instance of its own, so their pods read and write one database.${migration}`,
          'give each environment its own instance in its adjust, e.g. in ' +
            `the ${d.environment.name === 'prod' ? first.environment.name : d.environment.name} Environment: adjust: ` +
            '(props) => ({ ...props, sidecars: props.sidecars?.map((s) => ({ ...s, args: s.args?.map((a) => ' +
            `a.replace(/^${instance.split(':')[0]}:/, '<its project>:')) })) }); or, if they share it on purpose ` +
            '(separate databases on one instance), declare it: addEstate(app, { ..., sharedCloudSqlInstances: { ' +
            `'${instance}': '<why>' } }).`,
        );
        throw inService(e, d.name, d.service.node.path);
      }
    });
  }
}
