/**
 * What the Argo Rollouts controller checks (and a few things it should), run at synth time on the
 * emitted Rollout. The controller has no admission webhook: without this a bad spec only shows up in
 * the cluster as an InvalidSpec condition, which Argo CD reports as Degraded (reference: Argo Rollouts).
 */

type Obj = { apiVersion?: string; kind?: string; metadata?: { name?: string; namespace?: string; labels?: Record<string, string> }; spec?: Record<string, any> }; // eslint-disable-line @typescript-eslint/no-explicit-any -- manifests are untyped JSON

const STEP_KINDS = ['setWeight', 'pause', 'analysis', 'setCanaryScale', 'experiment', 'setHeaderRoute', 'setMirrorRoute', 'plugin'];
const GO_DURATION = /^(\d+(\.\d+)?(ns|us|µs|ms|s|m|h))+$/;

/** Errors for one Rollout, each naming the step or field; `objects` are the other manifests synthesized with it. */
export function checkRolloutSpec(rollout: Obj, objects: readonly Obj[]): string[] {
  const errs: string[] = [];
  const name = `Rollout ${rollout.metadata?.name}`;
  const spec = rollout.spec ?? {};
  const canary = spec.strategy?.canary;
  const minReady = spec.minReadySeconds ?? 0;
  const deadline = spec.progressDeadlineSeconds ?? 600;
  if (deadline <= minReady) errs.push(`${name}: spec.progressDeadlineSeconds (${deadline}) must exceed spec.minReadySeconds (${minReady}).`);
  if (!canary) {
    if (!spec.strategy?.blueGreen) errs.push(`${name}: spec.strategy has neither canary nor blueGreen.`);
    return errs;
  }
  const routing = canary.trafficRouting;
  const hasRouting = routing !== undefined && Object.keys(routing).length > 0;
  const surge = canary.maxSurge ?? '25%';
  const unavailable = canary.maxUnavailable ?? '25%';
  if (isZero(surge) && isZero(unavailable)) errs.push(`${name}: spec.strategy.canary.maxSurge and maxUnavailable are both 0: the rollout can never make progress.`);
  if (canary.dynamicStableScale === true && canary.scaleDownDelaySeconds !== undefined) errs.push(`${name}: spec.strategy.canary.dynamicStableScale cannot be combined with scaleDownDelaySeconds.`);
  if (canary.scaleDownDelaySeconds !== undefined && !hasRouting) errs.push(`${name}: spec.strategy.canary.scaleDownDelaySeconds requires trafficRouting.`);

  // Services: both named, distinct, present, selecting the pod template.
  const templateLabels: Record<string, string> = spec.template?.metadata?.labels ?? {};
  for (const field of ['canaryService', 'stableService'] as const) {
    const svcName = canary[field];
    if (!svcName) {
      errs.push(`${name}: spec.strategy.canary.${field} is missing: the Gateway API plugin finds the HTTPRoute backendRefs by the canary and stable Service names, so without it the traffic split fails at reconcile time.`);
      continue;
    }
    const svc = objects.find((o) => o.kind === 'Service' && o.metadata?.name === svcName && (o.metadata?.namespace ?? '') === (rollout.metadata?.namespace ?? ''));
    if (!svc) {
      errs.push(`${name}: spec.strategy.canary.${field} "${svcName}" names no Service in the same namespace among the synthesized objects.`);
      continue;
    }
    const sel: Record<string, string> = svc.spec?.selector ?? {};
    const mismatch = Object.entries(sel).filter(([k, v]) => templateLabels[k] !== v);
    if (Object.keys(sel).length === 0 || mismatch.length > 0) errs.push(`${name}: Service ${svcName}'s selector ${JSON.stringify(sel)} does not match the pod template labels ${JSON.stringify(templateLabels)}.`);
  }
  if (canary.canaryService && canary.canaryService === canary.stableService) errs.push(`${name}: spec.strategy.canary.canaryService and stableService must differ (both "${canary.canaryService}").`);

  // Gateway API plugin: the HTTPRoute must exist and carry both backendRefs.
  const plugin = routing?.plugins?.['argoproj-labs/gatewayAPI'];
  if (plugin) {
    const routeName = plugin.httpRoute;
    if (!routeName) errs.push(`${name}: trafficRouting.plugins["argoproj-labs/gatewayAPI"].httpRoute is missing.`);
    else {
      const route = objects.find((o) => o.kind === 'HTTPRoute' && o.metadata?.name === routeName);
      if (!route) errs.push(`${name}: trafficRouting.plugins["argoproj-labs/gatewayAPI"].httpRoute "${routeName}" names no synthesized HTTPRoute.`);
      else {
        for (const [i, rule] of ((route.spec?.rules ?? []) as { backendRefs?: { name: string }[] }[]).entries()) {
          const refs = (rule.backendRefs ?? []).map((b) => b.name);
          for (const svc of [canary.canaryService, canary.stableService]) {
            if (svc && !refs.includes(svc)) errs.push(`${name}: HTTPRoute ${routeName} rule ${i} has no backendRef to "${svc}"; the plugin errors when either is missing.`);
          }
        }
      }
    }
  }

  // Steps.
  const steps: Record<string, unknown>[] = canary.steps ?? [];
  steps.forEach((step, i) => {
    const at = `${name}: spec.strategy.canary.steps[${i}]`;
    const kinds = Object.keys(step).filter((k) => step[k] !== undefined && step[k] !== null);
    const known = kinds.filter((k) => STEP_KINDS.includes(k));
    if (kinds.length !== 1 || known.length !== 1) {
      errs.push(`${at} ${JSON.stringify(step)}: a step must have exactly one of ${STEP_KINDS.join(', ')} (found ${kinds.length ? kinds.join(', ') : 'none'}).`);
      return;
    }
    const kind = known[0];
    const v = step[kind] as any; // eslint-disable-line @typescript-eslint/no-explicit-any -- step payloads are untyped JSON
    if (kind === 'setWeight' && !(Number.isInteger(v) && v >= 0 && v <= 100)) errs.push(`${at}: setWeight ${JSON.stringify(v)} must be a whole percentage from 0 to 100.`);
    if (kind === 'pause' && v && v.duration !== undefined) {
      const d = v.duration;
      const ok = (typeof d === 'number' && Number.isInteger(d) && d >= 0) || (typeof d === 'string' && (GO_DURATION.test(d) || /^\d+$/.test(d)));
      if (!ok) errs.push(`${at}: pause.duration ${JSON.stringify(d)} is not a number of seconds or a Go duration ("10m", "1h30m"); units like "d" are invalid (use "24h").`);
    }
    if (kind === 'setCanaryScale' && !hasRouting) errs.push(`${at}: setCanaryScale requires trafficRouting.`);
    if (kind === 'setMirrorRoute') errs.push(`${at}: setMirrorRoute is supported only with Istio traffic routing, not the Gateway API plugin.`);
    if (kind === 'analysis') errs.push(...checkInlineAnalysis(at, v, objects));
  });
  const analysis = canary.analysis;
  if (analysis?.startingStep !== undefined && (analysis.startingStep < 0 || analysis.startingStep > steps.length)) {
    errs.push(`${name}: spec.strategy.canary.analysis.startingStep ${analysis.startingStep} is outside the ${steps.length} steps.`);
  }
  if (analysis) errs.push(...checkTemplateRefs(`${name}: spec.strategy.canary.analysis`, analysis, objects, false));
  return errs;
}

function isZero(v: unknown): boolean {
  return v === 0 || v === '0' || v === '0%';
}

function checkInlineAnalysis(at: string, analysis: { templates?: { templateName?: string }[] }, objects: readonly Obj[]): string[] {
  return checkTemplateRefs(`${at}.analysis`, analysis, objects, true);
}

function checkTemplateRefs(at: string, analysis: { templates?: { templateName?: string; clusterScope?: boolean }[] }, objects: readonly Obj[], inline: boolean): string[] {
  const errs: string[] = [];
  for (const ref of analysis.templates ?? []) {
    if (ref.clusterScope) continue;
    const tpl = objects.find((o) => o.kind === 'AnalysisTemplate' && o.metadata?.name === ref.templateName);
    if (!tpl) {
      errs.push(`${at}: template "${ref.templateName}" is not among the synthesized AnalysisTemplates.`);
      continue;
    }
    for (const m of (tpl.spec?.metrics ?? []) as Record<string, any>[]) { // eslint-disable-line @typescript-eslint/no-explicit-any -- metric JSON
      const count = m.count;
      if (inline && (count === undefined || Number(count) <= 0)) errs.push(`${at}: AnalysisTemplate ${ref.templateName} metric "${m.name}" has no finite count; an inline analysis step would never finish.`);
      const limits = Number(m.failureLimit ?? 0) + Number(m.consecutiveSuccessLimit ?? 0);
      if (count !== undefined && Number(count) < limits) errs.push(`${at}: AnalysisTemplate ${ref.templateName} metric "${m.name}" count ${count} is below failureLimit + consecutiveSuccessLimit (${limits}).`);
    }
  }
  return errs;
}
