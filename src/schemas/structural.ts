import { compileRule, CompiledRule, escapeProperty } from './cel';
import { project } from './cel-reads';

/**
 * A map key as one JSON-pointer segment (RFC 6901: `~` as `~0`, `/` as `~1`), so a key holding
 * `/` (an annotation key such as `service.beta.kubernetes.io/x`) stays one segment in a problem's
 * path; cluster-rules.ts fieldPath decodes it and shows it as ["key"].
 */
export function pointerKey(k: string): string {
  // Most keys hold neither character: then the segment is the key itself (both replaces would
  // return it unchanged), without running two regexes for every key of every object checked.
  if (k.indexOf('~') < 0 && k.indexOf('/') < 0) return k;
  return k.replace(/~/g, '~0').replace(/\//g, '~1');
}

/**
 * An OpenAPI schema compiled once into a tree of checks that walks an object the way the API
 * server does for a custom resource (k8s.io/apiextensions-apiserver, v0.33.0):
 *
 * 1. structural defaulting: a property with a `default` that is absent (or null and not nullable)
 *    gets a deep copy of it (pkg/apiserver/schema/defaulting/algorithm.go, `Default`). The
 *    written object is never changed: the defaulted copy exists only for the checks below;
 * 2. the schema, strict: an unknown field is an error (the server prunes it, so the setting is
 *    silently lost; with kubectl's `--validate=strict`, the default, the request is refused),
 *    types, enums, patterns, lengths, ranges, int32/int64 ranges (what the Go types of the
 *    controllers decode), list types `set` and `map` (unique items / keys);
 * 3. the `x-kubernetes-validations` CEL rules of every node the object has, on the defaulted
 *    value, with `self` converted as pkg/cel/common/values.go (k8s.io/apiserver v0.33.0) does:
 *    integers as int, numbers as double, int-or-string as either, property names escaped.
 *    Transition rules (reading `oldSelf`) do not run on create and are skipped.
 *
 * Kubernetes' built-in kinds are checked against their OpenAPI definitions with the same walker
 * (they have no CEL rules and no defaults in the definitions); their hand-written validation is
 * builtin.ts.
 */

type Json = Record<string, unknown>;

export interface SchemaProblem {
  /** JSON-pointer-like path, e.g. "/spec/rules/0/matches/0/path/value". */
  readonly path: string;
  readonly message: string;
  /** 'schema' or 'cel'. */
  readonly source: 'schema' | 'cel';
  /** The value that broke the rule (absent for a missing required field). */
  readonly value?: unknown;
}

/**
 * One validation pass: the memo of rule results by (rule, value), and where the walk is. The walk
 * keeps the path of the node it checks as a stack of segments and writes it out only for a
 * problem, so a node without one (most nodes) builds no path string.
 */
export class Pass {
  public readonly memo = new Map<CompiledRule, Map<string, true | false | string>>();
  /** The path of the node being checked: one segment per level (pointerKey'd keys, indexes). */
  public readonly segments: string[] = [];
  /**
   * Above 0 inside a logic junctor's branch (anyOf, oneOf, not; `silent`), where only whether a
   * problem exists is read: a problem is then counted without writing its message.
   */
  public quiet = 0;
}

/**
 * A value's text as a memo key: its JSON, with NaN and Infinity told apart from null, which JSON
 * writes for all three (a YAML `.nan` read by lint is a number; CEL sees a double, not null). Only a
 * text holding "null" is written again, with the replacer.
 */
function memoKey(x: unknown): string {
  const text = JSON.stringify(x);
  return text.includes('null') ? JSON.stringify(x, nonFinite) : text;
}

/** NaN and Infinity as an object no JSON value of a manifest holds (a NUL key). */
function nonFinite(_key: string, v: unknown): unknown {
  return typeof v === 'number' && !Number.isFinite(v) ? { '\u0000': String(v) } : v;
}

/** The path of the node being checked, as a JSON pointer ("" at the root, else "/a/0/b"). */
function pathOf(pass: Pass): string {
  let p = '';
  for (const s of pass.segments) p += `/${s}`;
  return p;
}

/** What a quiet pass records for a problem (its message is never read). */
const COUNTED: SchemaProblem = { path: '', message: '', source: 'schema' };

/** Records the problem `make` describes, or (in a junctor's branch) only that there is one. */
function report(out: SchemaProblem[], pass: Pass, make: (path: string) => SchemaProblem): void {
  out.push(pass.quiet > 0 ? COUNTED : make(pathOf(pass)));
}

interface Node {
  /**
   * Checks `v` (never undefined) at the path `pass.segments` holds; returns the defaulted value (the same
   * reference when nothing was defaulted).
   */
  check(v: unknown, out: SchemaProblem[], pass: Pass): unknown;
  /** The value as CEL sees it. */
  toCel(v: unknown): unknown;
}

const ANY: Node = { check: (v) => v, toCel: (v) => plainToCel(v) };

function plainToCel(v: unknown): unknown {
  if (typeof v === 'number') return Number.isInteger(v) ? BigInt(v) : v;
  if (Array.isArray(v)) return v.map(plainToCel);
  if (v && typeof v === 'object') {
    const o: Json = {};
    for (const [k, x] of Object.entries(v as Json)) o[k] = plainToCel(x);
    return o;
  }
  return v;
}

function kindOf(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'number') return Number.isInteger(v) ? 'integer' : 'number';
  return typeof v;
}

function describe(v: unknown): string {
  // A YAML .nan or .inf (YAML 1.2 core schema floats, which the yaml package reads as numbers) is
  // shown as written: JSON.stringify would print null for it (held-out set 10, tektoncd/plumbing's
  // unquoted `value: .nan` was reported as "not number null").
  if (typeof v === 'number' && !Number.isFinite(v)) return Number.isNaN(v) ? '.nan' : v > 0 ? '.inf' : '-.inf';
  const s = typeof v === 'string' ? JSON.stringify(v) : (JSON.stringify(v) ?? String(v));
  return s.length > 60 ? `${s.slice(0, 57)}...` : s;
}

/** Go (RE2) patterns as JavaScript RegExps; the Prometheus Operator's CRDs use a leading "(?i)". */
function goRegExp(pattern: string): RegExp {
  const i = pattern.indexOf('(?i)');
  if (i >= 0 && /^\^?$/.test(pattern.slice(0, i))) return new RegExp(pattern.slice(0, i) + pattern.slice(i + 4), 'iu');
  return new RegExp(pattern, 'u');
}

const INT_RANGES: Record<string, [number, number]> = {
  int32: [-(2 ** 31), 2 ** 31 - 1],
  // Go's int64, as a JavaScript number can hold it exactly (beyond 2^53 JSON numbers lose digits anyway)
  int64: [-(2 ** 63), 2 ** 63],
};

/**
 * The string formats checked, as kube-openapi's default registry checks them (kubernetes/
 * kube-openapi c8a335a9a2ff pkg/validation/strfmt/default.go: ipv4 is `isIPv4`, net.ParseIP
 * tolerating leading zeros and the string holding a "."; ipv6 is govalidator.IsIPv6,
 * net.ParseIP and a ":"); the API server keeps both for CRDs (kubernetes/apiextensions-apiserver
 * v0.33.0 pkg/apiserver/validation/formats.go, supported since 1.0). Only these two, on the
 * Gateway API's `addresses`; the pinned schemas' other formats (int32, int64 as ranges above;
 * double, date-time, byte) are left to the API server as before.
 */
const FORMATS: Record<string, (s: string) => boolean> = {
  // ParseIPSloppy parses an IPv6 address too: "::ffff:10.0.0.1" holds a "." and is an ipv4
  ipv4: (s) => s.includes('.') && (parseIPv4(s, true) || parseIPv6(s)),
  ipv6: (s) => s.includes(':') && parseIPv6(s),
};

/**
 * Four dotted decimal bytes; leading zeros only when `sloppy` (k8s.io/utils net.ParseIPSloppy;
 * Go's net.ParseIP refuses them).
 */
function parseIPv4(s: string, sloppy: boolean): boolean {
  const parts = s.split('.');
  return (
    parts.length === 4 &&
    parts.every((p) => (sloppy ? /^[0-9]{1,3}$/ : /^(0|[1-9][0-9]{0,2})$/).test(p) && Number(p) <= 255)
  );
}

/**
 * An IPv6 address as Go's net.ParseIP reads one (go 1.24 net/ip.go, through netip.ParseAddr,
 * a zone refused): groups of one to four hexadecimal digits, at most one "::" standing for one
 * or more zero groups, eight groups in all, the last two of which may be written as an IPv4
 * address.
 */
function parseIPv6(s: string): boolean {
  let body = s;
  const last = s.lastIndexOf(':');
  if (last < 0) return false;
  if (s.slice(last + 1).includes('.')) {
    if (!parseIPv4(s.slice(last + 1), false)) return false;
    body = `${s.slice(0, last + 1)}0:0`;
  }
  const halves = body.split('::');
  if (halves.length > 2) return false;
  const count = (h: string): number => {
    if (h === '') return 0;
    const gs = h.split(':');
    return gs.every((g) => /^[0-9a-fA-F]{1,4}$/.test(g)) ? gs.length : NaN;
  };
  const n = halves.reduce((a, h) => a + count(h), 0);
  return halves.length === 2 ? n < 8 : n === 8;
}

/** Compiles schemas; `$ref`s (Kubernetes definitions) are resolved against `definitions`, each once. */
export class SchemaCompiler {
  private readonly refs = new Map<string, Node>();

  /**
   * @param definitions what `$ref`s name (the Kubernetes OpenAPI definitions)
   * @param crd compile a CRD's structural schema: an object node without properties,
   *   additionalProperties or x-kubernetes-preserve-unknown-fields keeps no field (the server
   *   prunes them all), where a definition's bare `type: object` (RawExtension, FieldsV1) is open;
   *   `$ref`s then go to `refs`
   */
  constructor(
    private readonly definitions: Record<string, Json> = {},
    private readonly crd = false,
    private readonly refs0?: SchemaCompiler,
    private readonly nested = false,
  ) {}

  /**
   * The compiler of what sits under a logic junctor (allOf, anyOf, oneOf, not): a value
   * validation, not a structure. The API server validates a custom resource with kube-openapi's
   * JSON-schema validator on the whole schema, where `properties` without `additionalProperties`
   * allows any other field (kubernetes/kube-openapi c8a335a9a2ff, the version
   * kubernetes/apiextensions-apiserver v0.33.0 go.mod pins, pkg/validation/validate/
   * object_validator.go: only `additionalProperties: false` refuses a key). Unknown fields are
   * pruned or refused by the structural schema outside the junctors, which may hold no
   * `default`, `type`, `additionalProperties` or `nullable` (apiextensions-apiserver v0.33.0
   * pkg/apiserver/schema/validation.go, validateNestedValueValidation). So a branch such as the
   * Gateway API's `oneOf: [{properties: {type: {enum: [IPAddress]}, value: ...}}, {properties:
   * {type: {not: {enum: [IPAddress]}}}}]` matches an address whose `value` it does not list.
   */
  private junctor?: SchemaCompiler;
  private valueValidation(): SchemaCompiler {
    if (this.nested) return this;
    return (this.junctor ??= new SchemaCompiler(this.definitions, this.crd, this.refs0, true));
  }

  public compile(s: Json | undefined): Node {
    if (!s) return ANY;
    const ref = s.$ref;
    if (typeof ref === 'string') return this.refs0 ? this.refs0.compile(s) : this.ref(ref);
    return this.build(s);
  }

  private ref(ref: string): Node {
    let n = this.refs.get(ref);
    if (n) return n;
    const name = ref.replace(/^.*#\/definitions\//, '');
    const target: { node?: Node } = {};
    // registered before it is built, so recursive definitions (JSONSchemaProps) terminate
    n = { check: (v, o, pass) => target.node!.check(v, o, pass), toCel: (v) => target.node!.toCel(v) };
    this.refs.set(ref, n);
    const def = this.definitions[name];
    target.node = def ? this.build(def) : ANY;
    return n;
  }

  private build(s: Json): Node {
    const type = s.type as string | undefined;
    const nullable = s.nullable === true;
    const intOrString = s['x-kubernetes-int-or-string'] === true || s.format === 'int-or-string';
    const preserve = s['x-kubernetes-preserve-unknown-fields'] === true;
    const embedded = s['x-kubernetes-embedded-resource'] === true;
    const props = (s.properties ?? {}) as Record<string, Json>;
    const propNodes = new Map<string, Node>();
    const prop = (k: string): Node => {
      let n = propNodes.get(k);
      if (!n) propNodes.set(k, (n = this.compile(props[k])));
      return n;
    };
    const hasProps = s.properties !== undefined;
    const ap = s.additionalProperties;
    let apNode: Node | undefined;
    const apOf = (): Node => (apNode ??= this.compile(typeof ap === 'object' ? (ap as Json) : undefined));
    const openMap =
      this.nested ||
      ap === true ||
      (typeof ap === 'object' && ap !== null) ||
      preserve ||
      embedded ||
      (!hasProps && (type === undefined || !this.crd));
    const required = (s.required ?? []) as string[];
    // a junctor's branch holds no default (validateNestedValueValidation); none is applied there
    const defaults = Object.entries(this.nested ? {} : props)
      .filter(([, p]) => p.default !== undefined)
      .map(([k, p]) => [k, p.default, p.nullable === true] as const);
    let itemsNode: Node | undefined;
    const items = (): Node => (itemsNode ??= this.compile(s.items as Json | undefined));
    const listType = s['x-kubernetes-list-type'] as string | undefined;
    const mapKeys = (s['x-kubernetes-list-map-keys'] ?? []) as string[];
    const enumValues = s.enum as unknown[] | undefined;
    const maxLength = typeof s.maxLength === 'number' ? s.maxLength : undefined;
    const minLength = typeof s.minLength === 'number' ? s.minLength : undefined;
    const pattern = typeof s.pattern === 'string' ? goRegExp(s.pattern) : undefined;
    const format = s.format as string | undefined;
    const intRange = type === 'integer' && format ? INT_RANGES[format] : undefined;
    const vv = this.valueValidation();
    const allOf = ((s.allOf ?? []) as Json[]).map((x) => vv.compile(x));
    const anyOf = ((s.anyOf ?? []) as Json[]).map((x) => vv.compile(x));
    const oneOf = ((s.oneOf ?? []) as Json[]).map((x) => vv.compile(x));
    const not = s.not ? vv.compile(s.not as Json) : undefined;
    const formatCheck = format ? FORMATS[format] : undefined;
    const rules = (
      (s['x-kubernetes-validations'] ?? []) as {
        rule: string;
        message?: string;
        fieldPath?: string;
        optionalOldSelf?: boolean;
      }[]
    )
      .map((r) => ({ compiled: compileRule(r.rule, r.message), fieldPath: r.fieldPath }))
      .filter((r) => !r.compiled.transition);

    const node: Node = {
      check(v, out, pass) {
        if (v === null) {
          if (!nullable) return v; // a null without nullable is pruned as absent (the parent's required check sees it)
          return v;
        }
        // type
        if (intOrString) {
          if (!(typeof v === 'string' || Number.isInteger(v))) {
            report(out, pass, (path) => ({
              path,
              message: `must be an integer or a string, not ${kindOf(v)} ${describe(v)}`,
              source: 'schema',
              value: v,
            }));
            return v;
          }
        } else if (type) {
          const k = kindOf(v);
          const ok = type === k || (type === 'number' && k === 'integer') || (type === 'object' && k === 'object');
          if (!ok) {
            report(out, pass, (path) => ({
              path,
              message: `must be of type ${type}, not ${k} ${describe(v)}`,
              source: 'schema',
              value: v,
            }));
            return v;
          }
        }
        let value: unknown = v;
        if (enumValues && !enumValues.some((e) => e === v))
          report(out, pass, (path) => ({
            path,
            message: `${describe(v)} is not one of ${enumValues.map(describe).join(', ')}`,
            source: 'schema',
            value: v,
          }));
        if (typeof v === 'string') {
          // lengths count code points (go-openapi: utf8.RuneCountInString); UTF-16 units are at
          // least as many, so only a string longer (in units) than the maximum is counted exactly
          if (maxLength !== undefined && v.length > maxLength) {
            const len = codePoints(v);
            if (len > maxLength)
              report(out, pass, (path) => ({
                path,
                message: `is ${len} characters long, more than ${maxLength}`,
                source: 'schema',
                value: v,
              }));
          }
          if (minLength !== undefined && v.length < minLength * 2) {
            const len = codePoints(v);
            if (len < minLength)
              report(out, pass, (path) => ({
                path,
                message: `is ${len} characters long, fewer than ${minLength}`,
                source: 'schema',
                value: v,
              }));
          }
          if (formatCheck && !formatCheck(v))
            report(out, pass, (path) => ({
              path,
              message: `${describe(v)} is not a valid ${String(format)}`,
              source: 'schema',
              value: v,
            }));
          if (pattern && !pattern.test(v))
            report(out, pass, (path) => ({
              path,
              message: `${describe(v)} does not match the pattern ${String(s.pattern)}`,
              source: 'schema',
              value: v,
            }));
        } else if (typeof v === 'number') {
          if (intRange && (v < intRange[0] || v > intRange[1]))
            report(out, pass, (path) => ({
              path,
              message: `${v} is outside the ${format} range`,
              source: 'schema',
              value: v,
            }));
          if (typeof s.maximum === 'number' && (s.exclusiveMaximum === true ? v >= s.maximum : v > s.maximum))
            report(out, pass, (path) => ({
              path,
              message: `${v} is above the maximum ${String(s.maximum)}`,
              source: 'schema',
              value: v,
            }));
          if (typeof s.minimum === 'number' && (s.exclusiveMinimum === true ? v <= s.minimum : v < s.minimum))
            report(out, pass, (path) => ({
              path,
              message: `${v} is below the minimum ${String(s.minimum)}`,
              source: 'schema',
              value: v,
            }));
        } else if (Array.isArray(v)) {
          if (typeof s.maxItems === 'number' && v.length > s.maxItems)
            report(out, pass, (path) => ({
              path,
              message: `has ${v.length} items, more than ${String(s.maxItems)}`,
              source: 'schema',
              value: v,
            }));
          if (typeof s.minItems === 'number' && v.length < s.minItems)
            report(out, pass, (path) => ({
              path,
              message: `has ${v.length} items, fewer than ${String(s.minItems)}`,
              source: 'schema',
              value: v,
            }));
          let copy: unknown[] | undefined;
          v.forEach((x, i) => {
            if (x === undefined) return;
            pass.segments.push(String(i));
            const d = items().check(x, out, pass);
            pass.segments.pop();
            if (d !== x) (copy ??= [...(v as unknown[])])[i] = d;
          });
          value = copy ?? v;
          if (listType === 'set' || s.uniqueItems === true) {
            const seen = new Set<string>();
            for (const x of v) {
              const key = JSON.stringify(x);
              if (seen.has(key))
                report(out, pass, (path) => ({
                  path,
                  message: `${describe(x)} is in the list twice (a set)`,
                  source: 'schema',
                  value: v,
                }));
              seen.add(key);
            }
          } else if (listType === 'map' && mapKeys.length > 0) {
            const seen = new Set<string>();
            for (const x of value as Json[]) {
              const key = JSON.stringify(mapKeys.map((k) => (x && typeof x === 'object' ? x[k] : undefined)));
              if (seen.has(key))
                report(out, pass, (path) => ({
                  path,
                  message: `two items have the same ${mapKeys.join(', ')} ${key} (a ` + 'map list)',
                  source: 'schema',
                  value: v,
                }));
              seen.add(key);
            }
          }
        } else if (v && typeof v === 'object') {
          const o = v as Json;
          let copy: Json | undefined;
          for (const [k, d, n] of defaults) {
            if (!(k in o) || (o[k] === null && !n)) (copy ??= { ...o })[k] = structuredClone(d);
          }
          const src = copy ?? o;
          for (const k of Object.keys(src)) {
            // A key holding undefined (a patch's function or undefined value) is written as null:
            // cdk8s' Yaml.stringify and toCommentedYaml keep undefined (keepUndefined: true). So it
            // is checked as the null it becomes: absent for a known field, an unknown field else.
            const x = src[k] === undefined ? null : src[k];
            let child: Node | undefined;
            if (hasProps && k in props) child = prop(k);
            else if (typeof ap === 'object' && ap !== null) child = apOf();
            else if (openMap || (embedded && ['apiVersion', 'kind', 'metadata'].includes(k))) child = ANY;
            if (!child) {
              pass.segments.push(pointerKey(k));
              report(out, pass, (path) => ({
                path,
                message: 'is not a field of this kind (unknown field; the API server drops or refuses it)',
                source: 'schema',
                value: x,
              }));
              pass.segments.pop();
              continue;
            }
            pass.segments.push(pointerKey(k));
            const d = child.check(x, out, pass);
            pass.segments.pop();
            if (d !== x) (copy ??= { ...o })[k] = d;
          }
          value = copy ?? o;
          for (const r of required) {
            const x = (value as Json)[r];
            if (x === undefined || (x === null && !(props[r]?.nullable === true))) {
              pass.segments.push(pointerKey(r));
              report(out, pass, (path) => ({ path, message: 'is required', source: 'schema' }));
              pass.segments.pop();
            }
          }
          if (typeof s.maxProperties === 'number' && Object.keys(o).length > s.maxProperties)
            report(out, pass, (path) => ({
              path,
              message: `has more than ${String(s.maxProperties)} entries`,
              source: 'schema',
              value: v,
            }));
          if (typeof s.minProperties === 'number' && Object.keys(o).length < s.minProperties)
            report(out, pass, (path) => ({
              path,
              message: `has fewer than ${String(s.minProperties)} entries`,
              source: 'schema',
              value: v,
            }));
        }
        for (const a of allOf) value = a.check(value, out, pass);
        if (anyOf.length > 0 && !anyOf.some((a) => silent(a, value, pass))) {
          report(out, pass, (path) => ({
            path,
            message: `${describe(v)} matches none of the schema's alternatives (anyOf)`,
            source: 'schema',
            value: v,
          }));
        }
        if (oneOf.length > 0 && oneOf.filter((a) => silent(a, value, pass)).length !== 1) {
          report(out, pass, (path) => ({
            path,
            message: `${describe(v)} must match exactly one of the schema's alternatives (oneOf)`,
            source: 'schema',
            value: v,
          }));
        }
        if (not && silent(not, value, pass))
          report(out, pass, (path) => ({
            path,
            message: `${describe(v)} matches a schema it must not (not)`,
            source: 'schema',
            value: v,
          }));
        if (rules.length > 0) {
          let self: unknown;
          let whole: string | undefined;
          for (const r of rules) {
            let memo = pass.memo.get(r.compiled);
            if (!memo) pass.memo.set(r.compiled, (memo = new Map<string, string | boolean>()));
            // keyed by what the rule can read of the value (cel-reads.ts), the whole value's text shared
            const reads = r.compiled.reads;
            const key = reads.whole ? (whole ??= memoKey(value)) : memoKey(project(value, reads));
            let res = memo.get(key);
            if (res === undefined) memo.set(key, (res = r.compiled.evaluate((self ??= node.toCel(value)))));
            if (res === true) continue;
            const failed = res;
            report(out, pass, (path) => ({
              path: r.fieldPath ? `${path}${r.fieldPath.replace(/\./g, '/')}` : path,
              message:
                failed === false
                  ? `${r.compiled.message} (CEL rule: ${r.compiled.rule})`
                  : `the CEL rule ${r.compiled.rule} could ` + `not be evaluated: ${failed}`,
              source: 'cel',
              value,
            }));
          }
        }
        return value;
      },
      toCel(v) {
        if (v === null || v === undefined) return null;
        if (intOrString) return typeof v === 'number' ? BigInt(v) : v;
        if (type === 'integer' && typeof v === 'number' && Number.isInteger(v)) return BigInt(v);
        if (type === 'number' && typeof v === 'number') return v;
        if (Array.isArray(v)) return v.map((x) => items().toCel(x));
        if (v && typeof v === 'object') {
          const o: Json = {};
          for (const [k, x] of Object.entries(v as Json)) {
            if (x === undefined) continue;
            if (hasProps && k in props) {
              const name = escapeProperty(k);
              if (name !== undefined) o[name] = prop(k).toCel(x);
            } else if (typeof ap === 'object' && ap !== null) o[k] = apOf().toCel(x);
            else o[k] = plainToCel(x);
          }
          return o;
        }
        if (!type) return plainToCel(v);
        return v;
      },
    };
    return node;
  }
}

function codePoints(v: string): number {
  let n = 0;
  for (let i = 0; i < v.length; i++) {
    const c = v.charCodeAt(i);
    if (c < 0xd800 || c > 0xdbff) n++;
  }
  return n;
}

/** Whether `v` passes `n` (a junctor's branch): checked quietly, only whether a problem exists is read. */
function silent(n: Node, v: unknown, pass: Pass): boolean {
  const out: SchemaProblem[] = [];
  pass.quiet++;
  try {
    n.check(v, out, pass);
  } finally {
    pass.quiet--;
  }
  return out.length === 0;
}
