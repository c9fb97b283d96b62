import { arr, int, rec, scaleIntOrPercent, selectorMatches } from '../../rules/k8s';
import { appContainer, ofKind, POD_KINDS, podLabelsOf, podSpecOf, ref, short, v, workloadOf } from './preamble';
import { Invariant, Violation } from './types';

/**
 * The availability invariants: replicas (INV03), the disruption budget (INV08), Services that select the pods
 * (INV16).
 * Split from src/invariants/invariants.ts (issue 26), which keeps the list and its order.
 */

export const INV03: Invariant = {
  id: 'INV03-replicas',
  title: 'The workload exists and runs at least 2 replicas (or an autoscaler with minReplicas >= 2 owns the count)',
  why:
    'One replica cannot survive a node drain or a rollout; its disruption budget either blocks drains forever ' +
    'or lets them take the service (docs/mechanisms.md#rollout-complete).',
  overridable: false,
  check(set) {
    const any = workloadOf(set, POD_KINDS);
    if (any?.kind === 'Pod')
      return [
        v(
          set,
          any,
          'kind',
          'a bare Pod under the service is one replica that no controller recreates: a node drain or an eviction takes ' +
            'it away for good',
        ),
      ];
    if (any?.kind === 'Job' || any?.kind === 'CronJob') return [];
    const w = workloadOf(set);
    if (!w) return [{ object: '(service)', path: 'kind', message: 'no Rollout or Deployment is emitted' }];
    const spec = rec(w.spec) ?? {};
    const hpa = ofKind(set, 'HorizontalPodAutoscaler')[0];
    const target = rec(rec(hpa?.spec)?.scaleTargetRef);
    const workloadName = short(rec(w.metadata)?.name);
    // The HPA controller scales what scaleTargetRef names (kind and name, through the scale
    // subresource of apiVersion's group): any other target leaves this workload's count unowned.
    const aimed =
      hpa && (target?.kind !== w.kind || target?.name !== rec(w.metadata)?.name || target?.apiVersion !== w.apiVersion)
        ? [
            v(
              set,
              hpa,
              'spec.scaleTargetRef',
              `scaleTargetRef ${short(target)} is not the service's ${String(w.kind)} ${workloadName} ` +
                `(${short(w.apiVersion)}): the autoscaler scales another object and this one keeps its own replicas`,
            ),
          ]
        : [];
    if (spec.replicas === undefined && hpa) {
      const min = int(rec(hpa.spec)?.minReplicas);
      return min !== undefined && Number.isInteger(min) && min >= 2
        ? aimed
        : [...aimed, v(set, hpa, 'spec.minReplicas', `minReplicas ${short(rec(hpa.spec)?.minReplicas)} is below 2`)];
    }
    if (aimed.length > 0) return aimed;
    const n = int(spec.replicas);
    return n !== undefined && Number.isInteger(n) && n >= 2
      ? []
      : [v(set, w, 'spec.replicas', `replicas ${short(spec.replicas)} is below 2 (absent means 1)`)];
  },
};

export const INV08: Invariant = {
  id: 'INV08-disruption-budget',
  title: 'A PodDisruptionBudget with a budget that selects the pods and lets at least one and not every pod go',
  why:
    'A PDB without a budget, or selecting no pod, protects nothing during node drains; one that allows no ' +
    'disruption blocks every drain (docs/mechanisms.md#rollout-complete).',
  overridable: false,
  check(set) {
    const w = workloadOf(set);
    if (!w) return [];
    const pdbs = ofKind(set, 'PodDisruptionBudget');
    if (pdbs.length === 0)
      return [{ object: ref(w), path: 'kind', message: 'no PodDisruptionBudget is emitted for the workload' }];
    const out: Violation[] = [];
    const replicas = int(rec(w.spec)?.replicas) ?? 2;
    for (const pdb of pdbs) {
      const spec = rec(pdb.spec) ?? {};
      if (!selectorMatches(spec.selector, podLabelsOf(w)))
        out.push(
          v(
            set,
            pdb,
            'spec.selector',
            `the selector ${short(spec.selector)} does not select the pods (labels ${short(podLabelsOf(w))})`,
          ),
        );
      if (spec.maxUnavailable === undefined && spec.minAvailable === undefined) {
        out.push(v(set, pdb, 'spec.maxUnavailable', 'the budget has neither maxUnavailable nor minAvailable'));
        continue;
      }
      const down =
        spec.maxUnavailable !== undefined
          ? scaleIntOrPercent(spec.maxUnavailable, replicas, true)
          : ((m) => (m === undefined ? undefined : replicas - m))(scaleIntOrPercent(spec.minAvailable, replicas, true));
      const field = spec.maxUnavailable !== undefined ? 'spec.maxUnavailable' : 'spec.minAvailable';
      if (down === undefined)
        out.push(v(set, pdb, field, `${short(spec[field.split('.')[1]])} is not a count or a percentage`));
      else if (down < 1)
        out.push(v(set, pdb, field, `the budget lets no pod go (${down} of ${replicas}): every node drain blocks`));
      else if (down >= replicas) out.push(v(set, pdb, field, `the budget lets every pod go (${down} of ${replicas})`));
    }
    return out;
  },
};

export const INV16: Invariant = {
  id: 'INV16-services-select-pods',
  title:
    "Every Service and the workload selector select the pod template's labels, and every Service targets a " +
    'container port',
  why:
    'A Service that selects nothing has no endpoints; the proxy answers 503 without any pod failing ' +
    '(docs/mechanisms.md#readiness-control-loop, #response-flags).',
  overridable: false,
  check(set) {
    const w = workloadOf(set);
    if (!w) return [];
    const labels = podLabelsOf(w);
    const out: Violation[] = [];
    if (!selectorMatches(rec(w.spec)?.selector, labels))
      out.push(v(set, w, 'spec.selector', 'the workload selector does not select its own pod template'));
    const pod = podSpecOf(w);
    const portNames = new Set(pod ? arr(appContainer(pod).c?.ports).map((p) => rec(p)?.name) : []);
    const portNumbers = new Set(pod ? arr(appContainer(pod).c?.ports).map((p) => rec(p)?.containerPort) : []);
    for (const s of ofKind(set, 'Service')) {
      const sel = rec(rec(s.spec)?.selector);
      if (!sel || Object.keys(sel).length === 0 || !Object.entries(sel).every(([k, val]) => labels[k] === val)) {
        out.push(
          v(set, s, 'spec.selector', `the selector ${short(sel)} does not select the pods (labels ${short(labels)})`),
        );
      }
      arr(rec(s.spec)?.ports).forEach((p, i) => {
        const target = rec(p)?.targetPort;
        if (!portNames.has(target) && !portNumbers.has(target))
          out.push(
            v(set, s, `spec.ports[${i}].targetPort`, `targetPort ${short(target)} is not a port of the app container`),
          );
      });
    }
    return out;
  },
};
