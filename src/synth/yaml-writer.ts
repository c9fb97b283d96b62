/**
 * A YAML writer for plain manifest objects that gives exactly the bytes of the `yaml` package
 * (v2.9.1, the version cdk8s bundles) with cdk8s' options (YAML 1.1, keepUndefined, lineWidth 0),
 * and the justification comments where commentDocument (src/justify/comments.ts) puts them, in a
 * fraction of its time: synth writes every object of the estate, and building a yaml Document of
 * nodes for each was most of synth's work (bench/synth.ts).
 *
 * It follows the package's stringifier (dist/stringify/stringify.js, stringifyPair.js,
 * stringifyCollection.js, stringifyString.js, stringifyComment.js, doc/createNode.js of yaml
 * 2.9.1) for the shapes manifests have: block maps and sequences (`indentSeq`, two spaces), `{}`
 * and `[]` for empty ones, strings plain, single- or double-quoted or as block literals exactly as
 * the package chooses (the YAML 1.1 schema's own tag tests decide what must be quoted), numbers
 * as the package writes them (asked once per number), booleans and null, and comments before map
 * keys and sequence items. Anything else (an object reached twice, which the package writes as an
 * anchor and alias; undefined; a non-plain object; a key longer than 1,024 characters, written as
 * an explicit key; a block string with kept trailing newlines) returns undefined, and the caller
 * uses the package. test/synth/yaml-writer.test.ts compares the two on every committed output,
 * the bench estates and generated objects with tricky strings.
 */
import * as YAML from 'yaml';

/** cdk8s' options (src/justify/comments.ts YAML_OPTIONS). */
const OPTIONS = { version: '1.1', keepUndefined: true, lineWidth: 0 } as const;

/** The writer cannot write this object as the package would: use the package. */
class Unsupported extends Error {}

type Tag = { default?: boolean | string; tag: string; test?: RegExp };
/** The YAML 1.1 schema's tags (and compat tags), as the package's plainString tests them. */
const SCHEMA = new YAML.Document(null, OPTIONS).schema as unknown as { tags: Tag[]; compat?: Tag[] | null };
const RESOLVES_TO_OTHER_TYPE = [...SCHEMA.tags, ...(SCHEMA.compat ?? [])].filter(
  (t) => t.default && t.tag !== 'tag:yaml.org,2002:str' && t.test,
);

const INDENT_STEP = '  ';
const CONTROL = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u{D800}-\u{DFFF}]/u; // eslint-disable-line no-control-regex -- the package's own test
const NOT_PLAIN = /^[\n\t ,[\]{}#&*!|>'"%@`]|^[?-]$|^[?-][ \t]|[\n:][ \t]|[ \t]\n|[\n\t ]#|[\n\t :]$/;
const containsDocumentMarker = (s: string) => /^(%|---|\.\.\.)/m.test(s);

interface Ctx {
  readonly implicitKey: boolean;
  readonly indent: string;
}

function doubleQuoted(value: string, ctx: Ctx): string {
  const json = JSON.stringify(value);
  const indent = ctx.indent || (containsDocumentMarker(value) ? '  ' : '');
  let str = '';
  let start = 0;
  for (let i = 0, ch = json[i]; ch; ch = json[++i]) {
    if (ch === ' ' && json[i + 1] === '\\' && json[i + 2] === 'n') {
      str += `${json.slice(start, i)}\\ `;
      i += 1;
      start = i;
      ch = '\\';
    }
    if (ch === '\\') {
      switch (json[i + 1]) {
        case 'u': {
          str += json.slice(start, i);
          const code = json.substr(i + 2, 4);
          switch (code) {
            case '0000':
              str += '\\0';
              break;
            case '0007':
              str += '\\a';
              break;
            case '000b':
              str += '\\v';
              break;
            case '001b':
              str += '\\e';
              break;
            case '0085':
              str += '\\N';
              break;
            case '00a0':
              str += '\\_';
              break;
            case '2028':
              str += '\\L';
              break;
            case '2029':
              str += '\\P';
              break;
            default:
              str += code.substr(0, 2) === '00' ? `\\x${code.substr(2)}` : json.substr(i, 6);
          }
          i += 5;
          start = i + 1;
          break;
        }
        case 'n':
          if (ctx.implicitKey || json[i + 2] === '"' || json.length < 40) {
            i += 1;
          } else {
            str += `${json.slice(start, i)}\n\n`;
            while (json[i + 2] === '\\' && json[i + 3] === 'n' && json[i + 4] !== '"') {
              str += '\n';
              i += 2;
            }
            str += indent;
            if (json[i + 2] === ' ') str += '\\';
            i += 1;
            start = i + 1;
          }
          break;
        default:
          i += 1;
      }
    }
  }
  return start ? str + json.slice(start) : json;
}

function singleQuoted(value: string, ctx: Ctx): string {
  if ((ctx.implicitKey && value.includes('\n')) || /[ \t]\n|\n[ \t]/.test(value)) return doubleQuoted(value, ctx);
  const indent = ctx.indent || (containsDocumentMarker(value) ? '  ' : '');
  return `'${value.replace(/'/g, "''").replace(/\n+/g, `$&\n${indent}`)}'`;
}

function quoted(value: string, ctx: Ctx): string {
  const hasDouble = value.includes('"');
  const hasSingle = value.includes("'");
  return hasDouble && !hasSingle ? singleQuoted(value, ctx) : doubleQuoted(value, ctx);
}

/** The package's blockEndNewlines (its lookbehind form: Node has lookbehind). */
const blockEndNewlines = /(^|(?<!\n))\n+(?!\n|$)/g;

/**
 * `/\n[\t ]+$/.test(value)`, the package's test (stringifyString.js blockString), from the end: the
 * text ends with a line break followed by one or more tabs or spaces.
 */
function endsWithIndentedLine(value: string): boolean {
  let end = value.length;
  while (end > 0 && (value[end - 1] === ' ' || value[end - 1] === '\t')) end--;
  return end < value.length && end > 0 && value[end - 1] === '\n';
}

/**
 * `value.replace(/\n+/g, `$&${indent}`)`, the package's step: `indent` after each run of line breaks.
 * Where no two line breaks are adjacent every run is one "\n", and split/join puts `indent` after each.
 */
function indentLines(value: string, indent: string): string {
  return value.includes('\n\n') ? value.replace(/\n+/g, `$&${indent}`) : value.split('\n').join(`\n${indent}`);
}

/** A block literal (lineWidth 0: never folded). */
function block(original: string, ctx: Ctx): string {
  let value = original;
  if (endsWithIndentedLine(value)) return quoted(value, ctx);
  const indent = ctx.indent || (containsDocumentMarker(value) ? '  ' : '');
  if (!value) return '|\n';
  let endStart: number;
  for (endStart = value.length; endStart > 0; --endStart) {
    const ch = value[endStart - 1];
    if (ch !== '\n' && ch !== '\t' && ch !== ' ') break;
  }
  let end = value.substring(endStart);
  const endNlPos = end.indexOf('\n');
  let chomp: string;
  if (endNlPos === -1) chomp = '-';
  // the package signals onChompKeep upwards
  else if (value === end || endNlPos !== end.length - 1) throw new Unsupported('kept trailing newlines');
  else chomp = '';
  if (end) {
    value = value.slice(0, -end.length);
    if (end[end.length - 1] === '\n') end = end.slice(0, -1);
    end = end.replace(blockEndNewlines, `$&${indent}`);
  }
  let startWithSpace = false;
  let startEnd: number;
  let startNlPos = -1;
  for (startEnd = 0; startEnd < value.length; ++startEnd) {
    const ch = value[startEnd];
    if (ch === ' ') startWithSpace = true;
    else if (ch === '\n') startNlPos = startEnd;
    else break;
  }
  let start = value.substring(0, startNlPos < startEnd ? startNlPos + 1 : startEnd);
  if (start) {
    value = value.substring(start.length);
    start = start.replace(/\n+/g, `$&${indent}`);
  }
  const header = (startWithSpace ? (indent ? '2' : '1') : '') + chomp;
  value = indentLines(value, indent);
  return `|${header}\n${indent}${start}${value}${end}`;
}

function plain(value: string, ctx: Ctx): string {
  if (ctx.implicitKey && value.includes('\n')) return quoted(value, ctx);
  if (NOT_PLAIN.test(value)) return ctx.implicitKey || !value.includes('\n') ? quoted(value, ctx) : block(value, ctx);
  if (!ctx.implicitKey && value.includes('\n')) return block(value, ctx);
  if (containsDocumentMarker(value)) {
    if (ctx.indent === '') throw new Unsupported('a document marker at the top level');
    if (ctx.implicitKey && ctx.indent === INDENT_STEP) return quoted(value, ctx);
  }
  // value has no newline here
  for (const t of RESOLVES_TO_OTHER_TYPE) if (t.test!.test(value)) return quoted(value, ctx);
  return value;
}

/**
 * A created (untyped) string scalar in block context. The YAML 1.1 merge tag identifies the string
 * "<<" and, having a test where the string tag has none, wins (stringify.js getTagObject): "<<" is
 * written as it is. Every other string is the string tag's: stringifyString.
 */
function stringScalar(value: string, ctx: Ctx): string {
  if (value === '<<') return '<<';
  return CONTROL.test(value) ? doubleQuoted(value, ctx) : plain(value, ctx);
}

/**
 * Single-line strings are written the same at every depth (only keys at the top level differ:
 * document markers are quoted there): cached, since an estate repeats most of its strings.
 */
const VALUES = new Map<string, string>();
const KEYS = new Map<string, string>();
const TOP_KEYS = new Map<string, string>();
/**
 * Small: an estate's strings that repeat are few and recur quickly, and holding the rest costs the garbage collector
 * more than it saves.
 */
const CACHE_MAX = 10_000;
/** Comments as written, by indent and text (an estate repeats most reasons at the same depths). */
const COMMENTS = new Map<string, string>();

function cached(cache: Map<string, string>, value: string, ctx: Ctx): string {
  let s = cache.get(value);
  if (s === undefined) {
    s = stringScalar(value, ctx);
    if (cache.size >= CACHE_MAX) cache.clear();
    cache.set(value, s);
  }
  return s;
}

function valueString(value: string, indent: string): string {
  return value.includes('\n')
    ? stringScalar(value, { implicitKey: false, indent })
    : cached(VALUES, value, { implicitKey: false, indent });
}

function keyString(key: string, indent: string): string {
  const s =
    indent === INDENT_STEP
      ? cached(TOP_KEYS, key, { implicitKey: true, indent })
      : cached(KEYS, key, { implicitKey: true, indent });
  if (s.length > 1024) throw new Unsupported('a key written over 1,024 characters (an explicit key)');
  return s;
}

/**
 * Numbers as the package writes them as a sequence item or a value (asked once per number: the
 * YAML 1.1 int and float tags). -0 is not cached (a Map holds it as 0).
 */
const NUMBERS = new Map<number, string>();
function numberString(n: number): string {
  if (Object.is(n, -0)) return YAML.stringify([n], OPTIONS).slice(2, -1);
  let s = NUMBERS.get(n);
  if (s === undefined) {
    s = YAML.stringify([n], OPTIONS).slice(2, -1);
    if (NUMBERS.size >= CACHE_MAX) NUMBERS.clear();
    NUMBERS.set(n, s);
  }
  return s;
}

/** Comments by container and key (map) or index (sequence), as commentDocument attaches them. */
type Comments = Map<object, Map<string | number, string>>;

function isPlainObject(x: unknown): x is Record<string, unknown> {
  if (x === null || typeof x !== 'object' || Array.isArray(x)) return false;
  const proto = Object.getPrototypeOf(x) as unknown;
  return proto === Object.prototype || proto === null;
}

/**
 * A comment text that is not as wrap (src/justify/wrap.ts) writes every reason: a line that does not
 * start with a space and a non-space character, or a line break other than "\n" (the package's
 * multiline regexes also break lines at "\r", U+2028 and U+2029). For the texts wrap writes,
 * commentBySteps' steps come to "#" before every line and `indent` after every "\n": the package's
 * stringifyComment (`/^(?!$)(?: $)?/gm` -> "#") matches the empty string at the start of each line,
 * none being empty or a lone space; indentComment (`/^(?! *$)/gm` -> indent) indents each line, none
 * being blank; trimStart then removes the first line's indent (spaces) and stops at its "#".
 * test/synth/yaml-writer.test.ts compares the two on generated texts.
 */
const NOT_WRAPPED = /(?:^|\n)(?! \S)|[\r\u2028\u2029]/;

/** The package's steps for any comment text (cached: an estate repeats its reasons at the same depths). */
export function commentBySteps(text: string, indent: string): string {
  const key = `${indent.length}\u0000${text}`;
  let done = COMMENTS.get(key);
  if (done === undefined) {
    const c = text.replace(/^(?!$)(?: $)?/gm, '#');
    const ic = /^\n+$/.test(c) ? c.substring(1) : indent ? c.replace(/^(?! *$)/gm, indent) : c;
    done = ic.trimStart();
    if (COMMENTS.size >= CACHE_MAX) COMMENTS.clear();
    COMMENTS.set(key, done);
  }
  return done;
}

/**
 * commentBefore as stringifyBlockCollection's addCommentBefore writes it (first line not indented):
 * directly for a text as wrap writes it, else by the package's steps.
 */
export function commentText(text: string, indent: string): string {
  if (NOT_WRAPPED.test(text)) return commentBySteps(text, indent);
  return `#${text.replaceAll('\n', `\n${indent}#`)}`;
}

class Writer {
  private readonly seen = new Set<object>();

  constructor(private readonly comments: Comments | undefined) {}

  /** A scalar or collection as the value of a pair or a sequence item, in a context of `indent`. */
  public node(v: unknown, indent: string): { str: string; collection: boolean; empty: boolean } {
    if (typeof v === 'string') return { str: valueString(v, indent), collection: false, empty: false };
    if (typeof v === 'number') return { str: numberString(v), collection: false, empty: false };
    if (typeof v === 'boolean') return { str: v ? 'true' : 'false', collection: false, empty: false };
    if (v === null) return { str: 'null', collection: false, empty: false };
    if (Array.isArray(v)) {
      this.enter(v);
      if (v.length === 0) return { str: '[]', collection: true, empty: true };
      return { str: this.seq(v, indent), collection: true, empty: false };
    }
    if (isPlainObject(v)) {
      this.enter(v);
      const keys = Object.keys(v);
      if (keys.length === 0) return { str: '{}', collection: true, empty: true };
      return { str: this.map(v, keys, indent), collection: true, empty: false };
    }
    throw new Unsupported(`a ${v === undefined ? 'undefined' : typeof v} value`);
  }

  /** An object reached twice is an alias in the package's output. */
  private enter(o: object): void {
    if (this.seen.has(o)) throw new Unsupported('an object reached twice');
    this.seen.add(o);
  }

  /** A block map whose context indent is `indent` (its keys are written at that indent). */
  public map(o: Record<string, unknown>, keys: readonly string[], indent: string): string {
    const own = this.comments?.get(o);
    const lines: string[] = [];
    const inner = indent + INDENT_STEP;
    for (const k of keys) {
      const v = o[k];
      if (v === undefined) throw new Unsupported('an undefined value');
      const c = own?.get(k);
      if (c) lines.push(commentText(c, indent));
      const key = keyString(k, inner);
      const value = this.node(v, inner);
      lines.push(value.collection && !value.empty ? `${key}:\n${inner}${value.str}` : `${key}: ${value.str}`);
    }
    return join(lines, indent);
  }

  /** A block sequence whose context indent is `indent` ("- " at that indent). */
  public seq(a: readonly unknown[], indent: string): string {
    const own = this.comments?.get(a);
    const lines: string[] = [];
    const inner = indent + INDENT_STEP;
    for (let i = 0; i < a.length; i++) {
      if (!(i in a)) throw new Unsupported('a hole in an array');
      const c = own?.get(i);
      if (c) lines.push(commentText(c, indent));
      lines.push(`- ${this.node(a[i], inner).str}`);
    }
    return join(lines, indent);
  }
}

function join(lines: readonly string[], indent: string): string {
  let str = lines[0];
  for (let i = 1; i < lines.length; ++i) str += lines[i] ? `\n${indent}${lines[i]}` : '\n';
  return str;
}

/** yaml's YAMLSeq asItemIndex: a number or a numeric string that is a whole index, else null. */
function asItemIndex(key: string | number): number | null {
  let idx: unknown = key;
  if (idx && typeof idx === 'string') idx = Number(idx);
  return typeof idx === 'number' && Number.isInteger(idx) && idx >= 0 ? idx : null;
}

/**
 * Where commentDocument puts each reason, on the plain object: the parent found as Document.getIn
 * finds it (map keys by string equality, sequence items by asItemIndex), then the key of a map (a
 * string equal to the last segment) or the item `Number(last)` of a sequence; a path that does
 * not exist is skipped, and a later reason on the same place replaces an earlier one.
 */
function placeComments(
  obj: Record<string, unknown>,
  reasons: Readonly<Record<string, string>>,
  segments: (path: string) => (string | number)[],
  wrap: (text: string) => string,
): Comments {
  const out: Comments = new Map();
  for (const [path, reason] of Object.entries(reasons)) {
    const segs = segments(path);
    let parent: unknown = obj;
    for (const seg of segs.slice(0, -1)) {
      if (Array.isArray(parent)) {
        const i = asItemIndex(seg);
        parent = i === null ? undefined : parent[i];
      } else if (isPlainObject(parent)) {
        parent = typeof seg === 'string' && Object.prototype.hasOwnProperty.call(parent, seg) ? parent[seg] : undefined;
      } else parent = undefined;
      if (parent === undefined) break;
    }
    if (segs.length === 0) parent = undefined; // getIn([]) is the document's contents, then .slice(-1) has no key
    const last = segs[segs.length - 1];
    let at: string | number | undefined;
    if (Array.isArray(parent)) {
      const i = Number(last);
      if (Number.isInteger(i) && i >= 0 && i < parent.length) at = i;
    } else if (isPlainObject(parent)) {
      if (typeof last === 'string' && Object.prototype.hasOwnProperty.call(parent, last)) at = last;
    }
    if (at === undefined) continue;
    let m = out.get(parent as object);
    if (!m) out.set(parent as object, (m = new Map<string | number, string>()));
    m.set(at, wrap(reason));
  }
  return out;
}

/**
 * Off (every object left to the package) when ROLLWISE_BENCH_NO_OWN_YAML is set: for the synth
 * benchmark only, which times synth with and without this writer (the variable reaches the
 * serializer's worker threads, which a flag set in the main thread would not).
 */
const enabled = process.env.ROLLWISE_BENCH_NO_OWN_YAML === undefined;

/**
 * One manifest object as the package writes it (`new YAML.Document(obj, options)`, the comments
 * set, `toString(options)`), or undefined when this writer does not model it.
 */
export function writeYaml(
  obj: unknown,
  comments?: {
    readonly reasons: Readonly<Record<string, string>>;
    readonly segments: (path: string) => (string | number)[];
    readonly wrap: (text: string) => string;
  },
): string | undefined {
  if (!enabled || !isPlainObject(obj)) return undefined;
  try {
    const placed = comments ? placeComments(obj, comments.reasons, comments.segments, comments.wrap) : undefined;
    const keys = Object.keys(obj);
    if (keys.length === 0) return '{}\n';
    const w = new Writer(placed);
    return `${w.map(obj, keys, '')}\n`;
  } catch (e) {
    if (e instanceof Unsupported) return undefined;
    throw e;
  }
}
