import * as YAML from 'yaml';
import { parseFieldPath } from '../justify/annotations';
import { ParseProblem } from './types';

/** A plain manifest object (what `kubectl apply` would send), as parsed from YAML or JSON. */
export type Manifest = Record<string, unknown>;

/** One API object to lint, with where it came from, so findings can name a file and a line. */
export interface LintObject {
  readonly obj: Manifest;
  readonly kind: string;
  readonly apiVersion: string;
  readonly name: string;
  readonly namespace?: string;
  /** `kind/namespace/name` (or `kind/name`). */
  readonly ref: string;
  readonly file: string;
  /** The 1-based line of a field path, or of its nearest existing parent (0 when unknown). */
  line(path: string): number;
}

/** The result of reading one text: the objects and the documents that could not be parsed. */
export interface ParsedSource {
  readonly objects: LintObject[];
  readonly problems: ParseProblem[];
  /** Documents in the text (empty ones included). */
  readonly documents: number;
}

/**
 * Parses a multi-document YAML (or JSON) text the way kubectl and cdk8s read it (YAML 1.1), keeping
 * line positions. A malformed document is returned as a problem and the others are still read.
 * `kind: List` documents (`kubectl get -o yaml`) are expanded into their items.
 */
export function parseManifestText(text: string, file: string): ParsedSource {
  const lineCounter = new YAML.LineCounter();
  const docs = YAML.parseAllDocuments(text, { version: '1.1', lineCounter });
  // A single document comes back as an array too; an empty text as an EmptyStream (also iterable).
  const objects: LintObject[] = [];
  const problems: ParseProblem[] = [];
  let documents = 0;
  for (const doc of docs) {
    documents++;
    if (doc.errors.length > 0) {
      const e = doc.errors[0];
      const line = e.linePos ? e.linePos[0].line : lineCounter.linePos(e.pos[0]).line;
      problems.push({ file, line, message: e.message.split('\n')[0] });
      continue;
    }
    if (doc.contents === null) continue;
    let js: unknown;
    try {
      js = doc.toJS({ maxAliasCount: 100 });
    } catch (err) {
      problems.push({ file, line: lineCounter.linePos(doc.range[0]).line, message: (err as Error).message });
      continue;
    }
    if (!isManifest(js)) {
      if (js !== null && js !== undefined) {
        problems.push({ file, line: lineCounter.linePos(doc.contents.range[0]).line, message: 'the document is not a Kubernetes object (a mapping with apiVersion and kind)' });
      }
      continue;
    }
    const locate = (segs: (string | number)[]): number => lineOf(doc, segs, lineCounter);
    if (js.kind === 'List' && Array.isArray(js.items)) {
      js.items.forEach((item, i) => {
        if (isManifest(item)) objects.push(lintObject(item, file, (p) => locate(['items', i, ...p])));
      });
    } else {
      objects.push(lintObject(js, file, locate));
    }
  }
  return { objects, problems, documents };
}

/** Wraps an in-memory object (synth time): no file positions. */
export function memoryObject(obj: Manifest, file = '<synth>'): LintObject {
  return lintObject(obj, file, () => 0);
}

export function isManifest(x: unknown): x is Manifest & { kind: string } {
  return typeof x === 'object' && x !== null && !Array.isArray(x) && typeof (x as Manifest).kind === 'string';
}

function lintObject(obj: Manifest, file: string, locate: (segs: (string | number)[]) => number): LintObject {
  const meta = (obj.metadata ?? {}) as { name?: unknown; namespace?: unknown };
  const kind = String(obj.kind);
  const name = typeof meta.name === 'string' ? meta.name : '(unnamed)';
  const namespace = typeof meta.namespace === 'string' && meta.namespace !== '' ? meta.namespace : undefined;
  return {
    obj,
    kind,
    apiVersion: typeof obj.apiVersion === 'string' ? obj.apiVersion : '',
    name,
    namespace,
    ref: namespace ? `${kind}/${namespace}/${name}` : `${kind}/${name}`,
    file,
    line: (path) => locate(safeSegments(path)),
  };
}

/** Field path -> segments; paths that are not plain field paths (annotation keys with dots) stop early. */
function safeSegments(path: string): (string | number)[] {
  try {
    return parseFieldPath(path);
  } catch {
    return [];
  }
}

/** The line of the deepest node on the path that exists (a map key's line, or a sequence item's). */
function lineOf(doc: YAML.Document, segs: (string | number)[], lc: YAML.LineCounter): number {
  let node: unknown = doc.contents;
  let pos = doc.contents && YAML.isNode(doc.contents) && doc.contents.range ? doc.contents.range[0] : 0;
  for (const seg of segs) {
    if (YAML.isMap(node)) {
      const pair = node.items.find((p) => YAML.isScalar(p.key) && p.key.value === seg);
      if (!pair) break;
      if (YAML.isNode(pair.key) && pair.key.range) pos = pair.key.range[0];
      node = pair.value;
    } else if (YAML.isSeq(node) && typeof seg === 'number') {
      const item = node.items[seg];
      if (!YAML.isNode(item)) break;
      if (item.range) pos = item.range[0];
      node = item;
    } else {
      break;
    }
  }
  return lc.linePos(pos).line;
}
