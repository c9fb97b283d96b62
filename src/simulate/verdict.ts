/** The verdict of a run: oscillating, cascade, flapping, degraded or stable, with its explanation. */
import type { SimSummary, Verdict } from './results';

export function judge(m: SimSummary, firstCollapseAt: number, endsCollapsed: boolean): [Verdict, string] {
  const pct = (x: number): string => `${(100 * x).toFixed(x < 0.01 ? 2 : 1)} %`;
  if (m.collapses >= 2) {
    return [
      'oscillating',
      `ready endpoints fell to 0 at ${fmtS(firstCollapseAt)} and the fleet came back and collapsed ` +
        `again ${m.collapses - 1} time(s) (saw-tooth); errors ${pct(m.errorRatio)}`,
    ];
  }
  if (m.collapses === 1) {
    return [
      'cascade',
      `ready endpoints fell to 0 at ${fmtS(firstCollapseAt)}` +
        (m.departures > 0
          ? `: each departure raised the survivors' load past the probe deadline`
          : ' (the planned disruption removed every ' + 'endpoint)') +
        (endsCollapsed ? ' and the fleet did not recover' : ', then it came back to the floor') +
        `; errors ${pct(m.errorRatio)}`,
    ];
  }
  if (m.maxDeparturesPerPod >= 2) {
    return [
      'flapping',
      `pods left and rejoined ${m.departures} times without a collapse (${m.meanNotReady.toFixed(2)} ` +
        `of ${m.replicas} out on average); errors ${pct(m.errorRatio)}`,
    ];
  }
  const reasons: string[] = [];
  if (m.timeBelowFloorSeconds > 0)
    reasons.push(
      `ready endpoints were below the floor of ${m.floor} for ${fmtS(m.timeBelowFloorSeconds)} (min ${m.minReady})`,
    );
  if (m.errorRatio > m.errorBudget) reasons.push(`errors ${pct(m.errorRatio)} exceed the budget`);
  if (m.departures > 0 && reasons.length === 0) reasons.push(`${m.departures} pod(s) left service once and came back`);
  if (reasons.length > 0) return ['degraded', reasons.join('; ')];
  return [
    'stable',
    `ready endpoints never fell below the floor of ${m.floor} (min ${m.minReady}); ` + `errors ${pct(m.errorRatio)}`,
  ];
}

function fmtS(s: number): string {
  return s >= 120 ? `${(s / 60).toFixed(1)} min` : `${Math.round(s * 10) / 10} s`;
}
