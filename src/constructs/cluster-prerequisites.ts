import { ApiObject } from 'cdk8s';
import { Construct } from 'constructs';
import { RollwiseInputError } from '../errors';
import { Reasons } from '../justify/reasons';
import { addSynthWarning } from '../synth/output';
import { registerRenderCheck } from '../synth/render-checks';
import * as YAML from 'yaml';
import { ServiceNamespace, ServiceNamespaceProps } from './service-namespace';
import { registerDecidedValuesCheck } from '../invariants/decided-values';

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

export interface ClusterPrerequisitesProps {
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
  /**
   * Namespaces to create, with the Pod Security and platform labels (for services whose Argo CD
   * Applications use `NamespacePolicy.existing()`).
   * @default none
   */
  readonly namespaces?: ServiceNamespaceProps[];
}

const DNS_LABEL = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;
const PLUGIN_NAME = 'argoproj-labs/gatewayAPI';

/**
 * What a platform team applies once per cluster so that rollwise's output works: the Argo Rollouts
 * Gateway API plugin's registration and RBAC, and PodMonitors that scrape the Envoy proxies (the
 * canary analysis and the alerts query their counters) and the Rollouts controller (the alerts
 * read `rollout_info_replicas_desired`, `rollout_info` and `analysis_run_info`, with the controller's
 * own namespace label kept: `honorLabels`). docs/cluster.md lists the rest (kube-state-metrics, Argo
 * CD, versions).
 */
export class ClusterPrerequisites extends Construct {
  /** The ConfigMap `argo-rollouts-config` that registers the plugin. */
  public readonly pluginConfig: ApiObject;

  constructor(scope: Construct, id: string, props: ClusterPrerequisitesProps = {}) {
    super(scope, id);
    registerDecidedValuesCheck(this);
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
    const location = `https://github.com/argoproj-labs/rollouts-plugin-trafficrouter-gatewayapi/releases/download/${version}/gatewayapi-plugin-${arch}`;
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
    const rc = new Reasons();
    rc.note(
      'data.trafficRouterPlugins',
      `Registers the Gateway API plugin (${PLUGIN_NAME}, ${version}, ${arch}) with the Argo Rollouts ` +
        'controller, which reads it from this ConfigMap at start: restart the controller after applying. Every ' +
        'rollwise Rollout routes its canary through it (docs/mechanisms.md#canary-analysis). This replaces an ' +
        `existing argo-rollouts-config: merge other plugins into it by hand. ${
          sha
            ? 'Pinned by sha256 (input, pluginSha256): the controller checks the downloaded file against it and does not ' +
              'load a different binary (argo-rollouts v1.9.1 utils/plugin/downloader.go).'
            : `Not pinned by checksum (pluginSha256 not given): the controller runs whatever ${location} serves when it ` +
              `starts, so what is trusted is GitHub's TLS and the plugin project's release assets, which it could replace; ` +
              'the project publishes no checksum file. Compute the SHA-256 once (curl -sL <location> | sha256sum) and pass ' +
              'pluginSha256 (rollwise platform --plugin-sha256).'
        }`,
    );
    this.pluginConfig = new ApiObject(this, 'plugin-config', {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'argo-rollouts-config', namespace: ns, labels, annotations: rc.annotations() },
      data: {
        trafficRouterPlugins:
          `- name: "${PLUGIN_NAME}"\n  location: ` + `"${location}"${sha ? `\n  sha256: "${sha.toLowerCase()}"` : ''}`,
      },
    });
    // What the controller does with this ConfigMap when it starts, checked on what is written.
    registerRenderCheck(this, (rendered) => {
      const written = rendered.objectsOf(this.pluginConfig).find((x) => x.apiObject === this.pluginConfig)?.json;
      return written
        ? pluginConfigProblems(written).map(
            (m) => `ConfigMap ${ns}/argo-rollouts-config ` + `(${this.pluginConfig.node.path}) ${m}`,
          )
        : [];
    });
    if (!sha)
      addSynthWarning(
        this,
        'the Gateway API plugin is downloaded by the Argo Rollouts controller at every start without a checksum ' +
          `(pluginSha256 not given): it runs whatever ${location} serves. Pass pluginSha256 (rollwise platform ` +
          `--plugin-sha256 <hex>), computed once with: curl -sL ${location} | sha256sum`,
      );
    (props.namespaces ?? []).forEach((n, i) => new ServiceNamespace(this, `namespace-${i}`, n));

    // The plugin's permissions, as far as rollwise's output needs them: it reads the Services and
    // rewrites the HTTPRoute's backend weights (plugin v0.15.0 docs/installation.md "Permissions";
    // gRPC, TCP and TLS routes are left out because rollwise emits none).
    const rr = new Reasons();
    rr.note(
      'rules',
      'The Gateway API plugin runs as a process beside the Rollouts controller, with its service account, and ' +
        'changes the weights of the HTTPRoute backendRefs during a canary; it reads the stable and canary Services. ' +
        'Nothing more: no delete, no Gateways, no ConfigMaps (the plugin keeps no state in ConfigMaps).',
    );
    new ApiObject(this, 'plugin-role', {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRole',
      metadata: { name: 'argo-rollouts-gateway-api-plugin', labels, annotations: rr.annotations() },
      rules: [
        { apiGroups: [''], resources: ['services'], verbs: ['get'] },
        {
          apiGroups: ['gateway.networking.k8s.io'],
          resources: ['httproutes'],
          verbs: ['get', 'list', 'update', 'patch'],
        },
      ],
    });
    new ApiObject(this, 'plugin-binding', {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRoleBinding',
      metadata: { name: 'argo-rollouts-gateway-api-plugin', labels },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'argo-rollouts-gateway-api-plugin' },
      subjects: [{ kind: 'ServiceAccount', name: sa, namespace: ns }],
    });

    const monitorLabels = { ...labels, ...(props.podMonitorLabels ?? {}) };
    // kube-prometheus-stack's Prometheus selects PodMonitors by release: <Helm release name> unless
    // podMonitorSelector is set (prometheus-community/helm-charts kube-prometheus-stack-88.0.0
    // charts/kube-prometheus-stack/values.yaml podMonitorSelectorNilUsesHelmValues: true;
    // templates/prometheus/prometheus.yaml: podMonitorSelector.matchLabels.release = .Release.Name),
    // the same default as its ruleSelector, for which HttpService warns about prometheusRuleLabels.
    if (Object.keys(props.podMonitorLabels ?? {}).length === 0) {
      addSynthWarning(
        this,
        'podMonitorLabels is not set (rollwise platform --monitor-label), so the PodMonitors carry only the platform ' +
          "labels: kube-prometheus-stack's Prometheus selects PodMonitors by the label release: <its Helm release " +
          'name> (podMonitorSelectorNilUsesHelmValues: true by default, kube-prometheus-stack 88.0.0) and ignores ' +
          "the others. Without the Envoy proxies' counters every canary analysis is Inconclusive and every release " +
          "pauses; without the controller's metrics the rollout alerts see nothing. Pass the label your Prometheus " +
          'selects, e.g. --monitor-label release=kube-prometheus-stack (`kubectl get prometheus -A -o ' +
          "jsonpath='{..podMonitorSelector}'` shows it; an empty selector {} selects every PodMonitor, and then " +
          'this warning does not apply).',
      );
    }
    // Envoy Gateway labels every proxy pod app.kubernetes.io/{name: envoy, component: proxy,
    // managed-by: envoy-gateway} (envoy gateway v1.9.0 internal/infrastructure/kubernetes/proxy/
    // resource.go EnvoyAppLabel) and serves Prometheus stats on the container port named
    // "metrics", 19001, path /stats/prometheus (api/v1alpha1/envoygateway_types.go
    // GatewayMetricsPort; proxy testdata/deployments/default.yaml).
    const rp = new Reasons();
    rp.note(
      'spec.podMetricsEndpoints',
      "The canary analysis and the alerts query the proxies' per-cluster counters (envoy_cluster_upstream_rq_xx, " +
        'envoy_cluster_upstream_cx_*): without this scrape every analysis is Inconclusive and the alerts see nothing ' +
        '(docs/mechanisms.md#canary-analysis, #response-flags). Port 19001 (named "metrics") serves ' +
        '/stats/prometheus on every Envoy Gateway proxy.',
    );
    rp.note('spec.selector', 'The labels Envoy Gateway puts on every proxy pod it runs, for every Gateway.');
    new ApiObject(this, 'envoy-monitor', {
      apiVersion: 'monitoring.coreos.com/v1',
      kind: 'PodMonitor',
      metadata: { name: 'envoy-proxies', namespace: envoyNs, labels: monitorLabels, annotations: rp.annotations() },
      spec: {
        selector: {
          matchLabels: {
            'app.kubernetes.io/name': 'envoy',
            'app.kubernetes.io/component': 'proxy',
            'app.kubernetes.io/managed-by': 'envoy-gateway',
          },
        },
        podMetricsEndpoints: [{ port: 'metrics', path: '/stats/prometheus' }],
      },
    });

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
    const rm = new Reasons();
    rm.note(
      'spec.podMetricsEndpoints',
      'The readiness alerts of a Rollout divide ready endpoints by rollout_info_replicas_desired, and ' +
        'CanaryAnalysisFailed and RolloutDegraded read rollout_info and analysis_run_info, metrics of the Rollouts ' +
        'controller (docs/mechanisms.md#fixes-and-verification).',
    );
    rm.note(
      'spec.podMetricsEndpoints[0].honorLabels',
      'The controller labels each series with the namespace of the Rollout or AnalysisRun it describes, and every ' +
        "rule selects them by the service's namespace. Without honorLabels the Prometheus Operator's target label " +
        "namespace (the controller's own, argo-rollouts) wins and the controller's label is stored as " +
        "exported_namespace: ReadyEndpointsBelowFloor, CanaryAnalysisFailed, RolloutDegraded and verify's floor " +
        'check would see nothing. A Prometheus with overrideHonorLabels or enforcedNamespaceLabel overrides this: ' +
        'docs/cluster.md says what to set then (docs/mechanisms.md#an-exporters-own-namespace-label).',
    );
    new ApiObject(this, 'rollouts-monitor', {
      apiVersion: 'monitoring.coreos.com/v1',
      kind: 'PodMonitor',
      metadata: {
        name: 'argo-rollouts-controller',
        namespace: ns,
        labels: monitorLabels,
        annotations: rm.annotations(),
      },
      spec: {
        selector: { matchLabels: { 'app.kubernetes.io/name': 'argo-rollouts' } },
        podMetricsEndpoints: [{ port: 'metrics', path: '/metrics', honorLabels: true }],
      },
    });
  }
}

/**
 * The plugin name pattern of the controller's config (argo-rollouts v1.9.1 utils/config/config.go `re`):
 * <namespace>/<name>.
 */
const PLUGIN_NAME_RE = /^([a-zA-Z0-9-]+)\/{1}([a-zA-Z0-9_\-.]+)$/;

/**
 * What the Argo Rollouts controller does with argo-rollouts-config when it starts
 * (argo-rollouts v1.9.1 utils/config/config.go InitializeConfig): it unmarshals trafficRouterPlugins,
 * metricProviderPlugins and stepPlugins with sigs.k8s.io/yaml into []types.PluginItem (name,
 * location and sha256 strings, args a list of strings, disabled a boolean), fails to start on an
 * error ("failed to unmarshal traffic router plugins while initializing"), and ValidateConfig
 * refuses a name that is not <namespace>/<name>. A Rollout whose plugin is not in the ConfigMap
 * fails with "plugin ... not configured in configmap" (utils/plugin/plugin.go), and every rollwise
 * Rollout uses argoproj-labs/gatewayAPI. Returns one message per problem.
 */
export function pluginConfigProblems(configMap: Record<string, unknown>): string[] {
  const data = (configMap.data ?? {}) as Record<string, unknown>;
  const out: string[] = [];
  let gateway = false;
  for (const key of ['trafficRouterPlugins', 'metricProviderPlugins', 'stepPlugins']) {
    const text = data[key];
    if (text === undefined || text === null) continue;
    const where = `data.${key}`;
    let items: unknown;
    try {
      items = YAML.parse(String(text), { version: '1.1' });
    } catch (e) {
      out.push(
        `${where}: is not YAML (${(e as Error).message.split('\n')[0]}): the Argo Rollouts controller fails to start ` +
          '("failed to unmarshal ... plugins while initializing", argo-rollouts v1.9.1 utils/config/config.go). Fix: ' +
          'restore the list rollwise writes, or accept only a valid list of { name, location, sha256 }.',
      );
      continue;
    }
    if (items === null || items === undefined) continue;
    if (!Array.isArray(items)) {
      out.push(
        `${where}: is ${typeof items === 'object' ? 'a map' : `the ${typeof items} ${JSON.stringify(items)}`}, not a ` +
          'list of plugins: the controller cannot unmarshal it into []PluginItem and fails to start (argo-rollouts ' +
          'v1.9.1 utils/config/config.go). Fix: a YAML list of { name, location, sha256 }.',
      );
      continue;
    }
    items.forEach((item, i) => {
      if (item === null || typeof item !== 'object' || Array.isArray(item)) {
        out.push(
          `${where}[${i}]: is not a map of name, location and sha256: the controller cannot unmarshal it and fails ` +
            'to start.',
        );
        return;
      }
      const p = item as Record<string, unknown>;
      for (const f of ['name', 'location', 'sha256']) {
        if (p[f] !== undefined && p[f] !== null && typeof p[f] !== 'string')
          out.push(
            `${where}[${i}].${f}: ${JSON.stringify(p[f])} is not a string: the controller cannot unmarshal it and ` +
              'fails to start.',
          );
      }
      if (
        p.args !== undefined &&
        p.args !== null &&
        !(Array.isArray(p.args) && p.args.every((a) => typeof a === 'string'))
      )
        out.push(
          `${where}[${i}].args: is not a list of strings: the controller cannot unmarshal it and fails to start.`,
        );
      if (p.disabled !== undefined && p.disabled !== null && typeof p.disabled !== 'boolean')
        out.push(`${where}[${i}].disabled: is not a boolean: the controller cannot unmarshal it and fails to start.`);
      if (typeof p.name !== 'string' || !PLUGIN_NAME_RE.test(p.name))
        out.push(
          `${where}[${i}].name: ${JSON.stringify(p.name ?? '')} is not <namespace>/<name>: the controller's ` +
            'ValidateConfig refuses it ("plugin repository ... must be in the format of <namespace>/<name>") and fails ' +
            'to start.',
        );
      if (key === 'trafficRouterPlugins' && p.name === PLUGIN_NAME) {
        gateway = true;
        if (typeof p.location !== 'string' || !/^(https?:\/\/|file:\/\/)\S+$/.test(p.location))
          out.push(
            `${where}[${i}].location: ${JSON.stringify(p.location ?? '')} is not an http(s):// or file:// location ` +
              '(utils/plugin/types PluginItem.Location): the controller cannot load the plugin.',
          );
      }
    });
  }
  if (!gateway)
    out.push(
      `data.trafficRouterPlugins: has no ${PLUGIN_NAME} entry: every rollwise Rollout routes its canary through that ` +
        `plugin, and the controller fails each with "plugin ${PLUGIN_NAME} not configured in configmap" (argo-rollouts ` +
        'v1.9.1 utils/plugin/plugin.go). Fix: restore the entry rollwise writes.',
    );
  return out;
}
