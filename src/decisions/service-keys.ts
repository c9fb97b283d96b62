import type { k8s } from 'cdk8s-plus-28';
import type {
  ContainerProps,
  InitContainerProps,
  Mount,
  NamedPort,
  PodProps,
  RunAs,
  ServiceAccountProps,
  SidecarPort,
  SidecarProps,
  WorkloadMetadataProps,
} from './containers';
import type { MigrationJobProps } from './migrations';
import { keysOf } from './props-keys';
import type { CapacityProps, HealthProps, HttpServiceOverrides, ResourcesProps } from './service-core';

/** The known keys of each of a service's props groups (checked with checkKeys, props-keys.ts). */
export const HEALTH_KEYS = keysOf<HealthProps>()({
  readinessPath: true,
  livenessPath: true,
  readinessP99UnderLoad: true,
  startupBudget: true,
  readinessCallsDependency: true,
});
export const RESOURCES_KEYS = keysOf<ResourcesProps>()({ cpu: true, memory: true });
export const CAPACITY_KEYS = keysOf<CapacityProps>()({
  peakRequestsPerSecond: true,
  saturationRequestsPerSecondPerReplica: true,
  releaseRequestsPerSecond: true,
});
export const OVERRIDES_KEYS = keysOf<HttpServiceOverrides>()({
  readinessTimeout: true,
  readinessFailureThreshold: true,
  readinessSuccessThreshold: true,
  cpuLimit: true,
  minReadySeconds: true,
  pdbMaxUnavailable: true,
  proxyIdleTimeout: true,
  proxyConnectTimeout: true,
  acceptKeepAliveRace: true,
  retryOnReset: true,
  acceptNoHeadroom: true,
});
export const CONTAINER_KEYS = keysOf<ContainerProps>()({
  command: true,
  args: true,
  env: true,
  envFrom: true,
  mounts: true,
  ports: true,
  runAs: true,
  shutdownDelay: true,
});
export const POD_KEYS = keysOf<PodProps>()({
  serviceAccount: true,
  imagePullSecrets: true,
  volumes: true,
  labels: true,
  annotations: true,
  nodeSelector: true,
  tolerations: true,
  affinity: true,
  priorityClassName: true,
});
export const METADATA_KEYS = keysOf<WorkloadMetadataProps>()({ labels: true, annotations: true });
export const SIDECAR_KEYS = keysOf<SidecarProps>()({
  port: true,
  startupBudget: true,
  name: true,
  image: true,
  resources: true,
  command: true,
  args: true,
  env: true,
  envFrom: true,
  mounts: true,
  runAs: true,
  overrides: true,
});
export const SIDECAR_PORT_KEYS = keysOf<SidecarPort>()({
  name: true,
  port: true,
  readinessPath: true,
  startupPath: true,
  readinessCallsDependency: true,
});
export const MIGRATION_KEYS = keysOf<MigrationJobProps>()({
  command: true,
  args: true,
  image: true,
  deadline: true,
  retries: true,
  keepFor: true,
  withSidecars: true,
});
export const MOUNT_KEYS = keysOf<Mount>()({ volume: true, path: true, readOnly: true });
export const NAMED_PORT_KEYS = keysOf<NamedPort>()({ name: true, port: true });
export const RUN_AS_KEYS = keysOf<RunAs>()({ user: true, group: true });
export const SERVICE_ACCOUNT_KEYS = keysOf<ServiceAccountProps>()({ name: true, mountToken: true });
export const TOLERATION_KEYS = keysOf<k8s.Toleration>()({
  key: true,
  operator: true,
  value: true,
  effect: true,
  tolerationSeconds: true,
});
export const EXTRA_RESOURCES_KEYS = keysOf<SidecarProps['resources']>()({ cpu: true, memory: true });
export const EXTRA_OVERRIDES_KEYS = keysOf<NonNullable<SidecarProps['overrides']>>()({ cpuLimit: true });
export const INIT_CONTAINER_KEYS = keysOf<InitContainerProps>()({
  name: true,
  image: true,
  resources: true,
  command: true,
  args: true,
  env: true,
  envFrom: true,
  mounts: true,
  runAs: true,
  overrides: true,
});
