#!/usr/bin/env node
// Regenerates imports/ with `cdk8s import` from the pinned CRD files (offline).
// Each CRD gets its own module prefix because several share the argoproj.io group.
const { execFileSync } = require('child_process');
const { locateSchemaDir } = require('../lib/src/schemas/locate');

const dir = locateSchemaDir();
const crds = {
  rollout: 'argo-rollouts-rollout.yaml',
  analysistemplate: 'argo-rollouts-analysis-template.yaml',
  application: 'argo-cd-application.yaml',
  'envoy-gateway': 'envoy-gateway-backendtrafficpolicies.yaml',
  'gateway-api': 'gateway-api-httproutes.yaml',
  'prometheus-operator': 'prometheus-operator-prometheusrules.yaml',
};
for (const [prefix, file] of Object.entries(crds)) {
  execFileSync(
    'npx',
    [
      'cdk8s',
      'import',
      `${prefix}:=${dir}/crds/${file}`,
      '--language',
      'typescript',
      '--output',
      'imports',
      '--no-check-upgrade',
      '--no-save',
    ],
    { stdio: 'inherit' },
  );
}
