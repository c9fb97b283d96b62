// pkg/apis/rollouts/validation/validation.go (v1.9.1): ValidateRolloutSpec and what it calls.
import {
  goParseInt32,
  intOrPercentValue,
  labelSelectorErrors,
  metadataFieldPathError,
  parseGoDuration,
  selectorMatches,
} from '../go-values';
import { arr, Findings, Json, readSelector, rec, set, show, str } from './findings';
import { RESOLVED } from './templateref';

/** The step fields of the Rollout CRD (manifests/crds/rollout-crd.yaml, v1.9.1); the API server prunes any other. */
const STEP_FIELDS = [
  'setWeight',
  'pause',
  'analysis',
  'setCanaryScale',
  'experiment',
  'setHeaderRoute',
  'setMirrorRoute',
  'plugin',
];

/** ValidateRolloutSpec, on the Rollout with its workloadRef resolved. */
export function validateRolloutSpec(ro: Json, out: Findings): void {
  const resolved = (ro as { [RESOLVED]?: boolean })[RESOLVED] === true;
  const spec = rec(ro.spec) ?? {};
  // apivalidation.ValidateNonnegativeField on replicas (default 1), minReadySeconds,
  // revisionHistoryLimit (default 10) and progressDeadlineSeconds (default 600).
  for (const field of ['replicas', 'minReadySeconds', 'revisionHistoryLimit', 'progressDeadlineSeconds']) {
    const v = spec[field];
    if (typeof v === 'number' && v < 0) {
      out.add(
        'negativeField',
        `spec.${field}`,
        `spec.${field} = ${v}: the controller requires a non-negative value ("must be greater than or equal to 0"). ` +
          'Use 0 or more.',
        { field, value: v },
      );
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
      out.add(
        'selectorInvalid',
        'spec.selector',
        'spec.selector is missing: the controller refuses a Rollout without one ("Rollout has missing field ' +
          `'.spec.selector'"). Set spec.selector.matchLabels to the pod template's labels, e.g. { ` +
          `app: ${show(templateLabels.app ?? str(rec(ro.metadata)?.name))} }.`,
      );
    } else {
      const sel = readSelector(spec.selector);
      for (const e of labelSelectorErrors(sel)) {
        selectorOk = false;
        out.add(
          'selectorInvalid',
          `spec.selector.${e.path}`,
          `spec.selector.${e.path}: ${e.error}; the controller refuses an invalid label selector. Use valid label ` +
            'keys, values and operators.',
          { error: e.error },
        );
      }
      if (Object.keys(sel.matchLabels).length + sel.matchExpressions.length === 0) {
        selectorOk = false;
        out.add(
          'selectorInvalid',
          'spec.selector',
          `spec.selector ${show(spec.selector)} is empty: the controller refuses it ("empty selector is invalid for ` +
            `deployment"), since it would select every pod of the namespace. Set matchLabels to the pod template's ` +
            'labels.',
        );
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
      out.add(
        'selectorTemplateMismatch',
        'spec.selector',
        `spec.selector is missing and the ${str(rec(spec.workloadRef)?.kind)} the workloadRef names has none to ` +
          `lend: a missing selector matches no pod, and the controller refuses it ("\`selector\` does not match ` +
          `template \`labels\`"). Set spec.selector.matchLabels to the template's labels.`,
      );
    } else if (!selectorMatches(sel, templateLabels)) {
      out.add(
        'selectorTemplateMismatch',
        'spec.template.metadata.labels',
        `spec.selector ${show(spec.selector)} does not match the pod template labels ${show(templateLabels)}: the ` +
          `controller refuses it ("\`selector\` does not match template \`labels\`"), since the ReplicaSets it ` +
          'creates would not own their pods. Make spec.template.metadata.labels carry every selector label.',
        { selector: show(spec.selector), labels: show(templateLabels) },
      );
    }
    const podSpec = rec(template.spec) ?? {};
    if (set(podSpec.restartPolicy) && podSpec.restartPolicy !== 'Always') {
      out.add(
        'templateNotForReplicaSet',
        'spec.template.spec.restartPolicy',
        `spec.template.spec.restartPolicy = ${show(podSpec.restartPolicy)}: pods of a ReplicaSet must restart, so ` +
          'the controller refuses anything but "Always". Remove it or set "Always".',
        { value: show(podSpec.restartPolicy) },
      );
    }
    if (set(podSpec.activeDeadlineSeconds)) {
      out.add(
        'templateNotForReplicaSet',
        'spec.template.spec.activeDeadlineSeconds',
        `spec.template.spec.activeDeadlineSeconds = ${show(podSpec.activeDeadlineSeconds)}: the controller refuses ` +
          'it for ReplicaSet pods ("activeDeadlineSeconds in ReplicaSet is not Supported"), a deadline would kill ' +
          'serving pods. Remove it.',
        { value: show(podSpec.activeDeadlineSeconds) },
      );
    }
  }
  const minReady = typeof spec.minReadySeconds === 'number' ? spec.minReadySeconds : 0;
  const deadline = typeof spec.progressDeadlineSeconds === 'number' ? spec.progressDeadlineSeconds : 600;
  if (deadline <= minReady) {
    out.add(
      'progressDeadline',
      'spec.progressDeadlineSeconds',
      `spec.progressDeadlineSeconds = ${deadline}${set(spec.progressDeadlineSeconds) ? '' : ' (default)'} is not ` +
        `greater than spec.minReadySeconds = ${minReady}: the controller refuses it ("must be greater than ` +
        'minReadySeconds"), since no pod could become available before the deadline. Set progressDeadlineSeconds ' +
        `above ${minReady} (600 or more is usual).`,
      { progressDeadlineSeconds: deadline, minReadySeconds: minReady },
    );
  }
  validateRolloutStrategy(ro, out);
}

/** ValidateRolloutStrategy. */
function validateRolloutStrategy(ro: Json, out: Findings): void {
  const strategy = rec(rec(ro.spec)?.strategy) ?? {};
  const bg = set(strategy.blueGreen);
  const canary = set(strategy.canary);
  if (!bg && !canary) {
    out.add(
      'strategyMissing',
      'spec.strategy',
      'spec.strategy has neither canary nor blueGreen: the controller refuses it ("Rollout has missing field ' +
        "'.spec.strategy.canary or .spec.strategy.blueGreen'\"). Add spec.strategy.canary with its steps.",
    );
  } else if (bg && canary) {
    out.add(
      'strategyBoth',
      'spec.strategy',
      'spec.strategy has both canary and blueGreen: the controller refuses it ("Multiple Strategies can not be ' +
        'listed"). Keep one of them.',
    );
  } else if (canary) {
    validateCanary(rec(strategy.canary) ?? {}, out);
  }
}

/** requireCanaryStableServices: the routers that find their objects through both Service names. */
function requireCanaryStableServices(canary: Json): boolean {
  const tr = rec(canary.trafficRouting);
  if (!tr) return false;
  const pingPong = set(canary.pingPong);
  return (
    (set(tr.alb) && !pingPong) ||
    (set(tr.istio) && !set(rec(tr.istio)?.destinationRule) && !pingPong) ||
    set(tr.smi) ||
    set(tr.apisix) ||
    set(tr.ambassador) ||
    set(tr.nginx) ||
    set(tr.appMesh) ||
    set(tr.traefik)
  );
}

/** ValidateRolloutStrategyCanary. */
function validateCanary(canary: Json, out: Findings): void {
  const at = 'spec.strategy.canary';
  // invalidMaxSurgeMaxUnavailable, with the defaults of utils/defaults (25 % / 25 %).
  const surge = set(canary.maxSurge) ? canary.maxSurge : '25%';
  const unavailable = set(canary.maxUnavailable) ? canary.maxUnavailable : '25%';
  if (intOrPercentValue(surge) === 0 && intOrPercentValue(unavailable) === 0) {
    out.add(
      'surgeUnavailableZero',
      `${at}.maxSurge`,
      `${at}.maxSurge = ${show(surge)} and maxUnavailable = ${show(unavailable)} are both zero: the controller ` +
        'refuses it ("MaxSurge and MaxUnavailable both can not be zero"), since no pod could ever be replaced. Set ' +
        'maxSurge to 1 or "25%" (keep maxUnavailable 0 for a rollout that never loses capacity).',
      { maxSurge: show(surge), maxUnavailable: show(unavailable) },
    );
  }
  const canarySvc = str(canary.canaryService);
  const stableSvc = str(canary.stableService);
  if (canarySvc !== '' && canarySvc === stableSvc) {
    out.add(
      'sameService',
      `${at}.stableService`,
      `${at}.canaryService and stableService are both "${stableSvc}": the controller refuses it ("two different ` +
        'services are required"), since the canary Service is re-pointed at the canary pods. Use two Services (e.g. ' +
        `"${stableSvc}" and "${stableSvc}-canary").`,
      { service: stableSvc },
    );
  }
  const tr = rec(canary.trafficRouting);
  const routing = set(canary.trafficRouting);
  const pingPong = rec(canary.pingPong);
  if (set(canary.pingPong)) {
    const ping = str(pingPong?.pingService);
    const pong = str(pingPong?.pongService);
    const bad: [string, string][] = [];
    if (routing && !set(tr?.alb) && !set(tr?.istio))
      bad.push([
        `${at}.trafficRouting.alb`,
        'ping-pong works only with the ALB and ' +
          'Istio traffic routers ("Ping-pong feature works with the ALB and Istio traffic routers only")',
      ]);
    if (ping === '')
      bad.push([
        `${at}.pingPong.pingService`,
        'pingService is empty ("Ping service and Pong service ' + 'must to be set")',
      ]);
    if (pong === '')
      bad.push([
        `${at}.pingPong.pongService`,
        'pongService is empty ("Ping service and Pong service ' + 'must to be set")',
      ]);
    if (ping === pong)
      bad.push([
        `${at}.pingPong.pingService`,
        `pingService and pongService are both "${ping}" ("two ` + 'different services are required")',
      ]);
    if (routing && set(tr?.alb) && str(rec(tr?.alb)?.rootService) === '')
      bad.push([
        `${at}.trafficRouting.alb.rootService`,
        'ALB with ping-pong needs rootService ' + '("Root service field is required")',
      ]);
    for (const [path, why] of bad)
      out.add(
        'pingPong',
        path,
        `${why}: the controller refuses the Rollout. Fix the pingPong settings or remove pingPong.`,
      );
  }
  if (requireCanaryStableServices(canary)) {
    for (const [field, v] of [
      ['stableService', stableSvc],
      ['canaryService', canarySvc],
    ] as const) {
      if (v === '')
        out.add(
          'routingWithoutServices',
          `${at}.${field}`,
          `${at}.${field} is empty while trafficRouting ` +
            `uses ${Object.keys(tr ?? {})
              .filter((k) => !['managedRoutes', 'maxTrafficWeight'].includes(k))
              .join(', ')}: ` +
            'that router needs both Services and the controller refuses it ("Canary service and Stable service must to ' +
            'be set to use Traffic Routing"). Set canaryService and stableService.',
          { field },
        );
    }
  }
  const hasDelay = set(canary.scaleDownDelaySeconds);
  const dynamic = canary.dynamicStableScale === true;
  if (!routing) {
    if (hasDelay)
      out.add(
        'scaleDownDelayWithoutRouting',
        `${at}.scaleDownDelaySeconds`,
        `${at}.scaleDownDelaySeconds = ${show(canary.scaleDownDelaySeconds)} without trafficRouting: the controller ` +
          'refuses it ("Canary scaleDownDelaySeconds can only be used with traffic routing"). Remove it, or add ' +
          'trafficRouting.',
        { value: show(canary.scaleDownDelaySeconds) },
      );
    if (dynamic)
      out.add(
        'dynamicStableScaleWithoutRouting',
        `${at}.dynamicStableScale`,
        `${at}.dynamicStableScale = true without trafficRouting: the controller refuses it ("Canary dynamicStableScale ` +
          'can only be used with traffic routing"). Remove it, or add trafficRouting.',
      );
  } else {
    const delay = show(canary.scaleDownDelaySeconds);
    if (hasDelay && dynamic)
      out.add(
        'dynamicStableScaleWithDelay',
        `${at}.dynamicStableScale`,
        `${at}.dynamicStableScale = true together with scaleDownDelaySeconds = ${delay}: ` +
          'the controller refuses it ("Canary dynamicStableScale cannot be used with scaleDownDelaySeconds"). Remove ' +
          'one of them (rollwise keeps dynamicStableScale false, so an abort is instant).',
        { scaleDownDelaySeconds: show(canary.scaleDownDelaySeconds) },
      );
    if (set(tr?.maxTrafficWeight) && !set(tr?.nginx) && Object.keys(rec(tr?.plugins) ?? {}).length === 0) {
      out.add(
        'maxTrafficWeightUnsupported',
        `${at}.trafficRouting.maxTrafficWeight`,
        `${at}.trafficRouting.maxTrafficWeight = ${show(tr?.maxTrafficWeight)} with neither nginx nor a plugin ` +
          'router: the controller refuses it ("Canary maxTrafficWeight in traffic routing only supported in Nginx ' +
          'and Plugins"). Remove it (the default is 100).',
        { value: show(tr?.maxTrafficWeight) },
      );
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
      out.add(
        'rwStepUnknownField',
        `${sp}.${unknown[0]}`,
        `${sp} has ${unknown.map((k) => `"${k}"`).join(', ')}, which is not a step field: the Rollout CRD declares ` +
          `only ${STEP_FIELDS.join(', ')}, so the API server prunes it from the stored Rollout (or, with strict ` +
          'field validation, refuses the request); the controller never sees it and this part of the step never ' +
          'runs. Use one of the step fields (e.g. pause: { duration: "10m" }).',
        { fields: unknown.join(', ') },
      );
    }
    const has = (k: string) => set(step[k]);
    // hasMultipleStepsType looks only at setWeight, pause, experiment and analysis.
    const four = ['setWeight', 'pause', 'experiment', 'analysis'].filter(has);
    if (four.length > 1) {
      out.add(
        'stepSeveralKinds',
        sp,
        `${sp} has ${four.join(' and ')}: the controller refuses a step with more than one of setWeight, pause, ` +
          'experiment, analysis ("Step must have one of the following set"). Split it into one step per action, e.g. ' +
          '[{ setWeight: 5 }, { pause: {} }].',
        { kinds: four.join(', ') },
      );
    }
    const present = STEP_FIELDS.filter(has);
    if (present.length === 0) {
      out.add(
        'stepNoKind',
        sp,
        `${sp} ${show(raw)} has none ` +
          `of ${STEP_FIELDS.join(', ')}${unknown.length ? ' once the API server drops the unknown fields' : ''}: the ` +
          'controller refuses it ("Step must have one of the following set: experiment, setWeight, setCanaryScale, ' +
          'plugin or pause"). Give the step exactly one action, or delete it.',
      );
    } else if (present.length > 1 && four.length <= 1) {
      // completedCurrentCanaryStep (rollout/canary.go, v1.9.1) decides completion by the first of
      // pause, setCanaryScale, setWeight, experiment, analysis, setHeaderRoute, setMirrorRoute, plugin.
      // Every action of the step still takes effect while it is current: the weight and the canary
      // scale are read from the steps up to the current one (GetCurrentSetWeight, UseSetCanaryScale,
      // utils/replicaset/canary.go) and the header and mirror routes are set whenever the current
      // step has them (rollout/trafficrouting.go). setHeaderRoute and setMirrorRoute complete at
      // once, so they combine with any action (Argo Rollouts' own examples pair setCanaryScale with
      // setHeaderRoute). What is lost is the wait of a second action that has one of its own.
      const order = [
        'pause',
        'setCanaryScale',
        'setWeight',
        'experiment',
        'analysis',
        'setHeaderRoute',
        'setMirrorRoute',
        'plugin',
      ];
      const first = order.find(has)!;
      const waits = ['pause', 'setCanaryScale', 'setWeight', 'plugin'].filter((k) => has(k) && k !== first);
      if (waits.length > 0) {
        const what: Record<string, string> = {
          pause: 'its pause',
          setCanaryScale: 'the canary to reach its scale',
          setWeight: 'the weight to be reached and verified',
          plugin: 'the step plugin to complete',
        };
        out.add(
          'rwStepSeveralActions',
          sp,
          `${sp} has ${present.join(' and ')}: the controller accepts this and applies every action, but it judges ` +
            `the step complete by ${first} alone (completedCurrentCanaryStep checks pause, setCanaryScale, ` +
            'setWeight, experiment, analysis, setHeaderRoute, setMirrorRoute, plugin in that order), so the step ' +
            `moves on without waiting for ${waits.map((k) => what[k]).join(' or ')}. Split it into one step per ` +
            'action.',
          { kinds: present.join(', '), completesOn: first, notAwaited: waits.join(', ') },
        );
      }
    }
    if (has('setWeight')) {
      const w = step.setWeight;
      if (typeof w === 'number' && (w < 0 || w > maxWeight)) {
        out.add(
          'setWeightRange',
          `${sp}.setWeight`,
          `${sp}.setWeight = ${w}: the controller refuses a weight outside 0..${maxWeight} ("SetWeight needs to be ` +
            `between 0 and ${maxWeight}"${maxWeight === 100 ? '' : ', maxTrafficWeight'}). Use a weight from 0 ` +
            `to ${maxWeight}.`,
          { value: w, max: maxWeight },
        );
      }
    }
    if (has('pause')) {
      const seconds = pauseDurationSeconds(rec(step.pause)?.duration);
      if (seconds < 0) {
        const d = rec(step.pause)?.duration;
        out.add(
          'pauseDuration',
          `${sp}.pause.duration`,
          `${sp}.pause.duration ` +
            `= ${show(d)}: ${
              typeof d === 'string' && 'error' in parseGoDuration(d) && goParseInt32(d) === undefined
                ? 'neither whole seconds nor a Go duration ' +
                  '(time.ParseDuration refuses it), so the controller reads it as -1 s'
                : 'a negative duration'
            } ` +
            'and refuses it ("Duration needs to be greater than 0"). Write whole seconds (600) or a Go duration with ' +
            'units ns, us, ms, s, m, h ("10m", "1h30m"); there is no "d" unit: use "24h".',
          { value: show(d) },
        );
      }
    }
    if (has('setCanaryScale') && !routing) {
      out.add(
        'setCanaryScaleWithoutRouting',
        `${sp}.setCanaryScale`,
        `${sp}.setCanaryScale without trafficRouting: the controller refuses it ("SetCanaryScale requires ` +
          `TrafficRouting to be set"), since without a router the canary's share is its replica count. Add ` +
          'trafficRouting, or use setWeight.',
      );
    }
    if (has('setHeaderRoute')) {
      const hr = rec(step.setHeaderRoute) ?? {};
      if (
        !routing ||
        (!set(tr?.istio) && !set(tr?.alb) && !set(tr?.apisix) && Object.keys(rec(tr?.plugins) ?? {}).length === 0)
      ) {
        out.add(
          'headerRouteUnsupported',
          `${sp}.setHeaderRoute`,
          `${sp}.setHeaderRoute needs Istio, ALB, Apisix or a plugin router: the controller refuses it ` +
            '("SetHeaderRoute requires TrafficRouting, supports Istio and ALB and Apisix"). Add such a ' +
            'trafficRouting, or remove the step.',
        );
      } else {
        arr(hr.match).forEach((m, j) => {
          const hv = rec(m)?.headerValue;
          const err = set(tr?.alb) ? albMatchError(hv) : stringMatchError(hv);
          if (err)
            out.add(
              'routeMatchInvalid',
              `${sp}.setHeaderRoute.match[${j}]`,
              `${sp}.setHeaderRoute.match[${j}].headerValue ${show(hv)}: ${err}; the controller refuses the Rollout. ` +
                `Give exactly one of exact, regex, prefix${set(tr?.alb) ? ' (ALB: exact only)' : ''}.`,
            );
        });
      }
    }
    if (has('setMirrorRoute')) {
      const mr = rec(step.setMirrorRoute) ?? {};
      if (!routing || !set(tr?.istio)) {
        out.add(
          'mirrorRouteWithoutIstio',
          `${sp}.setMirrorRoute`,
          `${sp}.setMirrorRoute without Istio traffic routing: the controller refuses it ("SetMirrorRoute requires ` +
            'TrafficRouting, supports Istio only"); the Gateway API plugin cannot mirror. Remove the step.',
        );
      }
      arr(mr.match).forEach((m, j) => {
        const match = rec(m) ?? {};
        for (const k of ['method', 'path'] as const) {
          if (!set(match[k])) continue;
          const err = stringMatchError(match[k]);
          if (err)
            out.add(
              'routeMatchInvalid',
              `${sp}.setMirrorRoute.match[${j}]`,
              `${sp}.setMirrorRoute.match[${j}].${k} ${show(match[k])}: ${err}; the controller refuses the Rollout. ` +
                'Give exactly one of exact, regex, prefix.',
            );
        }
      });
    }
    if (routing && (has('setHeaderRoute') || has('setMirrorRoute'))) {
      const kind = has('setHeaderRoute') ? 'setHeaderRoute' : 'setMirrorRoute';
      if (managed === undefined) {
        out.add(
          'managedRoutesMissing',
          `${at}.trafficRouting.managedRoutes`,
          `${sp}.${kind} but ${at}.trafficRouting.managedRoutes is missing: the controller refuses it ("Rollout has ` +
            `missing field 'spec.strategy.canary.trafficRouting.managedRoutes'"), since it only manages routes ` +
            `listed there. Add managedRoutes: [{ name: ${show(str(rec(step[kind])?.name))} }].`,
        );
      } else {
        for (const k of ['setHeaderRoute', 'setMirrorRoute']) {
          if (!has(k)) continue;
          const name = str(rec(step[k])?.name);
          if (!managed.includes(name))
            out.add(
              'routeNotManaged',
              `${sp}.${k}`,
              `${sp}.${k}.name = "${name}" is not in ${at}.trafficRouting.managedRoutes ` +
                `(${managed.map((n) => `"${n}"`).join(', ') || 'none'}): the controller refuses it ("Steps define a ` +
                'route that does not exist in spec.strategy.canary.trafficRouting.managedRoutes"). Add { name: ' +
                `"${name}" } to managedRoutes.`,
              { name },
            );
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
        const shown = show(weight);
        if (!routing)
          out.add(
            'experimentWeightUnsupported',
            path,
            `${path} = ${shown} without trafficRouting: the controller refuses it ("Experiment template weight ` +
              'cannot be set unless TrafficRouting is enabled"). Remove the weight, or add trafficRouting.',
          );
        else if (!set(tr?.alb) && !set(tr?.smi) && !set(tr?.istio) && Object.keys(rec(tr?.plugins) ?? {}).length === 0)
          out.add(
            'experimentWeightUnsupported',
            path,
            `${path} = ${show(weight)}: the controller refuses experiment weights except with SMI, ALB, Istio or a ` +
              'plugin router ("Experiment template weight is only available for TrafficRouting with SMI, ALB, Istio ' +
              'and Plugins at this time"). Remove the weight.',
          );
      });
      for (const a of arr(ex.analyses)) stepArgs.push(...arr(rec(a)?.args));
    }
    if (has('analysis')) stepArgs.push(...arr(rec(step.analysis)?.args));
    for (const a of stepArgs) {
      const fp = str(rec(rec(rec(a)?.valueFrom)?.fieldRef)?.fieldPath);
      if (!fp.startsWith('metadata')) continue;
      const err = metadataFieldPathError(fp);
      const argName = str(rec(a)?.name);
      if (err)
        out.add(
          'analysisArgFieldRef',
          `${sp}.${has('analysis') ? 'analysis' : 'experiment'}.args`,
          `${sp}: arg "${argName}" valueFrom.fieldRef.fieldPath = "${fp}": ${err}; the controller refuses it ` +
            '("Analyses arguments must refer to valid object metadata supported by downwardAPI"). Use metadata.name, ' +
            `metadata.namespace, metadata.uid, metadata.labels['<key>'] or metadata.annotations['<key>'].`,
          { fieldPath: fp },
        );
    }
  });
  // ValidateRolloutStrategyAntiAffinity.
  if (set(canary.antiAffinity)) {
    const aa = rec(canary.antiAffinity) ?? {};
    const preferred = set(aa.preferredDuringSchedulingIgnoredDuringExecution);
    const required = set(aa.requiredDuringSchedulingIgnoredDuringExecution);
    if (preferred === required) {
      out.add(
        'antiAffinity',
        `${at}.antiAffinity`,
        `${at}.antiAffinity ` +
          `has ${
            preferred ? 'both preferred and required' : 'neither preferred nor required'
          }DuringSchedulingIgnoredDuringExecution: ` +
          'the controller refuses it ("AntiAffinity must have exactly one strategy listed"). Keep exactly one.',
      );
    }
    const w = rec(aa.preferredDuringSchedulingIgnoredDuringExecution)?.weight;
    if (preferred && (typeof w !== 'number' || w < 1 || w > 100)) {
      out.add(
        'antiAffinity',
        `${at}.antiAffinity.weight`,
        `${at}.antiAffinity.preferredDuringSchedulingIgnoredDuringExecution.weight = ${show(w)}: the controller ` +
          'refuses a weight outside 1..100 ("AntiAffinity weight must be between 1-100"). Use 1 to 100.',
        { weight: show(w) },
      );
    }
  }
  // rollwise's own: a background analysis whose startingStep is at or past the last step.
  const bgAnalysis = rec(canary.analysis);
  const startingStep = bgAnalysis?.startingStep;
  if (typeof startingStep === 'number' && arr(bgAnalysis?.templates).length > 0 && startingStep >= steps.length) {
    out.add(
      'rwStartingStepAfterSteps',
      `${at}.analysis.startingStep`,
      `${at}.analysis.startingStep = ${startingStep} with ${steps.length} step(s): the controller accepts it, but it ` +
        'creates the background analysis only once the current step index reaches startingStep (BeforeStartingStep), ' +
        'that is after every step has completed, when it promotes the canary (and it creates none for a fully ' +
        `promoted Rollout): the background analysis gates nothing. Use a step index below ${steps.length} (1 starts ` +
        'it after the first setWeight).',
      { startingStep, steps: steps.length },
    );
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
  if (!r)
    return (
      'match value missed ("StringMatch value missed, match value must have one of the following: exact, ' +
      'regex, prefix")'
    );
  const n = ['exact', 'regex', 'prefix'].filter((k) => str(r[k]) !== '').length;
  if (n > 1)
    return (
      'more than one of exact, regex, prefix ("StringMatch match value must have exactly one of the ' +
      'following: exact, regex, prefix")'
    );
  if (n === 0)
    return (
      'none of exact, regex, prefix ("StringMatch value missed, match value must have one of the ' +
      'following: exact, regex, prefix")'
    );
  return undefined;
}

/** hasALBInvalidValues: ALB matches headers by exact value only. */
function albMatchError(m: unknown): string | undefined {
  const r = rec(m);
  if (!r) return 'match value missed ("StringMatch value missed")';
  if (str(r.exact) === '' || str(r.regex) !== '' || str(r.prefix) !== '')
    return (
      'ALB supports only an exact value ' + '("SetHeaderRoute match value invalid. ALB supports \'exact\' value only")'
    );
  return undefined;
}
