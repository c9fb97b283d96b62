/**
 * A YAML reader for the block-style documents manifests, CRDs and values files are written in,
 * that gives what the `yaml` package (v2.9.1) gives: the same documents, the same JavaScript values
 * as `doc.toJS()`, the same line of every map key and sequence item (what source.ts's lineOf reads
 * from the package's Document). It reads a line at a time, without building a Document of nodes,
 * several times faster than the package: lint and the schema loader read every file with it.
 *
 * It reads block maps and sequences (indentless sequences under a key too), plain scalars resolved
 * by the schema's own tags (YAML 1.1 or the 1.2 core schema, as the package resolves them),
 * single- and double-quoted scalars on one line, literal and folded block scalars, `[]` and `{}`,
 * comments, blank lines and `---`. Anything else returns undefined and the caller uses the
 * package: anchors, aliases, tags, flow collections with content, multi-line plain or quoted
 * scalars, explicit keys, merge keys, a key twice, tabs, CR, directives, `...`, a document that is
 * not valid YAML. test/rules/fast-yaml.test.ts compares the two on every YAML file of the
 * repository, the pinned CRDs and generated documents.
 */
import * as YAML from 'yaml';

type Json = Record<string, unknown>;

/** The reader does not read this text as the package would: use the package. */
class Unsupported extends Error {}
const bail = (why: string): never => {
  throw new Unsupported(why);
};

/** One document of a text, as the package's Document gives it. */
export interface FastDocument {
  /** doc.toJS(): null for an empty document. */
  readonly value: unknown;
  /** The 1-based line where the document's contents start. */
  readonly contentLine: number;
  /**
   * The line of the deepest node on the path that exists: a map key's line, or a sequence item's
   * (map keys compared with the key's resolved value, as the package's items are).
   */
  lineOf(segs: readonly (string | number)[]): number;
}

type Tag = {
  default?: boolean | string;
  tag: string;
  test?: RegExp;
  resolve: (s: string, onError: (msg: string) => void, opts: unknown) => unknown;
};
interface Schema {
  readonly tags: readonly Tag[];
  readonly options: unknown;
}

function schemaOf(version: '1.1' | '1.2'): Schema {
  const doc = new YAML.Document(null, { version });
  const s = doc.schema as unknown as { tags: Tag[]; compat?: Tag[] | null };
  if (s.compat) throw new Error('yaml schema with compat tags: not modelled by fast-yaml.ts');
  return { tags: s.tags, options: doc.options };
}
const SCHEMAS = { '1.1': schemaOf('1.1'), '1.2': schemaOf('1.2') };

/** What the package makes of a plain scalar (composeScalar, findScalarTagByTest; then toJS). */
function plainValue(src: string, schema: Schema, atKey: boolean): unknown {
  const tag = schema.tags.find((t) => (t.default === true || (atKey && t.default === 'key')) && t.test?.test(src));
  if (!tag) return src;
  if (t(tag) === 'tag:yaml.org,2002:merge') bail('a merge key');
  let failed = false;
  let res: unknown;
  try {
    res = tag.resolve(
      src,
      () => {
        failed = true;
      },
      schema.options,
    );
  } catch {
    failed = true;
  }
  if (failed) bail('a scalar its tag does not resolve');
  const value = YAML.isScalar(res) ? res.value : res;
  // A timestamp (YAML 1.1, unquoted: `creationTimestamp: 2018-12-02T08:09:25Z` in `kubectl get -o
  // yaml` output): the package's toJS() keeps it a Date, which the reader does not model (it once
  // gave the Date's JSON text; the precision corpora showed the difference): left to the package.
  if (value instanceof Date) bail('a timestamp');
  if (atKey && typeof value === 'bigint') bail('a bigint key');
  return jsOf(value);
}
const t = (tag: Tag) => tag.tag;

/** toJS of a scalar's value (a Date never gets here), a bigint as a number. */
function jsOf(v: unknown): unknown {
  if (typeof v === 'bigint') return Number(v);
  if (v !== null && typeof v === 'object') bail('a scalar that resolves to an object');
  return v;
}

const ESCAPES: Record<string, string> = {
  0: '\0',
  a: '\x07',
  b: '\b',
  e: '\x1b',
  f: '\f',
  n: '\n',
  r: '\r',
  t: '\t',
  v: '\v',
  N: '\u0085',
  _: '\u00a0',
  L: '\u2028',
  P: '\u2029',
  ' ': ' ',
  '"': '"',
  '/': '/',
  '\\': '\\',
  '\t': '\t',
};

/**
 * A double-quoted scalar's value from its source (quotes included, line breaks as in the text):
 * the package's doubleQuotedValue (compose/resolve-flow-scalar.js), a bad escape a bail.
 */
function doubleQuotedValue(source: string): string {
  let res = '';
  for (let i = 1; i < source.length - 1; ++i) {
    const ch = source[i];
    if (ch === '\n') {
      let fold = '';
      let c = source[i + 1];
      while (c === ' ' || c === '\n') {
        if (c === '\n') fold += '\n';
        i += 1;
        c = source[i + 1];
      }
      res += fold || ' ';
    } else if (ch === '\\') {
      let next = source[++i];
      const cc = ESCAPES[next];
      if (cc) res += cc;
      else if (next === '\n') {
        next = source[i + 1];
        while (next === ' ') next = source[++i + 1];
      } else if (next === 'x' || next === 'u' || next === 'U') {
        const length = next === 'x' ? 2 : next === 'u' ? 4 : 8;
        const code = source.substr(i + 1, length);
        if (code.length !== length || !/^[0-9a-fA-F]+$/.test(code)) bail('a bad escape');
        const n = parseInt(code, 16);
        if (n > 0x10ffff) bail('a bad escape');
        res += String.fromCodePoint(n);
        i += length;
      } else bail('an invalid escape');
    } else if (ch === ' ') {
      const wsStart = i;
      let next = source[i + 1];
      while (next === ' ') next = source[++i + 1];
      if (next !== '\n') res += i > wsStart ? source.slice(wsStart, i + 1) : ch;
    } else res += ch;
  }
  return res;
}

/** A single-quoted scalar's value from its source: the package's singleQuotedValue (unfoldLines, then '' as '). */
function singleQuotedValue(source: string): string {
  const inner = source.slice(1, -1);
  const lines = inner.split('\n');
  if (lines.length === 1) return inner.replace(/''/g, "'");
  let res = lines[0].replace(/(?<! ) +$/, '');
  let sep = ' ';
  for (let k = 1; k < lines.length - 1; k++) {
    const lm = lines[k].replace(/^ +|(?<! ) +$/g, '');
    if (lm === '') {
      if (sep === '\n') res += sep;
      else sep = '\n';
    } else {
      res += sep + lm;
      sep = ' ';
    }
  }
  res += sep + lines[lines.length - 1].replace(/^ +/, '');
  return res.replace(/''/g, "'");
}

interface Line {
  /** 1-based line number. */
  readonly n: number;
  /** Column of the first character of `text`. */
  readonly indent: number;
  /** The line from `indent` on. */
  readonly text: string;
  /** The whole line (for block scalars). */
  readonly raw: string;
}

const isBlank = (l: Line) => l.text === '';
const isComment = (l: Line) => l.text[0] === '#';

/**
 * Lines of a map or a sequence: key -> line and JS key, or item -> line; with whether the value
 * there is an alias (the package's lineOf stops at an Alias node: it is no map or sequence).
 */
interface Positions {
  readonly keys?: Map<unknown, { line: number; jsKey: string; alias?: boolean }>;
  readonly items?: number[];
  readonly aliasItems?: Set<number>;
}

class DocumentReader {
  private i = 0;
  public readonly positions = new WeakMap<object, Positions>();
  /** Anchored values by name (the latest definition wins); aliases resolve to the same value. */
  private readonly anchors = new Map<string, unknown>();
  private aliases = 0;

  constructor(
    private readonly lines: readonly Line[],
    private readonly schema: Schema,
  ) {}

  /** The next line that is neither blank nor a comment, from i on. */
  private peek(): Line | undefined {
    while (this.i < this.lines.length && (isBlank(this.lines[this.i]) || isComment(this.lines[this.i]))) this.i++;
    return this.lines[this.i];
  }

  public document(): { value: unknown; contentLine: number } | undefined {
    const first = this.peek();
    if (!first) return undefined;
    if (first.indent !== 0) bail('indented top-level contents');
    const value = this.node(first, -1);
    if (this.peek()) bail('more after the top-level node');
    return { value, contentLine: first.n };
  }

  /**
   * The node that starts at `l` (a line, or the rest of one after "- " or "key: "), owned by a
   * key or dash at column `parent` (-1 at the top level). Consumes its lines.
   */
  private node(l: Line, parent: number): unknown {
    const text = l.text;
    if (text === '-' || text.startsWith('- ')) return this.seq(l);
    if (this.entryKey(text) !== undefined) return this.map(l);
    // a scalar on its own
    const v = this.scalar(l, parent, false);
    this.i++;
    this.noContinuation(parent);
    return v;
  }

  /** A following line more indented than the owner's column would continue a plain scalar (or be an error). */
  private noContinuation(parent: number): void {
    const next = this.peek();
    if (next && next.indent > parent) bail('a multi-line scalar or a misplaced line');
  }

  /** A block sequence whose dashes are at l.indent. */
  private seq(l: Line): unknown[] {
    const col = l.indent;
    const out: unknown[] = [];
    const lines: number[] = [];
    this.positions.set(out, { items: lines });
    let aliasItems: Set<number> | undefined;
    for (
      let cur: Line | undefined = l;
      cur && cur.indent === col && (cur.text === '-' || cur.text.startsWith('- '));
      cur = this.peek()
    ) {
      let rest = cur.text.slice(1);
      let pad = 1;
      while (rest[0] === ' ') {
        rest = rest.slice(1);
        pad++;
      }
      const p = this.props(rest);
      if (p.alias) {
        (aliasItems ??= new Set()).add(out.length);
        lines.push(cur.n);
        out.push(p.alias.value);
        this.i++;
        this.noContinuation(col);
        continue;
      }
      if (p.rest !== rest) {
        pad += rest.length - p.rest.length;
        rest = p.rest;
      }
      if (rest === '' || rest[0] === '#') {
        if (rest[0] === '#' && pad === 1) bail('a comment right after a dash');
        this.i++;
        const next = this.peek();
        if (next && next.indent > col) {
          lines.push(next.n);
          out.push(this.anchored(p.anchor, () => this.node(next, col)));
        } else {
          lines.push(cur.n);
          out.push(this.anchored(p.anchor, () => null));
        }
        continue;
      }
      if (p.anchor !== undefined && (rest === '-' || rest.startsWith('- ') || this.entryKey(rest) !== undefined))
        bail('an anchor before an inline collection');
      const inline: Line = { n: cur.n, indent: col + pad, text: rest, raw: cur.raw };
      lines.push(cur.n);
      out.push(this.anchored(p.anchor, () => this.inline(inline, col)));
    }
    if (aliasItems) this.positions.set(out, { items: lines, aliasItems });
    const after = this.peek();
    if (after && after.indent > col) bail('a misplaced line after a sequence');
    return out;
  }

  /** A node that starts inside a line (after "- "): a nested sequence, a map, or a scalar. */
  private inline(l: Line, parent: number): unknown {
    if (l.text === '-' || l.text.startsWith('- ')) return this.seqInline(l);
    if (this.entryKey(l.text) !== undefined) return this.map(l);
    const v = this.scalar(l, parent, false);
    this.i++;
    this.noContinuation(parent);
    return v;
  }

  /** A sequence that starts after a dash on the same line ("- - a"). */
  private seqInline(l: Line): unknown[] {
    // replace the current line by the virtual one, so seq() reads it first
    const saved = this.lines[this.i];
    (this.lines as Line[])[this.i] = l;
    try {
      return this.seq(l);
    } finally {
      if (this.lines[this.i] === l) (this.lines as Line[])[this.i] = saved;
    }
  }

  /**
   * The key of a map entry at the start of `text` and where its value starts, or undefined when
   * `text` is not a "key:" entry.
   */
  private entryKey(text: string): { key: string; quoted: boolean; rest: number } | undefined {
    const c = text[0];
    if (c === '"' || c === "'") {
      const end = closingQuote(text, c);
      if (end < 0) return undefined;
      if (text[end + 1] !== ':' || (end + 2 < text.length && text[end + 2] !== ' ')) return undefined;
      return { key: text.slice(0, end + 1), quoted: true, rest: end + 2 };
    }
    let at = text.indexOf(': ');
    if (at < 0 && text.endsWith(':')) at = text.length - 1;
    if (at < 0) return undefined;
    const hash = text.indexOf(' #');
    if (hash >= 0 && hash < at) return undefined;
    return { key: text.slice(0, at), quoted: false, rest: at + 1 };
  }

  /** A block map whose keys are at l.indent; l is its first entry. */
  private map(l: Line): Json {
    const col = l.indent;
    const out: Json = {};
    const keys = new Map<unknown, { line: number; jsKey: string; alias?: boolean }>();
    this.positions.set(out, { keys });
    for (let cur: Line | undefined = l; cur && cur.indent === col; cur = this.peek()) {
      const e = this.entryKey(cur.text);
      if (!e) bail('a line in a map that is not an entry');
      const ek = e!;
      if (ek.key.length > 1024) bail('a key over 1,024 characters');
      let key: unknown;
      if (ek.quoted) key = this.quoted(ek.key);
      else {
        if (ek.key === '' || /^[-?:,[\]{}#&*!|>'"%@`\s]/.test(ek.key) || /\s$/.test(ek.key))
          bail('a plain key not modelled');
        key = plainValue(ek.key, this.schema, true);
      }
      if (key !== null && typeof key === 'object') bail('a key that is not a scalar');
      const jsKey = key === null ? '' : String(key);
      if (jsKey === '__proto__') bail('a __proto__ key');
      if (keys.has(key) || Object.prototype.hasOwnProperty.call(out, jsKey)) bail('a key twice');
      keys.set(key, { line: cur.n, jsKey });
      let rest = cur.text.slice(ek.rest);
      let pad = 0;
      while (rest[0] === ' ') {
        rest = rest.slice(1);
        pad++;
      }
      if (pad === 0 && rest !== '') bail('a value right after a colon');
      const p = this.props(rest);
      if (p.alias) {
        keys.set(key, { line: cur.n, jsKey, alias: true });
        out[jsKey] = p.alias.value;
        this.i++;
        this.noContinuation(col);
        continue;
      }
      if (p.rest !== rest) {
        pad += rest.length - p.rest.length;
        rest = p.rest;
      }
      if (rest === '' || rest[0] === '#') {
        if (rest[0] === '#' && pad === 0) bail('a comment right after a colon');
        this.i++;
        const next = this.peek();
        if (next && (next.indent > col || (next.indent === col && (next.text === '-' || next.text.startsWith('- '))))) {
          out[jsKey] = this.anchored(p.anchor, () => (next.indent === col ? this.seq(next) : this.node(next, col)));
        } else out[jsKey] = this.anchored(p.anchor, () => null);
        continue;
      }
      const valueLine: Line = { n: cur.n, indent: col + ek.rest + pad, text: rest, raw: cur.raw };
      out[jsKey] = this.anchored(p.anchor, () => this.scalar(valueLine, col, true));
      this.i++;
      this.noContinuation(col);
    }
    const after = this.peek();
    if (after && after.indent > col) bail('a misplaced line after a map');
    return out;
  }

  /**
   * An anchor ("&name ") at the start of a value: its name and the rest, or an alias ("*name"):
   * the anchored value. Anything else: no anchor.
   */
  private props(rest: string): { anchor?: string; rest: string; alias?: { value: unknown } } {
    if (rest[0] === '&') {
      const m = /^&([^\s,[\]{}]+)( +|$)/.exec(rest);
      if (!m) bail('an anchor not modelled');
      const after = rest.slice(m![0].length);
      if (after[0] === '&' || after[0] === '*' || after[0] === '!') bail('an anchor with more properties');
      return { anchor: m![1], rest: after };
    }
    if (rest[0] === '*') {
      const m = /^\*([^\s,[\]{}]+)( +#.*| *)$/.exec(rest);
      if (!m || !this.anchors.has(m[1])) bail('an alias not modelled');
      this.aliases++;
      return { rest: '', alias: { value: this.anchors.get(m![1]) } };
    }
    return { rest };
  }

  /** Reads a value with an anchor: the anchored value must hold no alias (the package's alias count is then 0). */
  private anchored<T>(anchor: string | undefined, read: () => T): T {
    if (anchor === undefined) return read();
    const before = this.aliases;
    const v = read();
    if (this.aliases !== before) bail('an anchored value holding an alias');
    this.anchors.set(anchor, v);
    return v;
  }

  /** A quoted scalar that is the whole of `s` ("..." or '...', line breaks included). */
  private quoted(s: string): string {
    return s[0] === "'" ? singleQuotedValue(s) : doubleQuotedValue(s);
  }

  /**
   * A scalar that starts at l (after a key or a dash, or on its own line), owned by the column
   * `parent`. Block scalars consume their content lines (this.i is left on the header line).
   */
  private scalar(l: Line, parent: number, afterKey: boolean): unknown {
    const text = l.text;
    const c = text[0];
    if (c === '"' || c === "'") {
      // a quoted scalar over several lines: its continuation lines are more indented than its owner;
      // each line is scanned once, carrying the scan's position into the next (quoteEnd)
      const parts = [text];
      let length = text.length;
      let scan = quoteEnd(text, c, 1);
      while (scan.end < 0) {
        const next = this.lines[this.i + 1];
        if (!next || (next.text !== '' && next.indent <= parent)) bail('a quoted scalar that does not close');
        this.i++;
        const part = `\n${next.raw}`;
        const local = quoteEnd(part, c, scan.resume - length);
        scan = { end: local.end < 0 ? -1 : length + local.end, resume: length + local.resume };
        parts.push(part);
        length += part.length;
      }
      const source = parts.length === 1 ? text : parts.join('');
      const end = scan.end;
      const nl = source.lastIndexOf('\n');
      if (nl >= 0 && nl > end) bail('a quoted scalar that does not close');
      this.lineEnd(source.slice(end + 1));
      return this.quoted(source.slice(0, end + 1));
    }
    if (c === '|' || c === '>') return this.block(l, parent);
    if (c === '[' || c === '{') {
      const f = this.flow(text, 0, l.n);
      this.lineEnd(text.slice(f.end));
      return f.value;
    }
    if (/^[&*!%@`?:,\]}#]/.test(text) || text === '-' || text.startsWith('- '))
      bail(`an indicator not modelled: ${text.slice(0, 40)}`);
    let end = text.indexOf(' #');
    const commented = end >= 0;
    if (end < 0) end = text.length;
    let src = text.slice(0, end).replace(/ +$/, '');
    if (src.includes(': ') || src.endsWith(':'))
      bail(afterKey ? 'a nested mapping on one line' : 'a mapping-like scalar');
    if (!commented) src = this.plainContinuation(src, parent);
    return plainValue(src, this.schema, false);
  }

  /**
   * A plain scalar's continuation lines (more indented than its owner), folded as the package
   * folds them: a line break between two lines is a space, each empty line a newline. Leaves
   * this.i on the scalar's last line.
   */
  private plainContinuation(first: string, parent: number): string {
    let value = first;
    let j = this.i + 1;
    let breaks = 0;
    let last = this.i;
    for (; j < this.lines.length; j++) {
      const x = this.lines[j];
      if (x.text === '') {
        breaks++;
        continue;
      }
      if (x.indent <= parent) break;
      // a "#" after white space starts a comment; ": " would be a nested key (an error)
      if (x.text[0] === '#' || x.text.includes(': ') || x.text.includes(' #') || x.text.endsWith(':'))
        bail('a continuation line not modelled');
      value += breaks === 0 ? ` ${x.text.replace(/ +$/, '')}` : `${'\n'.repeat(breaks)}${x.text.replace(/ +$/, '')}`;
      breaks = 0;
      last = j;
    }
    this.i = last;
    return value;
  }

  /**
   * A flow collection that starts at text[at] and ends on the same line, with flow scalars
   * (plain without ",[]{}" and ": ", or quoted) and nested flow collections: its value and the
   * index after it. Every node of it is on line n.
   */
  private flow(text: string, at: number, n: number): { value: unknown; end: number } {
    const open = text[at];
    const close = open === '[' ? ']' : '}';
    const skip = (k: number) => {
      while (text[k] === ' ') k++;
      return k;
    };
    const scalarAt = (k: number, atKey: boolean): { value: unknown; end: number } => {
      const ch = text[k];
      if (ch === '[' || ch === '{') {
        if (atKey) bail('a collection as a flow key');
        return this.flow(text, k, n);
      }
      if (ch === '"' || ch === "'") {
        const e = closingQuote(text.slice(k), ch);
        if (e < 0) bail('a quoted flow scalar over several lines');
        return { value: this.quoted(text.slice(k, k + e + 1)), end: k + e + 1 };
      }
      let e = k;
      while (
        e < text.length &&
        !',[]{}'.includes(text[e]) &&
        !(text[e] === ':' && (text[e + 1] === ' ' || ',[]{}'.includes(text[e + 1] ?? ','))) &&
        !(text[e] === '#' && text[e - 1] === ' ')
      )
        e++;
      const src = text.slice(k, e).replace(/ +$/, '');
      if (src === '' || /^[-?:&*!|>%@`#]/.test(src) || src.includes(':')) bail('a flow scalar not modelled');
      return { value: plainValue(src, this.schema, atKey), end: e };
    };
    let k = skip(at + 1);
    if (open === '[') {
      const out: unknown[] = [];
      const items: number[] = [];
      this.positions.set(out, { items });
      while (text[k] !== ']') {
        const v = scalarAt(k, false);
        out.push(v.value);
        items.push(n);
        k = skip(v.end);
        if (text[k] === ',') {
          k = skip(k + 1);
          if (text[k] === ']') bail('a trailing comma');
        } else if (text[k] !== ']') bail('a flow sequence not modelled');
      }
      return { value: out, end: k + 1 };
    }
    const out: Json = {};
    const keys = new Map<unknown, { line: number; jsKey: string; alias?: boolean }>();
    this.positions.set(out, { keys });
    while (text[k] !== close) {
      const kv = scalarAt(k, true);
      const key = kv.value;
      if (key !== null && typeof key === 'object') bail('a collection as a key');
      const jsKey = key === null ? '' : String(key);
      if (jsKey === '__proto__' || keys.has(key) || Object.prototype.hasOwnProperty.call(out, jsKey))
        bail('a flow key not modelled');
      k = skip(kv.end);
      if (text[k] !== ':') bail('a flow map entry without a value');
      k = skip(k + 1);
      const v = scalarAt(k, false);
      keys.set(key, { line: n, jsKey });
      out[jsKey] = v.value;
      k = skip(v.end);
      if (text[k] === ',') {
        k = skip(k + 1);
        if (text[k] === '}') bail('a trailing comma');
      } else if (text[k] !== '}') bail('a flow map not modelled');
    }
    return { value: out, end: k + 1 };
  }

  /** What follows a scalar on its line: nothing, or a comment after a space. */
  private lineEnd(rest: string): void {
    if (rest === '' || /^ +$/.test(rest) || /^ +#/.test(rest)) return;
    bail('something after a scalar');
  }

  /** A literal or folded block scalar whose header is at l, owned by the column `parent`. */
  private block(l: Line, parent: number): string {
    const m = /^([|>])(?:([-+]?)([1-9]?)|([1-9])([-+]))( +#.*| *)$/.exec(l.text);
    if (!m) bail('a block scalar header not modelled');
    const folded = m![1] === '>';
    const chomp = m![2] || m![5] || '';
    const explicit = Number(m![3] || m![4] || 0);
    if (chomp === '+') bail('kept trailing newlines');
    // the content: every following line that is blank or more indented than the owner
    const content: [string, string][] = [];
    let j = this.i + 1;
    for (; j < this.lines.length; j++) {
      const x = this.lines[j];
      if (x.text === '' || x.indent > parent) content.push([' '.repeat(x.indent), x.text]);
      else break;
    }
    // leave this.i on the last content line (the caller steps past it)
    this.i = j - 1;
    return resolveBlock(content, folded, chomp, parent < 0 ? 0 : parent, explicit, parent < 0);
  }
}

/** The index of the closing quote of a quoted scalar starting at s[0], or -1 when it does not close on this line. */
function closingQuote(s: string, q: string): number {
  return quoteEnd(s, q, 1).end;
}

/**
 * The closing quote's index in `s` (-1 if none), scanning from `from`, and where a later scan of
 * the same scalar with more text appended resumes (past an escape that ended the text). A quoted
 * scalar over many lines is scanned once, not once per line (scanned from its start after every
 * line, renders' quoted scalars took half of lint's CPU on held-out set 11 with a filled cache).
 */
function quoteEnd(s: string, q: string, from: number): { end: number; resume: number } {
  let i = from;
  for (; i < s.length; i++) {
    if (q === "'" && s[i] === "'") {
      if (s[i + 1] === "'") {
        i++;
        continue;
      }
      return { end: i, resume: i };
    }
    if (q === '"') {
      if (s[i] === '\\') {
        i++;
        continue;
      }
      if (s[i] === '"') return { end: i, resume: i };
    }
  }
  return { end: -1, resume: i };
}

/** resolveBlockScalar (yaml 2.9.1 compose/resolve-block-scalar.js) without "+" chomping. */
function resolveBlock(
  lines: [string, string][],
  folded: boolean,
  chomp: string,
  indent: number,
  headerIndent: number,
  atRoot: boolean,
): string {
  let chompStart = lines.length;
  for (let i = lines.length - 1; i >= 0; --i) {
    if (lines[i][1] === '') chompStart = i;
    else break;
  }
  if (chompStart === 0) return '';
  let trimIndent = indent + headerIndent;
  let contentStart = 0;
  for (let i = 0; i < chompStart; ++i) {
    const [ind, content] = lines[i];
    if (content === '') {
      if (headerIndent === 0 && ind.length > trimIndent) trimIndent = ind.length;
    } else {
      if (ind.length < trimIndent) bail('more-indented leading empty lines');
      if (headerIndent === 0) trimIndent = ind.length;
      contentStart = i;
      if (trimIndent === 0 && !atRoot) bail('a block scalar not indented');
      break;
    }
  }
  for (let i = lines.length - 1; i >= chompStart; --i) {
    if (lines[i][0].length > trimIndent) chompStart = i + 1;
  }
  let value = '';
  let sep = '';
  let prevMoreIndented = false;
  for (let i = 0; i < contentStart; ++i) value += `${lines[i][0].slice(trimIndent)}\n`;
  for (let i = contentStart; i < chompStart; ++i) {
    const [ind, content] = lines[i];
    if (content && ind.length < trimIndent) bail('a block scalar line less indented than its first');
    if (!folded) {
      value += sep + ind.slice(trimIndent) + content;
      sep = '\n';
    } else if (ind.length > trimIndent || content[0] === '\t') {
      if (sep === ' ') sep = '\n';
      else if (!prevMoreIndented && sep === '\n') sep = '\n\n';
      value += sep + ind.slice(trimIndent) + content;
      sep = '\n';
      prevMoreIndented = true;
    } else if (content === '') {
      if (sep === '\n') value += '\n';
      else sep = '\n';
    } else {
      value += sep + content;
      sep = ' ';
      prevMoreIndented = false;
    }
  }
  if (chomp !== '-') value += '\n';
  return value;
}

/** Characters the reader does not model anywhere in a text (tabs, a CR outside a CR LF, BOM, controls). */
const NOT_MODELLED = /[\t\r\uFEFF\x00-\x08\x0b\x0c\x0e-\x1f\x7f\x85\u2028\u2029]/; // eslint-disable-line no-control-regex -- what the package treats specially

/**
 * Off (every text left to the package) when ROLLWISE_BENCH_NO_OWN_YAML is set, or after
 * setFastYamlForBench(false): for the benchmarks only, which time lint with and without this reader.
 */
let enabled = process.env.ROLLWISE_BENCH_NO_OWN_YAML === undefined;

/** Turns the reader off (false) or on again, for the lint benchmark only. Not exported by the package. */
export function setFastYamlForBench(on: boolean): void {
  enabled = on;
}

/** Whether lint's own readers are on (this one, and source.ts's reading of JSON that is not a manifest). */
export function ownReaderOn(): boolean {
  return enabled;
}

/**
 * The documents of a text as the package's parseAllDocuments(text, { version }) and toJS() give
 * them, or undefined where this reader does not model the text (then use the package).
 */
export function readDocuments(text: string, version: '1.1' | '1.2'): FastDocument[] | undefined {
  if (!enabled) return undefined;
  // Windows line ends (a warm lint of held-out set 11 left 185 such YAML texts, 0.39 MB, to the
  // package; docs/lint-precision.md "Timing, round 15"): a CR LF is one line break, as
  // an LF is, wherever it stands (YAML 1.2.2 5.4 "Line Break Characters": line breaks inside scalar
  // content are normalized to LF), so the text is read with LFs; the lines stay the lines.
  // test/rules/fast-yaml.test.ts compares the CR LF texts with the package's reading of them. A
  // lone CR (a line break to the package, not to split('\n')) is left to the package.
  if (text.includes('\r')) {
    const lf = text.replace(/\r\n/g, '\n');
    if (lf.includes('\r')) return undefined;
    text = lf;
  }
  if (NOT_MODELLED.test(text)) return undefined;
  const schema = SCHEMAS[version];
  try {
    const raw = text.split('\n');
    // documents: the content before the first "---" (if any), then one per "---" line
    // each with the line of its "---" (an empty document's contents are there)
    const docs: { lines: Line[]; marker: number }[] = [];
    let current: Line[] = [];
    let explicit = false;
    let marker = 1;
    for (let k = 0; k < raw.length; k++) {
      const r = raw[k];
      if (r.startsWith('---') && (r.length === 3 || /^---\s/.test(r))) {
        if (r.length > 3 && !/^--- *(#.*)?$/.test(r)) bail('contents on a --- line');
        if (explicit || current.some((x) => !isBlank(x) && !isComment(x))) docs.push({ lines: current, marker });
        current = [];
        explicit = true;
        marker = k + 1;
        continue;
      }
      if (r.startsWith('...') || r.startsWith('%')) bail('a document end marker or a directive');
      let ind = 0;
      while (r[ind] === ' ') ind++;
      current.push({ n: k + 1, indent: ind, text: r.slice(ind), raw: r });
    }
    if (explicit || current.some((x) => !isBlank(x) && !isComment(x))) docs.push({ lines: current, marker });
    return docs.map(({ lines, marker: at }) => {
      const reader = new DocumentReader(lines, schema);
      const d = reader.document();
      const value = d?.value ?? null;
      const contentLine = d?.contentLine ?? at;
      return { value, contentLine, lineOf: (segs) => lineOf(reader.positions, value, contentLine, segs) };
    });
  } catch (e) {
    if (e instanceof Unsupported) return undefined;
    throw e;
  }
}

/** source.ts lineOf on these positions: map keys by their resolved value, sequence items by index. */
function lineOf(
  positions: WeakMap<object, Positions>,
  root: unknown,
  contentLine: number,
  segs: readonly (string | number)[],
): number {
  let node: unknown = root;
  let line = contentLine;
  for (const seg of segs) {
    if (node === null || typeof node !== 'object') break;
    const pos = positions.get(node);
    if (!pos) break;
    if (pos.keys) {
      const k = pos.keys.get(seg);
      if (!k) break;
      line = k.line;
      if (k.alias) break;
      node = (node as Json)[k.jsKey];
    } else if (pos.items && typeof seg === 'number') {
      if (!(seg >= 0 && seg < pos.items.length && Number.isInteger(seg))) break;
      line = pos.items[seg];
      if (pos.aliasItems?.has(seg)) break;
      node = (node as unknown[])[seg];
    } else break;
  }
  return line;
}
