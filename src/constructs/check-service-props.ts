import type { AutoscalingProps } from '../decisions/autoscaling';
import { Delivery } from '../decisions/canary';
import { ContainerProps, SidecarProps } from '../decisions/containers';
import { Migration } from '../decisions/migrations';
import { Platform } from '../decisions/platform';
import { checkKeys, keysOf } from '../decisions/props-keys';
import type { RouteProps } from '../decisions/route';
import {
  CAPACITY_KEYS,
  CONTAINER_KEYS,
  EXTRA_OVERRIDES_KEYS,
  EXTRA_RESOURCES_KEYS,
  HEALTH_KEYS,
  INIT_CONTAINER_KEYS,
  METADATA_KEYS,
  MIGRATION_KEYS,
  MOUNT_KEYS,
  NAMED_PORT_KEYS,
  OVERRIDES_KEYS,
  POD_KEYS,
  RESOURCES_KEYS,
  RUN_AS_KEYS,
  SERVICE_ACCOUNT_KEYS,
  SIDECAR_KEYS,
  SIDECAR_PORT_KEYS,
  TOLERATION_KEYS,
} from '../decisions/service-keys';
import { RollwiseInputError } from '../errors';
import { Measurements } from '../measure/measurements';
import type { HttpServiceProps } from './http-service-props';

const SERVICE_KEYS = keysOf<HttpServiceProps>()({
  image: true,
  port: true,
  replicas: true,
  health: true,
  resources: true,
  appServer: true,
  container: true,
  sidecars: true,
  initContainers: true,
  pod: true,
  metadata: true,
  passiveHealthCheck: true,
  sloErrorRatio: true,
  capacity: true,
  platform: true,
  overrides: true,
  namespace: true,
  delivery: true,
  route: true,
  autoscaling: true,
  measurements: true,
  migrations: true,
});
const ROUTE_KEYS = keysOf<RouteProps>()({ hostnames: true, pathPrefix: true });
const AUTOSCALING_KEYS = keysOf<AutoscalingProps>()({ maxReplicas: true, targetCpuUtilisationPercent: true });

/**
 * The props as a JavaScript caller may pass them: every group a plain object with known keys (a
 * typo is refused with "did you mean"), lists where lists belong, factories where factories belong.
 */
export function checkServiceProps(props: HttpServiceProps): void {
  checkKeys('', props, SERVICE_KEYS);
  refuseNullAndBigInt('', props);
  if (props.passiveHealthCheck !== undefined && typeof props.passiveHealthCheck !== 'boolean') {
    throw new RollwiseInputError(
      'passiveHealthCheck',
      props.passiveHealthCheck,
      'must be true or false.',
      'use passiveHealthCheck: true, or leave it out.',
    );
  }
  checkKeys('health', props.health, HEALTH_KEYS);
  checkKeys('resources', props.resources, RESOURCES_KEYS);
  checkKeys('capacity', props.capacity, CAPACITY_KEYS);
  checkKeys('overrides', props.overrides, OVERRIDES_KEYS);
  checkKeys('container', props.container, CONTAINER_KEYS);
  checkKeys('pod', props.pod, POD_KEYS);
  checkKeys('metadata', props.metadata, METADATA_KEYS);
  checkKeys('route', props.route, ROUTE_KEYS);
  checkKeys('autoscaling', props.autoscaling, AUTOSCALING_KEYS);
  if (props.migrations instanceof Migration) checkKeys('migrations', props.migrations.props, MIGRATION_KEYS);
  // the objects inside a container and the pod (lists are checked as lists where they are read)
  const each = (input: string, list: unknown, known: readonly string[]) => {
    if (Array.isArray(list)) (list as unknown[]).forEach((x, i) => checkKeys(`${input}[${i}]`, x, known));
  };
  const inside = (group: string, c: ContainerProps | SidecarProps | undefined) => {
    if (c === null || typeof c !== 'object') return;
    each(`${group}.mounts`, c.mounts, MOUNT_KEYS);
    checkKeys(`${group}.runAs`, c.runAs, RUN_AS_KEYS);
    if ('ports' in c) each(`${group}.ports`, c.ports, NAMED_PORT_KEYS);
    if ('resources' in c) checkKeys(`${group}.resources`, c.resources, EXTRA_RESOURCES_KEYS);
    if ('overrides' in c) checkKeys(`${group}.overrides`, c.overrides, EXTRA_OVERRIDES_KEYS);
  };
  inside('container', props.container);
  checkKeys('pod.serviceAccount', props.pod?.serviceAccount, SERVICE_ACCOUNT_KEYS);
  each('pod.tolerations', props.pod?.tolerations, TOLERATION_KEYS);
  // `port` on an init container is refused by its own check, which says why (it runs to completion)
  for (const [group, known] of [
    ['sidecars', SIDECAR_KEYS],
    ['initContainers', [...INIT_CONTAINER_KEYS, 'port']],
  ] as const) {
    const list = props[group];
    if (list === undefined) continue;
    if (!Array.isArray(list))
      throw new RollwiseInputError(
        group,
        list,
        'must be a list of containers.',
        `pass ${group}: [{ name, image, resources, ... }], or leave it out.`,
      );
    list.forEach((c, i) => checkKeys(`${group}[${i}]`, c, known));
    list.forEach((c, i) => inside(`${group}[${i}]`, c));
    if (group === 'sidecars')
      list.forEach((c, i) => checkKeys(`sidecars[${i}].port`, (c as SidecarProps).port, SIDECAR_PORT_KEYS));
  }
  const factories: [string, unknown, boolean, string][] = [
    ['delivery', props.delivery, props.delivery instanceof Delivery, 'Delivery.canary() or Delivery.rollingUpdate()'],
    ['platform', props.platform, props.platform instanceof Platform, 'new Platform({ ... }) or Platform.defaults()'],
    [
      'measurements',
      props.measurements,
      props.measurements instanceof Measurements,
      "Measurements.fromFile('measurements/<service>.json')",
    ],
  ];
  for (const [input, value, made, example] of factories) {
    if (value !== undefined && !made) {
      throw new RollwiseInputError(
        input,
        value === null ? null : typeof value === 'object' ? 'a plain object' : value,
        `must be made by its factory (${example}); a plain object carries none of the checks and defaults the ` +
          'factory applies.',
        `use ${example}.`,
      );
    }
  }
}

/**
 * JavaScript callers: a `null` (for "unset") or a BigInt anywhere in the plain objects and lists
 * of the props is refused naming its path (values made by factories, such as Duration or
 * Platform, are theirs to check). Without this they surface as TypeErrors deep inside, or as
 * "Do not know how to serialize a BigInt".
 */
function refuseNullAndBigInt(at: string, value: unknown, depth = 0): void {
  if (depth > 8) return;
  const entries: [string, unknown][] = Array.isArray(value)
    ? value.map((v, i) => [`${at}[${i}]`, v])
    : value !== null && typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype
      ? Object.entries(value).map(([k, v]) => [at ? `${at}.${k}` : k, v])
      : [];
  for (const [p, v] of entries) {
    if (v === null)
      throw new RollwiseInputError(
        p,
        null,
        'is null; rollwise reads a missing prop as its default, and null as nothing it can use.',
        `leave ${p} out to use the default, or give a value.`,
      );
    if (typeof v === 'bigint')
      throw new RollwiseInputError(
        p,
        v,
        'is a BigInt; Kubernetes numbers are JSON numbers, which a BigInt cannot be written as.',
        `use a plain number, e.g. ${Number(v)}.`,
      );
    refuseNullAndBigInt(p, v, depth + 1);
  }
}
