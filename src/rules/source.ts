import * as YAML from 'yaml';
import { parseFieldPath } from '../justify/annotations';
import { FastDocument, ownReaderOn, readDocuments } from './fast-yaml';
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
  /** Documents that are not Kubernetes objects (values files, JSON Schemas, OpenAPI): skipped, not errors. */
  readonly notManifests: number;
  /** Set when the text is a Go/Helm template whose actions break the YAML: nothing of it is linted. */
  readonly template?: boolean;
}

/**
 * Go template actions as Helm chart sources write them: `{{ .Values.x }}`,
 * `{{- if ... }}`, `{{ include ... }}`, `{{ $var }}`, template comments, and the upper-case
 * placeholders of samples meant to be filled in with sed or envsubst (`{{HF_TOKEN}}`). Argo
 * Rollouts' own `{{args.name}}` (and Argo Workflows' `{{inputs.x}}`) start with a lower-case letter
 * and are not matched: they are plain strings that the controller substitutes.
 */
export const TEMPLATE_ACTION =
  /\{\{-?\s*(?:\.|\$|\/\*|(?:if|else|end|range|with|include|template|define|block|toYaml|tpl|required|default|printf|quote|indent|nindent)\b|[A-Z][A-Z0-9_]*\s*\}\})/;

/**
 * Text that may hold a collection key: a flow collection opening another (`{{x}}`, `{[a]: b}`), a
 * line starting with one (`{x}: 1`), or an explicit key (`? ...`). A document without any of them
 * has only scalar keys, and is not walked.
 */
const MAYBE_COLLECTION_KEY = /[{[]\s*[{[]|^[ \t-]*(?:[[{]|\?\s)/m;

/**
 * The shape of every Kubernetes apiVersion: `[group/]version`, the group a DNS subdomain and the
 * version a DNS-1035 label (what the API server requires of a CRD's version names:
 * kubernetes/apiextensions-apiserver v0.32.4 pkg/apis/apiextensions/validation/validation.go,
 * IsDNS1035Label(version.Name); built-in versions are v1, v1beta1 and the like).
 */
const KUBERNETES_API_VERSION =
  /^(?:[a-z0-9](?:[-a-z0-9]*[a-z0-9])?(?:\.[a-z0-9](?:[-a-z0-9]*[a-z0-9])?)*\/)?[a-z](?:[-a-z0-9]*[a-z0-9])?$/;

/**
 * A fill-in that another program (Ansible's Jinja, envsubst, a script) replaces before the file is
 * applied: `{{ namespace }}`, `${NAMESPACE}`. Unquoted, `{{ namespace }}` is a flow mapping used as a
 * key and `${X}` may break a flow context: the YAML does not parse, but nobody applies it as written
 * (Altinity/clickhouse-operator deploy/operator/clickhouse-operator-install-ansible.yaml and the
 * other *template*.yaml there, `namespace: {{ namespace }}`, judged wrong as errors on held-out
 * set 9). Not Argo Rollouts' `{{args.x}}`, which kubectl is asked to store as written (the
 * controller substitutes it later), so an unquoted one is refused by kubectl and stays an error.
 */
const FILL_IN = /\{\{(?!-?\s*args\.)[^{}]*[^{}\s-][^{}]*\}\}|\$\{[A-Za-z_][A-Za-z0-9_]*(?:[:?+=-][^}]*)?\}/;

/**
 * A parse problem on a line that holds a fill-in: the document is a template, reported as info
 * saying it was not checked. A problem on a line without one (a real syntax error elsewhere in the
 * same file) stays an error.
 */
function templateProblem(text: string, line: number, file: string, message: string): ParseProblem | undefined {
  const lines = text.split('\n', line);
  const at = lines[line - 1] ?? '';
  const fillIn = FILL_IN.exec(at)?.[0];
  if (fillIn === undefined) return undefined;
  return {
    file,
    line,
    severity: 'info',
    message:
      `${message}; the line holds the fill-in ${fillIn}, so this document is a template that another ` +
      'program fills in before it is applied: it was not checked. Lint the filled-in output.',
  };
}

/** A document's text looks like it was meant to be a Kubernetes object (so a parse error is RW000). */
const LOOKS_LIKE_MANIFEST = /^\s*"?(?:apiVersion|kind)"?\s*:/m;

/**
 * Parses a multi-document YAML (or JSON) text the way kubectl and cdk8s read it (YAML 1.1), keeping
 * line positions. A malformed document is returned as a problem and the others are still read.
 * `kind: List` documents (`kubectl get -o yaml`) are expanded into their items.
 */
export function parseManifestText(text: string, file: string): ParsedSource {
  // Most texts are plain block YAML: read without the yaml package's Document (fast-yaml.ts gives
  // the same documents, values and lines); anything it does not model goes the package's way below.
  const fast = readDocuments(text, '1.1');
  if (fast) return fromFastDocuments(fast, file);
  if (ownReaderOn() && isJsonNotManifest(text)) return { objects: [], problems: [], documents: 1, notManifests: 1 };
  // A text with Go template actions is a template when they break the YAML (a parse error, or
  // `{{ .Values.x }}` read as a flow-mapping key); inside strings (PrometheusRule annotations,
  // `{{ $value }}`) they are data and the objects are linted.
  const template: ParsedSource = { objects: [], problems: [], documents: 0, notManifests: 0, template: true };
  const hasActions = TEMPLATE_ACTION.test(text);
  let lineCounter = new YAML.LineCounter();
  let docs = YAML.parseAllDocuments(text, { version: '1.1', lineCounter });
  // A key twice in one mapping: kubectl reads the document anyway and keeps the last value
  // (sigs.k8s.io/yaml v1.4.0 Unmarshal -> goyaml.v2 decode.go setMapIndex overwrites unless strict;
  // apimachinery v0.32.4 pkg/util/yaml/decoder.go YAMLToJSONDecoder uses the non-strict Unmarshal
  // for `kubectl apply -f`, cli-runtime v0.32.4 pkg/resource/visitor.go StreamVisitor). So read it
  // the same way (the slow path: only texts with such a key are parsed twice) and report the key.
  const duplicates: ParseProblem[] = [];
  if (Array.from(docs).some((d) => d.errors.some((e) => e.code === 'DUPLICATE_KEY'))) {
    lineCounter = new YAML.LineCounter();
    docs = YAML.parseAllDocuments(text, { version: '1.1', lineCounter, uniqueKeys: false });
    for (const d of docs) if (d.errors.length === 0) duplicates.push(...duplicateKeys(d, file, lineCounter));
  }
  // A single document comes back as an array too; an empty text as an EmptyStream (also iterable).
  const objects: LintObject[] = [];
  const problems: ParseProblem[] = [];
  let documents = 0;
  let notManifests = 0;
  for (const doc of docs) {
    documents++;
    const source = text.slice(doc.range[0], doc.range[2]);
    if (doc.errors.length > 0) {
      if (hasActions) return template;
      if (!LOOKS_LIKE_MANIFEST.test(source)) {
        notManifests++;
        continue;
      }
      const e = doc.errors[0];
      const line = e.linePos ? e.linePos[0].line : lineCounter.linePos(e.pos[0]).line;
      const kind = /^kind:\s*["']?([A-Za-z0-9]+)["']?\s*$/m.exec(source)?.[1];
      const message = e.message.split('\n')[0];
      problems.push(templateProblem(text, line, file, message) ?? { file, line, message, ...(kind ? { kind } : {}) });
      continue;
    }
    if (doc.contents === null) continue;
    const collectionKey = MAYBE_COLLECTION_KEY.test(source) ? findCollectionKey(doc) : undefined;
    if (collectionKey !== undefined) {
      if (hasActions) return template;
      const line = lineCounter.linePos(collectionKey.pos).line;
      const message =
        `the mapping key ${collectionKey.text} is itself a mapping or a list (an unquoted {{...}}?); ` +
        'Kubernetes accepts only string keys, so kubectl would refuse this document';
      problems.push(templateProblem(text, line, file, message) ?? { file, line, message: `${message}. Quote it.` });
      continue;
    }
    let js: unknown;
    try {
      js = doc.toJS({ maxAliasCount: 100 });
    } catch (err) {
      problems.push({ file, line: lineCounter.linePos(doc.range[0]).line, message: (err as Error).message });
      continue;
    }
    const c = classifyDocument(js, file, () => lineCounter.linePos(doc.contents!.range[0]).line);
    if (c.notManifest) notManifests++;
    if (c.problem) problems.push(c.problem);
    if (!c.manifest) continue;
    const locate = (segs: (string | number)[]): number => lineOf(doc, segs, lineCounter);
    expandLists(c.manifest, file, [], locate, objects);
  }
  return { objects, problems: [...problems, ...duplicates], documents, notManifests };
}

/** The first non-blank character of a JSON object text. */
const JSON_OBJECT_START = /^\s*\{/;
/** Every string of a JSON text, and whether a colon follows it (then it is a key). */
const JSON_STRING = /"(?:[^"\\]|\\.)*"(\s*:)?/g;

/** How many keys the objects of a parsed JSON value hold, nested ones included. */
function keysIn(v: unknown): number {
  if (Array.isArray(v)) return v.reduce((n: number, x) => n + keysIn(x), 0);
  if (v === null || typeof v !== 'object') return 0;
  let n = 0;
  for (const x of Object.values(v)) n += 1 + keysIn(x);
  return n;
}

/**
 * Whether the text is one JSON object that is not a Kubernetes object (a package-lock.json, a
 * Grafana dashboard): then lint's answer is one document, not a manifest, what the package's
 * reading gives for it, from JSON.parse instead of the package (a warm lint of held-out set 11 left 59
 * JSON texts, 1.04 MB, mostly Grafana dashboards, to the package: the largest part of the 1.67 MB it
 * read there; docs/lint-precision.md "Timing, round 15").
 * kubectl reads a text whose first non-blank character is "{" as JSON too (apimachinery v0.32.4
 * pkg/util/yaml/decoder.go: YAMLOrJSONDecoder.Decode uses encoding/json when GuessJSONStream sees
 * that prefix). Left to the package: a text JSON.parse refuses, a manifest (its lines are needed), and
 * a text with a key twice in one object (JSON.parse keeps the last; the package's path reports it):
 * the key strings counted in the text (a string followed by ":") against the keys JSON.parse kept.
 * Where the package refuses a text that is valid JSON, this reading is kubectl's, not the package's.
 * Off with the fast reader (setFastYamlForBench): test/rules/fast-yaml-lint.test.ts compares the two.
 */
function isJsonNotManifest(text: string): boolean {
  if (!JSON_OBJECT_START.test(text)) return false;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return false;
  }
  if (!classifyDocument(value, '', () => 0).notManifest) return false;
  let keys = 0;
  for (const m of text.matchAll(JSON_STRING)) if (m[1] !== undefined) keys++;
  return keys === keysIn(value);
}

/**
 * parseManifestText on documents the fast reader read: the same steps as for the package's
 * documents without errors (the reader reads no text with a parse error, a key twice, a
 * collection as a key or an alias count the package refuses).
 */
function fromFastDocuments(docs: readonly FastDocument[], file: string): ParsedSource {
  const objects: LintObject[] = [];
  const problems: ParseProblem[] = [];
  let notManifests = 0;
  for (const doc of docs) {
    const c = classifyDocument(doc.value, file, () => doc.contentLine);
    if (c.notManifest) notManifests++;
    if (c.problem) problems.push(c.problem);
    if (!c.manifest) continue;
    expandLists(c.manifest, file, [], (segs) => doc.lineOf(segs), objects);
  }
  return { objects, problems, documents: docs.length, notManifests };
}

/**
 * What a parsed document is, for both readers (the yaml package's and the fast reader's documents):
 * a manifest; a document missing its kind or its apiVersion (the problem to report); or no manifest
 * at all (`notManifest` when it holds a value).
 */
function classifyDocument(
  js: unknown,
  file: string,
  line: () => number,
): { manifest?: Manifest; problem?: ParseProblem; notManifest?: boolean } {
  const r = js !== null && typeof js === 'object' && !Array.isArray(js) ? (js as Manifest) : undefined;
  const hasKind = typeof r?.kind === 'string';
  const hasApi = typeof r?.apiVersion === 'string';
  // Neither field: a values file, JSON Schema or OpenAPI document. A Helm Chart.yaml has an
  // apiVersion (v1/v2) and name/version but no kind: chart metadata, not an object either.
  // An apiVersion that no Kubernetes API can have, without a kind: another format's field (an Azure
  // ARM template's "[variables('apiVersionDeployments')]" or "2020-06-01", held-out set 5).
  const foreignApi = !hasKind && hasApi && !KUBERNETES_API_VERSION.test(String(r!.apiVersion));
  if ((!hasKind && !hasApi) || foreignApi || (!hasKind && typeof r?.name === 'string' && r?.version !== undefined))
    return { notManifest: js !== null && js !== undefined };
  if (!hasKind || !hasApi) {
    // No kind: kubectl cannot decode it (unstructuredJSONScheme: "Object 'Kind' is missing",
    // apimachinery v0.32.4 pkg/apis/meta/v1/unstructured/helpers.go). No apiVersion: its
    // client-side validation refuses it ("apiVersion not set", kubectl v0.32.4
    // pkg/validation/validation.go); whether the server-validated path does was not checked.
    const problem: ParseProblem = {
      file,
      line: line(),
      ...(hasKind ? { kind: String(r!.kind), severity: 'warning' as const } : {}),
      message: hasKind
        ? `the document has kind ${String(r!.kind)} but no apiVersion; kubectl's client-side ` +
          'validation refuses it ("apiVersion not set")'
        : `the document has apiVersion ${String(r!.apiVersion)} but ` +
          `no kind; kubectl cannot decode it ("Object 'Kind' is missing")`,
    };
    return { problem };
  }
  return { manifest: r };
}

/** Every key that appears twice in a mapping of the document, with both lines and whether the values agree. */
function duplicateKeys(doc: YAML.Document, file: string, lc: YAML.LineCounter): ParseProblem[] {
  const out: ParseProblem[] = [];
  const kind = YAML.isMap(doc.contents) ? doc.contents.get('kind') : undefined;
  YAML.visit(doc, {
    Map(_, map) {
      const seen = new Map<unknown, YAML.Pair>();
      for (const pair of map.items) {
        const key = YAML.isScalar(pair.key) ? pair.key.value : undefined;
        if (key === undefined || key === '<<') continue;
        const first = seen.get(key);
        if (!first) {
          seen.set(key, pair);
          continue;
        }
        const line = (n: unknown): number => (YAML.isNode(n) && n.range ? lc.linePos(n.range[0]).line : 0);
        const js = (n: unknown): string => JSON.stringify(YAML.isNode(n) ? n.toJSON() : n) ?? 'null';
        const sameValue = js(first.value) === js(pair.value);
        out.push({
          file,
          line: line(pair.key),
          ...(typeof kind === 'string' ? { kind } : {}),
          message:
            `the key "${String(key)}" appears twice in one mapping (lines ${line(first.key)} ` +
            `and ${line(pair.key)})${
              sameValue
                ? ', with the same value'
                : `: ${js(first.value).slice(0, 60)}, ` + `then ${js(pair.value).slice(0, 60)}`
            }`,
          duplicateKey: { key: String(key), firstLine: line(first.key), sameValue },
        });
      }
    },
  });
  return out;
}

/** Adds an object, or the items of a `kind: List` (nested Lists too), with line lookups into the items. */
function expandLists(
  obj: Manifest,
  file: string,
  prefix: (string | number)[],
  locate: (segs: (string | number)[]) => number,
  out: LintObject[],
): void {
  if (obj.kind === 'List' && Array.isArray(obj.items)) {
    obj.items.forEach((item, i) => {
      if (isManifest(item)) expandLists(item, file, [...prefix, 'items', i], locate, out);
    });
    return;
  }
  out.push(lintObject(obj, file, (p) => locate([...prefix, ...p])));
}

/** The first mapping key that is a collection (`{{x}}: 1` parses as a flow mapping key), with its position. */
function findCollectionKey(doc: YAML.Document): { text: string; pos: number } | undefined {
  let found: { text: string; pos: number } | undefined;
  YAML.visit(doc, {
    Pair(_, pair) {
      if (YAML.isCollection(pair.key)) {
        found = { text: String(pair.key), pos: pair.key.range?.[0] ?? 0 };
        return YAML.visit.BREAK;
      }
      return undefined;
    },
  });
  return found;
}

/** Wraps an object read from elsewhere (a rendered kustomization) with its own line lookup. */
export function objectWithLines(obj: Manifest, file: string, line: (path: string) => number): LintObject {
  return { ...lintObject(obj, file, () => 0), line };
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
