import { Decision } from '../decisions/decision';
import { ANNOTATIONS } from './annotations';

/** Collects the reason for each decided field of one API object, keyed by field path. */
export class Reasons {
  private readonly reasons: Record<string, string> = {};
  private readonly overrides: Record<string, string> = {};

  /** Records `decision`'s reason for the field at `path` and returns its value. */
  public use<T>(path: string, decision: Decision<T>): T {
    this.reasons[path] = decision.reason;
    if (decision.overridden) this.overrides[path] = decision.reason;
    return decision.value;
  }

  /** Records a reason for a field whose value is not a single decision (e.g. a whole block). */
  public note(path: string, reason: string): void {
    this.reasons[path] = reason;
  }

  /** The annotations that carry the reasons into the cluster, where YAML comments are lost. */
  public annotations(): Record<string, string> {
    const out: Record<string, string> = { [ANNOTATIONS.reasons]: formatReasonLines(this.reasons) };
    if (Object.keys(this.overrides).length > 0) out[ANNOTATIONS.overrides] = formatReasonLines(this.overrides);
    return out;
  }
}

/**
 * The annotation format: one "<field path>: <reason>" line per field, sorted by path, so the
 * annotation reads well in YAML (a literal block) and in `kubectl get -o yaml`.
 */
export function formatReasonLines(reasons: Record<string, string>): string {
  return Object.keys(reasons)
    .sort()
    .map((p) => `${p}: ${oneLine(reasons[p])}`)
    .join('\n');
}

/** A reason on one line (the format is line-based); most reasons already are, so skip the regex then. */
function oneLine(text: string): string {
  return /[\n\r]/.test(text) ? text.replace(/\s+/g, ' ') : text;
}

/** Parses the annotation format back into path -> reason (lines without ": " are ignored). */
export function parseReasonLines(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of text.split('\n')) {
    const i = line.indexOf(': ');
    if (i > 0) out[line.slice(0, i).trim()] = line.slice(i + 2).trim();
  }
  return out;
}
