// Referenced objects: rollout/controller.go getRolloutValidationErrors and
// pkg/apis/rollouts/validation/validation_references.go (v1.9.1), plus the Gateway API plugin
// (./gateway-plugin.ts) and the analysis templates (./analysis-references.ts).
import { validateAnalysisUse } from './analysis-references';
import { arr, Findings, Json, ObjectLookup, rec, set, show, str } from './findings';
import { validatePluginRoute } from './gateway-plugin';
import { RESOLVED, resolveWorkloadRef } from './templateref';

/** v1alpha1.DefaultRolloutUniqueLabelKey (pkg/apis/rollouts/v1alpha1/types.go, v1.9.1). */
const POD_TEMPLATE_HASH = 'rollouts-pod-template-hash';
/** v1alpha1.ManagedByRolloutsKey (pkg/apis/rollouts/v1alpha1/types.go, v1.9.1). */
const MANAGED_BY = 'argo-rollouts.argoproj.io/managed-by-rollouts';

export function validateReferences(ro: Json, lookup: ObjectLookup, out: Findings): void {
  const canary = rec(rec(rec(ro.spec)?.strategy)?.canary);
  if (!canary || set(rec(rec(ro.spec)?.strategy)?.blueGreen)) return;
  const ns = str(rec(ro.metadata)?.namespace) || undefined;
  const roName = str(rec(ro.metadata)?.name);
  // A workloadRef Rollout is validated with the template of the workload it references
  // (TemplateResolvedFromRef); without that workload among the objects, its labels are unknown.
  const effective = resolveWorkloadRef(ro, lookup, new Findings());
  const source =
    !set(rec(ro.spec)?.workloadRef) || (effective as { [RESOLVED]?: boolean })[RESOLVED] ? effective : undefined;
  const templateLabels = (rec(rec(rec(rec(source?.spec)?.template)?.metadata)?.labels) ?? {}) as Record<string, string>;
  const at = 'spec.strategy.canary';
  // getReferencedServices: stable, canary, then ping and pong; a Service that does not exist is
  // an InvalidSpec ("service ... not found"). ValidateService: every selector label but
  // rollouts-pod-template-hash must be on the pod template; no other Rollout may manage it.
  const services: [string, string][] = [
    ['stableService', str(canary.stableService)],
    ['canaryService', str(canary.canaryService)],
  ];
  const pp = rec(canary.pingPong);
  if (pp) services.push(['pingPong.pingService', str(pp.pingService)], ['pingPong.pongService', str(pp.pongService)]);
  for (const [field, name] of services) {
    if (name === '') continue;
    const svc = lookup.get('Service', ns, name);
    if (!svc) {
      out.add(
        'serviceNotFound',
        `${at}.${field}`,
        `${at}.${field} = "${name}" names no Service in namespace ${ns ?? '(unset)'} among the checked objects: the ` +
          `controller marks the Rollout InvalidSpec (services "${name}" not found) until it exists. Add the Service ` +
          `(selecting the pod template's labels) or fix the name.`,
        { service: name },
      );
      continue;
    }
    const sel = (rec(rec(svc.spec)?.selector) ?? {}) as Record<string, unknown>;
    const bad = source
      ? Object.entries(sel)
          .filter(([k, v]) => k !== POD_TEMPLATE_HASH && templateLabels[k] !== v)
          .map(([k]) => k)
      : [];
    if (bad.length > 0) {
      out.add(
        'serviceSelectorMismatch',
        `${at}.${field}`,
        `Service ${name}'s selector ${show(sel)} has ${bad.map((k) => `"${k}"`).join(', ')} that the pod template ` +
          `labels ${show(templateLabels)} do not carry with the same value: the controller refuses it (Service ` +
          `"${name}" has unmatch label "${bad[0]}" in rollout), since the Service would select no pod of this ` +
          `Rollout. Make the Service select the template's labels.`,
        { service: name, labels: bad.join(', ') },
      );
    }
    const managedBy = rec(rec(svc.metadata)?.annotations)?.[MANAGED_BY];
    if (typeof managedBy === 'string' && managedBy !== roName) {
      out.add(
        'serviceManagedByOther',
        `${at}.${field}`,
        `Service ${name} carries ${MANAGED_BY}: "${managedBy}", another Rollout: the controller refuses it (Service ` +
          `"${name}" is managed by another Rollout). Give each Rollout its own Services.`,
        { service: name, managedBy },
      );
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
  const oneOf = (
    router: string,
    single: string,
    multiple: string,
    singleSet: boolean,
    multipleSet: boolean,
    controller: string,
  ) => {
    if (singleSet === multipleSet) {
      out.add(
        'routerConfigInvalid',
        `${at}.${router}`,
        `${at}.${router} has ${singleSet ? 'both' : 'neither'} ${single} ${singleSet ? 'and' : 'nor'} ${multiple}: ` +
          `the controller refuses it ("${controller}"). Set exactly one of them.`,
        { router },
      );
    }
  };
  const nginx = rec(tr.nginx);
  if (nginx)
    oneOf(
      'nginx',
      'stableIngress',
      'stableIngresses',
      str(nginx.stableIngress) !== '',
      set(nginx.stableIngresses),
      `Either StableIngress or StableIngresses must be configured. ${
        str(nginx.stableIngress) !== '' ? 'Both' : 'Neither'
      } are configured.`,
    );
  const alb = rec(tr.alb);
  if (alb)
    oneOf(
      'alb',
      'ingress',
      'ingresses',
      str(alb.ingress) !== '',
      set(alb.ingresses),
      `Either Ingress or Ingresses must be configured. ${str(alb.ingress) !== '' ? 'Both' : 'Neither'} are configured.`,
    );
  const istio = rec(tr.istio);
  if (istio)
    oneOf(
      'istio',
      'virtualService',
      'virtualServices',
      set(istio.virtualService),
      set(istio.virtualServices),
      'either VirtualService or VirtualServices must be configured',
    );
  const ambassador = rec(tr.ambassador);
  if (ambassador && arr(ambassador.mappings).length === 0)
    out.add(
      'routerConfigInvalid',
      `${at}.ambassador.mappings`,
      `${at}.ambassador.mappings is empty: the controller refuses it ("must provide at least one mapping"). List the ` +
        'Mapping names.',
      { router: 'ambassador' },
    );
  const appMesh = rec(tr.appMesh);
  if (appMesh && !set(appMesh.virtualService))
    out.add(
      'routerConfigInvalid',
      `${at}.appMesh.virtualService`,
      `${at}.appMesh.virtualService is missing: the controller refuses it ("must provide virtual-service"). Name the ` +
        'App Mesh VirtualService.',
      { router: 'appMesh' },
    );
}
