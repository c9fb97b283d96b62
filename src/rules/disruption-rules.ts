import { rec, replicaCount, scaleIntOrPercent, selectorMatches, workloadLabels } from './k8s';
import { RuleContext, RuleDefinition } from './rule';
import { LintObject } from './source';

/** PDBs in the workload's namespace whose selector matches its pod labels. */
const pdbCache = new WeakMap<LintObject, LintObject[]>();

export function pdbsFor(w: LintObject, ctx: RuleContext): LintObject[] {
  let found = pdbCache.get(w);
  if (!found) pdbCache.set(w, (found = matchPdbs(w, ctx)));
  return found;
}

function matchPdbs(w: LintObject, ctx: RuleContext): LintObject[] {
  const labels = workloadLabels(w, ctx.index);
  return ctx.index.inNamespace('PodDisruptionBudget', w.namespace).filter((p) => {
    const sel = rec(p.obj.spec)?.selector;
    // policy/v1: an empty selector selects every pod in the namespace.
    if (rec(sel) && Object.keys(rec(sel)!).length === 0) return true;
    return selectorMatches(sel, labels);
  });
}

/** Pods a PDB lets go at once, for a given replica count (percentages round up, as the controller does). */
export function allowedDisruptions(pdb: LintObject, replicas: number): { allowed: number; path: string; shown: string } | undefined {
  const spec = rec(pdb.obj.spec) ?? {};
  if (spec.maxUnavailable !== undefined) {
    const v = scaleIntOrPercent(spec.maxUnavailable, replicas, true);
    return v === undefined ? undefined : { allowed: Math.max(0, Math.min(replicas, v)), path: 'spec.maxUnavailable', shown: `maxUnavailable ${String(spec.maxUnavailable)}` };
  }
  if (spec.minAvailable !== undefined) {
    const v = scaleIntOrPercent(spec.minAvailable, replicas, true);
    return v === undefined ? undefined : { allowed: Math.max(0, replicas - v), path: 'spec.minAvailable', shown: `minAvailable ${String(spec.minAvailable)}` };
  }
  return undefined;
}

const MULTI = ['Deployment', 'StatefulSet', 'Rollout'];

export const DISRUPTION_RULES: readonly RuleDefinition[] = [
  {
    id: 'RW601-no-pdb-for-multi-replica-workload',
    severity: 'warning',
    title: 'No PodDisruptionBudget selects a workload with more than one replica',
    kinds: MULTI,
    mechanism: 'Without a PDB a node drain may evict several replicas at once; the survivors take their load, and once they pass their deadline the readiness feedback loop empties the Service.',
    fieldNotes: 'docs/mechanisms.md#disruption-budgets',
    fix: 'Add a PodDisruptionBudget selecting the pod labels with maxUnavailable chosen so the survivors stay below saturation at peak (rollwise derives it from peak-rps and saturation-rps-per-replica), and unhealthyPodEvictionPolicy: AlwaysAllow.',
    facts: [],
    check(o, ctx) {
      const count = replicaCount(o, ctx.index);
      // With an autoscaler the fleet is multi-replica whenever it may scale past one (at peak, when a drain hurts).
      if (!count || count.max < 2) return;
      // No pod labels: an incomplete object (a kustomize patch, a fixture) that no PDB could select.
      const labels = workloadLabels(o, ctx.index);
      if (Object.keys(labels).length === 0) return;
      if (pdbsFor(o, ctx).length > 0) return;
      const shown = count.scaler ? `${count.max === count.min ? count.min : `${count.min}-${count.max}`} replicas (${count.source})` : `${count.min} replicas`;
      ctx.report(o, count.scaler ? 'spec' : 'spec.replicas', `${shown} and no PodDisruptionBudget in the linted manifests selects labels ${JSON.stringify(labels)}.`, { replicas: count.min, maxReplicas: count.max });
    },
  },
  {
    id: 'RW602-pdb-survivors-above-saturation',
    severity: 'error',
    title: "PodDisruptionBudget lets so many pods go that the survivors exceed saturation at peak",
    kinds: MULTI,
    mechanism: "A drain within the budget removes capacity at once; if the survivors' share of the peak exceeds their saturation rate, their latency passes the probe deadline and the drain starts the readiness cascade.",
    fieldNotes: 'docs/mechanisms.md#disruption-budgets',
    fix: 'Lower the PDB maxUnavailable (or raise minAvailable, or add replicas) until peak-rps / (replicas - allowed disruptions) stays below the per-replica saturation rate (rollwise keeps 80 % headroom).',
    facts: ['peakRps', 'saturationRpsPerReplica'],
    check(o, ctx) {
      // The fewest replicas (an autoscaler's floor): the survivors' share is largest there.
      const replicas = replicaCount(o, ctx.index)?.min;
      if (replicas === undefined || replicas < 2) return;
      const pdbs = pdbsFor(o, ctx);
      if (pdbs.length === 0) return;
      const peak = ctx.facts.number(o, 'peakRps');
      const sat = ctx.facts.number(o, 'saturationRpsPerReplica');
      for (const [name, f] of [['peakRps', peak], ['saturationRpsPerReplica', sat]] as const) {
        if (!f.ok && f.invalid !== undefined) { ctx.invalidFact(o, name, f.invalid, f.source!); return; }
      }
      if (!peak.ok) { ctx.skip(o, 'peakRps'); return; }
      if (!sat.ok) { ctx.skip(o, 'saturationRpsPerReplica'); return; }
      const p = peak.value as number;
      const s = sat.value as number;
      for (const pdb of pdbs) {
        const d = allowedDisruptions(pdb, replicas);
        if (!d) continue;
        const survivors = replicas - d.allowed;
        const each = survivors > 0 ? p / survivors : Infinity;
        if (each > s) {
          ctx.report(pdb, d.path,
            `${d.shown} lets ${d.allowed} of ${replicas} pods of ${o.ref} go at once: ${survivors} survivors carry ${survivors > 0 ? `${p} / ${survivors} = ${Number(each.toFixed(1))}` : 'everything'} req/s each at peak, above saturation ${s} req/s per replica.`,
            { replicas, allowedDisruptions: d.allowed, survivors, peakRps: p, perSurvivorRps: Number.isFinite(each) ? Number(each.toFixed(1)) : 'infinite', saturationRpsPerReplica: s });
        }
      }
    },
  },
];
