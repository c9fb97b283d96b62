import * as YAML from 'yaml';
import { ANNOTATIONS, parseFieldPath, valueAtPath } from './annotations';
import { reasonsOf } from './comments';
import { parseReasonLines } from './reasons';

export interface Explained {
  readonly object: string;
  readonly path: string;
  readonly value: unknown;
  readonly reason: string;
  readonly overridden: boolean;
  /** For a leaf without a reason of its own: the nearest ancestor whose reason covers it. */
  readonly via?: string;
}

/** Every decided value in a multi-document manifest, with its reason, read from the reasons annotation. */
export function explainManifest(text: string): Explained[] {
  const out: Explained[] = [];
  for (const doc of YAML.parseAllDocuments(text, { version: '1.1' })) {
    const obj = doc.toJS() as { kind?: string; metadata?: { name?: string; annotations?: Record<string, string> } } | null;
    if (!obj || typeof obj !== 'object') continue;
    const overrides = obj.metadata?.annotations?.[ANNOTATIONS.overrides];
    const overridden = new Set(overrides ? Object.keys(parseReasonLines(overrides)) : []);
    for (const [path, reason] of Object.entries(reasonsOf(obj))) {
      out.push({ object: `${obj.kind}/${obj.metadata?.name}`, path, value: valueAtPath(obj, path), reason, overridden: overridden.has(path) });
    }
  }
  return out;
}

/** Human-readable `explain` output: one block per value. */
export function formatExplained(items: readonly Explained[]): string {
  return items.map((e) => {
    const shown = e.value === undefined ? '(absent)' : typeof e.value === 'object' ? JSON.stringify(e.value) : String(e.value);
    return `${e.object} ${e.path} = ${shown}${e.overridden ? '  [overridden]' : ''}${e.via ? `  (no reason of its own: the reason of ${e.via}, which holds it)` : ''}\n    ${e.reason}`;
  }).join('\n');
}

/** Whether `arg` reads as a field path ("readinessProbe.timeoutSeconds", "spec.replicas") rather than a file. */
export function isFieldPath(arg: string): boolean {
  if (/[\\/]|\.ya?ml$|\.json$/i.test(arg.replace(/\["[^"]*"\]/g, ''))) return false;
  try {
    parseFieldPath(arg);
    return true;
  } catch {
    return false;
  }
}

/**
 * The explained values whose path is `field` or ends with it at a segment boundary:
 * "readinessProbe.timeoutSeconds" matches "spec.template.spec.containers[0].readinessProbe.timeoutSeconds"
 * (and a sidecar's), "containers[0].readinessProbe" matches that probe's fields too.
 */
export function explainedAt(items: readonly Explained[], field: string): Explained[] {
  const want = parseFieldPath(field);
  const key = (segs: (string | number)[]) => segs.map((x) => (typeof x === 'number' ? `[${x}]` : `.${x}`)).join('');
  const suffix = key(want);
  const direct = items.filter((e) => {
    const k = key(parseFieldPath(e.path));
    return k === suffix || k.endsWith(suffix) || k.includes(`${suffix}.`) || k.includes(`${suffix}[`);
  });
  if (direct.length > 0) return direct;
  // A leaf whose reason sits on a parent (a sidecar's readinessProbe carries one reason for its
  // timing): the nearest ancestor with a reason that holds the leaf answers, saying so.
  for (let drop = 1; drop < want.length; drop++) {
    const parent = key(want.slice(0, want.length - drop));
    const rest = want.slice(want.length - drop);
    const found = items.flatMap((e) => {
      const k = key(parseFieldPath(e.path));
      if (k !== parent && !k.endsWith(parent)) return [];
      let v: unknown = e.value;
      for (const seg of rest) v = v !== null && typeof v === 'object' ? (v as Record<string | number, unknown>)[seg] : undefined;
      return v === undefined ? [] : [{ ...e, path: `${e.path}${key(rest)}`, value: v, via: e.path }];
    });
    if (found.length > 0) return found;
  }
  return [];
}
