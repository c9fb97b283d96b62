/** An invalid scenario: every problem names the field, the value, why it is wrong and how to fix it. */

export interface ScenarioProblem {
  field: string;
  value: unknown;
  why: string;
  fix: string;
}

/** An invalid scenario: every problem names the field, the value, why it is wrong and how to fix it. */
export class ScenarioError extends Error {
  constructor(
    readonly problems: ScenarioProblem[],
    readonly source: string = 'scenario',
  ) {
    super(
      `invalid scenario ${source}:\n` +
        problems.map((p) => `  - ${p.field} = ${show(p.value)}: ${p.why}. Fix: ${p.fix}.`).join('\n'),
    );
    this.name = 'ScenarioError';
  }
}

function show(v: unknown): string {
  if (v === undefined) return '(missing)';
  const s = JSON.stringify(v);
  return s === undefined ? String(v) : s.length > 60 ? s.slice(0, 57) + '...' : s;
}
