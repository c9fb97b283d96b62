/**
 * The Argo Rollouts controller's verdict on a Rollout, an AnalysisTemplate or a
 * ClusterAnalysisTemplate, before the cluster's. The controller has no admission webhook: the API
 * server accepts a Rollout the controller cannot run, which then only shows up as an InvalidSpec
 * condition (Degraded in Argo CD), and an AnalysisRun it cannot run goes to Error and aborts the
 * rollout. Each check ports one condition of the controller at v1.9.1, named in its comment:
 *
 * - pkg/apis/rollouts/validation/validation.go (ValidateRolloutSpec and what it calls),
 * - pkg/apis/rollouts/validation/validation_references.go and rollout/controller.go
 *   (getRolloutValidationErrors: referenced Services and analysis templates),
 * - utils/analysis/helpers.go (ValidateMetrics, MergeArgs, FlattenTemplates, GetDryRunMetrics),
 *   run by analysis/analysis.go reconcileAnalysisRun when an AnalysisRun starts.
 *
 * Rules whose key starts with `rw` are rollwise's own refusals of specs the controller accepts;
 * each says why (the Gateway API plugin fails at runtime, or the spec silently loses a gate).
 */
import { goParseInt32, intOrPercentValue, intOrStringValue, LabelSelector, labelSelectorErrors, metadataFieldPathError, parseGoDuration, selectorMatches } from './go-values';

type Json = Record<string, unknown>;

/** The checks, by key; `src/rules/controller-rules.ts` gives each a stable rule id. */
export type ControllerCheck =
  | 'negativeField' | 'selectorInvalid' | 'selectorTemplateMismatch' | 'templateNotForReplicaSet' | 'workloadRefWithTemplate' | 'workloadRefUnresolved'
  | 'progressDeadline' | 'strategyMissing' | 'strategyBoth' | 'surgeUnavailableZero' | 'sameService' | 'pingPong'
  | 'routingWithoutServices' | 'scaleDownDelayWithoutRouting' | 'dynamicStableScaleWithoutRouting' | 'dynamicStableScaleWithDelay'
  | 'maxTrafficWeightUnsupported' | 'stepSeveralKinds' | 'stepNoKind' | 'setWeightRange' | 'pauseDuration' | 'setCanaryScaleWithoutRouting'
  | 'headerRouteUnsupported' | 'routeMatchInvalid' | 'mirrorRouteWithoutIstio' | 'managedRoutesMissing' | 'routeNotManaged'
  | 'experimentWeightUnsupported' | 'analysisArgFieldRef' | 'antiAffinity' | 'routerConfigInvalid'
  | 'serviceNotFound' | 'serviceSelectorMismatch' | 'serviceManagedByOther' | 'templateNotFound' | 'analysisArgsNotSupplied'
  | 'inlineAnalysisIndefinite' | 'inlineUnresolvedArg' | 'templatesMergeInvalid' | 'argValueAndValueFrom'
  | 'noMetrics' | 'duplicateMetric' | 'negativeLimit' | 'limitsBothDisabled' | 'countBelowLimits' | 'countBelowInconclusive'
  | 'intervalRequired' | 'durationInvalid' | 'providerCount' | 'dryRunRule' | 'unresolvedArg'
  | 'rwPluginWithoutServices' | 'rwPluginRouteNotFound' | 'rwPluginBackendRefMissing' | 'rwPluginRuleWithoutBoth'
  | 'rwStepSeveralActions' | 'rwStepUnknownField' | 'rwStartingStepAfterSteps';

export interface ControllerFinding {
  readonly check: ControllerCheck;
  /** Field path in the checked object (`spec.strategy.canary.steps[2].setWeight`). */
  readonly path: string;
  /** The value, why the controller (or the plugin) refuses it, and how to fix it. */
  readonly message: string;
  readonly values: Readonly<Record<string, string | number | boolean>>;
}

/** The other objects of the run, for the checks that follow a reference. */
export interface ObjectLookup {
  /** An object by kind, namespace (undefined for cluster-scoped or unset) and name. */
  get(kind: string, namespace: string | undefined, name: string): Json | undefined;
  /** The objects of a kind in a namespace (and those without one). */
  list(kind: string, namespace: string | undefined): readonly Json[];
}

const GATEWAY_PLUGIN = 'argoproj-labs/gatewayAPI';
/** v1alpha1.DefaultRolloutUniqueLabelKey (pkg/apis/rollouts/v1alpha1/types.go, v1.9.1). */
const POD_TEMPLATE_HASH = 'rollouts-pod-template-hash';
/** v1alpha1.ManagedByRolloutsKey (pkg/apis/rollouts/v1alpha1/types.go, v1.9.1). */
const MANAGED_BY = 'argo-rollouts.argoproj.io/managed-by-rollouts';
/** The step fields of the Rollout CRD (manifests/crds/rollout-crd.yaml, v1.9.1); the API server prunes any other. */
const STEP_FIELDS = ['setWeight', 'pause', 'analysis', 'setCanaryScale', 'experiment', 'setHeaderRoute', 'setMirrorRoute', 'plugin'];

function rec(x: unknown): Json | undefined {
  return typeof x === 'object' && x !== null && !Array.isArray(x) ? (x as Json) : undefined;
}
function arr(x: unknown): unknown[] {
  return Array.isArray(x) ? x : [];
}
function str(x: unknown): string {
  return typeof x === 'string' ? x : '';
}
/** A Go pointer field: set unless absent or null. */
function set(x: unknown): boolean {
  return x !== undefined && x !== null;
}
function show(v: unknown): string {
  return JSON.stringify(v) ?? 'undefined';
}
function readSelector(x: unknown): LabelSelector {
  const r = rec(x) ?? {};
  const labels: Record<string, string> = {};
  for (const [k, v] of Object.entries(rec(r.matchLabels) ?? {})) labels[k] = v as string;
  return {
    matchLabels: labels,
    matchExpressions: arr(r.matchExpressions).map((e) => ({ key: str(rec(e)?.key), operator: str(rec(e)?.operator), values: arr(rec(e)?.values).map(String) })),
  };
}

class Findings {
  public readonly list: ControllerFinding[] = [];
  public add(check: ControllerCheck, path: string, message: string, values: Record<string, string | number | boolean> = {}): void {
    this.list.push({ check, path, message, values });
  }
}

/** Which kinds the checker reads. */
export const CONTROLLER_KINDS = ['Rollout', 'AnalysisTemplate', 'ClusterAnalysisTemplate'] as const;

/** Everything the controller (and, for `rw*` checks, the plugin) would refuse in `obj`. */
export function checkController(obj: Json, lookup: ObjectLookup): ControllerFinding[] {
  const out = new Findings();
  if (obj.kind === 'Rollout') {
    validateRolloutSpec(resolveWorkloadRef(obj, lookup, out), out);
    validateReferences(obj, lookup, out);
  } else if (obj.kind === 'AnalysisTemplate' || obj.kind === 'ClusterAnalysisTemplate') {
    validateTemplate(obj, out);
  }
  return out.list;
}

// ---------------------------------------------------------------------------------------------
// pkg/apis/rollouts/validation/validation.go (v1.9.1)

/**
 * The template resolver of a workloadRef Rollout (informerBasedTemplateResolver.Resolve,
 * rollout/templateref.go, v1.9.1): the template must be empty; the workload must be a PodTemplate,
 * Deployment or ReplicaSet and exist; its template (and, when the Rollout has none, its selector)
 * become the Rollout's. Returns the Rollout the controller validates, marked as resolved.
 */
const WORKLOAD_KINDS: Readonly<Record<string, { template: string[]; selector?: string[] }>> = {
  '/PodTemplate': { template: ['template'] },
  'apps/Deployment': { template: ['spec', 'template'], selector: ['spec', 'selector'] },
  'apps/ReplicaSet': { template: ['spec', 'template'], selector: ['spec', 'selector'] },
};
const RESOLVED = Symbol('templateResolvedFromRef');

function resolveWorkloadRef(ro: Json, lookup: ObjectLookup, out: Findings): Json {
  const spec = rec(ro.spec) ?? {};
  const ref = rec(spec.workloadRef);
  if (!ref) return ro;
  const tmeta = rec(rec(spec.template)?.metadata) ?? {};
  if (Object.keys(rec(tmeta.labels) ?? {}).length > 0 || Object.keys(rec(tmeta.annotations) ?? {}).length > 0) {
    out.add('workloadRefWithTemplate', 'spec.template', 'spec.workloadRef and spec.template are both set: the controller refuses it ("template must be empty for workload reference rollout"). Remove spec.template (labels and annotations included), or remove spec.workloadRef.');
    return ro;
  }
  const apiVersion = str(ref.apiVersion);
  const group = apiVersion.includes('/') ? apiVersion.split('/')[0] : '';
  const kind = str(ref.kind);
  const info = WORKLOAD_KINDS[`${group}/${kind}`];
  if (!info) {
    out.add('workloadRefUnresolved', 'spec.workloadRef', `spec.workloadRef ${show(ref)}: the controller resolves only a PodTemplate, Deployment or ReplicaSet and refuses the Rollout ("workload of type ${group}/${kind} is not supported"). Reference a Deployment (apps/v1).`, { kind, apiVersion });
    return ro;
  }
  const ns = str(rec(ro.metadata)?.namespace) || undefined;
  const w = lookup.get(kind, ns, str(ref.name));
  if (!w) {
    out.add('workloadRefUnresolved', 'spec.workloadRef.name', `spec.workloadRef names ${kind} "${str(ref.name)}", which is not among the checked objects in namespace ${ns ?? '(unset)'}: the controller cannot resolve the template and marks the Rollout InvalidSpec (${kind.toLowerCase()}s "${str(ref.name)}" not found). Add the ${kind} (or lint it with the Rollout) or fix the name.`, { kind, name: str(ref.name) });
    return ro;
  }
  const at = (o: unknown, path: string[]) => path.reduce<unknown>((x, k) => rec(x)?.[k], o);
  const resolved: Json = { ...spec, template: at(w, info.template) ?? {} };
  if (!set(spec.selector) && info.selector && rec(at(w, info.selector))) resolved.selector = at(w, info.selector);
  return { ...ro, spec: resolved, [RESOLVED]: true };
}

/** ValidateRolloutSpec, on the Rollout with its workloadRef resolved. */
function validateRolloutSpec(ro: Json, out: Findings): void {
  const resolved = (ro as { [RESOLVED]?: boolean })[RESOLVED] === true;
  const spec = rec(ro.spec) ?? {};
  // apivalidation.ValidateNonnegativeField on replicas (default 1), minReadySeconds,
  // revisionHistoryLimit (default 10) and progressDeadlineSeconds (default 600).
  for (const field of ['replicas', 'minReadySeconds', 'revisionHistoryLimit', 'progressDeadlineSeconds']) {
    const v = spec[field];
    if (typeof v === 'number' && v < 0) {
      out.add('negativeField', `spec.${field}`, `spec.${field} = ${v}: the controller requires a non-negative value ("must be greater than or equal to 0"). Use 0 or more.`, { field, value: v });
    }
  }
  const workloadRef = set(spec.workloadRef);
  const template = rec(spec.template) ?? {};
  const tmeta = rec(template.metadata) ?? {};
  if (workloadRef && !resolved) {
    validateRolloutStrategy(ro, out);
    return;
  }
  const templateLabels = (rec(tmeta.labels) ?? {}) as Record<string, string>;
  let selectorOk = true;
  if (!workloadRef) {
    if (!set(spec.selector)) {
      selectorOk = false;
      out.add('selectorInvalid', 'spec.selector', `spec.selector is missing: the controller refuses a Rollout without one ("Rollout has missing field '.spec.selector'"). Set spec.selector.matchLabels to the pod template's labels, e.g. { app: ${show(templateLabels.app ?? str(rec(ro.metadata)?.name))} }.`);
    } else {
      const sel = readSelector(spec.selector);
      for (const e of labelSelectorErrors(sel)) {
        selectorOk = false;
        out.add('selectorInvalid', `spec.selector.${e.path}`, `spec.selector.${e.path}: ${e.error}; the controller refuses an invalid label selector. Use valid label keys, values and operators.`, { error: e.error });
      }
      if (Object.keys(sel.matchLabels).length + sel.matchExpressions.length === 0) {
        selectorOk = false;
        out.add('selectorInvalid', 'spec.selector', `spec.selector ${show(spec.selector)} is empty: the controller refuses it ("empty selector is invalid for deployment"), since it would select every pod of the namespace. Set matchLabels to the pod template's labels.`);
      }
    }
  }
  // ValidatePodTemplateSpecForReplicaSet (k8s.io/kubernetes pkg/apis/apps/validation/validation.go),
  // on the Rollout's template or the resolved workload's: the selector must match the template
  // labels (a missing selector matches nothing); restartPolicy must be Always; activeDeadlineSeconds
  // is not allowed. (The rest of the pod spec is checked by the schema validator.)
  if ((!workloadRef || resolved) && selectorOk) {
    const sel = readSelector(spec.selector);
    if (!set(spec.selector)) {
      out.add('selectorTemplateMismatch', 'spec.selector', `spec.selector is missing and the ${str(rec(spec.workloadRef)?.kind)} the workloadRef names has none to lend: a missing selector matches no pod, and the controller refuses it ("\`selector\` does not match template \`labels\`"). Set spec.selector.matchLabels to the template's labels.`);
    } else if (!selectorMatches(sel, templateLabels)) {
      out.add('selectorTemplateMismatch', 'spec.template.metadata.labels', `spec.selector ${show(spec.selector)} does not match the pod template labels ${show(templateLabels)}: the controller refuses it ("\`selector\` does not match template \`labels\`"), since the ReplicaSets it creates would not own their pods. Make spec.template.metadata.labels carry every selector label.`, { selector: show(spec.selector), labels: show(templateLabels) });
    }
    const podSpec = rec(template.spec) ?? {};
    if (set(podSpec.restartPolicy) && podSpec.restartPolicy !== 'Always') {
      out.add('templateNotForReplicaSet', 'spec.template.spec.restartPolicy', `spec.template.spec.restartPolicy = ${show(podSpec.restartPolicy)}: pods of a ReplicaSet must restart, so the controller refuses anything but "Always". Remove it or set "Always".`, { value: show(podSpec.restartPolicy) });
    }
    if (set(podSpec.activeDeadlineSeconds)) {
      out.add('templateNotForReplicaSet', 'spec.template.spec.activeDeadlineSeconds', `spec.template.spec.activeDeadlineSeconds = ${show(podSpec.activeDeadlineSeconds)}: the controller refuses it for ReplicaSet pods ("activeDeadlineSeconds in ReplicaSet is not Supported"), a deadline would kill serving pods. Remove it.`, { value: show(podSpec.activeDeadlineSeconds) });
    }
  }
  const minReady = typeof spec.minReadySeconds === 'number' ? spec.minReadySeconds : 0;
  const deadline = typeof spec.progressDeadlineSeconds === 'number' ? spec.progressDeadlineSeconds : 600;
  if (deadline <= minReady) {
    out.add('progressDeadline', 'spec.progressDeadlineSeconds', `spec.progressDeadlineSeconds = ${deadline}${set(spec.progressDeadlineSeconds) ? '' : ' (default)'} is not greater than spec.minReadySeconds = ${minReady}: the controller refuses it ("must be greater than minReadySeconds"), since no pod could become available before the deadline. Set progressDeadlineSeconds above ${minReady} (600 or more is usual).`, { progressDeadlineSeconds: deadline, minReadySeconds: minReady });
  }
  validateRolloutStrategy(ro, out);
}

/** ValidateRolloutStrategy. */
function validateRolloutStrategy(ro: Json, out: Findings): void {
  const strategy = rec(rec(ro.spec)?.strategy) ?? {};
  const bg = set(strategy.blueGreen);
  const canary = set(strategy.canary);
  if (!bg && !canary) {
    out.add('strategyMissing', 'spec.strategy', "spec.strategy has neither canary nor blueGreen: the controller refuses it (\"Rollout has missing field '.spec.strategy.canary or .spec.strategy.blueGreen'\"). Add spec.strategy.canary with its steps.");
  } else if (bg && canary) {
    out.add('strategyBoth', 'spec.strategy', 'spec.strategy has both canary and blueGreen: the controller refuses it ("Multiple Strategies can not be listed"). Keep one of them.');
  } else if (canary) {
    validateCanary(rec(strategy.canary) ?? {}, out);
  }
}

/** requireCanaryStableServices: the routers that find their objects through both Service names. */
function requireCanaryStableServices(canary: Json): boolean {
  const tr = rec(canary.trafficRouting);
  if (!tr) return false;
  const pingPong = set(canary.pingPong);
  return (set(tr.alb) && !pingPong) || (set(tr.istio) && !set(rec(tr.istio)?.destinationRule) && !pingPong)
    || set(tr.smi) || set(tr.apisix) || set(tr.ambassador) || set(tr.nginx) || set(tr.appMesh) || set(tr.traefik);
}

/** ValidateRolloutStrategyCanary. */
function validateCanary(canary: Json, out: Findings): void {
  const at = 'spec.strategy.canary';
  // invalidMaxSurgeMaxUnavailable, with the defaults of utils/defaults (25 % / 25 %).
  const surge = set(canary.maxSurge) ? canary.maxSurge : '25%';
  const unavailable = set(canary.maxUnavailable) ? canary.maxUnavailable : '25%';
  if (intOrPercentValue(surge) === 0 && intOrPercentValue(unavailable) === 0) {
    out.add('surgeUnavailableZero', `${at}.maxSurge`, `${at}.maxSurge = ${show(surge)} and maxUnavailable = ${show(unavailable)} are both zero: the controller refuses it ("MaxSurge and MaxUnavailable both can not be zero"), since no pod could ever be replaced. Set maxSurge to 1 or "25%" (keep maxUnavailable 0 for a rollout that never loses capacity).`, { maxSurge: show(surge), maxUnavailable: show(unavailable) });
  }
  const canarySvc = str(canary.canaryService);
  const stableSvc = str(canary.stableService);
  if (canarySvc !== '' && canarySvc === stableSvc) {
    out.add('sameService', `${at}.stableService`, `${at}.canaryService and stableService are both "${stableSvc}": the controller refuses it ("two different services are required"), since the canary Service is re-pointed at the canary pods. Use two Services (e.g. "${stableSvc}" and "${stableSvc}-canary").`, { service: stableSvc });
  }
  const tr = rec(canary.trafficRouting);
  const routing = set(canary.trafficRouting);
  const pingPong = rec(canary.pingPong);
  if (set(canary.pingPong)) {
    const ping = str(pingPong?.pingService);
    const pong = str(pingPong?.pongService);
    const bad: [string, string][] = [];
    if (routing && !set(tr?.alb) && !set(tr?.istio)) bad.push([`${at}.trafficRouting.alb`, 'ping-pong works only with the ALB and Istio traffic routers ("Ping-pong feature works with the ALB and Istio traffic routers only")']);
    if (ping === '') bad.push([`${at}.pingPong.pingService`, 'pingService is empty ("Ping service and Pong service must to be set")']);
    if (pong === '') bad.push([`${at}.pingPong.pongService`, 'pongService is empty ("Ping service and Pong service must to be set")']);
    if (ping === pong) bad.push([`${at}.pingPong.pingService`, `pingService and pongService are both "${ping}" ("two different services are required")`]);
    if (routing && set(tr?.alb) && str(rec(tr?.alb)?.rootService) === '') bad.push([`${at}.trafficRouting.alb.rootService`, 'ALB with ping-pong needs rootService ("Root service field is required")']);
    for (const [path, why] of bad) out.add('pingPong', path, `${why}: the controller refuses the Rollout. Fix the pingPong settings or remove pingPong.`);
  }
  if (requireCanaryStableServices(canary)) {
    for (const [field, v] of [['stableService', stableSvc], ['canaryService', canarySvc]] as const) {
      if (v === '') out.add('routingWithoutServices', `${at}.${field}`, `${at}.${field} is empty while trafficRouting uses ${Object.keys(tr ?? {}).filter((k) => !['managedRoutes', 'maxTrafficWeight'].includes(k)).join(', ')}: that router needs both Services and the controller refuses it ("Canary service and Stable service must to be set to use Traffic Routing"). Set canaryService and stableService.`, { field });
    }
  }
  const hasDelay = set(canary.scaleDownDelaySeconds);
  const dynamic = canary.dynamicStableScale === true;
  if (!routing) {
    if (hasDelay) out.add('scaleDownDelayWithoutRouting', `${at}.scaleDownDelaySeconds`, `${at}.scaleDownDelaySeconds = ${show(canary.scaleDownDelaySeconds)} without trafficRouting: the controller refuses it ("Canary scaleDownDelaySeconds can only be used with traffic routing"). Remove it, or add trafficRouting.`, { value: show(canary.scaleDownDelaySeconds) });
    if (dynamic) out.add('dynamicStableScaleWithoutRouting', `${at}.dynamicStableScale`, `${at}.dynamicStableScale = true without trafficRouting: the controller refuses it ("Canary dynamicStableScale can only be used with traffic routing"). Remove it, or add trafficRouting.`);
  } else {
    if (hasDelay && dynamic) out.add('dynamicStableScaleWithDelay', `${at}.dynamicStableScale`, `${at}.dynamicStableScale = true together with scaleDownDelaySeconds = ${show(canary.scaleDownDelaySeconds)}: the controller refuses it ("Canary dynamicStableScale cannot be used with scaleDownDelaySeconds"). Remove one of them (rollwise keeps dynamicStableScale false, so an abort is instant).`, { scaleDownDelaySeconds: show(canary.scaleDownDelaySeconds) });
    if (set(tr?.maxTrafficWeight) && !set(tr?.nginx) && Object.keys(rec(tr?.plugins) ?? {}).length === 0) {
      out.add('maxTrafficWeightUnsupported', `${at}.trafficRouting.maxTrafficWeight`, `${at}.trafficRouting.maxTrafficWeight = ${show(tr?.maxTrafficWeight)} with neither nginx nor a plugin router: the controller refuses it ("Canary maxTrafficWeight in traffic routing only supported in Nginx and Plugins"). Remove it (the default is 100).`, { value: show(tr?.maxTrafficWeight) });
    }
  }
  // weightutil.MaxTrafficWeight: trafficRouting.maxTrafficWeight, else 100.
  const maxWeight = typeof tr?.maxTrafficWeight === 'number' ? tr.maxTrafficWeight : 100;
  const managed = tr && set(tr.managedRoutes) ? arr(tr.managedRoutes).map((m) => str(rec(m)?.name)) : undefined;
  const steps = arr(canary.steps);
  steps.forEach((raw, i) => {
    const sp = `${at}.steps[${i}]`;
    const step = rec(raw) ?? {};
    // The API server prunes fields the CRD does not declare: the controller sees only these.
    const unknown = Object.keys(step).filter((k) => !STEP_FIELDS.includes(k));
    if (unknown.length > 0) {
      out.add('rwStepUnknownField', `${sp}.${unknown[0]}`, `${sp} has ${unknown.map((k) => `"${k}"`).join(', ')}, which is not a step field: the Rollout CRD declares only ${STEP_FIELDS.join(', ')}, so the API server prunes it from the stored Rollout (or, with strict field validation, refuses the request); the controller never sees it and this part of the step never runs. Use one of the step fields (e.g. pause: { duration: "10m" }).`, { fields: unknown.join(', ') });
    }
    const has = (k: string) => set(step[k]);
    // hasMultipleStepsType looks only at setWeight, pause, experiment and analysis.
    const four = ['setWeight', 'pause', 'experiment', 'analysis'].filter(has);
    if (four.length > 1) {
      out.add('stepSeveralKinds', sp, `${sp} has ${four.join(' and ')}: the controller refuses a step with more than one of setWeight, pause, experiment, analysis ("Step must have one of the following set"). Split it into one step per action, e.g. [{ setWeight: 5 }, { pause: {} }].`, { kinds: four.join(', ') });
    }
    const present = STEP_FIELDS.filter(has);
    if (present.length === 0) {
      out.add('stepNoKind', sp, `${sp} ${show(raw)} has none of ${STEP_FIELDS.join(', ')}${unknown.length ? ' once the API server drops the unknown fields' : ''}: the controller refuses it ("Step must have one of the following set: experiment, setWeight, setCanaryScale, plugin or pause"). Give the step exactly one action, or delete it.`);
    } else if (present.length > 1 && four.length <= 1) {
      // completedCurrentCanaryStep (rollout/canary.go, v1.9.1) decides completion by the first of
      // pause, setCanaryScale, setWeight, experiment, analysis, setHeaderRoute, setMirrorRoute, plugin.
      // Every action of the step still takes effect while it is current: the weight and the canary
      // scale are read from the steps up to the current one (GetCurrentSetWeight, UseSetCanaryScale,
      // utils/replicaset/canary.go) and the header and mirror routes are set whenever the current
      // step has them (rollout/trafficrouting.go). setHeaderRoute and setMirrorRoute complete at
      // once, so they combine with any action (Argo Rollouts' own examples pair setCanaryScale with
      // setHeaderRoute). What is lost is the wait of a second action that has one of its own.
      const order = ['pause', 'setCanaryScale', 'setWeight', 'experiment', 'analysis', 'setHeaderRoute', 'setMirrorRoute', 'plugin'];
      const first = order.find(has)!;
      const waits = ['pause', 'setCanaryScale', 'setWeight', 'plugin'].filter((k) => has(k) && k !== first);
      if (waits.length > 0) {
        const what: Record<string, string> = { pause: 'its pause', setCanaryScale: 'the canary to reach its scale', setWeight: 'the weight to be reached and verified', plugin: 'the step plugin to complete' };
        out.add('rwStepSeveralActions', sp, `${sp} has ${present.join(' and ')}: the controller accepts this and applies every action, but it judges the step complete by ${first} alone (completedCurrentCanaryStep checks pause, setCanaryScale, setWeight, experiment, analysis, setHeaderRoute, setMirrorRoute, plugin in that order), so the step moves on without waiting for ${waits.map((k) => what[k]).join(' or ')}. Split it into one step per action.`, { kinds: present.join(', '), completesOn: first, notAwaited: waits.join(', ') });
      }
    }
    if (has('setWeight')) {
      const w = step.setWeight;
      if (typeof w === 'number' && (w < 0 || w > maxWeight)) {
        out.add('setWeightRange', `${sp}.setWeight`, `${sp}.setWeight = ${w}: the controller refuses a weight outside 0..${maxWeight} ("SetWeight needs to be between 0 and ${maxWeight}"${maxWeight === 100 ? '' : ', maxTrafficWeight'}). Use a weight from 0 to ${maxWeight}.`, { value: w, max: maxWeight });
      }
    }
    if (has('pause')) {
      const seconds = pauseDurationSeconds(rec(step.pause)?.duration);
      if (seconds < 0) {
        const d = rec(step.pause)?.duration;
        out.add('pauseDuration', `${sp}.pause.duration`, `${sp}.pause.duration = ${show(d)}: ${typeof d === 'string' && 'error' in parseGoDuration(d) && goParseInt32(d) === undefined ? 'neither whole seconds nor a Go duration (time.ParseDuration refuses it), so the controller reads it as -1 s' : 'a negative duration'} and refuses it ("Duration needs to be greater than 0"). Write whole seconds (600) or a Go duration with units ns, us, ms, s, m, h ("10m", "1h30m"); there is no "d" unit: use "24h".`, { value: show(d) });
      }
    }
    if (has('setCanaryScale') && !routing) {
      out.add('setCanaryScaleWithoutRouting', `${sp}.setCanaryScale`, `${sp}.setCanaryScale without trafficRouting: the controller refuses it ("SetCanaryScale requires TrafficRouting to be set"), since without a router the canary's share is its replica count. Add trafficRouting, or use setWeight.`);
    }
    if (has('setHeaderRoute')) {
      const hr = rec(step.setHeaderRoute) ?? {};
      if (!routing || (!set(tr?.istio) && !set(tr?.alb) && !set(tr?.apisix) && Object.keys(rec(tr?.plugins) ?? {}).length === 0)) {
        out.add('headerRouteUnsupported', `${sp}.setHeaderRoute`, `${sp}.setHeaderRoute needs Istio, ALB, Apisix or a plugin router: the controller refuses it ("SetHeaderRoute requires TrafficRouting, supports Istio and ALB and Apisix"). Add such a trafficRouting, or remove the step.`);
      } else {
        arr(hr.match).forEach((m, j) => {
          const hv = rec(m)?.headerValue;
          const err = set(tr?.alb) ? albMatchError(hv) : stringMatchError(hv);
          if (err) out.add('routeMatchInvalid', `${sp}.setHeaderRoute.match[${j}]`, `${sp}.setHeaderRoute.match[${j}].headerValue ${show(hv)}: ${err}; the controller refuses the Rollout. Give exactly one of exact, regex, prefix${set(tr?.alb) ? ' (ALB: exact only)' : ''}.`);
        });
      }
    }
    if (has('setMirrorRoute')) {
      const mr = rec(step.setMirrorRoute) ?? {};
      if (!routing || !set(tr?.istio)) {
        out.add('mirrorRouteWithoutIstio', `${sp}.setMirrorRoute`, `${sp}.setMirrorRoute without Istio traffic routing: the controller refuses it ("SetMirrorRoute requires TrafficRouting, supports Istio only"); the Gateway API plugin cannot mirror. Remove the step.`);
      }
      arr(mr.match).forEach((m, j) => {
        const match = rec(m) ?? {};
        for (const k of ['method', 'path'] as const) {
          if (!set(match[k])) continue;
          const err = stringMatchError(match[k]);
          if (err) out.add('routeMatchInvalid', `${sp}.setMirrorRoute.match[${j}]`, `${sp}.setMirrorRoute.match[${j}].${k} ${show(match[k])}: ${err}; the controller refuses the Rollout. Give exactly one of exact, regex, prefix.`);
        }
      });
    }
    if (routing && (has('setHeaderRoute') || has('setMirrorRoute'))) {
      const kind = has('setHeaderRoute') ? 'setHeaderRoute' : 'setMirrorRoute';
      if (managed === undefined) {
        out.add('managedRoutesMissing', `${at}.trafficRouting.managedRoutes`, `${sp}.${kind} but ${at}.trafficRouting.managedRoutes is missing: the controller refuses it ("Rollout has missing field 'spec.strategy.canary.trafficRouting.managedRoutes'"), since it only manages routes listed there. Add managedRoutes: [{ name: ${show(str(rec(step[kind])?.name))} }].`);
      } else {
        for (const k of ['setHeaderRoute', 'setMirrorRoute']) {
          if (!has(k)) continue;
          const name = str(rec(step[k])?.name);
          if (!managed.includes(name)) out.add('routeNotManaged', `${sp}.${k}`, `${sp}.${k}.name = "${name}" is not in ${at}.trafficRouting.managedRoutes (${managed.map((n) => `"${n}"`).join(', ') || 'none'}): the controller refuses it ("Steps define a route that does not exist in spec.strategy.canary.trafficRouting.managedRoutes"). Add { name: "${name}" } to managedRoutes.`, { name });
        }
      }
    }
    const stepArgs: unknown[] = [];
    if (has('experiment')) {
      const ex = rec(step.experiment) ?? {};
      arr(ex.templates).forEach((t, j) => {
        const weight = rec(t)?.weight;
        if (!set(weight)) return;
        const path = `${sp}.experiment.templates[${j}].weight`;
        if (!routing) out.add('experimentWeightUnsupported', path, `${path} = ${show(weight)} without trafficRouting: the controller refuses it ("Experiment template weight cannot be set unless TrafficRouting is enabled"). Remove the weight, or add trafficRouting.`);
        else if (!set(tr?.alb) && !set(tr?.smi) && !set(tr?.istio) && Object.keys(rec(tr?.plugins) ?? {}).length === 0) out.add('experimentWeightUnsupported', path, `${path} = ${show(weight)}: the controller refuses experiment weights except with SMI, ALB, Istio or a plugin router ("Experiment template weight is only available for TrafficRouting with SMI, ALB, Istio and Plugins at this time"). Remove the weight.`);
      });
      for (const a of arr(ex.analyses)) stepArgs.push(...arr(rec(a)?.args));
    }
    if (has('analysis')) stepArgs.push(...arr(rec(step.analysis)?.args));
    for (const a of stepArgs) {
      const fp = str(rec(rec(rec(a)?.valueFrom)?.fieldRef)?.fieldPath);
      if (!fp.startsWith('metadata')) continue;
      const err = metadataFieldPathError(fp);
      if (err) out.add('analysisArgFieldRef', `${sp}.${has('analysis') ? 'analysis' : 'experiment'}.args`, `${sp}: arg "${str(rec(a)?.name)}" valueFrom.fieldRef.fieldPath = "${fp}": ${err}; the controller refuses it ("Analyses arguments must refer to valid object metadata supported by downwardAPI"). Use metadata.name, metadata.namespace, metadata.uid, metadata.labels['<key>'] or metadata.annotations['<key>'].`, { fieldPath: fp });
    }
  });
  // ValidateRolloutStrategyAntiAffinity.
  if (set(canary.antiAffinity)) {
    const aa = rec(canary.antiAffinity) ?? {};
    const preferred = set(aa.preferredDuringSchedulingIgnoredDuringExecution);
    const required = set(aa.requiredDuringSchedulingIgnoredDuringExecution);
    if (preferred === required) {
      out.add('antiAffinity', `${at}.antiAffinity`, `${at}.antiAffinity has ${preferred ? 'both preferred and required' : 'neither preferred nor required'}DuringSchedulingIgnoredDuringExecution: the controller refuses it ("AntiAffinity must have exactly one strategy listed"). Keep exactly one.`);
    }
    const w = rec(aa.preferredDuringSchedulingIgnoredDuringExecution)?.weight;
    if (preferred && (typeof w !== 'number' || w < 1 || w > 100)) {
      out.add('antiAffinity', `${at}.antiAffinity.weight`, `${at}.antiAffinity.preferredDuringSchedulingIgnoredDuringExecution.weight = ${show(w)}: the controller refuses a weight outside 1..100 ("AntiAffinity weight must be between 1-100"). Use 1 to 100.`, { weight: show(w) });
    }
  }
  // rollwise's own: a background analysis whose startingStep is at or past the last step.
  const bgAnalysis = rec(canary.analysis);
  const startingStep = bgAnalysis?.startingStep;
  if (typeof startingStep === 'number' && arr(bgAnalysis?.templates).length > 0 && startingStep >= steps.length) {
    out.add('rwStartingStepAfterSteps', `${at}.analysis.startingStep`, `${at}.analysis.startingStep = ${startingStep} with ${steps.length} step(s): the controller accepts it, but it creates the background analysis only once the current step index reaches startingStep (BeforeStartingStep), that is after every step has completed, when it promotes the canary (and it creates none for a fully promoted Rollout): the background analysis gates nothing. Use a step index below ${steps.length} (1 starts it after the first setWeight).`, { startingStep, steps: steps.length });
  }
}

/** RolloutPause.DurationSeconds (pkg/apis/rollouts/v1alpha1/types.go, v1.9.1): -1 when unreadable. */
export function pauseDurationSeconds(d: unknown): number {
  if (!set(d)) return 0;
  if (typeof d === 'number') return Math.trunc(d);
  if (typeof d !== 'string') return -1;
  const n = goParseInt32(d);
  if (n !== undefined) return n;
  const parsed = parseGoDuration(d);
  return 'error' in parsed ? -1 : Math.trunc(parsed.seconds);
}

/** hasMultipleMatchValues: exactly one of exact, regex, prefix. */
function stringMatchError(m: unknown): string | undefined {
  const r = rec(m);
  if (!r) return 'match value missed ("StringMatch value missed, match value must have one of the following: exact, regex, prefix")';
  const n = ['exact', 'regex', 'prefix'].filter((k) => str(r[k]) !== '').length;
  if (n > 1) return 'more than one of exact, regex, prefix ("StringMatch match value must have exactly one of the following: exact, regex, prefix")';
  if (n === 0) return 'none of exact, regex, prefix ("StringMatch value missed, match value must have one of the following: exact, regex, prefix")';
  return undefined;
}

/** hasALBInvalidValues: ALB matches headers by exact value only. */
function albMatchError(m: unknown): string | undefined {
  const r = rec(m);
  if (!r) return 'match value missed ("StringMatch value missed")';
  if (str(r.exact) === '' || str(r.regex) !== '' || str(r.prefix) !== '') return 'ALB supports only an exact value ("SetHeaderRoute match value invalid. ALB supports \'exact\' value only")';
  return undefined;
}

// ---------------------------------------------------------------------------------------------
// Referenced objects: rollout/controller.go getRolloutValidationErrors and
// pkg/apis/rollouts/validation/validation_references.go (v1.9.1), plus the Gateway API plugin.

function validateReferences(ro: Json, lookup: ObjectLookup, out: Findings): void {
  const canary = rec(rec(rec(ro.spec)?.strategy)?.canary);
  if (!canary || set(rec(rec(ro.spec)?.strategy)?.blueGreen)) return;
  const ns = str(rec(ro.metadata)?.namespace) || undefined;
  const roName = str(rec(ro.metadata)?.name);
  // A workloadRef Rollout is validated with the template of the workload it references
  // (TemplateResolvedFromRef); without that workload among the objects, its labels are unknown.
  const effective = resolveWorkloadRef(ro, lookup, new Findings());
  const source = !set(rec(ro.spec)?.workloadRef) || (effective as { [RESOLVED]?: boolean })[RESOLVED] ? effective : undefined;
  const templateLabels = (rec(rec(rec(rec(source?.spec)?.template)?.metadata)?.labels) ?? {}) as Record<string, string>;
  const at = 'spec.strategy.canary';
  // getReferencedServices: stable, canary, then ping and pong; a Service that does not exist is
  // an InvalidSpec ("service ... not found"). ValidateService: every selector label but
  // rollouts-pod-template-hash must be on the pod template; no other Rollout may manage it.
  const services: [string, string][] = [['stableService', str(canary.stableService)], ['canaryService', str(canary.canaryService)]];
  const pp = rec(canary.pingPong);
  if (pp) services.push(['pingPong.pingService', str(pp.pingService)], ['pingPong.pongService', str(pp.pongService)]);
  for (const [field, name] of services) {
    if (name === '') continue;
    const svc = lookup.get('Service', ns, name);
    if (!svc) {
      out.add('serviceNotFound', `${at}.${field}`, `${at}.${field} = "${name}" names no Service in namespace ${ns ?? '(unset)'} among the checked objects: the controller marks the Rollout InvalidSpec (services "${name}" not found) until it exists. Add the Service (selecting the pod template's labels) or fix the name.`, { service: name });
      continue;
    }
    const sel = (rec(rec(svc.spec)?.selector) ?? {}) as Record<string, unknown>;
    const bad = source ? Object.entries(sel).filter(([k, v]) => k !== POD_TEMPLATE_HASH && templateLabels[k] !== v).map(([k]) => k) : [];
    if (bad.length > 0) {
      out.add('serviceSelectorMismatch', `${at}.${field}`, `Service ${name}'s selector ${show(sel)} has ${bad.map((k) => `"${k}"`).join(', ')} that the pod template labels ${show(templateLabels)} do not carry with the same value: the controller refuses it (Service "${name}" has unmatch label "${bad[0]}" in rollout), since the Service would select no pod of this Rollout. Make the Service select the template's labels.`, { service: name, labels: bad.join(', ') });
    }
    const managedBy = rec(rec(svc.metadata)?.annotations)?.[MANAGED_BY];
    if (typeof managedBy === 'string' && managedBy !== roName) {
      out.add('serviceManagedByOther', `${at}.${field}`, `Service ${name} carries ${MANAGED_BY}: "${managedBy}", another Rollout: the controller refuses it (Service "${name}" is managed by another Rollout). Give each Rollout its own Services.`, { service: name, managedBy });
    }
  }
  validateRouterConfig(canary, out);
  validatePluginRoute(ro, canary, lookup, out);
  // getReferencedRolloutAnalyses: the background analysis and every inline analysis step.
  const steps = arr(canary.steps);
  const bg = rec(canary.analysis);
  if (bg && arr(bg.templates).length > 0) validateAnalysisUse(ro, `${at}.analysis`, bg, true, steps, lookup, out);
  steps.forEach((s, i) => {
    const a = rec(rec(s)?.analysis);
    if (a) validateAnalysisUse(ro, `${at}.steps[${i}].analysis`, a, false, steps, lookup, out);
  });
}

/**
 * The router settings getRolloutReferencedResources (rollout/controller.go, v1.9.1) checks before it
 * looks the router's objects up: ValidateRolloutNginxIngressesConfig, ValidateRolloutAlbIngressesConfig,
 * ValidateRolloutVirtualServicesConfig (validation_references.go), getAmbassadorMappings and
 * getReferencedAppMeshResources. (The Ingress, VirtualService, Mapping and AppMesh objects themselves
 * are not checked here.)
 */
function validateRouterConfig(canary: Json, out: Findings): void {
  const tr = rec(canary.trafficRouting);
  if (!tr) return;
  const at = 'spec.strategy.canary.trafficRouting';
  const oneOf = (router: string, single: string, multiple: string, singleSet: boolean, multipleSet: boolean, controller: string) => {
    if (singleSet === multipleSet) {
      out.add('routerConfigInvalid', `${at}.${router}`, `${at}.${router} has ${singleSet ? 'both' : 'neither'} ${single} ${singleSet ? 'and' : 'nor'} ${multiple}: the controller refuses it ("${controller}"). Set exactly one of them.`, { router });
    }
  };
  const nginx = rec(tr.nginx);
  if (nginx) oneOf('nginx', 'stableIngress', 'stableIngresses', str(nginx.stableIngress) !== '', set(nginx.stableIngresses), `Either StableIngress or StableIngresses must be configured. ${str(nginx.stableIngress) !== '' ? 'Both' : 'Neither'} are configured.`);
  const alb = rec(tr.alb);
  if (alb) oneOf('alb', 'ingress', 'ingresses', str(alb.ingress) !== '', set(alb.ingresses), `Either Ingress or Ingresses must be configured. ${str(alb.ingress) !== '' ? 'Both' : 'Neither'} are configured.`);
  const istio = rec(tr.istio);
  if (istio) oneOf('istio', 'virtualService', 'virtualServices', set(istio.virtualService), set(istio.virtualServices), 'either VirtualService or VirtualServices must be configured');
  const ambassador = rec(tr.ambassador);
  if (ambassador && arr(ambassador.mappings).length === 0) out.add('routerConfigInvalid', `${at}.ambassador.mappings`, `${at}.ambassador.mappings is empty: the controller refuses it ("must provide at least one mapping"). List the Mapping names.`, { router: 'ambassador' });
  const appMesh = rec(tr.appMesh);
  if (appMesh && !set(appMesh.virtualService)) out.add('routerConfigInvalid', `${at}.appMesh.virtualService`, `${at}.appMesh.virtualService is missing: the controller refuses it ("must provide virtual-service"). Name the App Mesh VirtualService.`, { router: 'appMesh' });
}

/** The Gateway API plugin (rollouts-plugin-trafficrouter-gatewayapi v0.15.0, pkg/plugin/httproute.go). */
function validatePluginRoute(ro: Json, canary: Json, lookup: ObjectLookup, out: Findings): void {
  const config = rec(rec(rec(canary.trafficRouting)?.plugins)?.[GATEWAY_PLUGIN]);
  if (!config) return;
  const at = `spec.strategy.canary.trafficRouting.plugins["${GATEWAY_PLUGIN}"]`;
  const canarySvc = str(canary.canaryService);
  const stableSvc = str(canary.stableService);
  for (const [field, v] of [['canaryService', canarySvc], ['stableService', stableSvc]] as const) {
    if (v === '') out.add('rwPluginWithoutServices', `spec.strategy.canary.${field}`, `spec.strategy.canary.${field} is empty: the controller accepts this for plugin routers, but the Gateway API plugin sets route weights on the backendRefs named after canaryService and stableService and fails every weight change with "backendRef was not found in httpRoute" (pkg/plugin/httproute.go, v0.15.0). Set both canaryService and stableService.`, { field });
  }
  const routeNs = str(config.namespace) || str(rec(ro.metadata)?.namespace) || undefined;
  const names: { name: string; path: string }[] = [];
  if (str(config.httpRoute) !== '') names.push({ name: str(config.httpRoute), path: `${at}.httpRoute` });
  arr(config.httpRoutes).forEach((r, i) => names.push({ name: str(rec(r)?.name), path: `${at}.httpRoutes[${i}].name` }));
  // discoverRoutesBySelector (pkg/plugin/plugin.go, v0.15.0): routes found by label in the namespace.
  if (set(config.httpRouteSelector)) {
    const sel = readSelector(config.httpRouteSelector);
    const found = lookup.list('HTTPRoute', routeNs).filter((r) => selectorMatches(sel, (rec(rec(r.metadata)?.labels) ?? {}) as Record<string, string>));
    if (found.length === 0) out.add('rwPluginRouteNotFound', `${at}.httpRouteSelector`, `${at}.httpRouteSelector ${show(config.httpRouteSelector)} selects no HTTPRoute in namespace ${routeNs ?? '(unset)'} among the checked objects: the controller accepts it, but the plugin then finds no route to set weights on. Label the HTTPRoute or fix the selector.`);
    for (const r of found) names.push({ name: str(rec(r.metadata)?.name), path: `${at}.httpRouteSelector` });
  }
  const other = ['grpcRoute', 'tcpRoute', 'tlsRoute'].some((k) => str(config[k]) !== '') || ['grpcRoutes', 'tcpRoutes', 'tlsRoutes'].some((k) => arr(config[k]).length > 0)
    || ['grpcRouteSelector', 'tcpRouteSelector', 'tlsRouteSelector'].some((k) => set(config[k]));
  if (names.length === 0 && !other && !set(config.httpRouteSelector)) {
    out.add('rwPluginRouteNotFound', at, `${at} names no route: the controller accepts it, but the plugin fails every weight change ("No routes configured. At least one of 'httpRoutes', ... or 'tlsRoute' must be set", pkg/plugin/errors.go v0.15.0). Set httpRoute: "<the HTTPRoute's name>".`);
  }
  for (const { name, path } of names) {
    const route = lookup.get('HTTPRoute', routeNs, name);
    if (!route) {
      out.add('rwPluginRouteNotFound', path, `${path} = "${name}" names no HTTPRoute in namespace ${routeNs ?? '(unset)'} among the checked objects: the controller accepts it, but the plugin Gets the route at every weight change and fails while it does not exist. Add the HTTPRoute or fix the name.`, { route: name });
      continue;
    }
    const rules = arr(rec(route.spec)?.rules);
    const refsOf = (r: unknown) => arr(rec(r)?.backendRefs).map((b) => str(rec(b)?.name));
    for (const svc of [canarySvc, stableSvc]) {
      if (svc === '') continue;
      if (!rules.some((r) => refsOf(r).includes(svc))) {
        out.add('rwPluginBackendRefMissing', path, `HTTPRoute ${name} has no rule with a backendRef to Service "${svc}": the controller accepts it, but the plugin fails every weight change with "backendRef was not found in httpRoute" (it needs the canary and the stable Service among the backendRefs, pkg/plugin/httproute.go v0.15.0). Add backendRefs to both "${canarySvc}" and "${stableSvc}" (the canary at weight 0).`, { route: name, service: svc });
      }
    }
    rules.forEach((r, i) => {
      const refs = refsOf(r);
      if (canarySvc === '' || stableSvc === '' || refs.includes(canarySvc) === refs.includes(stableSvc)) return;
      const missing = refs.includes(canarySvc) ? stableSvc : canarySvc;
      if (!rules.some((x) => refsOf(x).includes(missing))) return; // reported above: the plugin fails
      out.add('rwPluginRuleWithoutBoth', path, `HTTPRoute ${name} rule ${i} has a backendRef to "${missing === canarySvc ? stableSvc : canarySvc}" but none to "${missing}": the plugin accepts the route (another rule has it) and sets weights only on the backendRefs it finds, so this rule's traffic ${missing === canarySvc ? 'never reaches the canary and escapes the analysis' : 'has no stable backend: it goes only to the canary'}. Give the rule backendRefs to both Services.`, { route: name, rule: i, missing });
    });
  }
}

/** A template reference resolved, with its nested templates (getReferencedAnalysisTemplatesFromRef). */
interface ResolvedTemplate {
  readonly name: string;
  readonly kind: string;
  readonly spec: Json;
}

function resolveTemplates(refs: unknown[], ns: string | undefined, lookup: ObjectLookup, at: string, out: Findings, seen: Set<string>): ResolvedTemplate[] | undefined {
  const res: ResolvedTemplate[] = [];
  for (const [i, r] of refs.entries()) {
    const ref = rec(r) ?? {};
    const name = str(ref.templateName);
    const cluster = ref.clusterScope === true;
    const kind = cluster ? 'ClusterAnalysisTemplate' : 'AnalysisTemplate';
    const t = lookup.get(kind, cluster ? undefined : ns, name);
    if (!t) {
      out.add('templateNotFound', `${at}.templates[${i}].templateName`, `${at}.templates[${i}] names ${kind} "${name}", which is not among the checked objects${cluster ? '' : ` in namespace ${ns ?? '(unset)'}`}: the controller marks the Rollout InvalidSpec ("${kind} '${name}' not found"). Add the template or fix the name${cluster ? '' : ' (set clusterScope: true for a ClusterAnalysisTemplate)'}.`, { template: name, kind });
      return undefined;
    }
    const key = `${kind}/${name}`;
    res.push({ name, kind, spec: rec(t.spec) ?? {} });
    if (seen.has(key)) continue;
    seen.add(key);
    const nested = arr(rec(t.spec)?.templates);
    if (nested.length > 0) {
      const inner = resolveTemplates(nested, ns, lookup, `${key} spec`, out, seen);
      if (!inner) return undefined;
      res.push(...inner);
    }
  }
  return res;
}

/**
 * ValidateAnalysisTemplatesWithType: NewAnalysisRunFromTemplates (FlattenTemplates, MergeArgs,
 * the dry-run and measurement-retention merges) with the Rollout's args, then
 * ValidateAnalysisTemplateWithType: inline analyses need a finite count; a background analysis
 * must supply every template arg that has no value.
 */
function validateAnalysisUse(ro: Json, at: string, analysis: Json, background: boolean, steps: unknown[], lookup: ObjectLookup, out: Findings): void {
  const ns = str(rec(ro.metadata)?.namespace) || undefined;
  const templates = resolveTemplates(arr(analysis.templates), ns, lookup, at, out, new Set());
  if (!templates) return;
  const names = templates.map((t) => t.name).join(', ');
  // FlattenTemplates: flattenMetrics, flattenDryRunMetrics, flattenMeasurementRetentionMetrics, flattenArgs.
  const metricNames = new Map<string, string>();
  for (const t of templates) {
    for (const m of arr(t.spec.metrics)) {
      const n = str(rec(m)?.name);
      const prev = metricNames.get(n);
      if (prev !== undefined) {
        out.add('templatesMergeInvalid', `${at}.templates`, `${at}: ${prev === t.name ? `template ${t.name} has two metrics` : `templates ${prev} and ${t.name} both have a metric`} named "${n}": the controller cannot build the AnalysisRun ("two metrics have the same name '${n}'") and marks the Rollout InvalidSpec. Rename one of the metrics.`, { templates: names, metric: n });
        return;
      }
      metricNames.set(n, t.name);
    }
  }
  for (const field of ['dryRun', 'measurementRetention'] as const) {
    const seen = new Set<string>();
    for (const t of templates) {
      for (const d of arr(t.spec[field])) {
        const n = str(rec(d)?.metricName);
        if (seen.has(n)) {
          out.add('templatesMergeInvalid', `${at}.templates`, `${at}: ${field} rule "${n}" appears twice across the templates ${names}: the controller refuses to build the AnalysisRun ("two ${field === 'dryRun' ? 'Dry-Run' : 'Measurement Retention'} metric rules have the same name '${n}'"). Keep one rule.`, { templates: names, metricName: n });
          return;
        }
        seen.add(n);
      }
    }
    // mergeDryRunMetrics / mergeMeasurementRetentionMetrics with each analysis step's own rules.
    for (const [i, s] of steps.entries()) {
      const stepRules = arr(rec(rec(s)?.analysis)?.[field]).map((d) => str(rec(d)?.metricName));
      const dup = stepRules.find((n) => seen.has(n));
      if (dup !== undefined) {
        out.add('templatesMergeInvalid', `spec.strategy.canary.steps[${i}].analysis.${field}`, `spec.strategy.canary.steps[${i}].analysis.${field} repeats the rule "${dup}" that the templates ${names} already have: the controller refuses it ("two ${field === 'dryRun' ? 'Dry-Run' : 'Measurement Retention'} metric rules have the same name '${dup}'"). Keep the rule in one place.`, { metricName: dup });
        return;
      }
    }
  }
  const args = new Map<string, Json>();
  for (const t of templates) {
    for (const a of arr(t.spec.args)) {
      const arg = rec(a) ?? {};
      const n = str(arg.name);
      const prev = args.get(n);
      if (prev && typeof prev.value === 'string' && typeof arg.value === 'string' && prev.value !== arg.value) {
        out.add('templatesMergeInvalid', `${at}.templates`, `${at}: arg "${n}" has different values across the templates ${names} ("${prev.value}", "${arg.value}"): the controller refuses it ("Argument \`${n}\` specified multiple times with different values"). Give it one value.`, { arg: n });
        return;
      }
      if (!prev || !set(prev.value)) args.set(n, arg);
    }
  }
  // MergeArgs + ResolveArgs: every template arg without value or valueFrom must come from the Rollout.
  const supplied = new Set(arr(analysis.args).map((a) => str(rec(a)?.name)));
  for (const [n, arg] of args) {
    if (set(arg.value) || set(arg.valueFrom) || supplied.has(n)) continue;
    out.add('analysisArgsNotSupplied', `${at}.args`, `${at}: the template arg "${n}" (${names}) has no value and ${at}.args does not supply it: the controller refuses to create the AnalysisRun ("args.${n} was not resolved"${background ? '; "missing analysis arguments in rollout spec"' : ''}) and marks the Rollout InvalidSpec. Add { name: "${n}", value: ... } or valueFrom to ${at}.args.`, { arg: n });
  }
  if (background) return;
  // validateAnalysisMetrics: an arg with both value and valueFrom; then EffectiveCount on the
  // metrics resolved with the template's own args (args without a value get a placeholder).
  for (const [n, arg] of args) {
    if (set(arg.value) && set(arg.valueFrom)) {
      out.add('argValueAndValueFrom', `${at}.templates`, `${at}: the template arg "${n}" has both value and valueFrom: the controller refuses the inline analysis ("arg '${n}' has both Value and ValueFrom fields"). Keep one of them.`, { arg: n });
      return;
    }
  }
  const values = new Map<string, string>();
  for (const [n, arg] of args) values.set(n, typeof arg.value === 'string' ? arg.value : 'dummy-value');
  for (const t of templates) {
    for (const m of arr(t.spec.metrics)) {
      const r = resolveArgs(m, values);
      if (r.unknown.length > 0) {
        out.add('inlineUnresolvedArg', `${at}.templates`, `${at}: ${t.kind} ${t.name} metric "${str(rec(m)?.name)}" uses ${r.unknown[0]}, which is not an arg of the template: the controller cannot resolve it for an analysis step ("AnalysisTemplate ${t.name}: failed to resolve ${r.unknown[0]}") and marks the Rollout InvalidSpec. Declare the arg in the template's spec.args or fix the name.`, { template: t.name, tag: r.unknown[0] });
        return;
      }
      const resolved = rec(r.value) ?? {};
      const count = intOrStringValue(resolved.count) ?? 0;
      if (count === 0 && str(resolved.interval) !== '') {
        out.add('inlineAnalysisIndefinite', `${at}.templates`, `${at}: ${t.kind} ${t.name} metric "${str(resolved.name)}" has interval ${show(resolved.interval)} and ${set(rec(m)?.count) ? `count ${show(rec(m)?.count)}, which reads as 0 here` : 'no count'}: it would run until stopped, and an inline analysis step must end, so the controller refuses it ("runs indefinitely. Invalid value for count"). Set a literal count (e.g. 5); a count from a Rollout arg does not count here.`, { template: t.name, metric: str(resolved.name) });
      }
    }
  }
}

// ---------------------------------------------------------------------------------------------
// utils/analysis/helpers.go ValidateMetrics and GetDryRunMetrics (v1.9.1), run by
// analysis/analysis.go reconcileAnalysisRun on the metrics resolved with the run's args.

/** `{{...}}` tags as fasttemplate finds them (utils/template/template.go). */
const TAG = /\{\{(.*?)\}\}/g;

/**
 * ResolveMetricArgs over a JSON value: each `{{args.x}}` with a known value is substituted;
 * `unknown` lists tags with no declared arg (the controller's "failed to resolve {{...}}"), and
 * `pending` lists args declared without a value (supplied by the Rollout at run time).
 */
function resolveArgs(x: unknown, values: ReadonlyMap<string, string | undefined>, unknown: string[] = [], pending: string[] = []): { value: unknown; unknown: string[]; pending: string[] } {
  const walk = (v: unknown): unknown => {
    if (typeof v === 'string') {
      return v.replace(TAG, (whole, tag: string) => {
        const t = tag.trim();
        if (t.startsWith('args.') && values.has(t.slice(5))) {
          const val = values.get(t.slice(5));
          if (val === undefined) {
            pending.push(t);
            return whole;
          }
          return val;
        }
        unknown.push(whole);
        return '';
      });
    }
    if (Array.isArray(v)) return v.map(walk);
    const r = rec(v);
    if (r) return Object.fromEntries(Object.entries(r).map(([k, e]) => [k, walk(e)]));
    return v;
  };
  return { value: walk(x), unknown, pending };
}

/** The MetricProvider fields (pkg/apis/rollouts/v1alpha1/analysis_types.go, v1.9.1); `plugin` counts once per entry. */
const PROVIDERS = ['prometheus', 'job', 'web', 'wavefront', 'kayenta', 'datadog', 'newRelic', 'cloudWatch', 'graphite', 'influxdb', 'skywalking'];

function validateTemplate(t: Json, out: Findings): void {
  const spec = rec(t.spec) ?? {};
  const metrics = arr(spec.metrics);
  const nested = arr(spec.templates).length > 0;
  if (metrics.length === 0) {
    if (!nested) out.add('noMetrics', 'spec.metrics', 'spec.metrics is empty: an AnalysisRun from this template goes to Error at once ("Analysis spec invalid: no metrics specified") and aborts the rollout. Add a metric.');
    return;
  }
  const values = new Map<string, string | undefined>();
  for (const a of arr(spec.args)) {
    const arg = rec(a) ?? {};
    values.set(str(arg.name), typeof arg.value === 'string' ? arg.value : undefined);
  }
  const names = new Set<string>();
  metrics.forEach((m, i) => {
    const at = `spec.metrics[${i}]`;
    const raw = rec(m) ?? {};
    const name = str(raw.name);
    // ValidateMetrics: duplicate names first, then ValidateMetric.
    if (names.has(name)) {
      out.add('duplicateMetric', `${at}.name`, `${at}.name "${name}" is used twice: the AnalysisRun goes to Error ("metrics[${i}]: duplicate name '${name}'") and the rollout aborts. Give every metric its own name.`, { metric: name });
      return;
    }
    names.add(name);
    const r = resolveArgs(raw, values);
    for (const tag of new Set(r.unknown)) {
      out.add('unresolvedArg', at, `metric "${name}" uses ${tag}, and the template declares no such arg: the AnalysisRun goes to Error ("Unable to resolve metric arguments: failed to resolve ${tag}") and the rollout aborts. Declare it in spec.args or fix the name.`, { metric: name, tag });
    }
    validateMetric(rec(r.value) ?? {}, raw, at, name, out);
  });
  // GetDryRunMetrics / GetMeasurementRetentionMetrics: every rule must match a metric name (a Go regexp).
  for (const field of ['dryRun', 'measurementRetention'] as const) {
    const seen = new Set<string>();
    arr(spec[field]).forEach((d, i) => {
      const pattern = str(rec(d)?.metricName);
      const label = field === 'dryRun' ? 'dryRun' : 'measurementRetention';
      if (seen.has(pattern)) {
        out.add('dryRunRule', `spec.${field}[${i}].metricName`, `spec.${field}[${i}].metricName "${pattern}" is listed twice: the controller refuses it ("two ${field === 'dryRun' ? 'Dry-Run' : 'Measurement Retention'} metric rules have the same name '${pattern}'"). Keep one.`, { metricName: pattern });
        return;
      }
      seen.add(pattern);
      let re: RegExp | undefined;
      try {
        re = new RegExp(pattern, 'u');
      } catch {
        re = undefined;
      }
      if (!re || !metrics.some((m) => re!.test(str(rec(m)?.name)))) {
        out.add('dryRunRule', `spec.${field}[${i}].metricName`, `spec.${field}[${i}].metricName "${pattern}" matches no metric name: the AnalysisRun goes to Error ("${label}[${i}]: Rule didn't match any metric name(s)") and the rollout aborts. Use a metric name (or a regular expression matching one).`, { metricName: pattern });
      }
    });
  }
}

/**
 * ValidateMetric on a metric resolved with the template's arg values; fields still holding an
 * `{{args.x}}` the Rollout supplies are unknown here and not judged.
 */
function validateMetric(m: Json, raw: Json, at: string, name: string, out: Findings): void {
  const pending = (k: string) => typeof m[k] === 'string' && (m[k] as string).includes('{{');
  const num = (k: string) => (pending(k) ? undefined : intOrStringValue(m[k]));
  const count = pending('count') ? undefined : intOrStringValue(m.count) ?? 0;
  const failureLimit = pending('failureLimit') ? undefined : intOrStringValue(m.failureLimit) ?? 0;
  const successLimit = pending('consecutiveSuccessLimit') ? undefined : intOrStringValue(m.consecutiveSuccessLimit) ?? 0;
  const inconclusiveLimit = pending('inconclusiveLimit') ? undefined : intOrStringValue(m.inconclusiveLimit) ?? 0;
  const errorLimit = num('consecutiveErrorLimit');
  const say = (check: ControllerCheck, path: string, why: string, controller: string, fix: string, values: Record<string, string | number | boolean> = {}) =>
    out.add(check, `${at}${path}`, `metric "${name}": ${why}: the AnalysisRun goes to Error ("Analysis spec invalid: ${controller}") and the rollout aborts. ${fix}`, { metric: name, ...values });
  // Only the first error of a metric is reported, as ValidateMetric returns at the first.
  if (successLimit !== undefined && successLimit < 0) return say('negativeLimit', '.consecutiveSuccessLimit', `consecutiveSuccessLimit = ${show(raw.consecutiveSuccessLimit)}`, 'consecutiveSuccessLimit must be >= 0', 'Use 0 (off) or more.', { field: 'consecutiveSuccessLimit' });
  if (failureLimit !== undefined && failureLimit < -1) return say('negativeLimit', '.failureLimit', `failureLimit = ${show(raw.failureLimit)}`, 'failureLimit must be >= 0, or -1 to be disabled', 'Use 0 or more (-1 disables it).', { field: 'failureLimit' });
  if (successLimit === 0 && failureLimit === -1) return say('limitsBothDisabled', '.failureLimit', 'failureLimit = -1 and consecutiveSuccessLimit is 0 (both disabled)', 'failureLimit and consecutiveSuccessLimit cannot both be disabled', 'Set failureLimit to 0 or more, or a consecutiveSuccessLimit.');
  if (inconclusiveLimit !== undefined && inconclusiveLimit < 0) return say('negativeLimit', '.inconclusiveLimit', `inconclusiveLimit = ${show(raw.inconclusiveLimit)}`, 'inconclusiveLimit must be >= 0', 'Use 0 or more.', { field: 'inconclusiveLimit' });
  if (errorLimit !== undefined && errorLimit < 0) return say('negativeLimit', '.consecutiveErrorLimit', `consecutiveErrorLimit = ${show(raw.consecutiveErrorLimit)}`, 'consecutiveErrorLimit must be >= 0', 'Use 0 or more (the default is 4).', { field: 'consecutiveErrorLimit' });
  if (count !== undefined && count > 0) {
    if (successLimit !== undefined && failureLimit !== undefined) {
      if (successLimit >= 0 && failureLimit >= 0 && count < failureLimit + successLimit) {
        return say('countBelowLimits', '.count', `count ${count} is below failureLimit + consecutiveSuccessLimit (${failureLimit} + ${successLimit})`, `count (${count}) must be >= failureLimit + consecutiveSuccessLimit (${failureLimit} + ${successLimit}) if both >= 0`, `Raise count to at least ${failureLimit + successLimit} or lower the limits.`, { count, failureLimit, consecutiveSuccessLimit: successLimit });
      }
      if (successLimit >= 0 && failureLimit < 0 && count < successLimit) {
        return say('countBelowLimits', '.count', `count ${count} is below consecutiveSuccessLimit ${successLimit}`, 'count must be >= consecutiveSuccessLimit', `Raise count to at least ${successLimit}.`, { count, consecutiveSuccessLimit: successLimit });
      }
    }
    if (inconclusiveLimit !== undefined && count < inconclusiveLimit) {
      return say('countBelowInconclusive', '.count', `count ${count} is below inconclusiveLimit ${inconclusiveLimit}`, 'count must be >= inconclusiveLimit', `Raise count to at least ${inconclusiveLimit} or lower inconclusiveLimit.`, { count, inconclusiveLimit });
    }
  }
  const interval = str(m.interval);
  if (count !== undefined && count > 1 && interval === '' && !pending('interval')) {
    return say('intervalRequired', '.interval', `count ${count} and no interval`, 'interval must be specified when count > 1', 'Set interval (e.g. "1m") between the measurements.', { count });
  }
  for (const [field, label] of [['interval', 'interval'], ['initialDelay', 'startDelay']] as const) {
    const v = str(m[field]);
    if (v === '' || pending(field)) continue;
    const d = parseGoDuration(v);
    if ('error' in d) return say('durationInvalid', `.${field}`, `${field} ${show(v)} is not a Go duration`, `invalid ${label} string: ${d.error}`, 'Write a Go duration with units ns, us, ms, s, m, h ("30s", "1m", "1h30m"); there is no "d" unit.', { field, value: v });
  }
  const provider = rec(m.provider) ?? {};
  let n = PROVIDERS.filter((p) => set(provider[p])).length;
  const plugin = rec(provider.plugin);
  if (plugin) n += Object.keys(plugin).length;
  if (n === 0) return say('providerCount', '.provider', `no provider${Object.keys(provider).length ? ` rollouts knows (${Object.keys(provider).join(', ')})` : ''}`, 'no provider specified', 'Give exactly one provider, e.g. provider: { prometheus: { address, query } }.');
  if (n > 1) return say('providerCount', '.provider', `${n} providers (${Object.keys(provider).join(', ')})`, 'multiple providers specified', 'Keep exactly one provider per metric.');
  return undefined;
}
