import * as YAML from 'yaml';
import { ANNOTATIONS, parseFieldPath } from './annotations';
import { parseReasonLines } from './reasons';
import { wrapUncached } from './wrap';

/** cdk8s writes YAML 1.1 with no line folding; so do we. */
export const YAML_OPTIONS = { version: '1.1', keepUndefined: true, lineWidth: 0 } as const;

/** Reads the reasons annotation of a plain manifest object (empty when absent or malformed). */
export function reasonsOf(obj: unknown): Record<string, string> {
  const raw = (obj as { metadata?: { annotations?: Record<string, unknown> } } | undefined)?.metadata?.annotations?.[
    ANNOTATIONS.reasons
  ];
  return typeof raw === 'string' ? parseReasonLines(raw) : {};
}

/**
 * Puts each reason from the object's reasons annotation as a comment on the line(s) above the
 * field it justifies. Fields that do not exist in the document are skipped.
 */
export function commentDocument(doc: YAML.Document, reasons: Record<string, string> = reasonsOf(doc.toJS())): void {
  for (const [path, reason] of Object.entries(reasons)) {
    const segs = cachedFieldPath(path);
    const parent = doc.getIn(segs.slice(0, -1), true);
    if (!YAML.isMap(parent) && !YAML.isSeq(parent)) continue;
    const last = segs[segs.length - 1];
    if (YAML.isMap(parent)) {
      const pair = parent.items.find((p) => YAML.isScalar(p.key) && p.key.value === last);
      if (pair && YAML.isScalar(pair.key)) pair.key.commentBefore = wrap(reason);
    } else {
      const item = parent.items[Number(last)];
      if (YAML.isNode(item)) item.commentBefore = wrap(reason);
    }
  }
}

// Estates repeat the same paths and reasons across thousands of services: parse and wrap each once.
const pathCache = new Map<string, (string | number)[]>();
export function cachedFieldPath(path: string): (string | number)[] {
  let segs = pathCache.get(path);
  if (!segs) {
    segs = parseFieldPath(path);
    pathCache.set(path, segs);
  }
  return segs;
}

const wrapCache = new Map<string, string>();
/** Wraps a reason into comment lines (the yaml package adds the "#"). */
export function wrap(text: string): string {
  const hit = wrapCache.get(text);
  if (hit !== undefined) return hit;
  const wrapped = wrapUncached(text);
  // 5,000: the reasons that recur (no service name in them) are met first; the rest never recur, and
  // holding them slowed every garbage collection (measured: 1,000 services, 6.6-7.2 s -> 5.5-5.7 s)
  if (wrapCache.size < 5_000) wrapCache.set(text, wrapped);
  return wrapped;
}

/** Serializes manifest objects exactly as cdk8s does, plus the justification comments. */
export function toCommentedYaml(objects: readonly unknown[]): string {
  return objects
    .map((obj) => {
      const doc = new YAML.Document(obj, YAML_OPTIONS);
      commentDocument(doc, reasonsOf(obj));
      return doc.toString(YAML_OPTIONS);
    })
    .join('---\n');
}

/** Adds the comments to YAML text written by cdk8s (multi-document). */
export function commentYamlText(text: string): string {
  return toCommentedYaml(YAML.parseAllDocuments(text, { version: '1.1' }).map((d) => d.toJS() as unknown));
}
