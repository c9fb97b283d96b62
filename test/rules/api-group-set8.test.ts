/*
 * Held-out set 8, judged (issue 21 round 9): a rule about another system's kind reads an object
 * only when its apiVersion is of that kind's API group (src/rules/api-groups.ts), never by the kind
 * name alone. One test per family, each with the near miss (the same object in its own group) that
 * must still fire.
 */
import { Finding, lintObjects, lintText } from '../../src/rules';
import { Obj } from './helpers';
import { LintResult } from '../../src/rules/engine';

const rules = (r: LintResult): string[] => r.findings.filter((f) => f.status === 'open').map((f) => f.ruleId);
const ids = (f: Finding[]): string[] => f.filter((x) => x.status === 'open').map((x) => x.ruleId);
const withGroup = (text: string, from: string, to: string): string => text.split(from).join(to);

/** david-martin/multi-cluster-rollouts config/argocd-applications/example/analysistemplate-ready.yaml. */
const FOREIGN_TEMPLATE = `apiVersion: rollouts.example.com/v1alpha1
kind: AnalysisTemplate
metadata:
  name: example-ready-analysis
spec:
  metric:
    successCondition: result[0] > 0.5
    provider:
      prometheus:
        address: http://thanos-query.172.18.0.2.nip.io/
        query: |
          sum(rate(nginx_ingress_controller_request_size_count{cluster="$cluster"}[1m])) by(ingress)
`;

/** david-martin/multi-cluster-rollouts config/samples/rollouts_v1alpha1_analysistemplate.yaml (kubebuilder). */
const FOREIGN_SAMPLE = `apiVersion: rollouts.example.com/v1alpha1
kind: AnalysisTemplate
metadata:
  name: analysistemplate-sample
spec:
  # TODO(user): Add fields here
`;

const ROLLOUT = `apiVersion: argoproj.io/v1alpha1
kind: Rollout
metadata:
  name: web
spec:
  replicas: -1
  selector:
    matchLabels:
      app: web
  template:
    metadata:
      labels:
        app: web
    spec:
      containers:
      - name: web
        image: nginx:1.27
  strategy:
    canary:
      steps:
      - setWeight: 20
`;

/** Envoy Gateway's quickstart backend (envoyproxy/gateway examples/kubernetes/quickstart.yaml), served by uvicorn. */
function quickstart(policy?: string): Obj[] {
  const labels = { app: 'backend', version: 'v1' };
  const container = {
    name: 'backend',
    image: 'ghcr.io/acme/orders:1.0',
    command: ['uvicorn', 'main:app'],
    ports: [{ containerPort: 3000 }],
    readinessProbe: { httpGet: { path: '/healthz', port: 3000 } },
  };
  return [
    {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 'backend' },
      spec: { ports: [{ name: 'http', port: 3000, targetPort: 3000 }], selector: { app: 'backend' } },
    },
    {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'backend' },
      spec: {
        replicas: 1,
        selector: { matchLabels: labels },
        template: { metadata: { labels }, spec: { containers: [container] } },
      },
    },
    {
      apiVersion: 'gateway.networking.k8s.io/v1',
      kind: 'HTTPRoute',
      metadata: { name: 'backend' },
      spec: { parentRefs: [{ name: 'eg' }], rules: [{ backendRefs: [{ name: 'backend', port: 3000 }] }] },
    },
    ...(policy
      ? [
          {
            apiVersion: 'gateway.envoyproxy.io/v1alpha1',
            kind: 'BackendTrafficPolicy',
            metadata: { name: 'backend' },
            spec: {
              targetRefs: [{ group: 'gateway.networking.k8s.io', kind: 'HTTPRoute', name: 'backend' }],
              timeout: { http: { connectionIdleTimeout: policy } },
            },
          },
        ]
      : []),
  ];
}

/** An object list with one kind's apiVersion replaced. */
function regroup(objs: Obj[], kind: string, apiVersion: string): Obj[] {
  return objs.map((o) => (o.kind === kind ? { ...o, apiVersion } : o));
}

/** podinfo deploy/webapp shape: an HPA whose target is not deployed with it. */
function strayHpa(apiVersion: string): Obj[] {
  const labels = { app: 'frontend' };
  return [
    {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'frontend' },
      spec: {
        selector: { matchLabels: labels },
        template: { metadata: { labels }, spec: { containers: [{ name: 'app', image: 'podinfo:6.7.1' }] } },
      },
    },
    {
      apiVersion,
      kind: 'HorizontalPodAutoscaler',
      metadata: { name: 'frontend' },
      spec: {
        scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'backend' },
        minReplicas: 1,
        maxReplicas: 4,
      },
    },
  ];
}

describe('held-out set 8: kinds are matched with their API group', () => {
  it("argoproj.io: another operator's AnalysisTemplate is not Argo Rollouts' (RW740 judged wrong)", () => {
    for (const text of [FOREIGN_TEMPLATE, FOREIGN_SAMPLE]) {
      const r = lintText(text, 'analysistemplate.yaml');
      expect(rules(r)).toEqual([]);
      expect(r.skippedKinds).toEqual({ 'AnalysisTemplate (rollouts.example.com)': 1 });
    }
    // Near miss: the same document as an Argo Rollouts template has no spec.metrics, which RW740 refuses.
    const own = lintText(withGroup(FOREIGN_SAMPLE, 'rollouts.example.com', 'argoproj.io'), 'at.yaml');
    expect(rules(own)).toContain('RW740-analysis-no-metrics');
  });

  it('argoproj.io: a Rollout of another group is not checked; the Argo Rollout still is', () => {
    expect(rules(lintText(ROLLOUT, 'r.yaml'))).toContain('RW701-rollout-negative-field');
    const foreign = lintText(withGroup(ROLLOUT, 'argoproj.io', 'rollouts.example.com'), 'r.yaml');
    expect(rules(foreign)).toEqual([]);
  });

  it("gateway.networking.k8s.io: an HTTPRoute of another group is not read as the Gateway API's (RW502)", () => {
    expect(ids(lintObjects(quickstart()))).toContain('RW502-route-without-idle-timeout-policy');
    const foreign = lintObjects(regroup(quickstart(), 'HTTPRoute', 'gateway.example.com/v1'));
    expect(ids(foreign)).not.toContain('RW502-route-without-idle-timeout-policy');
  });

  it('gateway.envoyproxy.io: a BackendTrafficPolicy of another group sets no Envoy timeout (RW501)', () => {
    expect(ids(lintObjects(quickstart('10s')))).toContain('RW501-proxy-idle-timeout-not-below-keepalive');
    const foreign = lintObjects(regroup(quickstart('10s'), 'BackendTrafficPolicy', 'policy.example.com/v1'));
    // Not Envoy Gateway's policy: the route has none, which is RW502, and no RW501 on a foreign object.
    expect(ids(foreign)).not.toContain('RW501-proxy-idle-timeout-not-below-keepalive');
    expect(ids(foreign)).toContain('RW502-route-without-idle-timeout-policy');
  });

  it('core groups: an HPA of another group is not an autoscaling HPA (RW603)', () => {
    expect(ids(lintObjects(strayHpa('autoscaling/v2')))).toContain('RW603-autoscaler-targets-another-workload');
    const foreign = lintText(
      strayHpa('autoscaling.example.com/v1')
        .map((o) => JSON.stringify(o))
        .join('\n---\n'),
      'hpa.yaml',
    );
    expect(rules(foreign)).not.toContain('RW603-autoscaler-targets-another-workload');
    expect(foreign.skippedKinds['HorizontalPodAutoscaler (autoscaling.example.com)']).toBe(1);
  });
});
