/** A small validating reader of a scenario's YAML: every problem is collected with its field path. */
import type { ScenarioProblem } from './scenario-error';

export type Obj = Record<string, unknown>;

export class Reader {
  readonly problems: ScenarioProblem[] = [];

  problem(field: string, value: unknown, why: string, fix: string): undefined {
    this.problems.push({ field, value, why, fix });
    return undefined;
  }

  /** An object with only the allowed keys (unknown keys are reported with a suggestion). */
  obj(v: unknown, field: string, allowed: readonly string[]): Obj | undefined {
    if (v === undefined || v === null) return undefined;
    if (typeof v !== 'object' || Array.isArray(v)) {
      return this.problem(
        field,
        v,
        'must be a mapping',
        `write ${field} as a YAML mapping with keys ${allowed.join(', ')}`,
      );
    }
    const o = v as Obj;
    for (const k of Object.keys(o)) {
      if (!allowed.includes(k)) {
        const near = closest(k, allowed);
        this.problem(
          join(field, k),
          o[k],
          'unknown field',
          near ? `did you mean "${near}"?` : `allowed fields here: ${allowed.join(', ')}`,
        );
      }
    }
    return o;
  }

  num(
    o: Obj | undefined,
    key: string,
    field: string,
    rule: { min?: number; above?: number; max?: number; integer?: boolean; unit?: string; why?: string },
  ): number | undefined {
    if (!o || o[key] === undefined || o[key] === null) return undefined;
    const v = o[key];
    const f = join(field, key);
    const unit = rule.unit ? ` (${rule.unit})` : '';
    if (typeof v !== 'number' || !Number.isFinite(v)) {
      return this.problem(f, v, `must be a number${unit}`, `write a plain number, e.g. ${key}: ${rule.min ?? 1}`);
    }
    if (rule.integer && !Number.isInteger(v)) {
      return this.problem(
        f,
        v,
        `must be a whole number${rule.why ? ` (${rule.why})` : ''}`,
        `use ${Math.max(rule.min ?? 0, Math.round(v))}`,
      );
    }
    if (rule.min !== undefined && v < rule.min) {
      return this.problem(
        f,
        v,
        `must be at least ${rule.min}${unit}${rule.why ? ` (${rule.why})` : ''}`,
        `set it to ${rule.min} or more`,
      );
    }
    if (rule.above !== undefined && v <= rule.above) {
      return this.problem(
        f,
        v,
        `must be greater than ${rule.above}${unit}${rule.why ? ` (${rule.why})` : ''}`,
        `set it above ${rule.above}`,
      );
    }
    if (rule.max !== undefined && v > rule.max) {
      return this.problem(
        f,
        v,
        `must be at most ${rule.max}${unit}${rule.why ? ` (${rule.why})` : ''}`,
        `set it to ${rule.max} or less`,
      );
    }
    return v;
  }

  str(o: Obj | undefined, key: string, field: string, choices?: readonly string[]): string | undefined {
    if (!o || o[key] === undefined || o[key] === null) return undefined;
    const v = o[key];
    const f = join(field, key);
    if (typeof v !== 'string') return this.problem(f, v, 'must be a string', `quote it, e.g. ${key}: "${String(v)}"`);
    if (choices && !choices.includes(v)) {
      return this.problem(f, v, `must be one of ${choices.join(', ')}`, `use ${closest(v, choices) ?? choices[0]}`);
    }
    return v;
  }

  arr(o: Obj | undefined, key: string, field: string): unknown[] | undefined {
    if (!o || o[key] === undefined || o[key] === null) return undefined;
    const v = o[key];
    if (!Array.isArray(v))
      return this.problem(join(field, key), v, 'must be a list', 'write it as a YAML list ("- ..." items)');
    return v as unknown[];
  }
}

function join(field: string, key: string | number): string {
  if (typeof key === 'number') return `${field}[${key}]`;
  return field ? `${field}.${key}` : key;
}

function closest(word: string, choices: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestD = Infinity;
  for (const c of choices) {
    const d = levenshtein(word.toLowerCase(), c.toLowerCase());
    if (d < bestD) {
      bestD = d;
      best = c;
    }
  }
  return bestD <= Math.max(2, Math.floor(word.length / 3)) ? best : undefined;
}

function levenshtein(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let prev = row[0];
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const tmp = row[j];
      row[j] = Math.min(row[j] + 1, row[j - 1] + 1, prev + (a[i - 1] === b[j - 1] ? 0 : 1));
      prev = tmp;
    }
  }
  return row[b.length];
}
