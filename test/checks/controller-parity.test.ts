/*
 * The Argo Rollouts controller's verdicts (v1.9.1), case by case: each case puts one defect into a
 * valid baseline (plain manifests, as a user would write them) and names the rule(s) the checker
 * must report, or `accept` where the controller accepts the spec. The same cases then go through
 * `rollwise lint --format json` and must give the same verdicts.
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import * as YAML from 'yaml';
import { checkController, ControllerCheck } from '../../src/checks/controller-spec';
import { parseGoDuration } from '../../src/checks/go-values';
import { checkRolloutSpec } from '../../src/checks/rollout-spec';
import { main } from '../../src/cli/main';
import { CONTROLLER_RULES, controllerRuleId } from '../../src/rules/controller-rules';
import { lintObjects, RollwiseValidation } from '../../src/rules';
import { synthService } from '../support/manifests';

type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- fixtures are free-form manifests mutated by path

const LABELS = { app: 'checkout-api' };
const PLUGIN = 'argoproj-labs/gatewayAPI';

function prometheus(query: string): Obj {
  return { prometheus: { address: 'http://prometheus.monitoring:9090', query } };
}

/**
 * A valid canary Rollout with its Services, HTTPRoute and analysis templates: the shape of the Gateway
 * API plugin's examples/envoygateway/rollout.yaml (argoproj-labs/rollouts-plugin-trafficrouter-gatewayapi,
 * commit 96c63fd7: canaryService, stableService, plugin httpRoute and namespace) with a background and an
 * inline analysis. It is every controller rule's near miss: the baseline must pass, and each case
 * below changes one thing.
 */
function baseline(): Obj[] {
  return [
    {
      apiVersion: 'argoproj.io/v1alpha1',
      kind: 'Rollout',
      metadata: { name: 'checkout-api', namespace: 'checkout' },
      spec: {
        replicas: 4,
        minReadySeconds: 30,
        progressDeadlineSeconds: 600,
        progressDeadlineAbort: true,
        revisionHistoryLimit: 3,
        selector: { matchLabels: { ...LABELS } },
        template: {
          metadata: { labels: { ...LABELS } },
          spec: { containers: [{ name: 'app', image: 'ghcr.io/acme/checkout-api:1.4.2' }] },
        },
        strategy: {
          canary: {
            canaryService: 'checkout-api-canary',
            stableService: 'checkout-api',
            maxSurge: '25%',
            maxUnavailable: 0,
            trafficRouting: { plugins: { [PLUGIN]: { httpRoute: 'checkout-api', namespace: 'checkout' } } },
            analysis: {
              startingStep: 1,
              templates: [{ templateName: 'error-ratio' }],
              args: [{ name: 'service', value: 'checkout-api' }],
            },
            steps: [
              { setWeight: 5 },
              { pause: { duration: '10m' } },
              {
                analysis: {
                  templates: [{ templateName: 'canary-gate' }],
                  args: [{ name: 'canary-hash', valueFrom: { podTemplateHashValue: 'Latest' } }],
                },
              },
              { setWeight: 50 },
              { pause: {} },
            ],
          },
        },
      },
    },
    {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 'checkout-api', namespace: 'checkout' },
      spec: { selector: { ...LABELS }, ports: [{ port: 80, targetPort: 8080 }] },
    },
    {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 'checkout-api-canary', namespace: 'checkout' },
      spec: { selector: { ...LABELS }, ports: [{ port: 80, targetPort: 8080 }] },
    },
    {
      apiVersion: 'gateway.networking.k8s.io/v1',
      kind: 'HTTPRoute',
      metadata: { name: 'checkout-api', namespace: 'checkout' },
      spec: {
        parentRefs: [{ name: 'public', namespace: 'gateway' }],
        rules: [
          {
            backendRefs: [
              { group: '', kind: 'Service', name: 'checkout-api', port: 80, weight: 100 },
              { group: '', kind: 'Service', name: 'checkout-api-canary', port: 80, weight: 0 },
            ],
          },
        ],
      },
    },
    {
      apiVersion: 'argoproj.io/v1alpha1',
      kind: 'AnalysisTemplate',
      metadata: { name: 'error-ratio', namespace: 'checkout' },
      spec: {
        args: [{ name: 'service' }],
        metrics: [
          {
            name: 'error-ratio',
            interval: '1m',
            failureLimit: 1,
            successCondition: 'len(result) > 0 && !isNaN(result[0]) && result[0] < 0.01',
            failureCondition: 'len(result) > 0 && !isNaN(result[0]) && result[0] >= 0.01',
            provider: prometheus(
              'sum(rate(http_requests_total{service="{{args.service}}",code=~"5.."}[2m])) / sum(rate(http_requests_total{service="{{args.service}}"}[2m]))',
            ),
          },
        ],
      },
    },
    {
      apiVersion: 'argoproj.io/v1alpha1',
      kind: 'AnalysisTemplate',
      metadata: { name: 'canary-gate', namespace: 'checkout' },
      spec: {
        args: [{ name: 'canary-hash' }],
        metrics: [
          {
            name: 'canary-error-ratio',
            count: 5,
            interval: '1m',
            failureLimit: 1,
            successCondition: 'len(result) > 0 && !isNaN(result[0]) && result[0] < 0.01',
            failureCondition: 'len(result) > 0 && !isNaN(result[0]) && result[0] >= 0.01',
            provider: prometheus(
              'sum(rate(http_requests_total{pod_template_hash="{{args.canary-hash}}",code=~"5.."}[2m])) / sum(rate(http_requests_total{pod_template_hash="{{ args.canary-hash }}"}[2m]))',
            ),
          },
        ],
      },
    },
  ];
}

const get = (objs: Obj[], kind: string, name?: string): Obj =>
  objs.find((o) => o.kind === kind && (name === undefined || o.metadata.name === name))!;
const ro = (objs: Obj[]) => get(objs, 'Rollout');
const canary = (objs: Obj[]) => ro(objs).spec.strategy.canary;
const gate = (objs: Obj[]) => get(objs, 'AnalysisTemplate', 'canary-gate').spec.metrics[0];
const bgMetric = (objs: Obj[]) => get(objs, 'AnalysisTemplate', 'error-ratio').spec.metrics[0];
const noRouting = (objs: Obj[]) => {
  delete canary(objs).trafficRouting;
};
const svc = (name: string, selector: Obj = { ...LABELS }): Obj => ({
  apiVersion: 'v1',
  kind: 'Service',
  metadata: { name, namespace: 'checkout' },
  spec: { selector },
});

/** A Deployment scaled to 0 that lends its template to the Rollout (workloadRef). */
function workloadDeployment(objs: Obj[], labels: Record<string, string>): Obj {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'checkout-api', namespace: 'checkout' },
    spec: {
      replicas: 0,
      selector: { matchLabels: { ...labels } },
      template: { ...ro(objs).spec.template, metadata: { labels: { ...labels } } },
    },
  };
}

/** What the controller does with one defect: the rules that report it and the message of the first. */
interface Case {
  readonly title: string;
  readonly mutate: (objs: Obj[]) => void;
  /** The rule id prefixes expected (all RW7xx findings of the run), or 'accept'. */
  readonly verdict: readonly string[] | 'accept';
  readonly message?: RegExp;
  /** Where rollwise differs from the controller, or a quirk of the controller worth saying. */
  readonly why?: string;
}

const CASES: readonly Case[] = [
  // ValidateRolloutSpec
  {
    title: 'negative replicas',
    mutate: (o) => {
      ro(o).spec.replicas = -1;
    },
    verdict: ['RW701'],
    message: /spec\.replicas = -1: the controller requires a non-negative value/,
  },
  {
    title: 'negative minReadySeconds',
    mutate: (o) => {
      ro(o).spec.minReadySeconds = -5;
    },
    verdict: ['RW701'],
    message: /spec\.minReadySeconds = -5/,
  },
  {
    title: 'negative revisionHistoryLimit',
    mutate: (o) => {
      ro(o).spec.revisionHistoryLimit = -1;
    },
    verdict: ['RW701'],
    message: /spec\.revisionHistoryLimit = -1/,
  },
  {
    title: 'no selector',
    mutate: (o) => {
      delete ro(o).spec.selector;
    },
    verdict: ['RW702'],
    message: /spec\.selector is missing.*Rollout has missing field '\.spec\.selector'/,
  },
  {
    title: 'empty selector',
    mutate: (o) => {
      ro(o).spec.selector = {};
    },
    verdict: ['RW702'],
    message: /is empty.*empty selector is invalid for deployment/,
  },
  {
    title: 'selector operator that does not exist',
    mutate: (o) => {
      ro(o).spec.selector.matchExpressions = [{ key: 'tier', operator: 'Equals', values: ['web'] }];
    },
    verdict: ['RW702'],
    message: /"Equals" is not a valid selector operator/,
  },
  {
    title: 'selector In without values',
    mutate: (o) => {
      ro(o).spec.selector.matchExpressions = [{ key: 'app', operator: 'In', values: [] }];
    },
    verdict: ['RW702'],
    message: /operator In needs at least one value/,
  },
  {
    title: 'selector Exists with values',
    mutate: (o) => {
      ro(o).spec.selector.matchExpressions = [{ key: 'app', operator: 'Exists', values: ['x'] }];
    },
    verdict: ['RW702'],
    message: /operator Exists must have no values/,
  },
  {
    title: 'selector key with two slashes',
    mutate: (o) => {
      ro(o).spec.selector.matchLabels['a/b/c'] = 'x';
      ro(o).spec.template.metadata.labels['a/b/c'] = 'x';
    },
    verdict: ['RW702'],
    message: /key "a\/b\/c": a qualified name has at most one "\/"/,
  },
  {
    title: 'selector that misses the template labels',
    mutate: (o) => {
      ro(o).spec.selector.matchLabels.app = 'other';
    },
    verdict: ['RW703'],
    message: /does not match the pod template labels.*`selector` does not match template `labels`/,
  },
  {
    title: 'template restartPolicy OnFailure',
    mutate: (o) => {
      ro(o).spec.template.spec.restartPolicy = 'OnFailure';
    },
    verdict: ['RW704'],
    message: /restartPolicy = "OnFailure".*anything but "Always"/,
  },
  {
    title: 'template activeDeadlineSeconds',
    mutate: (o) => {
      ro(o).spec.template.spec.activeDeadlineSeconds = 600;
    },
    verdict: ['RW704'],
    message: /activeDeadlineSeconds = 600/,
  },
  {
    title: 'workloadRef with a template',
    mutate: (o) => {
      ro(o).spec.workloadRef = { apiVersion: 'apps/v1', kind: 'Deployment', name: 'checkout-api' };
    },
    verdict: ['RW705'],
    message: /template must be empty for workload reference rollout/,
  },
  {
    title: 'workloadRef to a Deployment that is not there',
    mutate: (o) => {
      delete ro(o).spec.template;
      ro(o).spec.workloadRef = { apiVersion: 'apps/v1', kind: 'Deployment', name: 'checkout-api' };
    },
    verdict: ['RW739'],
    message:
      /names Deployment "checkout-api", which is not among the checked objects.*deployments "checkout-api" not found/,
  },
  {
    title: 'workloadRef to a StatefulSet',
    mutate: (o) => {
      delete ro(o).spec.template;
      ro(o).spec.workloadRef = { apiVersion: 'apps/v1', kind: 'StatefulSet', name: 'checkout-api' };
    },
    verdict: ['RW739'],
    message: /workload of type apps\/StatefulSet is not supported/,
  },
  {
    title: 'workloadRef whose template misses the selector',
    mutate: (o) => {
      o.push(workloadDeployment(o, { app: 'other' }));
      delete ro(o).spec.template;
      ro(o).spec.workloadRef = { apiVersion: 'apps/v1', kind: 'Deployment', name: 'checkout-api' };
    },
    verdict: ['RW703', 'RW731'],
    message: /does not match the pod template labels \{"app":"other"\}/,
    why: 'The controller validates the resolved template: the selector and both Services miss its pods.',
  },
  {
    title: 'progressDeadlineSeconds equal to minReadySeconds',
    mutate: (o) => {
      ro(o).spec.progressDeadlineSeconds = 30;
    },
    verdict: ['RW706'],
    message:
      /progressDeadlineSeconds = 30 is not greater than spec\.minReadySeconds = 30.*must be greater than minReadySeconds/,
  },
  {
    title: 'minReadySeconds at the default deadline',
    mutate: (o) => {
      delete ro(o).spec.progressDeadlineSeconds;
      ro(o).spec.minReadySeconds = 600;
    },
    verdict: ['RW706'],
    message: /progressDeadlineSeconds = 600 \(default\)/,
  },
  // ValidateRolloutStrategy
  {
    title: 'no strategy',
    mutate: (o) => {
      ro(o).spec.strategy = {};
    },
    verdict: ['RW707'],
    message: /neither canary nor blueGreen/,
  },
  {
    title: 'canary and blueGreen',
    mutate: (o) => {
      ro(o).spec.strategy.blueGreen = { activeService: 'checkout-api', previewService: 'checkout-api-preview' };
    },
    verdict: ['RW708'],
    message: /Multiple Strategies can not be listed/,
  },
  // ValidateRolloutStrategyCanary
  {
    title: 'maxSurge 0 and maxUnavailable 0',
    mutate: (o) => {
      canary(o).maxSurge = 0;
    },
    verdict: ['RW709'],
    message: /maxSurge = 0 and maxUnavailable = 0 are both zero/,
  },
  {
    title: 'maxSurge "0%" and maxUnavailable 0',
    mutate: (o) => {
      canary(o).maxSurge = '0%';
    },
    verdict: ['RW709'],
    message: /maxSurge = "0%"/,
  },
  {
    title: 'same canary and stable Service',
    mutate: (o) => {
      canary(o).canaryService = 'checkout-api';
    },
    verdict: ['RW710'],
    message: /canaryService and stableService are both "checkout-api".*two different services are required/,
  },
  {
    title: 'pingPong with the Gateway API plugin',
    mutate: (o) => {
      canary(o).pingPong = { pingService: 'ping', pongService: 'pong' };
      o.push(svc('ping'), svc('pong'));
    },
    verdict: ['RW711'],
    message: /ping-pong works only with the ALB and Istio traffic routers/,
  },
  {
    title: 'pingPong with one name for both',
    mutate: (o) => {
      canary(o).trafficRouting = { istio: { virtualService: { name: 'vs' } } };
      canary(o).pingPong = { pingService: 'ping', pongService: 'ping' };
      o.push(svc('ping'));
    },
    verdict: ['RW711'],
    message: /pingService and pongService are both "ping"/,
  },
  {
    title: 'Nginx routing without canaryService',
    mutate: (o) => {
      canary(o).trafficRouting = { nginx: { stableIngress: 'checkout' } };
      delete canary(o).canaryService;
    },
    verdict: ['RW712'],
    message: /canaryService is empty while trafficRouting uses nginx.*Canary service and Stable service must to be set/,
  },
  {
    title: 'scaleDownDelaySeconds without traffic routing',
    mutate: (o) => {
      noRouting(o);
      canary(o).scaleDownDelaySeconds = 30;
    },
    verdict: ['RW713'],
    message: /scaleDownDelaySeconds = 30 without trafficRouting/,
  },
  {
    title: 'dynamicStableScale without traffic routing',
    mutate: (o) => {
      noRouting(o);
      canary(o).dynamicStableScale = true;
    },
    verdict: ['RW714'],
    message: /dynamicStableScale can only be used with traffic routing/,
  },
  {
    title: 'dynamicStableScale with scaleDownDelaySeconds',
    mutate: (o) => {
      canary(o).dynamicStableScale = true;
      canary(o).scaleDownDelaySeconds = 30;
    },
    verdict: ['RW715'],
    message: /dynamicStableScale cannot be used with scaleDownDelaySeconds/,
  },
  {
    title: 'maxTrafficWeight with Istio',
    mutate: (o) => {
      canary(o).trafficRouting = { istio: { virtualService: { name: 'vs' } }, maxTrafficWeight: 1000 };
    },
    verdict: ['RW716'],
    message: /only supported in Nginx and Plugins/,
  },
  {
    title: 'setWeight and pause in one step',
    mutate: (o) => {
      canary(o).steps[0] = { setWeight: 5, pause: {} };
    },
    verdict: ['RW717'],
    message: /steps\[0\] has setWeight and pause/,
  },
  {
    title: 'analysis and pause in one step',
    mutate: (o) => {
      canary(o).steps[2].pause = { duration: 60 };
    },
    verdict: ['RW717'],
    message: /steps\[2\] has pause and analysis/,
  },
  {
    title: 'an empty step',
    mutate: (o) => {
      canary(o).steps.splice(1, 0, {});
    },
    verdict: ['RW718'],
    message: /steps\[1\] \{\} has none of/,
  },
  {
    title: 'a step of a kind that does not exist',
    mutate: (o) => {
      canary(o).steps[1] = { wait: '10m' };
    },
    verdict: ['RW718', 'RW785'],
    message: /steps\[1\] \{"wait":"10m"\} has none of .* once the API server drops the unknown fields/,
    why: 'The API server prunes "wait" (not in the CRD), so the controller sees an empty step; rollwise also names the dropped field (RW785).',
  },
  {
    title: 'setWeight above 100',
    mutate: (o) => {
      canary(o).steps[3] = { setWeight: 150 };
    },
    verdict: ['RW719'],
    message: /setWeight = 150: the controller refuses a weight outside 0\.\.100/,
  },
  {
    title: 'negative setWeight',
    mutate: (o) => {
      canary(o).steps[0] = { setWeight: -1 };
    },
    verdict: ['RW719'],
    message: /setWeight = -1/,
  },
  {
    title: 'setWeight above maxTrafficWeight',
    mutate: (o) => {
      canary(o).trafficRouting.maxTrafficWeight = 10;
    },
    verdict: ['RW719'],
    message:
      /setWeight = 50: the controller refuses a weight outside 0\.\.10 \("SetWeight needs to be between 0 and 10"/,
  },
  {
    title: 'pause 1d',
    mutate: (o) => {
      canary(o).steps[1] = { pause: { duration: '1d' } };
    },
    verdict: ['RW720'],
    message: /pause\.duration = "1d": neither whole seconds nor a Go duration.*use "24h"/,
  },
  {
    title: 'negative pause seconds',
    mutate: (o) => {
      canary(o).steps[1] = { pause: { duration: -5 } };
    },
    verdict: ['RW720'],
    message: /pause\.duration = -5: a negative duration/,
  },
  {
    title: 'negative pause duration',
    mutate: (o) => {
      canary(o).steps[1] = { pause: { duration: '-10m' } };
    },
    verdict: ['RW720'],
    message: /"-10m": a negative duration/,
  },
  {
    title: 'pause in words',
    mutate: (o) => {
      canary(o).steps[1] = { pause: { duration: 'ten minutes' } };
    },
    verdict: ['RW720'],
    message: /"ten minutes": neither whole seconds nor a Go duration/,
  },
  {
    title: 'setCanaryScale without traffic routing',
    mutate: (o) => {
      noRouting(o);
      canary(o).steps[0] = { setCanaryScale: { replicas: 1 } };
    },
    verdict: ['RW721'],
    message: /SetCanaryScale requires TrafficRouting to be set/,
  },
  {
    title: 'setHeaderRoute with Nginx',
    mutate: (o) => {
      canary(o).trafficRouting = { nginx: { stableIngress: 'checkout' }, managedRoutes: [{ name: 'hdr' }] };
      canary(o).steps[0] = {
        setHeaderRoute: { name: 'hdr', match: [{ headerName: 'x-canary', headerValue: { exact: 'always' } }] },
      };
    },
    verdict: ['RW722'],
    message: /needs Istio, ALB, Apisix or a plugin router/,
  },
  {
    title: 'header match with exact and prefix',
    mutate: (o) => {
      canary(o).trafficRouting.managedRoutes = [{ name: 'hdr' }];
      canary(o).steps.splice(0, 0, {
        setHeaderRoute: {
          name: 'hdr',
          match: [{ headerName: 'x-canary', headerValue: { exact: 'always', prefix: 'y' } }],
        },
      });
    },
    verdict: ['RW723'],
    message: /more than one of exact, regex, prefix/,
  },
  {
    title: 'header match without a value',
    mutate: (o) => {
      canary(o).trafficRouting.managedRoutes = [{ name: 'hdr' }];
      canary(o).steps.splice(0, 0, {
        setHeaderRoute: { name: 'hdr', match: [{ headerName: 'x-canary', headerValue: {} }] },
      });
    },
    verdict: ['RW723'],
    message: /none of exact, regex, prefix/,
  },
  {
    title: 'mirror route with the Gateway API plugin',
    mutate: (o) => {
      canary(o).trafficRouting.managedRoutes = [{ name: 'mirror' }];
      canary(o).steps.splice(0, 0, { setMirrorRoute: { name: 'mirror', percentage: 10 } });
    },
    verdict: ['RW724'],
    message: /SetMirrorRoute requires TrafficRouting, supports Istio only/,
  },
  {
    title: 'mirror path match with exact and regex (Istio)',
    mutate: (o) => {
      canary(o).trafficRouting = { istio: { virtualService: { name: 'vs' } }, managedRoutes: [{ name: 'mirror' }] };
      canary(o).steps.splice(0, 0, {
        setMirrorRoute: { name: 'mirror', match: [{ path: { exact: '/a', regex: '/b.*' } }] },
      });
    },
    verdict: ['RW723'],
    message: /setMirrorRoute\.match\[0\]\.path .*more than one of exact, regex, prefix/,
  },
  {
    title: 'header route without managedRoutes',
    mutate: (o) => {
      canary(o).steps.splice(0, 0, {
        setHeaderRoute: { name: 'hdr', match: [{ headerName: 'x-canary', headerValue: { exact: 'always' } }] },
      });
    },
    verdict: ['RW725'],
    message: /trafficRouting\.managedRoutes is missing.*managedRoutes: \[\{ name: "hdr" \}\]/,
  },
  {
    title: 'header route not in managedRoutes',
    mutate: (o) => {
      canary(o).trafficRouting.managedRoutes = [{ name: 'other' }];
      canary(o).steps.splice(0, 0, {
        setHeaderRoute: { name: 'hdr', match: [{ headerName: 'x-canary', headerValue: { exact: 'always' } }] },
      });
    },
    verdict: ['RW726'],
    message: /setHeaderRoute\.name = "hdr" is not in .*managedRoutes \("other"\)/,
  },
  {
    title: 'experiment weight without traffic routing',
    mutate: (o) => {
      noRouting(o);
      canary(o).steps.splice(0, 0, { experiment: { templates: [{ name: 'baseline', specRef: 'stable', weight: 5 }] } });
    },
    verdict: ['RW727'],
    message: /Experiment template weight cannot be set unless TrafficRouting is enabled/,
  },
  {
    title: 'experiment weight with Nginx',
    mutate: (o) => {
      canary(o).trafficRouting = { nginx: { stableIngress: 'checkout' } };
      canary(o).steps.splice(0, 0, { experiment: { templates: [{ name: 'baseline', specRef: 'stable', weight: 5 }] } });
    },
    verdict: ['RW727'],
    message: /only available for TrafficRouting with SMI, ALB, Istio and Plugins/,
  },
  {
    title: 'analysis arg fieldRef without quotes',
    mutate: (o) => {
      canary(o).steps[2].analysis.args.push({
        name: 'team',
        valueFrom: { fieldRef: { fieldPath: 'metadata.labels[team]' } },
      });
    },
    verdict: ['RW728'],
    message: /fieldPath = "metadata\.labels\[team\]": unsupported fieldPath/,
  },
  {
    title: 'analysis arg fieldRef with an invalid key',
    mutate: (o) => {
      canary(o).steps[2].analysis.args.push({
        name: 'team',
        valueFrom: { fieldRef: { fieldPath: "metadata.annotations['bad key!']" } },
      });
    },
    verdict: ['RW728'],
    message: /invalid key subscript/,
  },
  {
    title: 'antiAffinity with neither kind',
    mutate: (o) => {
      canary(o).antiAffinity = {};
    },
    verdict: ['RW729'],
    message: /neither preferred nor requiredDuringSchedulingIgnoredDuringExecution/,
  },
  {
    title: 'antiAffinity weight 0',
    mutate: (o) => {
      canary(o).antiAffinity = { preferredDuringSchedulingIgnoredDuringExecution: { weight: 0 } };
    },
    verdict: ['RW729'],
    message: /weight = 0.*between 1-100/,
  },
  {
    title: 'Nginx with stableIngress and stableIngresses',
    mutate: (o) => {
      canary(o).trafficRouting = { nginx: { stableIngress: 'checkout', stableIngresses: ['checkout-2'] } };
    },
    verdict: ['RW760'],
    message: /has both stableIngress and stableIngresses.*Both are configured/,
  },
  {
    title: 'ALB with neither ingress nor ingresses',
    mutate: (o) => {
      canary(o).trafficRouting = { alb: { servicePort: 80 } };
    },
    verdict: ['RW760'],
    message: /has neither ingress nor ingresses.*Neither are configured/,
  },
  {
    title: 'Istio with virtualService and virtualServices',
    mutate: (o) => {
      canary(o).trafficRouting = { istio: { virtualService: { name: 'a' }, virtualServices: [{ name: 'b' }] } };
    },
    verdict: ['RW760'],
    message: /either VirtualService or VirtualServices must be configured/,
  },
  {
    title: 'Ambassador without mappings',
    mutate: (o) => {
      canary(o).trafficRouting = { ambassador: { mappings: [] } };
    },
    verdict: ['RW760'],
    message: /must provide at least one mapping/,
  },
  // getRolloutValidationErrors: referenced objects
  {
    title: 'canary Service missing',
    mutate: (o) => {
      o.splice(o.indexOf(get(o, 'Service', 'checkout-api-canary')), 1);
    },
    verdict: ['RW730'],
    message: /canaryService = "checkout-api-canary" names no Service in namespace checkout/,
  },
  {
    title: 'canary Service selecting other pods',
    mutate: (o) => {
      get(o, 'Service', 'checkout-api-canary').spec.selector = { app: 'other' };
    },
    verdict: ['RW731'],
    message: /has "app" that the pod template labels .* do not carry.*has unmatch label "app" in rollout/,
  },
  {
    title: 'stable Service managed by another Rollout',
    mutate: (o) => {
      get(o, 'Service', 'checkout-api').metadata.annotations = {
        'argo-rollouts.argoproj.io/managed-by-rollouts': 'payments-api',
      };
    },
    verdict: ['RW732'],
    message: /managed by another Rollout/,
  },
  {
    title: 'background template missing',
    mutate: (o) => {
      canary(o).analysis.templates[0].templateName = 'missing';
    },
    verdict: ['RW733'],
    message:
      /names AnalysisTemplate "missing", which is not among the checked objects.*AnalysisTemplate 'missing' not found/,
  },
  {
    title: 'ClusterAnalysisTemplate missing',
    mutate: (o) => {
      canary(o).steps[2].analysis.templates.push({ templateName: 'platform-slo', clusterScope: true });
    },
    verdict: ['RW733'],
    message: /ClusterAnalysisTemplate 'platform-slo' not found/,
  },
  {
    title: 'background analysis without the template arg',
    mutate: (o) => {
      delete canary(o).analysis.args;
    },
    verdict: ['RW734'],
    message:
      /arg "service" .* has no value.*args\.service was not resolved.*missing analysis arguments in rollout spec/,
  },
  {
    title: 'inline analysis without the template arg',
    mutate: (o) => {
      canary(o).steps[2].analysis.args = [];
    },
    verdict: ['RW734'],
    message: /arg "canary-hash" .*args\.canary-hash was not resolved/,
  },
  {
    title: 'inline metric with an interval and no count',
    mutate: (o) => {
      delete gate(o).count;
    },
    verdict: ['RW735'],
    message: /metric "canary-error-ratio" has interval "1m" and no count.*runs indefinitely/,
  },
  {
    title: 'inline count from a Rollout arg',
    mutate: (o) => {
      get(o, 'AnalysisTemplate', 'canary-gate').spec.args.push({ name: 'count' });
      canary(o).steps[2].analysis.args.push({ name: 'count', value: '5' });
      gate(o).count = '{{args.count}}';
    },
    verdict: ['RW735'],
    message: /count "\{\{args\.count\}\}", which reads as 0 here/,
    why: "A controller quirk: ValidateAnalysisTemplateWithType resolves the count with placeholder args, not the Rollout's, so the count reads as 0.",
  },
  {
    title: 'two templates with one metric name',
    mutate: (o) => {
      o.push({
        apiVersion: 'argoproj.io/v1alpha1',
        kind: 'AnalysisTemplate',
        metadata: { name: 'error-ratio-2', namespace: 'checkout' },
        spec: { metrics: [{ ...bgMetric(o), provider: prometheus('vector(1)') }] },
      });
      canary(o).analysis.templates.push({ templateName: 'error-ratio-2' });
    },
    verdict: ['RW736'],
    message:
      /templates error-ratio and error-ratio-2 both have a metric named "error-ratio".*two metrics have the same name/,
  },
  {
    title: 'template arg with value and valueFrom',
    mutate: (o) => {
      get(o, 'AnalysisTemplate', 'canary-gate').spec.args.push({
        name: 'ns',
        value: 'checkout',
        valueFrom: { fieldRef: { fieldPath: 'metadata.namespace' } },
      });
    },
    verdict: ['RW737'],
    message: /arg 'ns' has both Value and ValueFrom fields/,
  },
  // ValidateMetrics (AnalysisRun time)
  {
    title: 'template without metrics',
    mutate: (o) => {
      get(o, 'AnalysisTemplate', 'error-ratio').spec.metrics = [];
    },
    verdict: ['RW740'],
    message: /no metrics specified/,
  },
  {
    title: 'two metrics with one name',
    mutate: (o) => {
      const t = get(o, 'AnalysisTemplate', 'error-ratio');
      t.spec.metrics.push({ ...t.spec.metrics[0] });
    },
    verdict: ['RW736', 'RW741'],
    message: /template error-ratio has two metrics named "error-ratio"/,
    why: 'The controller refuses it twice: FlattenTemplates at the Rollout (InvalidSpec) and ValidateMetrics in the AnalysisRun.',
  },
  {
    title: 'negative consecutiveSuccessLimit',
    mutate: (o) => {
      gate(o).consecutiveSuccessLimit = -1;
    },
    verdict: ['RW742'],
    message: /consecutiveSuccessLimit must be >= 0/,
  },
  {
    title: 'failureLimit -2',
    mutate: (o) => {
      gate(o).failureLimit = -2;
    },
    verdict: ['RW742'],
    message: /failureLimit must be >= 0, or -1 to be disabled/,
  },
  {
    title: 'negative inconclusiveLimit',
    mutate: (o) => {
      gate(o).inconclusiveLimit = -1;
    },
    verdict: ['RW742'],
    message: /inconclusiveLimit must be >= 0/,
  },
  {
    title: 'negative consecutiveErrorLimit',
    mutate: (o) => {
      bgMetric(o).consecutiveErrorLimit = -1;
    },
    verdict: ['RW742'],
    message: /consecutiveErrorLimit must be >= 0/,
  },
  {
    title: 'failureLimit -1 without consecutiveSuccessLimit',
    mutate: (o) => {
      gate(o).failureLimit = -1;
    },
    verdict: ['RW743'],
    message: /cannot both be disabled/,
  },
  {
    title: 'count below failureLimit',
    mutate: (o) => {
      gate(o).failureLimit = 7;
    },
    verdict: ['RW744'],
    message:
      /count 5 is below failureLimit \+ consecutiveSuccessLimit \(7 \+ 0\).*count \(5\) must be >= failureLimit \+ consecutiveSuccessLimit/,
  },
  {
    title: 'count below consecutiveSuccessLimit with failureLimit off',
    mutate: (o) => {
      gate(o).failureLimit = -1;
      gate(o).consecutiveSuccessLimit = 6;
    },
    verdict: ['RW744'],
    message: /count must be >= consecutiveSuccessLimit/,
  },
  {
    title: 'count below inconclusiveLimit',
    mutate: (o) => {
      gate(o).inconclusiveLimit = 6;
    },
    verdict: ['RW745'],
    message: /count must be >= inconclusiveLimit/,
  },
  {
    title: 'count 3 without interval',
    mutate: (o) => {
      delete gate(o).interval;
      gate(o).count = 3;
    },
    verdict: ['RW746'],
    message: /interval must be specified when count > 1/,
  },
  {
    title: 'interval 1d',
    mutate: (o) => {
      bgMetric(o).interval = '1d';
    },
    verdict: ['RW747'],
    message: /interval "1d" is not a Go duration.*invalid interval string: time: unknown unit "d"/,
  },
  {
    title: 'initialDelay in words',
    mutate: (o) => {
      gate(o).initialDelay = 'soon';
    },
    verdict: ['RW747'],
    message: /invalid startDelay string/,
  },
  {
    title: 'metric without provider',
    mutate: (o) => {
      gate(o).provider = {};
    },
    verdict: ['RW748'],
    message: /no provider specified/,
  },
  {
    title: 'metric with two providers',
    mutate: (o) => {
      gate(o).provider.web = { url: 'http://x' };
    },
    verdict: ['RW748'],
    message: /multiple providers specified/,
  },
  {
    title: 'dryRun rule matching no metric',
    mutate: (o) => {
      get(o, 'AnalysisTemplate', 'error-ratio').spec.dryRun = [{ metricName: 'latency' }];
    },
    verdict: ['RW749'],
    message: /dryRun\[0\]: Rule didn't match any metric name/,
  },
  {
    title: 'measurementRetention rule matching no metric',
    mutate: (o) => {
      get(o, 'AnalysisTemplate', 'canary-gate').spec.measurementRetention = [{ metricName: 'lat.*', limit: 20 }];
    },
    verdict: ['RW749'],
    message: /measurementRetention\[0\]: Rule didn't match any metric name/,
  },
  {
    title: 'dryRun rule listed twice',
    mutate: (o) => {
      get(o, 'AnalysisTemplate', 'error-ratio').spec.dryRun = [
        { metricName: 'error-ratio' },
        { metricName: 'error-ratio' },
      ];
    },
    verdict: ['RW736', 'RW749'],
    message: /two Dry-Run metric rules have the same name 'error-ratio'/,
    why: 'Refused at the Rollout (flattenDryRunMetrics) and in the AnalysisRun.',
  },
  {
    title: 'query with an undeclared arg',
    mutate: (o) => {
      bgMetric(o).provider.prometheus.query = 'sum(rate(http_requests_total{service="{{args.svc}}"}[2m]))';
    },
    verdict: ['RW750'],
    message: /uses \{\{args\.svc\}\}, and the template declares no such arg.*failed to resolve \{\{args\.svc\}\}/,
  },
  {
    title: 'inline query with an undeclared arg',
    mutate: (o) => {
      gate(o).provider.prometheus.query = 'sum(rate(http_requests_total{pod_template_hash="{{args.hash}}"}[2m]))';
    },
    verdict: ['RW738', 'RW750'],
    message: /AnalysisTemplate canary-gate: failed to resolve \{\{args\.hash\}\}.*InvalidSpec/,
    why: 'Refused at the Rollout for analysis steps (validateAnalysisMetrics) and again in the AnalysisRun.',
  },
  // rollwise's own refusals of what the controller accepts
  {
    title: 'plugin routing without canaryService',
    mutate: (o) => {
      delete canary(o).canaryService;
    },
    verdict: ['RW780'],
    message:
      /the controller accepts this for plugin routers, but the Gateway API plugin .*backendRef was not found in httpRoute/,
    why: 'requireCanaryStableServices is false for plugin routers; the plugin fails at the first weight change.',
  },
  {
    title: 'plugin naming a route that does not exist',
    mutate: (o) => {
      canary(o).trafficRouting.plugins[PLUGIN].httpRoute = 'gone';
    },
    verdict: ['RW781'],
    message: /httpRoute = "gone" names no HTTPRoute in namespace checkout.*the controller accepts it/,
    why: 'The controller does not read plugin configuration.',
  },
  {
    title: 'plugin without a route',
    mutate: (o) => {
      canary(o).trafficRouting.plugins[PLUGIN] = { namespace: 'checkout' };
    },
    verdict: ['RW781'],
    message:
      /names no route: the controller accepts it, but the plugin fails every weight change \("No routes configured/,
    why: 'The controller does not read plugin configuration.',
  },
  {
    title: 'plugin route selector matching no HTTPRoute',
    mutate: (o) => {
      canary(o).trafficRouting.plugins[PLUGIN] = { httpRouteSelector: { matchLabels: { app: 'checkout' } } };
    },
    verdict: ['RW781'],
    message: /httpRouteSelector \{"matchLabels":\{"app":"checkout"\}\} selects no HTTPRoute in namespace checkout/,
    why: 'discoverRoutesBySelector finds nothing; the controller does not look.',
  },
  {
    title: 'HTTPRoute without the canary backendRef',
    mutate: (o) => {
      get(o, 'HTTPRoute').spec.rules[0].backendRefs.pop();
    },
    verdict: ['RW782'],
    message: /has no rule with a backendRef to Service "checkout-api-canary".*backendRef was not found in httpRoute/,
    why: 'The controller accepts the Rollout; the plugin fails every weight change.',
  },
  {
    title: 'HTTPRoute rule routing only to stable',
    mutate: (o) => {
      get(o, 'HTTPRoute').spec.rules.push({
        matches: [{ path: { type: 'PathPrefix', value: '/admin' } }],
        backendRefs: [{ name: 'checkout-api', port: 80 }],
      });
    },
    verdict: ['RW783'],
    message: /rule 1 has a backendRef to "checkout-api" but none to "checkout-api-canary".*never reaches the canary/,
    why: 'The plugin succeeds when some rule has each name; the admin rule is never canaried (warning).',
  },
  {
    title: 'setWeight with setCanaryScale in one step',
    mutate: (o) => {
      canary(o).steps[0] = { setWeight: 5, setCanaryScale: { weight: 5 } };
    },
    verdict: ['RW784'],
    message:
      /the controller accepts this and applies every action, but it judges the step complete by setCanaryScale alone .* without waiting for the weight to be reached and verified/,
    why: 'hasMultipleStepsType looks at four kinds only; completedCurrentCanaryStep waits for setCanaryScale only.',
  },
  {
    title: 'pause with setCanaryScale in one step',
    mutate: (o) => {
      canary(o).steps[1] = { pause: { duration: '10m' }, setCanaryScale: { replicas: 2 } };
    },
    verdict: ['RW784'],
    message: /judges the step complete by pause alone .* without waiting for the canary to reach its scale/,
  },
  {
    title: 'an unknown field next to setWeight',
    mutate: (o) => {
      canary(o).steps[0] = { setWeight: 5, wait: '1m' };
    },
    verdict: ['RW785'],
    message: /"wait", which is not a step field.*the API server prunes it from the stored Rollout/,
    why: 'The API server prunes it; the controller never sees it.',
  },
  {
    title: 'background analysis starting after the last step',
    mutate: (o) => {
      canary(o).analysis.startingStep = 5;
    },
    verdict: ['RW786'],
    message: /startingStep = 5 with 5 step\(s\): the controller accepts it.*gates nothing/,
    why: 'The controller accepts any startingStep.',
  },
  // What the controller accepts (and rollwise used to refuse)
  {
    // Argo Rollouts examples/apisix/rollout.yaml (v1.9.1): step 0 is { setCanaryScale: { replicas: 1 }, setHeaderRoute: ... }.
    title: 'setCanaryScale with setHeaderRoute in one step (Argo Rollouts examples/apisix/rollout.yaml)',
    mutate: (o) => {
      canary(o).trafficRouting.managedRoutes = [{ name: 'set-header' }];
      canary(o).steps[0] = {
        setCanaryScale: { replicas: 1 },
        setHeaderRoute: { name: 'set-header', match: [{ headerName: 'trace', headerValue: { exact: 'debug' } }] },
      };
    },
    verdict: 'accept',
    why: 'The header route is set while the step is current (rollout/trafficrouting.go) and completes at once; the step waits for the canary scale (completedCurrentCanaryStep), so nothing is skipped.',
  },
  {
    title: 'pause .5h',
    mutate: (o) => {
      canary(o).steps[1] = { pause: { duration: '.5h' } };
    },
    verdict: 'accept',
    why: 'Go time.ParseDuration reads ".5h" as 30 minutes.',
  },
  {
    title: 'pause +10m',
    mutate: (o) => {
      canary(o).steps[1] = { pause: { duration: '+10m' } };
    },
    verdict: 'accept',
    why: 'A leading sign is valid in Go durations.',
  },
  {
    title: 'pause "600"',
    mutate: (o) => {
      canary(o).steps[1] = { pause: { duration: '600' } };
    },
    verdict: 'accept',
    why: 'DurationSeconds reads a unitless string as seconds.',
  },
  {
    title: 'pause 1h30m45.5s',
    mutate: (o) => {
      canary(o).steps[1] = { pause: { duration: '1h30m45.5s' } };
    },
    verdict: 'accept',
  },
  {
    title: 'trafficRouting: {} with setCanaryScale',
    mutate: (o) => {
      canary(o).trafficRouting = {};
      canary(o).steps[0] = { setCanaryScale: { replicas: 1 } };
    },
    verdict: 'accept',
    why: 'An empty trafficRouting is not nil for the controller.',
  },
  {
    title: 'Service selector with rollouts-pod-template-hash',
    mutate: (o) => {
      get(o, 'Service', 'checkout-api-canary').spec.selector['rollouts-pod-template-hash'] = 'abc123';
    },
    verdict: 'accept',
    why: 'ValidateService skips that label: the controller sets it.',
  },
  {
    title: 'inline metric with neither count nor interval',
    mutate: (o) => {
      delete gate(o).count;
      delete gate(o).interval;
    },
    verdict: 'accept',
    why: 'EffectiveCount is 1 without count and interval: one measurement.',
  },
  {
    title: 'maxSurge 0 with maxUnavailable 1',
    mutate: (o) => {
      canary(o).maxSurge = 0;
      canary(o).maxUnavailable = 1;
    },
    verdict: 'accept',
  },
  {
    title: 'maxSurge 0 with the default maxUnavailable',
    mutate: (o) => {
      canary(o).maxSurge = 0;
      delete canary(o).maxUnavailable;
    },
    verdict: 'accept',
    why: 'The default maxUnavailable is 25%.',
  },
  {
    title: 'failureLimit -1 with consecutiveSuccessLimit',
    mutate: (o) => {
      gate(o).failureLimit = -1;
      gate(o).consecutiveSuccessLimit = 3;
    },
    verdict: 'accept',
  },
  {
    title: 'header route with a plugin router and managedRoutes',
    mutate: (o) => {
      canary(o).trafficRouting.managedRoutes = [{ name: 'hdr' }];
      canary(o).steps.splice(0, 0, {
        setHeaderRoute: { name: 'hdr', match: [{ headerName: 'x-canary', headerValue: { exact: 'always' } }] },
      });
    },
    verdict: 'accept',
  },
  {
    title: 'fieldRef to a quoted label',
    mutate: (o) => {
      canary(o).steps[2].analysis.args.push({
        name: 'team',
        valueFrom: { fieldRef: { fieldPath: "metadata.labels['team']" } },
      });
    },
    verdict: 'accept',
  },
  {
    title: 'nested templates',
    mutate: (o) => {
      o.push({
        apiVersion: 'argoproj.io/v1alpha1',
        kind: 'ClusterAnalysisTemplate',
        metadata: { name: 'platform-slo' },
        spec: { templates: [{ templateName: 'canary-gate' }] },
      });
      canary(o).steps[2].analysis.templates = [{ templateName: 'platform-slo', clusterScope: true }];
    },
    verdict: 'accept',
  },
  {
    title: 'workloadRef to a Deployment',
    mutate: (o) => {
      o.push(workloadDeployment(o, { ...LABELS }));
      delete ro(o).spec.template;
      ro(o).spec.workloadRef = { apiVersion: 'apps/v1', kind: 'Deployment', name: 'checkout-api' };
    },
    verdict: 'accept',
  },
  {
    title: 'workloadRef to a Deployment, selector lent by it',
    mutate: (o) => {
      o.push(workloadDeployment(o, { ...LABELS }));
      delete ro(o).spec.template;
      delete ro(o).spec.selector;
      ro(o).spec.workloadRef = { apiVersion: 'apps/v1', kind: 'Deployment', name: 'checkout-api' };
    },
    verdict: 'accept',
    why: "The resolver takes the Deployment's selector when the Rollout has none.",
  },
  {
    title: 'plugin route selector matching the HTTPRoute',
    mutate: (o) => {
      get(o, 'HTTPRoute').metadata.labels = { app: 'checkout' };
      canary(o).trafficRouting.plugins[PLUGIN] = { httpRouteSelector: { matchLabels: { app: 'checkout' } } };
    },
    verdict: 'accept',
  },
  {
    title: 'a manifest without namespaces (kubectl -n)',
    mutate: (o) => {
      for (const x of o) delete x.metadata.namespace;
      delete canary(o).trafficRouting.plugins[PLUGIN].namespace;
    },
    verdict: 'accept',
  },
];

const rw7 = (ids: readonly string[]) =>
  [...new Set(ids.filter((id) => /^RW7\d\d-/.test(id)).map((id) => id.split('-')[0]))].sort();

function verdictOf(c: Case): { ids: string[]; messages: string[] } {
  const objs = baseline();
  c.mutate(objs);
  const findings = lintObjects(objs).filter((f) => /^RW7\d\d-/.test(f.ruleId));
  return {
    ids: rw7(findings.map((f) => f.ruleId)),
    messages: findings.map((f) => `${f.ruleId} ${f.path}: ${f.message}`),
  };
}

describe('the controller checks, case by case (Argo Rollouts v1.9.1)', () => {
  test('the baseline is valid', () => {
    expect(lintObjects(baseline()).filter((f) => /^RW7/.test(f.ruleId))).toEqual([]);
  });

  test(`${CASES.filter((c) => c.verdict !== 'accept').length} refusals and ${CASES.filter((c) => c.verdict === 'accept').length} acceptances, every rule exercised`, () => {
    expect(CASES.filter((c) => c.verdict !== 'accept').length).toBeGreaterThanOrEqual(60);
    const exercised = new Set(CASES.flatMap((c) => (c.verdict === 'accept' ? [] : c.verdict)));
    expect(CONTROLLER_RULES.map((r) => r.id.split('-')[0]).filter((id) => !exercised.has(id))).toEqual([]);
  });

  test.each(CASES.map((c) => [c.title, c] as const))('%s', (_title, c) => {
    const v = verdictOf(c);
    if (c.verdict === 'accept') {
      expect(v.messages).toEqual([]);
      return;
    }
    expect(v.ids).toEqual([...c.verdict].sort());
    expect(v.messages.join('\n')).toMatch(c.message!);
  });
});

describe('the same cases through `rollwise lint --format json`', () => {
  let dir: string;
  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rollwise-parity-'));
  });
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  test.each(CASES.map((c, i) => [c.title, c, i] as const))('%s', async (_title, c, i) => {
    const objs = baseline();
    c.mutate(objs);
    const file = path.join(dir, `case-${i}.yaml`);
    fs.writeFileSync(file, objs.map((o) => YAML.stringify(o, { version: '1.1' })).join('---\n'));
    let out = '';
    const code = await main(
      ['node', 'rollwise', 'lint', file, '--format', 'json', '--fail-on', 'error'],
      (t) => {
        out += t;
      },
      (t) => {
        out += t;
      },
    );
    const report = JSON.parse(out) as {
      exitCode: number;
      findings: { ruleId: string; severity: string; line: number }[];
    };
    const ids = rw7(report.findings.map((f) => f.ruleId));
    expect(ids).toEqual(c.verdict === 'accept' ? [] : [...c.verdict].sort());
    expect(ids).toEqual(verdictOf(c).ids);
    // An error-level controller finding fails lint; line numbers point into the file.
    const errors = report.findings.filter((f) => /^RW7/.test(f.ruleId) && f.severity === 'error');
    if (errors.length > 0) expect(code).toBe(1);
    for (const f of report.findings.filter((x) => /^RW7/.test(x.ruleId))) expect(f.line).toBeGreaterThan(0);
  });
});

describe('the checker', () => {
  test('every check has a catalogued rule with the upstream function it mirrors', () => {
    const checks: ControllerCheck[] = ['negativeField', 'unresolvedArg', 'rwStartingStepAfterSteps'];
    for (const c of checks) expect(controllerRuleId(c)).toMatch(/^RW7\d\d-/);
    for (const r of CONTROLLER_RULES) expect(r.mechanism).toMatch(/Mirrors: .+(v1\.9\.1|v0\.15\.0)/);
    expect(new Set(CONTROLLER_RULES.map((r) => r.id)).size).toBe(CONTROLLER_RULES.length);
    for (const r of CONTROLLER_RULES.filter((x) => x.id >= 'RW780'))
      expect(`${r.title} ${r.mechanism}`).toMatch(/rollwise|accepts/);
  });

  test("rollwise's own example passes", () => {
    const objs = synthService();
    expect(lintObjects(objs).filter((f) => /^RW7/.test(f.ruleId))).toEqual([]);
    expect(
      checkRolloutSpec(
        objs.find((o) => o.kind === 'Rollout')!,
        objs,
      ),
    ).toEqual([]);
  });

  test('checkRolloutSpec names the object and the path, for the Rollout and the templates it uses', () => {
    const objs = baseline();
    canary(objs).steps[1] = { pause: { duration: '1d' } };
    gate(objs).failureLimit = 7;
    expect(checkRolloutSpec(ro(objs), objs)).toEqual([
      expect.stringMatching(/^Rollout checkout-api: spec\.strategy\.canary\.steps\[1\]\.pause\.duration = "1d": /),
      expect.stringMatching(
        /^AnalysisTemplate canary-gate: spec\.metrics\[0\]\.count: metric "canary-error-ratio": count 5 is below/,
      ),
    ]);
  });

  test('a ClusterAnalysisTemplate is checked like an AnalysisTemplate', () => {
    const t = {
      apiVersion: 'argoproj.io/v1alpha1',
      kind: 'ClusterAnalysisTemplate',
      metadata: { name: 'slo' },
      spec: { metrics: [{ name: 'm', count: 3, provider: prometheus('up') }] },
    };
    expect(checkController(t, { get: () => undefined, list: () => [] }).map((f) => f.check)).toEqual([
      'intervalRequired',
    ]);
  });

  test.each([
    ['10m', 600],
    ['1h30m', 5400],
    ['.5h', 1800],
    ['+10m', 600],
    ['-1s', -1],
    ['1.5s', 1.5],
    ['0', 0],
    ['300ms', 0.3],
    ['2\u00b5s', 0.000002],
  ])('Go duration %s = %d s', (s, seconds) => {
    expect(parseGoDuration(s)).toEqual({ seconds });
  });

  test.each([
    ['1d', /unknown unit "d"/],
    ['10', /missing unit/],
    ['', /invalid duration/],
    ['.s', /invalid duration/],
    ['1h-5m', /unknown unit "h-"/],
  ])('Go refuses the duration %j', (s, err) => {
    const r = parseGoDuration(s);
    expect('error' in r && r.error).toMatch(err);
  });
});

describe('SARIF and the cdk8s validation plugin carry the controller rules', () => {
  let dir: string;
  let file: string;
  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rollwise-parity-sarif-'));
    const objs = baseline();
    canary(objs).steps[1] = { pause: { duration: '1d' } };
    file = path.join(dir, 'rollout.yaml');
    fs.writeFileSync(file, objs.map((o) => YAML.stringify(o, { version: '1.1' })).join('---\n'));
    // The README applies the file as written, so its errors stay errors (src/rules/applied-gate.ts).
    fs.writeFileSync(path.join(dir, 'README.md'), '```\nkubectl apply -f rollout.yaml\n```\n');
  });
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  test("SARIF: the rule in the driver, the result at the field's line", async () => {
    let out = '';
    const code = await main(['node', 'rollwise', 'lint', file, '--format', 'sarif'], (t) => {
      out += t;
    });
    expect(code).toBe(1);
    const run0 = (
      JSON.parse(out) as {
        runs: {
          tool: { driver: { rules: { id: string }[] } };
          results: {
            ruleId: string;
            level: string;
            locations: { physicalLocation: { region: { startLine: number } } }[];
          }[];
        }[];
      }
    ).runs[0];
    for (const r of CONTROLLER_RULES) expect(run0.tool.driver.rules.map((x) => x.id)).toContain(r.id);
    const res = run0.results.filter((r) => r.ruleId.startsWith('RW7'));
    expect(res.map((r) => r.ruleId)).toEqual(['RW720-canary-pause-duration-invalid']);
    expect(res[0].level).toBe('error');
    const line =
      fs
        .readFileSync(file, 'utf8')
        .split('\n')
        .findIndex((l) => l.includes('duration: 1d')) + 1;
    expect(res[0].locations[0].physicalLocation.region.startLine).toBe(line);
  });

  test('the validation plugin reports the violation and fails', async () => {
    const violations: { ruleName: string; recommendation: string }[] = [];
    let status = '';
    const context = {
      manifests: [file],
      report: {
        addViolation: (v: { ruleName: string; recommendation: string }) => violations.push(v),
        submit: (s: string) => {
          status = s;
        },
      },
    };
    await new RollwiseValidation().validate(context as unknown as Parameters<RollwiseValidation['validate']>[0]);
    expect(status).toBe('failure');
    expect(violations.filter((v) => v.ruleName.startsWith('RW7'))).toEqual([
      expect.objectContaining({
        ruleName: 'RW720-canary-pause-duration-invalid (error)',
        recommendation: expect.stringMatching(/"1d": neither whole seconds nor a Go duration/),
      }),
    ]);
  });
});

describe('any shape of input', () => {
  /** Every field path of the baseline, with its parent and key. */
  function paths(x: unknown, at: (string | number)[] = [], out: (string | number)[][] = []): (string | number)[][] {
    if (Array.isArray(x))
      x.forEach((v, i) => {
        out.push([...at, i]);
        paths(v, [...at, i], out);
      });
    else if (x && typeof x === 'object')
      for (const [k, v] of Object.entries(x)) {
        out.push([...at, k]);
        paths(v, [...at, k], out);
      }
    return out;
  }

  test('a field replaced by a value of another type never makes the checker throw, and the finding names a path', () => {
    const all = paths(baseline()).filter((p) => p.length > 1 && p[1] !== 'apiVersion' && p[1] !== 'kind');
    let runs = 0;
    for (const p of all) {
      for (const v of [null, 'x', -1, 2.5, [], {}, ['x'], { a: 1 }]) {
        const objs = baseline();
        let parent: Obj = objs;
        for (const k of p.slice(0, -1)) parent = parent[k as never];
        parent[p[p.length - 1] as never] = v as never;
        const findings = lintObjects(objs).filter((f) => f.ruleId.startsWith('RW7'));
        for (const f of findings) expect(f.path).toMatch(/^(spec|metadata)/);
        runs++;
      }
    }
    expect(runs).toBeGreaterThan(500);
  });
});
