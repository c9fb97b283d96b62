import { App, Chart } from 'cdk8s';
import { ClusterPrerequisites, PluginBinary } from '../constructs/cluster-prerequisites';
import { RollwiseInputError } from '../errors';
import { renderApp } from '../synth/render';
import { warningsOf } from '../synth/output';
import { KubernetesVersion } from '../decisions/kubernetes-version';
import { PodSecurityLevel } from '../decisions/namespaces';

export interface PlatformCliOptions {
  readonly rolloutsNamespace?: string;
  readonly envoyNamespace?: string;
  readonly arch?: string;
  readonly monitorLabel?: readonly string[];
  readonly pluginSha256?: string;
  /** Namespaces to print with their Pod Security labels. */
  readonly namespace?: readonly string[];
  /** The Pod Security level of those namespaces. */
  readonly podSecurity?: string;
  /**
   * "1.28" or "1.33": the version whose Pod Security definition is enforced. @default "1.28", said in the reason and a
   * warning
   */
  readonly kubernetesVersion?: string;
}

/** The cluster prerequisites as one YAML stream, each value's reason in a comment, and the synth warnings. */
export function platformYaml(o: PlatformCliOptions): { yaml: string; warnings: string[] } {
  const binaries: Record<string, () => PluginBinary> = {
    amd64: () => PluginBinary.linuxAmd64(),
    arm64: () => PluginBinary.linuxArm64(),
  };
  const binary = binaries[o.arch ?? 'amd64'];
  if (!binary)
    throw new RollwiseInputError(
      '--arch',
      o.arch,
      'the plugin is released for linux amd64 and arm64 nodes only.',
      'pass --arch amd64 or --arch arm64.',
    );
  const podMonitorLabels: Record<string, string> = {};
  for (const l of o.monitorLabel ?? []) {
    const m = /^([A-Za-z0-9][-A-Za-z0-9_./]*)=([-A-Za-z0-9_.]*)$/.exec(l);
    if (!m)
      throw new RollwiseInputError(
        '--monitor-label',
        l,
        'is not a label key=value.',
        'pass e.g. --monitor-label release=kube-prometheus-stack.',
      );
    podMonitorLabels[m[1]] = m[2];
  }
  const kubernetesVersion = o.kubernetesVersion === undefined ? undefined : KubernetesVersion.of(o.kubernetesVersion);
  const kubernetesVersionSource =
    o.kubernetesVersion === undefined
      ? "the default of --kubernetes-version, which was not given: pass your cluster's version, e.g. " +
        '--kubernetes-version 1.33'
      : `input (--kubernetes-version ${o.kubernetesVersion})`;
  const namespaces = (o.namespace ?? []).map((name) => ({
    name,
    podSecurity: o.podSecurity as PodSecurityLevel | undefined,
    kubernetesVersion,
    kubernetesVersionSource,
  }));
  const app = new App({ outdir: '.' });
  new ClusterPrerequisites(new Chart(app, 'rollwise-platform'), 'prerequisites', {
    rolloutsNamespace: o.rolloutsNamespace,
    envoyNamespace: o.envoyNamespace,
    pluginBinary: binary(),
    podMonitorLabels,
    pluginSha256: o.pluginSha256,
    namespaces,
  });
  const versionWarning =
    namespaces.length > 0 && o.kubernetesVersion === undefined
      ? [
          '--kubernetes-version not given: the namespaces enforce Pod Security as Kubernetes 1.28 defines it ' +
            '(pod-security.kubernetes.io/enforce-version: v1.28). Pass the version your cluster and your services target ' +
            '(platform.kubernetesVersion), e.g. --kubernetes-version 1.33, so the namespaces judge pods by the same ' +
            'definition (docs/cluster.md#namespaces).',
        ]
      : [];
  return {
    yaml: [...renderApp(app)].map((f) => f.content).join(''),
    warnings: [...warningsOf(app), ...versionWarning],
  };
}
