import { ApiObject } from 'cdk8s';
import { Construct } from 'constructs';
import { GATEWAY_API_PLUGIN as PLUGIN_NAME } from '../decisions/canary-plan';
import { ClusterPrerequisitesInputs, decideClusterPrerequisites } from '../decisions/cluster-prerequisites';
import { Reasons } from '../justify/reasons';
import { addSynthWarning } from '../synth/output';
import { registerRenderCheck } from '../synth/render-checks';
import * as YAML from 'yaml';
import { ServiceNamespace, ServiceNamespaceProps } from './service-namespace';
import { registerDecidedValuesCheck } from '../invariants/decided-values';

export { PluginBinary } from '../decisions/cluster-prerequisites';
export type { ClusterPrerequisitesInputs } from '../decisions/cluster-prerequisites';

export interface ClusterPrerequisitesProps extends ClusterPrerequisitesInputs {
  /**
   * Namespaces to create, with the Pod Security and platform labels (for services whose Argo CD
   * Applications use `NamespacePolicy.existing()`).
   * @default none
   */
  readonly namespaces?: ServiceNamespaceProps[];
}

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
    const d = decideClusterPrerequisites(props);
    const ns = d.rolloutsNamespace;
    const labels = d.labels;
    const rc = new Reasons();
    const trafficRouterPlugins = rc.use('data.trafficRouterPlugins', d.trafficRouterPlugins);
    this.pluginConfig = new ApiObject(this, 'plugin-config', {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'argo-rollouts-config', namespace: ns, labels, annotations: rc.annotations() },
      data: { trafficRouterPlugins },
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
    if (d.unpinnedWarning) addSynthWarning(this, d.unpinnedWarning);
    (props.namespaces ?? []).forEach((n, i) => new ServiceNamespace(this, `namespace-${i}`, n));

    const rr = new Reasons();
    const rules = rr.use('rules', d.pluginRules);
    new ApiObject(this, 'plugin-role', {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRole',
      metadata: { name: 'argo-rollouts-gateway-api-plugin', labels, annotations: rr.annotations() },
      rules,
    });
    new ApiObject(this, 'plugin-binding', {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRoleBinding',
      metadata: { name: 'argo-rollouts-gateway-api-plugin', labels },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'argo-rollouts-gateway-api-plugin' },
      subjects: [{ kind: 'ServiceAccount', name: d.rolloutsServiceAccount, namespace: ns }],
    });

    if (d.monitorLabelsWarning) addSynthWarning(this, d.monitorLabelsWarning);
    const rp = new Reasons();
    const envoyEndpoints = rp.use('spec.podMetricsEndpoints', d.envoyEndpoints);
    const envoySelector = rp.use('spec.selector', d.envoySelector);
    new ApiObject(this, 'envoy-monitor', {
      apiVersion: 'monitoring.coreos.com/v1',
      kind: 'PodMonitor',
      metadata: {
        name: 'envoy-proxies',
        namespace: d.envoyNamespace,
        labels: d.monitorLabels,
        annotations: rp.annotations(),
      },
      spec: { selector: { matchLabels: envoySelector }, podMetricsEndpoints: envoyEndpoints },
    });

    const rm = new Reasons();
    const rolloutsEndpoints = rm.use('spec.podMetricsEndpoints', d.rolloutsEndpoints);
    rm.use('spec.podMetricsEndpoints[0].honorLabels', d.rolloutsHonorLabels);
    new ApiObject(this, 'rollouts-monitor', {
      apiVersion: 'monitoring.coreos.com/v1',
      kind: 'PodMonitor',
      metadata: {
        name: 'argo-rollouts-controller',
        namespace: ns,
        labels: d.monitorLabels,
        annotations: rm.annotations(),
      },
      spec: {
        selector: { matchLabels: { 'app.kubernetes.io/name': 'argo-rollouts' } },
        podMetricsEndpoints: rolloutsEndpoints,
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
