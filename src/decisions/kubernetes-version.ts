import { RollwiseInputError } from '../errors';

/**
 * The Kubernetes minor version of the target clusters. It decides which API features rollwise may
 * use (a feature is used only from the release in which it is on by default) and which pinned
 * OpenAPI schema the output is validated against. Only versions with a pinned schema are offered.
 */
export class KubernetesVersion {
  /** Kubernetes 1.28, the version cdk8s-plus-28 targets (the default). */
  public static readonly V1_28 = new KubernetesVersion(28);
  /** Kubernetes 1.33: native sidecars (GA) and the preStop sleep action (beta, on by default since 1.30). */
  public static readonly V1_33 = new KubernetesVersion(33);

  /** The versions rollwise holds a pinned schema for. */
  public static supported(): KubernetesVersion[] {
    return [KubernetesVersion.V1_28, KubernetesVersion.V1_33];
  }

  /** A version by its "1.N" name; only the supported versions are accepted. */
  public static of(version: string): KubernetesVersion {
    const hit = KubernetesVersion.supported().find((v) => v.name === version);
    if (!hit) {
      throw new RollwiseInputError(
        'platform.kubernetesVersion',
        version,
        'rollwise validates every object against the pinned OpenAPI schema of the target version and ' +
          `holds ${KubernetesVersion.supported()
            .map((v) => v.name)
            .join(' and ')}; an output checked against ` +
          `another version's schema could use a field your API server drops.`,
        "pick the newest supported version not above your clusters' oldest: KubernetesVersion.V1_28 for 1.28-1.32, " +
          'KubernetesVersion.V1_33 for 1.33 and later.',
      );
    }
    return hit;
  }

  private constructor(public readonly minor: number) {}

  public toString(): string {
    return this.name;
  }

  /** "1.28". */
  public get name(): string {
    return `1.${this.minor}`;
  }

  /** The pinned schema file (in the schema folder's `schemas/`). */
  public get schemaFile(): string {
    return `k8s-v1.${this.minor}.0-definitions.json`;
  }

  /**
   * Native sidecars (init containers with `restartPolicy: Always`): the SidecarContainers feature
   * gate is alpha and off in 1.28, beta and on by default from 1.29, GA in 1.33 (KEP-753). With the
   * gate off the API server drops the field, and the sidecar becomes an init container that never
   * exits, so the pod never starts: on 1.28 sidecars must be ordinary containers. (Checked in
   * kubernetes/kubernetes pkg/api/pod/util.go dropDisabledFields: without SidecarContainers it sets
   * InitContainers[i].RestartPolicy = nil; not a pinned mirror, so no tag.)
   */
  public get nativeSidecars(): boolean {
    return this.minor >= 29;
  }

  /**
   * The preStop `sleep` action (PodLifecycleSleepAction, KEP-3960): alpha in 1.29, beta and on by
   * default from 1.30. It needs no binary in the image, unlike an exec of `sleep`. With the gate
   * off the API server drops the hook (pkg/api/pod/util.go dropPodLifecycleSleepAction).
   */
  public get sleepAction(): boolean {
    return this.minor >= 30;
  }

  /**
   * Environment variable names (and envFrom prefixes) by the relaxed rule, any printable ASCII but
   * "=" (apimachinery validation.IsRelaxedEnvVarName), instead of IsEnvVarName's letters, digits,
   * "_", "-" and "." not starting with a digit: the RelaxedEnvironmentVariableValidation gate is
   * alpha in 1.30 and beta and on by default from 1.32 (kubernetes pkg/features/kube_features.go as
   * of 1.33), and with it on, ValidateEnv and ValidateEnvFrom use the relaxed rule
   * (pkg/api/pod/util.go useRelaxedEnvironmentVariableValidation). Read from the index, no tag.
   */
  public get relaxedEnvNames(): boolean {
    return this.minor >= 32;
  }
}
