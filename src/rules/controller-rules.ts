import { checkController, ControllerCheck, ControllerFinding, ObjectLookup } from '../checks/controller-spec';
import { ObjectIndex, RuleContext, RuleDefinition } from './rule';
import { describeObjects } from './scope';
import { LintObject } from './source';
import { Severity } from './types';

/**
 * The Argo Rollouts controller's own checks (v1.9.1) as lint rules, one rule per condition, each
 * naming the upstream function it mirrors; RW78x are rollwise's refusals of specs the controller
 * accepts, each with its own reason. The checker is src/checks/controller-spec.ts.
 */

const ROLLOUT = ['Rollout'];
const TEMPLATES = ['AnalysisTemplate', 'ClusterAnalysisTemplate'];

/** Why a Rollout the controller refuses is a hazard: it is accepted by the API server first. */
const INVALID_SPEC =
  'Argo Rollouts has no admission webhook: the API server accepts this Rollout and the controller ' +
  'refuses it at reconcile time, so it only shows up as an InvalidSpec condition (Argo CD: Degraded) while nothing ' +
  'rolls out.';
/** Why an analysis the controller cannot run is a hazard. */
const RUN_ERROR =
  'Nothing checks an AnalysisTemplate when it is applied: the controller validates the metrics only ' +
  'when a rollout starts an AnalysisRun from it, which then goes to Error, and an errored analysis aborts the ' +
  'rollout.';

interface Spec {
  readonly check: ControllerCheck;
  readonly id: string;
  readonly severity?: Severity;
  readonly kinds: readonly string[];
  readonly title: string;
  /** The upstream function (and file, at the pinned tag) whose condition the rule ports. */
  readonly mirrors: string;
  readonly why: string;
  readonly fix: string;
  /** The upstream refusal, when the mirrored function is not the controller's (the plugin's). */
  readonly upstream?: string;
}

/** Where the Gateway API plugin refuses a weight change (the rollout then stalls at its first step). */
const PLUGIN_REFUSES =
  'argoproj-labs/rollouts-plugin-trafficrouter-gatewayapi v0.15.0 pkg/plugin/httproute.go: ' +
  'SetWeight Gets the named HTTPRoute and returns an error ("backendRef was not found in httpRoute") when no rule ' +
  'has a backendRef to the canary or the stable Service, so every weight change fails and the rollout does not ' +
  'progress.';

const V = 'pkg/apis/rollouts/validation/validation.go, v1.9.1';
const R = 'pkg/apis/rollouts/validation/validation_references.go, v1.9.1';
const H = 'utils/analysis/helpers.go, v1.9.1';

const SPECS: readonly Spec[] = [
  {
    check: 'negativeField',
    id: 'RW701-rollout-negative-field',
    kinds: ROLLOUT,
    title: 'replicas, minReadySeconds, revisionHistoryLimit or progressDeadlineSeconds is negative',
    mirrors: `ValidateRolloutSpec (ValidateNonnegativeField; ${V})`,
    why: INVALID_SPEC,
    fix: 'Use 0 or more.',
  },
  {
    check: 'selectorInvalid',
    id: 'RW702-rollout-selector-invalid',
    kinds: ROLLOUT,
    title: 'spec.selector is missing, empty or not a valid label selector',
    mirrors: `ValidateRolloutSpec (ValidateLabelSelector, LabelSelectorAsSelector; ${V})`,
    why: `${INVALID_SPEC} An empty selector would select every pod of the namespace.`,
    fix:
      'Set spec.selector.matchLabels to the pod template labels (valid keys and values; In/NotIn with values, ' +
      'Exists/DoesNotExist without).',
  },
  {
    check: 'selectorTemplateMismatch',
    id: 'RW703-rollout-selector-not-matching-template',
    kinds: ROLLOUT,
    title: 'spec.selector does not match the pod template labels',
    mirrors: `ValidateRolloutSpec -> ValidatePodTemplateSpecForReplicaSet (${V}; k8s.io/kubernetes pkg/apis/apps/validation)`,
    why: `${INVALID_SPEC} The ReplicaSets would not own the pods they create.`,
    fix: 'Put every selector label on spec.template.metadata.labels.',
  },
  {
    check: 'templateNotForReplicaSet',
    id: 'RW704-rollout-template-not-for-replicaset',
    kinds: ROLLOUT,
    title: 'The pod template has a restartPolicy other than Always or an activeDeadlineSeconds',
    mirrors: `ValidateRolloutSpec -> ValidatePodTemplateSpecForReplicaSet (${V})`,
    why: `${INVALID_SPEC} Serving pods must restart and must not have a deadline.`,
    fix: 'Remove restartPolicy (or set Always) and activeDeadlineSeconds.',
  },
  {
    check: 'workloadRefWithTemplate',
    id: 'RW705-rollout-workload-ref-with-template',
    kinds: ROLLOUT,
    title: 'spec.workloadRef and spec.template are both set',
    mirrors: 'informerBasedTemplateResolver.Resolve (EmptyTemplate; rollout/templateref.go, v1.9.1)',
    why: INVALID_SPEC,
    fix: 'Keep spec.workloadRef or spec.template, not both.',
  },
  {
    check: 'workloadRefUnresolved',
    id: 'RW739-rollout-workload-ref-unresolved',
    kinds: ROLLOUT,
    title:
      'spec.workloadRef names a kind other than PodTemplate/Deployment/ReplicaSet, or a workload not among the checked ' +
      'objects',
    mirrors: 'informerBasedTemplateResolver.Resolve (rollout/templateref.go, v1.9.1)',
    why: INVALID_SPEC,
    fix: 'Reference an apps/v1 Deployment that is in the manifests (or lint it with the Rollout).',
  },
  {
    check: 'progressDeadline',
    id: 'RW706-progress-deadline-not-above-min-ready',
    kinds: ROLLOUT,
    title: 'progressDeadlineSeconds is not greater than minReadySeconds',
    mirrors: `ValidateRolloutSpec (${V})`,
    why: `${INVALID_SPEC} No pod could become available before the deadline.`,
    fix: 'Set progressDeadlineSeconds above minReadySeconds (default 600).',
  },
  {
    check: 'strategyMissing',
    id: 'RW707-rollout-strategy-missing',
    kinds: ROLLOUT,
    title: 'spec.strategy has neither canary nor blueGreen',
    mirrors: `ValidateRolloutStrategy (${V})`,
    why: INVALID_SPEC,
    fix: 'Add spec.strategy.canary.',
  },
  {
    check: 'strategyBoth',
    id: 'RW708-rollout-strategy-both',
    kinds: ROLLOUT,
    title: 'spec.strategy has both canary and blueGreen',
    mirrors: `ValidateRolloutStrategy (${V})`,
    why: INVALID_SPEC,
    fix: 'Keep one strategy.',
  },
  {
    check: 'surgeUnavailableZero',
    id: 'RW709-canary-surge-and-unavailable-zero',
    kinds: ROLLOUT,
    title: 'canary maxSurge and maxUnavailable are both zero',
    mirrors: `invalidMaxSurgeMaxUnavailable (${V})`,
    why: `${INVALID_SPEC} No pod could ever be replaced.`,
    fix: 'Set maxSurge to 1 or "25%".',
  },
  {
    check: 'sameService',
    id: 'RW710-canary-same-stable-and-canary-service',
    kinds: ROLLOUT,
    title: 'canaryService and stableService are the same Service',
    mirrors: `ValidateRolloutStrategyCanary (${V})`,
    why: INVALID_SPEC,
    fix: 'Use two Services.',
  },
  {
    check: 'pingPong',
    id: 'RW711-canary-ping-pong-invalid',
    kinds: ROLLOUT,
    title: 'pingPong without both distinct Services, with a router other than ALB/Istio, or ALB without rootService',
    mirrors: `ValidateRolloutStrategyCanary (${V})`,
    why: INVALID_SPEC,
    fix: 'Set distinct pingService and pongService with ALB (and rootService) or Istio, or remove pingPong.',
  },
  {
    check: 'routingWithoutServices',
    id: 'RW712-canary-traffic-routing-without-services',
    kinds: ROLLOUT,
    title: 'A router that needs both Services (ALB, Istio, SMI, Nginx, ...) without canaryService or stableService',
    mirrors: `ValidateRolloutStrategyCanary -> requireCanaryStableServices (${V})`,
    why: INVALID_SPEC,
    fix: 'Set canaryService and stableService.',
  },
  {
    check: 'scaleDownDelayWithoutRouting',
    id: 'RW713-canary-scale-down-delay-without-traffic-routing',
    kinds: ROLLOUT,
    title: 'scaleDownDelaySeconds without trafficRouting',
    mirrors: `ValidateRolloutStrategyCanary (${V})`,
    why: INVALID_SPEC,
    fix: 'Remove scaleDownDelaySeconds or add trafficRouting.',
  },
  {
    check: 'dynamicStableScaleWithoutRouting',
    id: 'RW714-canary-dynamic-stable-scale-without-traffic-routing',
    kinds: ROLLOUT,
    title: 'dynamicStableScale without trafficRouting',
    mirrors: `ValidateRolloutStrategyCanary (${V})`,
    why: INVALID_SPEC,
    fix: 'Remove dynamicStableScale or add trafficRouting.',
  },
  {
    check: 'dynamicStableScaleWithDelay',
    id: 'RW715-canary-dynamic-stable-scale-with-scale-down-delay',
    kinds: ROLLOUT,
    title: 'dynamicStableScale together with scaleDownDelaySeconds',
    mirrors: `ValidateRolloutStrategyCanary (${V})`,
    why: INVALID_SPEC,
    fix: 'Remove one of them.',
  },
  {
    check: 'maxTrafficWeightUnsupported',
    id: 'RW716-canary-max-traffic-weight-unsupported',
    kinds: ROLLOUT,
    title: 'trafficRouting.maxTrafficWeight with neither Nginx nor a plugin router',
    mirrors: `ValidateRolloutStrategyCanary (${V})`,
    why: INVALID_SPEC,
    fix: 'Remove maxTrafficWeight.',
  },
  {
    check: 'stepSeveralKinds',
    id: 'RW717-canary-step-several-kinds',
    kinds: ROLLOUT,
    title: 'A step has more than one of setWeight, pause, experiment, analysis',
    mirrors: `hasMultipleStepsType (${V})`,
    why: INVALID_SPEC,
    fix: 'One action per step.',
  },
  {
    check: 'stepNoKind',
    id: 'RW718-canary-step-without-kind',
    kinds: ROLLOUT,
    title: 'A step has no action (after the API server drops unknown fields)',
    mirrors: `ValidateRolloutStrategyCanary (${V})`,
    why: INVALID_SPEC,
    fix: 'Give the step one action or delete it.',
  },
  {
    check: 'setWeightRange',
    id: 'RW719-canary-set-weight-out-of-range',
    kinds: ROLLOUT,
    title: 'setWeight below 0 or above maxTrafficWeight (default 100)',
    mirrors: `ValidateRolloutStrategyCanary (weightutil.MaxTrafficWeight; ${V})`,
    why: INVALID_SPEC,
    fix: 'Use a weight from 0 to maxTrafficWeight.',
  },
  {
    check: 'pauseDuration',
    id: 'RW720-canary-pause-duration-invalid',
    kinds: ROLLOUT,
    title: 'pause.duration is negative or neither whole seconds nor a Go duration',
    mirrors: `ValidateRolloutStrategyCanary (RolloutPause.DurationSeconds, pkg/apis/rollouts/v1alpha1/types.go; ${V})`,
    why: INVALID_SPEC,
    fix: 'Write seconds (600) or a Go duration ("10m", "1h30m", ".5h"); use "24h" for a day.',
  },
  {
    check: 'setCanaryScaleWithoutRouting',
    id: 'RW721-canary-set-canary-scale-without-traffic-routing',
    kinds: ROLLOUT,
    title: 'setCanaryScale without trafficRouting',
    mirrors: `ValidateRolloutStrategyCanary (${V})`,
    why: INVALID_SPEC,
    fix: 'Add trafficRouting or use setWeight.',
  },
  {
    check: 'headerRouteUnsupported',
    id: 'RW722-canary-header-route-unsupported',
    kinds: ROLLOUT,
    title: 'setHeaderRoute without an Istio, ALB, Apisix or plugin router',
    mirrors: `ValidateRolloutStrategyCanary (${V})`,
    why: INVALID_SPEC,
    fix: 'Add a router that supports header routes, or remove the step.',
  },
  {
    check: 'routeMatchInvalid',
    id: 'RW723-canary-route-match-invalid',
    kinds: ROLLOUT,
    title: 'A setHeaderRoute/setMirrorRoute match without exactly one of exact, regex, prefix (ALB: exact only)',
    mirrors: `hasMultipleMatchValues, hasALBInvalidValues (${V})`,
    why: INVALID_SPEC,
    fix: 'Give each match exactly one of exact, regex, prefix.',
  },
  {
    check: 'mirrorRouteWithoutIstio',
    id: 'RW724-canary-mirror-route-without-istio',
    kinds: ROLLOUT,
    title: 'setMirrorRoute without Istio traffic routing',
    mirrors: `ValidateRolloutStrategyCanary (${V})`,
    why: `${INVALID_SPEC} The Gateway API plugin cannot mirror.`,
    fix: 'Remove the setMirrorRoute step.',
  },
  {
    check: 'managedRoutesMissing',
    id: 'RW725-canary-managed-routes-missing',
    kinds: ROLLOUT,
    title: 'setHeaderRoute/setMirrorRoute with trafficRouting but no managedRoutes',
    mirrors: `ValidateRolloutStrategyCanary (${V})`,
    why: INVALID_SPEC,
    fix: 'List the routes in trafficRouting.managedRoutes.',
  },
  {
    check: 'routeNotManaged',
    id: 'RW726-canary-route-not-in-managed-routes',
    kinds: ROLLOUT,
    title: 'A setHeaderRoute/setMirrorRoute name not listed in managedRoutes',
    mirrors: `ValidateStepRouteFoundInManagedRoute (${V})`,
    why: INVALID_SPEC,
    fix: 'Add the name to trafficRouting.managedRoutes.',
  },
  {
    check: 'experimentWeightUnsupported',
    id: 'RW727-canary-experiment-weight-unsupported',
    kinds: ROLLOUT,
    title: 'An experiment template weight without an SMI, ALB, Istio or plugin router',
    mirrors: `ValidateRolloutStrategyCanary (${V})`,
    why: INVALID_SPEC,
    fix: 'Remove the weight or add such a router.',
  },
  {
    check: 'analysisArgFieldRef',
    id: 'RW728-canary-analysis-arg-field-ref-invalid',
    kinds: ROLLOUT,
    title: 'An analysis arg fieldRef to a metadata path the downward API does not support',
    mirrors: `ValidateRolloutStrategyCanary (fieldpath.ExtractFieldPathAsString; ${V})`,
    why: INVALID_SPEC,
    fix:
      "Use metadata.name, metadata.namespace, metadata.uid, metadata.labels['<key>'] or " +
      "metadata.annotations['<key>'].",
  },
  {
    check: 'antiAffinity',
    id: 'RW729-canary-anti-affinity-invalid',
    kinds: ROLLOUT,
    title: 'antiAffinity without exactly one of preferred/required, or a preferred weight outside 1..100',
    mirrors: `ValidateRolloutStrategyAntiAffinity (${V})`,
    why: INVALID_SPEC,
    fix: 'Keep exactly one of preferred (weight 1..100) or required.',
  },
  {
    check: 'routerConfigInvalid',
    id: 'RW760-canary-traffic-router-config-invalid',
    kinds: ROLLOUT,
    title:
      'Nginx/ALB/Istio routing with both or neither of the single and list forms, Ambassador without mappings, App ' +
      'Mesh without virtualService',
    mirrors:
      'ValidateRolloutNginxIngressesConfig, ' +
      `ValidateRolloutAlbIngressesConfig, ValidateRolloutVirtualServicesConfig (${R}); getAmbassadorMappings, ` +
      'getReferencedAppMeshResources (rollout/controller.go, v1.9.1)',
    why: INVALID_SPEC,
    fix: 'Set exactly one of the single and the list form (e.g. stableIngress or stableIngresses).',
  },
  {
    check: 'serviceNotFound',
    id: 'RW730-rollout-service-not-found',
    kinds: ROLLOUT,
    title: 'canaryService, stableService, pingService or pongService names no Service among the checked objects',
    mirrors: 'getReferencedService (rollout/controller.go, v1.9.1)',
    why: INVALID_SPEC,
    fix: 'Add the Service to the manifests (or lint it together with the Rollout), or fix the name.',
  },
  {
    check: 'serviceSelectorMismatch',
    id: 'RW731-rollout-service-selector-mismatch',
    kinds: ROLLOUT,
    title: 'A referenced Service selects a label the pod template does not carry (rollouts-pod-template-hash aside)',
    mirrors: `ValidateService (${R})`,
    why: `${INVALID_SPEC} The Service would select none of the Rollout's pods.`,
    fix: "Make the Service's selector a subset of the pod template labels.",
  },
  {
    check: 'serviceManagedByOther',
    id: 'RW732-rollout-service-managed-by-another-rollout',
    kinds: ROLLOUT,
    title: 'A referenced Service is annotated as managed by another Rollout',
    mirrors: `ValidateService (serviceutil.HasManagedByAnnotation; ${R})`,
    why: INVALID_SPEC,
    fix: 'Give each Rollout its own Services.',
  },
  {
    check: 'templateNotFound',
    id: 'RW733-rollout-analysis-template-not-found',
    kinds: ROLLOUT,
    title: 'A referenced AnalysisTemplate/ClusterAnalysisTemplate is not among the checked objects',
    mirrors: 'getReferencedAnalysisTemplatesFromRef (rollout/controller.go, v1.9.1)',
    why: INVALID_SPEC,
    fix:
      'Add the template (or lint it with the Rollout), fix the name, or set clusterScope for a ' +
      'ClusterAnalysisTemplate.',
  },
  {
    check: 'analysisArgsNotSupplied',
    id: 'RW734-rollout-analysis-args-not-supplied',
    kinds: ROLLOUT,
    title: 'A template arg without a value that the Rollout does not supply',
    mirrors: `NewAnalysisRunFromTemplates -> MergeArgs (${H}); ValidateAnalysisTemplateWithType (${R})`,
    why: INVALID_SPEC,
    fix: 'Supply the arg in the analysis args (value or valueFrom).',
  },
  {
    check: 'inlineAnalysisIndefinite',
    id: 'RW735-rollout-inline-analysis-runs-indefinitely',
    kinds: ROLLOUT,
    title: 'An analysis step uses a metric with an interval and no (literal) count',
    mirrors: `ValidateAnalysisTemplateWithType (Metric.EffectiveCount; ${R})`,
    why: `${INVALID_SPEC} An analysis step has to end before the next step.`,
    fix: 'Give the metric a literal count.',
  },
  {
    check: 'inlineUnresolvedArg',
    id: 'RW738-rollout-inline-analysis-unresolved-arg',
    kinds: ROLLOUT,
    title: 'An analysis step uses a template whose metric has a {{...}} that is not a template arg',
    mirrors: `ValidateAnalysisTemplateWithType -> validateAnalysisMetrics -> ResolveMetricArgs (${R})`,
    why: `${INVALID_SPEC} For analysis steps the controller resolves the metrics when it validates the Rollout.`,
    fix: "Declare the arg in the template's spec.args or fix the name.",
  },
  {
    check: 'templatesMergeInvalid',
    id: 'RW736-rollout-analysis-templates-conflict',
    kinds: ROLLOUT,
    title:
      'The templates of one analysis share a metric name, an arg with different values, or a dry-run/retention rule',
    mirrors: `FlattenTemplates, mergeDryRunMetrics, mergeMeasurementRetentionMetrics (${H})`,
    why: INVALID_SPEC,
    fix: 'Rename the metric, give the arg one value, or keep the rule in one place.',
  },
  {
    check: 'argValueAndValueFrom',
    id: 'RW737-rollout-analysis-arg-value-and-value-from',
    kinds: ROLLOUT,
    title: 'A template arg used by an analysis step has both value and valueFrom',
    mirrors: `validateAnalysisMetrics (${R})`,
    why: INVALID_SPEC,
    fix: 'Keep value or valueFrom.',
  },
  {
    check: 'noMetrics',
    id: 'RW740-analysis-no-metrics',
    kinds: TEMPLATES,
    title: 'An analysis template without metrics',
    mirrors: `ValidateMetrics (${H})`,
    why: RUN_ERROR,
    fix: 'Add a metric.',
  },
  {
    check: 'duplicateMetric',
    id: 'RW741-analysis-duplicate-metric-name',
    kinds: TEMPLATES,
    title: 'Two metrics of a template have the same name',
    mirrors: `ValidateMetrics (${H})`,
    why: RUN_ERROR,
    fix: 'Give every metric its own name.',
  },
  {
    check: 'negativeLimit',
    id: 'RW742-analysis-negative-limit',
    kinds: TEMPLATES,
    title: 'A negative consecutiveSuccessLimit, inconclusiveLimit or consecutiveErrorLimit, or failureLimit below -1',
    mirrors: `ValidateMetric (${H})`,
    why: RUN_ERROR,
    fix: 'Use 0 or more (failureLimit -1 disables it).',
  },
  {
    check: 'limitsBothDisabled',
    id: 'RW743-analysis-limits-both-disabled',
    kinds: TEMPLATES,
    title: 'failureLimit -1 with consecutiveSuccessLimit 0',
    mirrors: `ValidateMetric (${H})`,
    why: RUN_ERROR,
    fix: 'Enable failureLimit or set a consecutiveSuccessLimit.',
  },
  {
    check: 'countBelowLimits',
    id: 'RW744-analysis-count-below-limits',
    kinds: TEMPLATES,
    title: 'count below failureLimit + consecutiveSuccessLimit',
    mirrors: `ValidateMetric (${H})`,
    why: RUN_ERROR,
    fix: 'Raise count or lower the limits.',
  },
  {
    check: 'countBelowInconclusive',
    id: 'RW745-analysis-count-below-inconclusive-limit',
    kinds: TEMPLATES,
    title: 'count below inconclusiveLimit',
    mirrors: `ValidateMetric (${H})`,
    why: RUN_ERROR,
    fix: 'Raise count or lower inconclusiveLimit.',
  },
  {
    check: 'intervalRequired',
    id: 'RW746-analysis-interval-required',
    kinds: TEMPLATES,
    title: 'count > 1 without an interval',
    mirrors: `ValidateMetric (${H})`,
    why: RUN_ERROR,
    fix: 'Set interval.',
  },
  {
    check: 'durationInvalid',
    id: 'RW747-analysis-duration-invalid',
    kinds: TEMPLATES,
    title: 'interval or initialDelay is not a Go duration',
    mirrors: `ValidateMetric (DurationString.Duration; ${H})`,
    why: RUN_ERROR,
    fix: 'Write a Go duration ("30s", "1m"); there is no "d" unit.',
  },
  {
    check: 'providerCount',
    id: 'RW748-analysis-provider-count',
    kinds: TEMPLATES,
    title: 'A metric with no provider or more than one',
    mirrors: `ValidateMetric (${H})`,
    why: RUN_ERROR,
    fix: 'Give exactly one provider.',
  },
  {
    check: 'dryRunRule',
    id: 'RW749-analysis-dry-run-rule-invalid',
    kinds: TEMPLATES,
    title: 'A dryRun/measurementRetention rule that matches no metric or is listed twice',
    mirrors: `GetDryRunMetrics, GetMeasurementRetentionMetrics, validateDryRunMetrics (${H})`,
    why: RUN_ERROR,
    fix: 'Use a metric name (or a regular expression matching one) once.',
  },
  {
    check: 'unresolvedArg',
    id: 'RW750-analysis-unresolved-arg',
    kinds: TEMPLATES,
    title: 'A metric uses {{...}} that is not a declared arg',
    mirrors:
      'ResolveMetricArgs -> templateutil.ResolveQuotedArgs (utils/analysis/factory.go, utils/template/template.go, ' +
      'v1.9.1)',
    why: RUN_ERROR,
    fix: 'Declare the arg in spec.args or fix the name.',
  },
  {
    check: 'rwPluginWithoutServices',
    upstream: PLUGIN_REFUSES,
    id: 'RW780-gateway-plugin-without-services',
    kinds: ROLLOUT,
    title: 'Gateway API plugin routing without canaryService or stableService (rollwise: the controller accepts it)',
    mirrors:
      'rollwise, not the controller: the plugin matches backendRefs by these names (pkg/plugin/httproute.go, ' +
      'gatewayapi plugin v0.15.0)',
    why:
      'The controller does not require the Services for plugin routers, but the Gateway API plugin fails every ' +
      'weight change ("backendRef was not found in httpRoute"), so the canary gets stuck at its first setWeight.',
    fix: 'Set canaryService and stableService.',
  },
  {
    check: 'rwPluginRouteNotFound',
    upstream: PLUGIN_REFUSES,
    id: 'RW781-gateway-plugin-route-not-found',
    kinds: ROLLOUT,
    title:
      'The Gateway API plugin names no HTTPRoute, or one not among the checked objects (rollwise: the ' +
      'controller accepts it)',
    mirrors:
      'rollwise, not the controller: the plugin Gets the named HTTPRoute at each weight change ' +
      '(pkg/plugin/httproute.go, v0.15.0)',
    why:
      'The controller does not look at plugin configuration; the plugin then fails at the first weight change and ' +
      'the rollout stalls.',
    fix: 'Name the HTTPRoute (httpRoute: <name>) and include it in the manifests.',
  },
  {
    check: 'rwPluginBackendRefMissing',
    upstream: PLUGIN_REFUSES,
    id: 'RW782-gateway-plugin-backend-ref-missing',
    kinds: ROLLOUT,
    title:
      'No rule of the HTTPRoute has a backendRef to the canary (or the stable) Service (rollwise: the ' +
      'controller accepts it)',
    mirrors:
      'rollwise, not the controller: the plugin needs both names among the backendRefs ' +
      '(pkg/plugin/httproute.go, v0.15.0)',
    why:
      'The controller accepts the Rollout; the plugin then fails every weight change with "backendRef was not ' +
      'found in httpRoute".',
    fix: 'Add backendRefs to both Services (the canary at weight 0).',
  },
  {
    check: 'rwPluginRuleWithoutBoth',
    id: 'RW783-gateway-plugin-rule-without-both-backends',
    severity: 'warning',
    kinds: ROLLOUT,
    title: 'An HTTPRoute rule routes to only one of the canary and stable Services (rollwise: the plugin accepts it)',
    mirrors:
      'rollwise, not the controller: the plugin sets weights only on the backendRefs it finds ' +
      '(pkg/plugin/httproute.go, v0.15.0)',
    why:
      'The plugin succeeds as long as some rule has each name, so a rule with only the stable Service never sends ' +
      'traffic to the canary (its errors escape the analysis) and one with only the canary Service has no stable ' +
      'backend at all.',
    fix: 'Give every rule backendRefs to both Services.',
  },
  {
    check: 'rwStepSeveralActions',
    id: 'RW784-canary-step-several-actions',
    severity: 'warning',
    kinds: ROLLOUT,
    title:
      'A step combines two actions that each wait (pause, setCanaryScale, setWeight, plugin); the controller waits for ' +
      'one (rollwise: the controller accepts it)',
    mirrors:
      'rollwise, not the controller: hasMultipleStepsType ' +
      'checks four kinds only; completedCurrentCanaryStep (rollout/canary.go, v1.9.1) completes a step by its ' +
      'first kind',
    why:
      'The controller accepts e.g. { setWeight, setCanaryScale } and applies both, but judges ' +
      'the step complete by one of them, so the step moves on without waiting for the other. setHeaderRoute and ' +
      'setMirrorRoute complete at once and combine with any action.',
    fix: 'One waiting action per step (setHeaderRoute/setMirrorRoute may share a step).',
  },
  {
    check: 'rwStepUnknownField',
    severity: 'warning',
    id: 'RW785-canary-step-unknown-field',
    kinds: ROLLOUT,
    title: 'A step has a field the Rollout CRD does not declare (rollwise: the API server prunes it)',
    mirrors:
      'rollwise, not the controller: the step fields of manifests/crds/rollout-crd.yaml (v1.9.1); unknown fields are ' +
      'pruned',
    why:
      'The CRD has a structural schema: the API server prunes the unknown field (unless the client ' +
      'asks for strict field validation, which refuses the request), so the step runs without it (e.g. `wait: ' +
      '10m` next to setWeight waits for nothing).',
    fix:
      'Use the step fields: setWeight, pause, analysis, setCanaryScale, experiment, setHeaderRoute, ' +
      'setMirrorRoute, plugin.',
  },
  {
    check: 'rwStartingStepAfterSteps',
    severity: 'warning',
    id: 'RW786-background-analysis-starts-after-last-step',
    kinds: ROLLOUT,
    title: 'Background analysis startingStep at or past the last step (rollwise: the controller accepts it)',
    mirrors:
      'rollwise, not the controller: BeforeStartingStep (utils/replicaset/canary.go) and the fully-promoted ' +
      'skip in rollout/analysis.go (v1.9.1)',
    why:
      'The controller accepts any startingStep; at or past the number of steps the background analysis is created ' +
      'only after every step has completed, when the canary is promoted, so it gates nothing.',
    fix: 'Use a startingStep below the number of steps (1 starts it after the first setWeight).',
  },
];

const CACHE = new WeakMap<ObjectIndex, WeakMap<LintObject, ScopedFindings>>();

/** Cluster-scoped kinds: one object per name in a cluster, shared by every application. */
const CLUSTER_SCOPED = new Set(['ClusterAnalysisTemplate']);

/** A reference the lookup could not answer with one object in the Rollout's scope. */
interface Unresolved {
  readonly kind: string;
  readonly name: string;
  readonly namespace?: string;
  readonly why: 'ambiguous' | 'missing';
  readonly candidates: readonly LintObject[];
}

interface ScopedFindings {
  readonly findings: ControllerFinding[];
  readonly unresolved: readonly Unresolved[];
}

/**
 * Looks objects up as the controller would find them: in the Rollout's namespace (its own, or the
 * default its kustomization or Argo CD Application gives it) and, since a scan holds many
 * applications, only among the objects deployed with it (scope.ts). Every reference that does not
 * resolve to exactly one object is remembered, so that the finding can say why at info level.
 */
function scopedLookup(from: LintObject, index: ObjectIndex, unresolved: Unresolved[]): ObjectLookup {
  const sc = index.scopes;
  return {
    get(kind, namespace, name) {
      if (CLUSTER_SCOPED.has(kind)) {
        const all = index.ofKind(kind).filter((o) => o.name === name);
        const near = all.filter((o) => sc.together(from, o));
        const pick = all.length === 1 ? all : near;
        if (pick.length === 1) return pick[0].obj;
        unresolved.push({ kind, name, why: all.length > 1 ? 'ambiguous' : 'missing', candidates: all });
        return undefined;
      }
      const explicit = namespace !== undefined && namespace !== sc.namespaceOf(from) ? namespace : undefined;
      const r = sc.resolve(from, kind, name, explicit);
      if ('found' in r) return r.found.obj;
      unresolved.push({
        kind,
        name,
        namespace,
        why: 'ambiguous' in r ? 'ambiguous' : 'missing',
        candidates: 'ambiguous' in r ? r.ambiguous : r.elsewhere,
      });
      return undefined;
    },
    list(kind, namespace) {
      const explicit = namespace !== undefined && namespace !== sc.namespaceOf(from) ? namespace : undefined;
      return (explicit ? index.ofKind(kind).filter((o) => sc.namespaceOf(o) === explicit) : sc.inScope(from, kind)).map(
        (o) => o.obj,
      );
    },
  };
}

function findingsOf(o: LintObject, ctx: RuleContext): ScopedFindings {
  let byObj = CACHE.get(ctx.index);
  if (!byObj) CACHE.set(ctx.index, (byObj = new WeakMap()));
  let f = byObj.get(o);
  if (!f) {
    const unresolved: Unresolved[] = [];
    f = { findings: checkController(o.obj, scopedLookup(o, ctx.index, unresolved)), unresolved };
    byObj.set(o, f);
  }
  return f;
}

/** The checks that report a reference that was not found; the value naming it, by check. */
const NOT_FOUND: Partial<Record<ControllerCheck, string>> = {
  serviceNotFound: 'service',
  templateNotFound: 'template',
  workloadRefUnresolved: 'name',
  rwPluginRouteNotFound: 'route',
};

/**
 * A not-found finding whose reference the scope could not decide: several candidates deployed with
 * the Rollout, or none in its scope (maybe in another application, maybe created elsewhere). The
 * rule says so at info level instead of picking one or claiming the object is missing.
 */
function scopeNote(f: ControllerFinding, unresolved: readonly Unresolved[]): string | undefined {
  const key = NOT_FOUND[f.check];
  if (!key) return undefined;
  const name = f.values[key];
  if (typeof name !== 'string') return undefined;
  const u = unresolved.find((x) => x.name === name);
  if (!u) return undefined;
  if (u.why === 'ambiguous')
    return (
      `${u.candidates.length} objects named ${u.kind}/${name} are deployed with this ` +
      `Rollout (${describeObjects(u.candidates)}): not checked, since the scan cannot tell which one the controller ` +
      'finds.'
    );
  const elsewhere = u.candidates.length
    ? ` ${describeObjects(u.candidates)} ${u.candidates.length === 1 ? 'is' : 'are'} ` +
      `in another application's folder or namespace and ${u.candidates.length === 1 ? 'was' : 'were'} not used.`
    : '';
  return (
    `${f.message} Info, not an error: no ${u.kind} named ${name} is deployed with this Rollout in the linted ` +
    'manifests (same namespace and application), and it may be created elsewhere (another repository, a ' +
    `chart).${elsewhere}`
  );
}

export const CONTROLLER_RULES: readonly RuleDefinition[] = SPECS.map((s) => ({
  id: s.id,
  severity: s.severity ?? 'error',
  title: s.title,
  kinds: s.kinds,
  mechanism: `${s.why} Mirrors: ${s.mirrors}.`,
  fieldNotes:
    s.kinds === TEMPLATES
      ? 'docs/mechanisms.md#canary-analysis'
      : 'docs/mechanisms.md#canary-analysis, ' + '#gitops-rollback',
  fix: s.fix,
  facts: [],
  ...((s.severity ?? 'error') === 'error'
    ? {
        upstream:
          s.upstream ??
          (s.kinds === TEMPLATES
            ? `argoproj/argo-rollouts ${s.mirrors}: the AnalysisRun created from the template goes to Error, and an ` +
              'errored analysis aborts the rollout.'
            : `argoproj/argo-rollouts ${s.mirrors}: the controller refuses the Rollout (condition InvalidSpec) and nothing ` +
              'rolls out.'),
      }
    : {}),
  check(o: LintObject, ctx: RuleContext) {
    const { findings, unresolved } = findingsOf(o, ctx);
    for (const f of findings) {
      if (f.check !== s.check) continue;
      const note = scopeNote(f, unresolved);
      if (note) ctx.report(o, f.path, note, { ...f.values, scope: 'unresolved' }, 'info');
      else ctx.report(o, f.path, f.message, f.values);
    }
  },
}));

/** The rule id of a checker finding. */
export function controllerRuleId(check: ControllerCheck): string {
  return SPECS.find((s) => s.check === check)!.id;
}
