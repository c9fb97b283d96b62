// The pinned upstream files rollwise validates against (versions from shared/docs/reference.md).
// Layout mirrors the shared folder: <dir>/crds/<file> and <dir>/schemas/<file>.
const gh = 'https://raw.githubusercontent.com';
const rollouts = (name) => `${gh}/argoproj/argo-rollouts/v1.9.1/manifests/crds/${name}-crd.yaml`;
const gateway = (plural) => `${gh}/kubernetes-sigs/gateway-api/v1.6.1/config/crd/standard/gateway.networking.k8s.io_${plural}.yaml`;
const promop = (plural) => `${gh}/prometheus-operator/prometheus-operator/v0.93.0/example/prometheus-operator-crd/monitoring.coreos.com_${plural}.yaml`;

module.exports = [
  { file: 'crds/argo-rollouts-rollout.yaml', url: rollouts('rollout') },
  { file: 'crds/argo-rollouts-analysis-template.yaml', url: rollouts('analysis-template') },
  { file: 'crds/argo-rollouts-cluster-analysis-template.yaml', url: rollouts('cluster-analysis-template') },
  { file: 'crds/argo-rollouts-analysis-run.yaml', url: rollouts('analysis-run') },
  { file: 'crds/argo-rollouts-experiment.yaml', url: rollouts('experiment') },
  { file: 'crds/gateway-api-httproutes.yaml', url: gateway('httproutes') },
  { file: 'crds/gateway-api-gateways.yaml', url: gateway('gateways') },
  { file: 'crds/envoy-gateway-backendtrafficpolicies.yaml', url: `${gh}/envoyproxy/gateway/v1.9.0/charts/gateway-helm/charts/crds/crds/generated/gateway.envoyproxy.io_backendtrafficpolicies.yaml` },
  { file: 'crds/prometheus-operator-prometheusrules.yaml', url: promop('prometheusrules') },
  { file: 'crds/prometheus-operator-servicemonitors.yaml', url: promop('servicemonitors') },
  { file: 'crds/prometheus-operator-podmonitors.yaml', url: promop('podmonitors') },
  { file: 'crds/argo-cd-application.yaml', url: `${gh}/argoproj/argo-cd/v3.5.1/manifests/crds/application-crd.yaml` },
  { file: 'schemas/k8s-v1.28.0-definitions.json', url: `${gh}/cdk8s-team/cdk8s/master/kubernetes-schemas/v1.28.0/_definitions.json` },
  // platform.kubernetesVersion V1_33 (src/decisions/kubernetes-version.ts) validates against it.
  { file: 'schemas/k8s-v1.33.0-definitions.json', url: `${gh}/cdk8s-team/cdk8s/master/kubernetes-schemas/v1.33.0/_definitions.json` },
];
