import { RollwiseInputError } from '../errors';
import { GATEWAY_API_PLUGIN } from './canary-plan';
import { decided, Decision } from './decision';

/**
 * What a platform team applies once per cluster, decided: the Argo Rollouts Gateway API plugin's
 * registration and RBAC, and the PodMonitors of the Envoy proxies and the Rollouts controller. The
 * construct (src/constructs/cluster-prerequisites.ts) only renders these values.
 */

/** The Gateway API plugin binary for the cluster's nodes. */
export class PluginBinary {
  /** linux/amd64 nodes. */
  public static linuxAmd64(): PluginBinary {
    return new PluginBinary('linux-amd64');
  }

  /** linux/arm64 nodes. */
  public static linuxArm64(): PluginBinary {
    return new PluginBinary('linux-arm64');
  }

  private constructor(public readonly arch: string) {}
}

/** The inputs the cluster's prerequisites are decided from (ClusterPrerequisitesProps adds the namespaces). */
export interface ClusterPrerequisitesInputs {
  /**
   * Namespace of the Argo Rollouts controller.
   * @default 'argo-rollouts' (Argo Rollouts v1.9.1 manifests/install.yaml)
   */
  readonly rolloutsNamespace?: string;
  /**
   * The controller's service account, which the plugin runs as.
   * @default 'argo-rollouts' (manifests/install.yaml)
   */
  readonly rolloutsServiceAccount?: string;
  /**
   * Release of the Argo Rollouts Gateway API plugin.
   * @default 'v0.15.0', the version rollwise's traffic routing is checked against
   */
  readonly pluginVersion?: string;
  /**
   * Which plugin binary the controller downloads.
   * @default PluginBinary.linuxAmd64()
   */
  readonly pluginBinary?: PluginBinary;
  /**
   * Namespace of the Envoy proxies that Envoy Gateway runs.
   * @default 'envoy-gateway-system' (Envoy Gateway's install namespace)
   */
  readonly envoyNamespace?: string;
  /**
   * Labels your Prometheus selects PodMonitors by (`podMonitorSelector`).
   * @default none
   */
  readonly podMonitorLabels?: Record<string, string>;
  /**
   * The SHA-256 of the plugin binary (64 hex digits), which the controller checks after the
   * download and refuses to start the plugin on a mismatch. The plugin's releases publish no
   * checksum file, so compute it once: `curl -sL <location> | sha256sum`.
   * @default none: the controller runs whatever the URL serves, and synth warns
   */
  readonly pluginSha256?: string;
}

/** A PodMonitor's scrape endpoint, as the Prometheus Operator takes it. */
export interface PodMetricsEndpoint {
  readonly port: string;
  readonly path: string;
  readonly honorLabels?: boolean;
}

/** The cluster's prerequisites, decided (see decideClusterPrerequisites). */
export interface ClusterPrerequisitesDecisions {
  readonly rolloutsNamespace: string;
  readonly rolloutsServiceAccount: string;
  readonly envoyNamespace: string;
  /** The labels every object carries. */
  readonly labels: Record<string, string>;
  /** The PodMonitors' labels: the platform's and podMonitorLabels. */
  readonly monitorLabels: Record<string, string>;
  /** argo-rollouts-config's `data.trafficRouterPlugins`: the plugin's entry (name, location, sha256). */
  readonly trafficRouterPlugins: Decision<string>;
  /** The plugin's ClusterRole rules: read Services, update HTTPRoutes. */
  readonly pluginRules: Decision<Record<string, string[]>[]>;
  /** The Envoy proxies' PodMonitor: its selector and its endpoint. */
  readonly envoySelector: Decision<Record<string, string>>;
  readonly envoyEndpoints: Decision<PodMetricsEndpoint[]>;
  /** The Rollouts controller's PodMonitor: its endpoint, and why it honours the metrics' labels. */
  readonly rolloutsEndpoints: Decision<PodMetricsEndpoint[]>;
  readonly rolloutsHonorLabels: Decision<true>;
  /** Synth's warning when pluginSha256 is not given. */
  readonly unpinnedWarning?: string;
  /** Synth's warning when podMonitorLabels is not given. */
  readonly monitorLabelsWarning?: string;
}

const DNS_LABEL = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;
/** The plugin's name in argo-rollouts-config: the one every rollwise Rollout's trafficRouting names. */
const PLUGIN_NAME = GATEWAY_API_PLUGIN;

/** Decides the cluster's prerequisites from their inputs, refusing bad input (see ClusterPrerequisitesDecisions). */
export function decideClusterPrerequisites(props: ClusterPrerequisitesInputs): ClusterPrerequisitesDecisions {
  const ns = props.rolloutsNamespace ?? 'argo-rollouts';
  const sa = props.rolloutsServiceAccount ?? 'argo-rollouts';
  const envoyNs = props.envoyNamespace ?? 'envoy-gateway-system';
  const version = props.pluginVersion ?? 'v0.15.0';
  const arch = (props.pluginBinary ?? PluginBinary.linuxAmd64()).arch;
  for (const [input, value] of [
    ['rolloutsNamespace', ns],
    ['rolloutsServiceAccount', sa],
    ['envoyNamespace', envoyNs],
  ] as const) {
    if (!DNS_LABEL.test(value))
      throw new RollwiseInputError(
        input,
        value,
        'is not a Kubernetes name (a DNS label).',
        'use lowercase letters, digits and "-".',
      );
  }
  if (!/^v\d+\.\d+\.\d+$/.test(version))
    throw new RollwiseInputError(
      'pluginVersion',
      version,
      'is not a release tag of the plugin (vMAJOR.MINOR.PATCH): the download URL would not exist.',
      'use e.g. "v0.15.0".',
    );
  const labels = { 'app.kubernetes.io/managed-by': 'rollwise', 'app.kubernetes.io/part-of': 'rollwise-platform' };

  // The controller reads plugins from the ConfigMap "argo-rollouts-config", key
  // "trafficRouterPlugins", in its own namespace (argo-rollouts v1.9.1 utils/defaults/defaults.go
  // DefaultRolloutsConfigMapName, utils/config/config.go); the plugin's name and the release URL
  // (rollouts-plugin-trafficrouter-gatewayapi v0.15.0 docs/installation.md).
  const releases = 'https://github.com/argoproj-labs/rollouts-plugin-trafficrouter-gatewayapi/releases/download';
  const location = `${releases}/${version}/gatewayapi-plugin-${arch}`;
  // The controller downloads an http(s) location at start and, when the entry has a sha256,
  // compares it with the file's SHA-256 (hex, 64 digits: "%x" of sha256.Sum256, so lower case)
  // and fails to load the plugin on a mismatch (argo-rollouts v1.9.1 utils/plugin/downloader.go
  // checkShaOfPlugin, DownloadPlugins; the field: utils/plugin/types/types.go PluginItem.Sha256).
  // The plugin's release workflow uploads the binaries and no checksum file
  // (rollouts-plugin-trafficrouter-gatewayapi v0.15.0 .github/workflows/release.yaml).
  const sha = props.pluginSha256;
  if (sha !== undefined && !/^[0-9a-fA-F]{64}$/.test(sha)) {
    throw new RollwiseInputError(
      'pluginSha256',
      sha,
      "is not a SHA-256 in hex (64 digits): the controller compares the downloaded file's digest with it and " +
        'refuses the plugin on any mismatch, so Rollouts would never shift traffic.',
      `compute it from the binary: curl -sL ${location} | sha256sum`,
    );
  }
  const pinning = sha
    ? 'Pinned by sha256 (input, pluginSha256): the controller checks the downloaded file against it and does not ' +
      'load a different binary (argo-rollouts v1.9.1 utils/plugin/downloader.go).'
    : `Not pinned by checksum (pluginSha256 not given): the controller runs whatever ${location} serves when it ` +
      `starts, so what is trusted is GitHub's TLS and the plugin project's release assets, which it could replace; ` +
      'the project publishes no checksum file. Compute the SHA-256 once (curl -sL <location> | sha256sum) and pass ' +
      'pluginSha256 (rollwise platform --plugin-sha256).';
  const shaLine = sha ? `\n  sha256: "${sha.toLowerCase()}"` : '';
  const trafficRouterPlugins = decided(
    `- name: "${PLUGIN_NAME}"\n  location: "${location}"${shaLine}`,
    `Registers the Gateway API plugin (${PLUGIN_NAME}, ${version}, ${arch}) with the Argo Rollouts ` +
      'controller, which reads it from this ConfigMap at start: restart the controller after applying. Every ' +
      'rollwise Rollout routes its canary through it (docs/mechanisms.md#canary-analysis). This replaces an ' +
      `existing argo-rollouts-config: merge other plugins into it by hand. ${pinning}`,
  );

  // The plugin's permissions, as far as rollwise's output needs them: it reads the Services and
  // rewrites the HTTPRoute's backend weights (plugin v0.15.0 docs/installation.md "Permissions";
  // gRPC, TCP and TLS routes are left out because rollwise emits none).
  const pluginRules = decided(
    [
      { apiGroups: [''], resources: ['services'], verbs: ['get'] },
      {
        apiGroups: ['gateway.networking.k8s.io'],
        resources: ['httproutes'],
        verbs: ['get', 'list', 'update', 'patch'],
      },
    ],
    'The Gateway API plugin runs as a process beside the Rollouts controller, with its service account, and ' +
      'changes the weights of the HTTPRoute backendRefs during a canary; it reads the stable and canary Services. ' +
      'Nothing more: no delete, no Gateways, no ConfigMaps (the plugin keeps no state in ConfigMaps).',
  );

  // kube-prometheus-stack's Prometheus selects PodMonitors by release: <Helm release name> unless
  // podMonitorSelector is set (prometheus-community/helm-charts kube-prometheus-stack-88.0.0
  // charts/kube-prometheus-stack/values.yaml podMonitorSelectorNilUsesHelmValues: true;
  // templates/prometheus/prometheus.yaml: podMonitorSelector.matchLabels.release = .Release.Name),
  // the same default as its ruleSelector, for which HttpService warns about prometheusRuleLabels.
  const monitorLabelsWarning =
    Object.keys(props.podMonitorLabels ?? {}).length === 0
      ? 'podMonitorLabels is not set (rollwise platform --monitor-label), so the PodMonitors carry only the platform ' +
        "labels: kube-prometheus-stack's Prometheus selects PodMonitors by the label release: <its Helm release " +
        'name> (podMonitorSelectorNilUsesHelmValues: true by default, kube-prometheus-stack 88.0.0) and ignores ' +
        "the others. Without the Envoy proxies' counters every canary analysis is Inconclusive and every release " +
        "pauses; without the controller's metrics the rollout alerts see nothing. Pass the label your Prometheus " +
        'selects, e.g. --monitor-label release=kube-prometheus-stack (`kubectl get prometheus -A -o ' +
        "jsonpath='{..podMonitorSelector}'` shows it; an empty selector {} selects every PodMonitor, and then " +
        'this warning does not apply).'
      : undefined;

  // Envoy Gateway labels every proxy pod app.kubernetes.io/{name: envoy, component: proxy,
  // managed-by: envoy-gateway} (envoy gateway v1.9.0 internal/infrastructure/kubernetes/proxy/
  // resource.go EnvoyAppLabel) and serves Prometheus stats on the container port named
  // "metrics", 19001, path /stats/prometheus (api/v1alpha1/envoygateway_types.go
  // GatewayMetricsPort; proxy testdata/deployments/default.yaml).
  const envoyEndpoints = decided(
    [{ port: 'metrics', path: '/stats/prometheus' }],
    "The canary analysis and the alerts query the proxies' per-cluster counters (envoy_cluster_upstream_rq_xx, " +
      'envoy_cluster_upstream_cx_*): without this scrape every analysis is Inconclusive and the alerts see nothing ' +
      '(docs/mechanisms.md#canary-analysis, #response-flags). Port 19001 (named "metrics") serves ' +
      '/stats/prometheus on every Envoy Gateway proxy.',
  );
  const envoySelector = decided(
    {
      'app.kubernetes.io/name': 'envoy',
      'app.kubernetes.io/component': 'proxy',
      'app.kubernetes.io/managed-by': 'envoy-gateway',
    },
    'The labels Envoy Gateway puts on every proxy pod it runs, for every Gateway.',
  );

  // The Rollouts controller's pods carry app.kubernetes.io/name: argo-rollouts and expose
  // /metrics on the port named "metrics", 8090 (argo-rollouts v1.9.1
  // manifests/base/argo-rollouts-deployment.yaml); rollout_info* and analysis_run_info come from
  // controller/metrics/prommetrics.go, each labelled namespace and name of the Rollout or
  // AnalysisRun it describes (namespaceNameLabels; rollouts.go, analysis.go collectAnalysisRuns).
  // The operator relabels every PodMonitor target with namespace = the scraped pod's namespace
  // (prometheus-operator v0.93.0 pkg/prometheus/promcfg.go generatePodMonitorConfig,
  // __meta_kubernetes_namespace -> namespace) and passes the endpoint's honorLabels to
  // honor_labels (AddHonorLabels, false unless set; pkg/apis/monitoring/v1/podmonitor_types.go
  // PodMetricsEndpoint.HonorLabels). With honor_labels false Prometheus renames the metric's own
  // namespace to exported_namespace and keeps the target's (prometheus scrape/scrape.go
  // mutateSampleLabels), so every rollout_info{namespace="<service namespace>"} the rules select
  // would be stored as namespace="argo-rollouts": with true the metric's label wins and the
  // target's labels fill in only what the metric lacks (job, pod, container, endpoint, instance).
  const rolloutsHonorLabels = decided(
    true as const,
    'The controller labels each series with the namespace of the Rollout or AnalysisRun it describes, and every ' +
      "rule selects them by the service's namespace. Without honorLabels the Prometheus Operator's target label " +
      "namespace (the controller's own, argo-rollouts) wins and the controller's label is stored as " +
      "exported_namespace: ReadyEndpointsBelowFloor, CanaryAnalysisFailed, RolloutDegraded and verify's floor " +
      'check would see nothing. A Prometheus with overrideHonorLabels or enforcedNamespaceLabel overrides this: ' +
      'docs/cluster.md says what to set then (docs/mechanisms.md#an-exporters-own-namespace-label).',
  );
  const rolloutsEndpoints = decided(
    [{ port: 'metrics', path: '/metrics', honorLabels: rolloutsHonorLabels.value }],
    'The readiness alerts of a Rollout divide ready endpoints by rollout_info_replicas_desired, and ' +
      'CanaryAnalysisFailed and RolloutDegraded read rollout_info and analysis_run_info, metrics of the Rollouts ' +
      'controller (docs/mechanisms.md#fixes-and-verification).',
  );

  return {
    rolloutsNamespace: ns,
    rolloutsServiceAccount: sa,
    envoyNamespace: envoyNs,
    labels,
    monitorLabels: { ...labels, ...(props.podMonitorLabels ?? {}) },
    trafficRouterPlugins,
    pluginRules,
    envoySelector,
    envoyEndpoints,
    rolloutsEndpoints,
    rolloutsHonorLabels,
    ...(sha
      ? {}
      : {
          unpinnedWarning:
            'the Gateway API plugin is downloaded by the Argo Rollouts controller at every start without a checksum ' +
            `(pluginSha256 not given): it runs whatever ${location} serves. Pass pluginSha256 (rollwise platform ` +
            `--plugin-sha256 <hex>), computed once with: curl -sL ${location} | sha256sum`,
        }),
    ...(monitorLabelsWarning ? { monitorLabelsWarning } : {}),
  };
}
