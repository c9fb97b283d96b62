/**
 * The key under which synth shares one rehearsal between canary services (synth-check.ts): two
 * services get the same key only when their rehearsals cannot differ, so the second one is given
 * the first one's refusals and warnings instead of replaying its canary again.
 *
 * What decides a synth rehearsal (rehearseForSynth on one RolloutModel, SYNTH_RELEASES, the
 * in-process evaluator), and how the key holds it:
 * - the releases replayed: their ids (the catalogue in releases.ts is constant);
 * - everything the world and the loop compute with, as it is: replicas, minReadySeconds,
 *   progressDeadlineSeconds, readiness and start-up probe timing, the steps (weights, pause
 *   durations, analysis gates), the background run's startingStep, each metric's name,
 *   conditions, initialDelay, interval, count, limits and dryRun, the traffic (peakRps,
 *   releaseRps) and the pod-template hashes;
 * - the service's names (Rollout name, namespace, the Envoy cluster names) are not in the key as
 *   text. world.ts uses them only as label values of the series (pod and ReplicaSet names, the
 *   namespace, envoy_cluster_name) and, for pods, as the key of a map (pods of one name are one
 *   pod); the loop and the judgement never read them. The evaluator (promql.ts) reads a label
 *   value only (a) in a selector's matcher (=, !=, =~, !~ against the matcher's value) and (b) by
 *   equality with another sample's value of the same label (grouping, on/ignoring matching, and/or/
 *   unless), and it returns the sample values in an order that follows the series' order, which
 *   the world builds from roles (clusters, proxies, pods by index), not from names. So the key
 *   holds, for each label, which of its possible values are equal to each other
 *   (seriesLabelValues lists them by role), and for each matcher of each query which of those
 *   values (and the empty value of a missing label) it matches. Two services with the same key
 *   therefore select the same series (by role), group and join them alike, and get the same
 *   numbers in the same order at every measurement: the same verdicts;
 * - the queries' text beyond the matcher values is in the key as parsed (metric names, functions,
 *   ranges, offsets, operators, by/on/ignoring label names, numbers). absent() turns its
 *   matchers' values into output labels, so under absent() the values are in the key as text;
 * - the messages a refusal or warning can carry come from the release catalogue, the verdicts
 *   (metric names, tallies, limits, condition messages, result values), the first weight and the
 *   traffic: none names the service. Two messages could: a query the evaluator cannot parse, and
 *   a regex that does not compile (both quote the query). Those models get no key and are
 *   rehearsed on their own;
 * - AnalysisTemplate names are left out: they only name the runs in the world's event log, which
 *   the synth check does not read.
 * test/rehearse/memo.test.ts checks that services differing in any one deciding input get
 * different keys, and that services sharing a key get the same rehearsal.
 */
import type { MetricSpec, RolloutModel, RunSpec, StepSpec } from './manifest';
import { parsed, parsePromql, PromqlUnsupported, type PromqlNode } from './promql';
import { seriesLabelValues } from './world';

type Universe = Record<string, string[]>;

/** A string as the key writes it (JSON: quoted, escaped, so no two strings read alike). */
const q = (x: string | undefined | null): string => (x === undefined || x === null ? 'null' : JSON.stringify(x));
const list = (xs: readonly string[] | undefined): string => (xs === undefined ? 'null' : `[${xs.map(q).join(',')}]`);

/** Regexes of matchers, compiled once per text (as promql.ts does); a text that does not compile throws each time. */
const REGEX = new Map<string, RegExp>();

/** Which values of the label (the empty value of a missing label first) a matcher matches, as 0/1. */
function matcherSignature(universe: Universe, m: { name: string; op: string; value: string }): string {
  const values = universe[m.name] ?? [];
  let out = '';
  if (m.op === '=' || m.op === '!=') {
    const eq = m.op === '=';
    out += ('' === m.value) === eq ? '1' : '0';
    for (const v of values) out += (v === m.value) === eq ? '1' : '0';
    return out;
  }
  // As promql.ts matches(): anchored; a regex that does not compile throws (no key).
  let re = REGEX.get(m.value);
  if (!re) {
    re = new RegExp(`^(?:${m.value})$`);
    if (REGEX.size >= 1000) REGEX.clear();
    REGEX.set(m.value, re);
  }
  const match = m.op === '=~';
  out += re.test('') === match ? '1' : '0';
  for (const v of values) out += re.test(v) === match ? '1' : '0';
  return out;
}

/**
 * Each service's queries are one text with its names in it; parsing them was the largest part of the
 * key (measured: 44 % of rehearsalKey's profile at 1,000 services). So a query is parsed once per
 * template: the text with each of the service's names (namespace, Rollout name, route name)
 * replaced by a private-use character (U+E000 + its index), and the names put back into the
 * template's matcher values. The key is the one the query's own parse gives, because:
 * - promql.ts's lexer (TOKEN) reads a private-use character only inside a quoted string ("[^"\\]"
 *   and "'[^'\\]'"): anywhere else no alternative matches it and the template does not parse;
 * - a quoted token's extent does not depend on the characters inside it when none is a quote or a
 *   backslash: a text with a backslash is not templated, and a name holding a quote or a backslash
 *   is not replaced (so a name lies wholly inside one quoted token or wholly outside any, where its
 *   placeholder makes the template unreadable). The query's tokens are then the template's with
 *   the names in place of the placeholders, token by token;
 * - the parser decides on a quoted token only by its first character (a quote: never a keyword, an
 *   operator, a number or an identifier) and keeps its characters where it reads it: unquote()
 *   (a matcher's value; without backslashes it only drops the quotes), or the token as it is (a
 *   label name, a function name). Only a range or offset (duration()) reads a token's characters
 *   and drops them;
 * - so when every placeholder of the template's text is found in the parsed template's matcher
 *   values, and none in any other string of it (counted: TEMPLATES stores null otherwise), the
 *   query's parse is the template's with the names put back into those values, the only strings
 *   queryShape reads from them (matcherSignature and, under absent(), the value itself).
 * A text holding a private-use character of that range, or a backslash, is parsed as it is, as is
 * one whose template does not parse or fails the count. test/rehearse/memo.test.ts compares the
 * keys with and without templates on the bench estates and on services with adversarial names.
 */
const PLACEHOLDER = 0xe000;
const PLACEHOLDERS = /[\ue000-\ue0ff]/;
const PLACEHOLDERS_ALL = /[\ue000-\ue0ff]/g;
/** Parsed templates by their text, or null (parse the query itself); bounded. */
const TEMPLATES = new Map<string, PromqlNode | null>();
let templatesOn = true;

/** For tests: the key computed with every query parsed as it is (false), or by templates (true). */
export function setQueryTemplatesForTest(on: boolean): void {
  templatesOn = on;
}

/**
 * The names a model's queries hold: the namespace, the Rollout's name, the route's name; longest first, none
 * holding a quote or a backslash.
 */
function serviceNames(model: RolloutModel): string[] {
  const route = /^httproute\/[^/]+\/([^/]+)\/rule\//.exec(model.stableCluster)?.[1];
  const names = [...new Set([model.namespace, model.name, route])].filter((x): x is string => !!x && !/["'\\]/.test(x));
  return names.sort((a, b) => b.length - a.length);
}

function countPlaceholders(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= PLACEHOLDER && c <= PLACEHOLDER + 0xff) n++;
  }
  return n;
}

/** Placeholders in the parsed template's matcher values, or -1 when one is in any other string of it. */
function placeholdersInValues(n: PromqlNode): number {
  const elsewhere = (xs: readonly (string | undefined)[] | undefined) =>
    (xs ?? []).some((x) => x !== undefined && PLACEHOLDERS.test(x));
  switch (n.k) {
    case 'num':
      return 0;
    case 'neg':
      return placeholdersInValues(n.of);
    case 'sel': {
      if (elsewhere([n.name, ...n.matchers.map((m) => m.name), ...n.matchers.map((m) => m.op)])) return -1;
      return n.matchers.reduce((a, m) => a + countPlaceholders(m.value), 0);
    }
    case 'call':
    case 'agg':
    case 'bin': {
      const strings = n.k === 'call' ? [n.fn] : n.k === 'agg' ? [n.op, ...(n.by ?? []), ...(n.without ?? [])] : [n.op];
      if (n.k === 'bin') strings.push(...(n.on ?? []), ...(n.ignoring ?? []));
      if (elsewhere(strings)) return -1;
      const kids = n.k === 'call' ? n.args : n.k === 'agg' ? [n.arg, ...(n.param ? [n.param] : [])] : [n.l, n.r];
      let total = 0;
      for (const kid of kids) {
        const c = placeholdersInValues(kid);
        if (c < 0) return -1;
        total += c;
      }
      return total;
    }
  }
}

/** A query's parse: its template's, with the names to put back into its matcher values, or its own (names undefined). */
function parsedQuery(text: string, names: readonly string[]): { node: PromqlNode; names?: readonly string[] } {
  if (!templatesOn || text.includes('\\') || PLACEHOLDERS.test(text)) return { node: parsed(text) };
  let template = text;
  names.forEach((name, i) => {
    template = template.split(name).join(String.fromCharCode(PLACEHOLDER + i));
  });
  if (template === text) return { node: parsed(text) };
  let node = TEMPLATES.get(template);
  if (node === undefined) {
    try {
      node = parsePromql(template);
      if (placeholdersInValues(node) !== countPlaceholders(template)) node = null;
    } catch (e) {
      if (!(e instanceof PromqlUnsupported)) throw e;
      node = null;
    }
    if (TEMPLATES.size >= 1000) TEMPLATES.clear();
    TEMPLATES.set(template, node);
  }
  return node === null ? { node: parsed(text) } : { node, names };
}

/** A matcher's value with the service's names put back (as it is when parsed from the query itself). */
function valueOf(value: string, names: readonly string[] | undefined): string {
  if (names === undefined || !PLACEHOLDERS.test(value)) return value;
  return value.replace(PLACEHOLDERS_ALL, (c) => names[c.charCodeAt(0) - PLACEHOLDER]);
}

/** A parsed query with each matcher's value replaced by its signature (kept as text under absent()). */
function queryShape(n: PromqlNode, universe: Universe, literal: boolean, names?: readonly string[]): string {
  switch (n.k) {
    case 'num':
      return `["num",${q(String(n.v))}]`;
    case 'neg':
      return `["neg",${queryShape(n.of, universe, literal, names)}]`;
    case 'sel':
      return `["sel",${q(n.name)},${
        n.range === undefined ? 'null' : q(String(n.range))
      },${q(String(n.offset))},[${n.matchers
        .map((m) => {
          const value = valueOf(m.value, names);
          const signature = matcherSignature(universe, { name: m.name, op: m.op, value });
          return `[${q(m.name)},${q(m.op)},"${signature}",${literal ? q(value) : 'null'}]`;
        })
        .join(',')}]]`;
    case 'call':
      return `["call",${q(n.fn)},[${n.args
        .map((a) => queryShape(a, universe, literal || n.fn === 'absent', names))
        .join(',')}]]`;
    case 'agg':
      return `["agg",${q(n.op)},${list(n.by)},${list(n.without)},${queryShape(
        n.arg,
        universe,
        literal,
        names,
      )},${n.param ? queryShape(n.param, universe, literal, names) : 'null'}]`;
    case 'bin':
      return `["bin",${q(n.op)},${String(n.bool)},${list(n.on)},${list(n.ignoring)},${queryShape(
        n.l,
        universe,
        literal,
        names,
      )},${queryShape(n.r, universe, literal, names)}]`;
  }
}

/** The service's names (for templates), and the shapes of the queries already written in this key, by query text. */
interface Queries {
  readonly names: readonly string[];
  readonly shapes: Map<string, string>;
}

/** One metric (a gate and the background run share their queries' shapes). */
function metricShape(m: MetricSpec, universe: Universe, queries: Queries): string {
  let query = queries.shapes.get(m.query);
  if (query === undefined) {
    const { node, names } = parsedQuery(m.query, queries.names);
    queries.shapes.set(m.query, (query = queryShape(node, universe, false, names)));
  }
  return `[${q(m.name)},${query},${q(m.successCondition)},${q(m.failureCondition)},${[
    m.initialDelaySeconds,
    m.intervalSeconds,
    m.count,
    m.failureLimit,
    m.inconclusiveLimit,
    m.consecutiveErrorLimit,
    m.consecutiveSuccessLimit,
  ]
    .map(num)
    .join(',')},${String(m.dryRun)}]`;
}

function runShape(r: RunSpec, universe: Universe, queries: Queries): string {
  return `[${q(r.kind)},[${r.metrics.map((m) => metricShape(m, universe, queries)).join(',')}]]`;
}

function stepShape(s: StepSpec, universe: Universe, queries: Queries): string {
  switch (s.kind) {
    case 'setWeight':
      return `["setWeight",${num(s.weight)}]`;
    case 'pause':
      return `["pause",${num(s.seconds)}]`;
    case 'analysis':
      return `["analysis",${runShape(s.run, universe, queries)}]`;
    case 'other':
      return `["other",${q(s.what)}]`;
  }
}

/**
 * For each label, which of its values are the same: "distinct" when none are (the usual case), else
 * the index of the first value equal to each value.
 */
function partition(universe: Universe): string {
  const parts: string[] = [];
  for (const [label, values] of Object.entries(universe)) {
    if (new Set(values).size === values.length) {
      parts.push(`${q(label)}:"distinct"`);
      continue;
    }
    const first = new Map<string, number>();
    parts.push(
      `${q(label)}:[${values
        .map((v, i) => {
          const f = first.get(v);
          if (f !== undefined) return f;
          first.set(v, i);
          return i;
        })
        .join(',')}]`,
    );
  }
  return `{${parts.join(',')}}`;
}

/** A number as the key writes it: JSON has no NaN or Infinity (both would be null). */
const num = (x: number | null | undefined): string =>
  x === undefined || x === null ? 'null' : Number.isFinite(x) ? String(x) : `"number:${String(x)}"`;

/**
 * The memo key of a synth rehearsal of `model` replaying `releases`, or undefined when the model
 * must be rehearsed on its own (a query the evaluator does not parse, a regex that does not compile).
 */
export function rehearsalKey(model: RolloutModel, releases: readonly string[]): string | undefined {
  const universe = seriesLabelValues(model);
  const queries: Queries = { names: serviceNames(model), shapes: new Map<string, string>() };
  try {
    const r = model.readiness;
    return (
      `{"releases":${list(releases)},"replicas":${num(model.replicas)},` +
      `"minReadySeconds":${num(model.minReadySeconds)},` +
      `"progressDeadlineSeconds":${num(model.progressDeadlineSeconds)},"readiness":[${[
        r.periodSeconds,
        r.successThreshold,
        r.failureThreshold,
        r.initialDelaySeconds,
      ]
        .map(num)
        .join(',')}],` +
      `"startup":[${num(model.startupBudgetSeconds)},${num(model.startupPeriodSeconds)}],` +
      `"traffic":[${num(model.peakRps)},${num(model.releaseRps)}],` +
      `"hashes":${list([model.canaryHash, model.stableHash])},"steps":[${model.steps
        .map((s) => stepShape(s, universe, queries))
        .join(',')}],` +
      `"background":${
        model.background
          ? `[${num(model.background.startingStep)},${runShape(model.background, universe, queries)}]`
          : 'null'
      },` +
      `"sameValues":${partition(universe)}}`
    );
  } catch (e) {
    if (e instanceof PromqlUnsupported || e instanceof SyntaxError) return undefined;
    throw e;
  }
}
