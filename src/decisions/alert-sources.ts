/** Where each alert's series come from (exporter, metric, version and file), cited in the rules' reasons. */

export const SOURCES = {
  endpointSlice:
    'kube_endpointslice_endpoints{endpointslice, ready, address} (kube-state-metrics v2.19.1 ' +
    'internal/store/endpointslice.go, one series per address of each EndpointSlice, collected by default: ' +
    '"endpointslices" is in pkg/options/resource.go DefaultResources, "endpoints" is not; selected by the slices\' ' +
    'generated names <service>-<5 characters>, kubernetes endpointslice utils.go getEndpointSlicePrefix; addresses ' +
    'are counted once each, as a slice change may list one twice for a moment; only the ready and address labels are ' +
    'read: the same v2.19.1 code writes the Terminating condition into the serving label and swaps the hostname and ' +
    'terminating values)',
  rolloutDesired:
    'rollout_info_replicas_desired{namespace,name} (Argo Rollouts controller metrics, ' +
    "controller/metrics/prommetrics.go; namespace is the Rollout's, kept by the scrape's honorLabels, " +
    'docs/mechanisms.md#an-exporters-own-namespace-label)',
  deploymentDesired: 'kube_deployment_spec_replicas{namespace,deployment} (kube-state-metrics v2)',
  podReady: 'kube_pod_status_ready{condition="true"} (kube-state-metrics v2, one 0/1 series per condition)',
  podOwner:
    'kube_pod_owner{owner_kind="ReplicaSet", owner_name} (kube-state-metrics v2.19.1 internal/store/pod.go, ' +
    'collected by default), joined on(namespace, pod): pods are selected by their ReplicaSet ' +
    "<name>-<pod-template-hash>, because the API server cuts a pod's generateName to 58 characters and long service " +
    'names lose the hash from the pod names (docs/mechanisms.md#generated-names)',
  restarts: 'kube_pod_container_status_restarts_total (kube-state-metrics v2)',
  // kube-state-metrics v2.19.1 internal/store/pod.go createPodInitContainerStatusRestartsTotalFamilyGenerator:
  // one series per pod.Status.InitContainerStatuses entry, native sidecars (restartPolicy: Always) included
  initRestarts: 'kube_pod_init_container_status_restarts_total (kube-state-metrics v2)',
  rqXx:
    'envoy_cluster_upstream_rq_xx{envoy_response_code_class="5"} and envoy_cluster_upstream_rq_total (Envoy ' +
    "cluster stats on Envoy Gateway's /stats/prometheus, port 19001)",
  membership:
    'envoy_cluster_membership_healthy (gauge, an endpoint stat that exists with the cluster), ' +
    "envoy_cluster_upstream_cx_none_healthy (counter, in the cluster's traffic-stats block, which Envoy Gateway's " +
    "deferred stats create whole, every counter at 0 but the one counted, at the cluster's first traffic) and " +
    'envoy_cluster_lb_healthy_panic (counter, a load-balancer stat that exists with the cluster), Envoy cluster ' +
    'stats via Envoy Gateway',
  cfs:
    'container_cpu_cfs_throttled_periods_total / container_cpu_cfs_periods_total (cAdvisor, kubelet ' +
    '/metrics/cadvisor)',
  rolloutInfo:
    'rollout_info{namespace,name,strategy,traffic_router,phase} with phase one of Completed, Progressing, ' +
    'Paused, Timeout, Error, Abort, InvalidSpec (Argo Rollouts controller, controller/metrics/rollouts.go ' +
    'calculatePhase)',
  analysisRunInfo:
    'analysis_run_info{namespace,name,phase} (Argo Rollouts controller; analysis_run_phase is its ' +
    'deprecated twin), runs named <rollout>-<pod-hash>-<revision>[-<step>] (rollout/analysis.go ' +
    'newAnalysisRunFromRollout, v1.9.1) and, when that name is taken (a re-run of the same revision), <name>.<N> ' +
    '(utils/analysis/helpers.go CreateWithCollisionCounter)',
  replicaSetOwner:
    'kube_replicaset_owner{namespace, replicaset, owner_kind="Rollout", owner_name} ' +
    '(kube-state-metrics v2.19.1 internal/store/replicaset.go, collected by default), joined on(namespace, ' +
    "replicaset) with the run name's <rollout>-<hash> part (label_replace)",
  deploymentCondition:
    'kube_deployment_status_condition{condition="Progressing",status="false"} (kube-state-metrics ' + 'v2)',
};
