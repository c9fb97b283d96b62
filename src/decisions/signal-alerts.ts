import { Decision } from './decision';
import { promDuration } from './alert-rule';
import { SOURCES } from './alert-sources';
import type { AlertRule } from './alert-rule';
import { AlertValues, ruleList } from './alert-values';

/**
 * The alerts that say the other alerts are blind: no EndpointSlice metrics for the Service
 * (ReadyEndpointsMetricMissing) and no rollout_info for the Rollout (RolloutMetricsMissing).
 */
export function signalAlerts(v: AlertValues): Decision<AlertRule>[] {
  const { name, ns, isRollout, sliceRegex } = v;
  const [rules, add] = ruleList(v);
  const missingFor = 10 * 60;
  add(
    {
      alert: 'ReadyEndpointsMetricMissing',
      mechanism: 'readiness-signal-missing',
      severity: 'warning',
      expr: `absent(kube_endpointslice_info{namespace="${ns}", endpointslice=~"${sliceRegex(name)}"})`,
      for: promDuration(missingFor),
      summary:
        `${name}: no ready-endpoints signal (kube-state-metrics exports no EndpointSlice of the Service): the ` +
        'readiness-cascade alerts are blind',
      description:
        `Prometheus has no kube_endpointslice_info for the EndpointSlices of Service ${ns}/${name}: ` +
        'kube-state-metrics does not collect endpointslices (they are in its defaults; a --resources list may leave ' +
        'them out), is not scraped, or the Service is gone. ReadyEndpointsBelowFloor and ReadyEndpointsOscillating ' +
        'cannot fire until it does (docs/mechanisms.md#fixes-and-verification).',
      meaning:
        'The only early signal of a readiness cascade is ready endpoints against desired replicas, and that ' +
        "count comes from kube-state-metrics' EndpointSlice metrics. Without them the floor and saw-tooth alerts stay " +
        'silent while pods leave the Service (docs/mechanisms.md#fixes-and-verification).',
      checkFirst: [
        "kube-state-metrics' --resources flag (Helm: kube-state-metrics.collectors): `endpointslices` must be in the " +
          'list (it is in the defaults), and its ServiceMonitor must be scraped.',
        `That the Service and its slices exist: \`kubectl -n ${ns} get endpointslices -l ` +
          `kubernetes.io/service-name=${name}\`.`,
      ],
    },
    `absent() of kube_endpointslice_info{namespace, endpointslice=~"${sliceRegex(name)}"} (kube-state-metrics ` +
      'v2.19.1 internal/store/endpointslice.go; 1 for every EndpointSlice, with or without endpoints), which exists ' +
      'only while kube-state-metrics collects endpointslices (in its DefaultResources, pkg/options/resource.go, ' +
      'v2.19.1) and the Service has slices, named <service>- cut to 58 characters plus 5 generated ones ' +
      '(docs/mechanisms.md#generated-names). The ready-endpoints alerts require it, so that a missing collector ' +
      `gives this warning instead of a permanent "0 ready" page. for ${promDuration(missingFor)}: longer than a new ` +
      'Service takes to appear in the scrape.',
    { forSeconds: missingFor },
  );

  if (isRollout) {
    // The controller exports rollout_info for every Rollout in its informer cache at every scrape
    // (argo-rollouts v1.9.1 controller/metrics/rollouts.go Collect, RolloutLister.List), labelled with
    // the Rollout's own namespace. It is absent only when the controller is not scraped, or when the
    // scrape did not keep that label: with honor_labels false the target's namespace (the
    // controller's) wins and the metric's is stored as exported_namespace (prometheus-operator v0.93.0
    // pkg/prometheus/promcfg.go generatePodMonitorConfig and AddHonorLabels; prometheus
    // scrape/scrape.go mutateSampleLabels), and a Prometheus with enforcedNamespaceLabel overwrites it
    // last (pkg/namespacelabeler/labeler.go GetRelabelingConfigs).
    add(
      {
        alert: 'RolloutMetricsMissing',
        mechanism: 'rollout-signal-missing',
        severity: 'warning',
        expr: `absent(rollout_info{namespace="${ns}", name="${name}"})`,
        for: promDuration(missingFor),
        summary:
          `${name}: no rollout_info for Rollout ${ns}/${name} (the Argo Rollouts controller is not scraped with ` +
          'its own namespace label): the rollout and readiness-floor alerts are blind',
        description:
          `Prometheus has no rollout_info{namespace="${ns}", name="${name}"}: the Argo Rollouts controller ` +
          'is not scraped, or it is scraped without honorLabels and its namespace label is stored as ' +
          `exported_namespace beside the controller's own namespace. ReadyEndpointsBelowFloor, ` +
          `ReadyEndpointsOscillating, CanaryAnalysisFailed and RolloutDegraded select the controller's series by ` +
          'namespace and cannot fire until it is fixed (docs/mechanisms.md#an-exporters-own-namespace-label).',
        meaning:
          `The alerts on this Rollout read the Argo Rollouts controller's metrics by the service's namespace: ` +
          `desired replicas (the readiness floor), the rollout's phase and its analysis runs. The controller labels ` +
          `each series with the Rollout's namespace, and Prometheus keeps that label only when the scrape honours it; ` +
          `otherwise every series is stored under the controller's namespace and these alerts stay silent through an ` +
          'aborted release or a readiness cascade (docs/mechanisms.md#an-exporters-own-namespace-label).',
        checkFirst: [
          `In Prometheus: \`count by (job, namespace) (rollout_info{exported_namespace="${ns}", name="${name}"})\`. A ` +
            'result means the controller is scraped without honorLabels: set honorLabels: true on that ServiceMonitor ' +
            `or PodMonitor (\`rollwise platform\`'s argo-rollouts-controller has it), or see docs/cluster.md for a ` +
            'Prometheus with overrideHonorLabels or enforcedNamespaceLabel.',
          'No result: whether anything scrapes the controller (port "metrics", 8090, path /metrics) and its ' +
            'target is up.',
          `That the Rollout exists: \`kubectl -n ${ns} get rollout ${name}\`.`,
        ],
      },
      `absent() of ${SOURCES.rolloutInfo} for Rollout ${name}. The controller exports it for every Rollout it knows ` +
        `at every scrape, labelled with the Rollout's namespace, so it is absent only when the controller is not ` +
        `scraped or its namespace label was not kept: without honorLabels the Prometheus Operator's target label ` +
        `namespace wins and the controller's is stored as exported_namespace (prometheus-operator v0.93.0 ` +
        'promcfg.go; docs/mechanisms.md#an-exporters-own-namespace-label). ReadyEndpointsBelowFloor, ' +
        'ReadyEndpointsOscillating, CanaryAnalysisFailed and RolloutDegraded would then be silent; this warning ' +
        `makes that loud. for ${promDuration(missingFor)}: longer than a new Rollout takes to appear in the scrape.`,
      { forSeconds: missingFor },
    );
  }
  return rules;
}
