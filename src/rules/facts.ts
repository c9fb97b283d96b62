import { ANNOTATIONS } from '../justify/annotations';
import { LintObject } from './source';

/** Facts a manifest cannot hold: measured numbers and declarations about the application. */
export type FactName =
  'readinessP99Seconds' | 'readinessCallsDependency' | 'peakRps' | 'saturationRpsPerReplica' | 'appKeepAliveSeconds';

export interface FactDefinition {
  readonly name: FactName;
  /** The annotation that declares it on an object. */
  readonly annotation: string;
  /** The `rollwise lint` option that declares it per object name. */
  readonly option: string;
  /** Which objects carry it. */
  readonly on: string;
  /** The accepted values. */
  readonly format: string;
  readonly meaning: string;
  /** An example value. */
  readonly example: string;
}

/** Every fact the rules can use, with the annotation and CLI option that declare it. */
export const FACTS: readonly FactDefinition[] = [
  {
    name: 'readinessP99Seconds',
    annotation: ANNOTATIONS.readinessP99Seconds,
    option: '--p99 <name>=<seconds>',
    on: 'workload',
    format: 'seconds, a positive number (e.g. "0.25")',
    meaning: "The readiness handler's p99 latency measured under peak load (not the median, not on an idle pod).",
    example: '0.25',
  },
  {
    name: 'readinessCallsDependency',
    annotation: ANNOTATIONS.readinessCallsDependency,
    option: '--calls-dependency <name>',
    on: 'workload',
    format: '"true" or "false"',
    meaning: 'Whether the readiness handler calls a downstream service (database, ' + 'another API) on each probe.',
    example: 'false',
  },
  {
    name: 'peakRps',
    annotation: ANNOTATIONS.peakRps,
    option: '--peak-rps <name>=<rps>',
    on: 'workload',
    format: 'requests per second, a positive number',
    meaning: 'Peak request rate for the whole service.',
    example: '3700',
  },
  {
    name: 'saturationRpsPerReplica',
    annotation: ANNOTATIONS.saturationRpsPerReplica,
    option: '--saturation-rps <name>=<rps>',
    on: 'workload',
    format: 'requests per second, a positive number',
    meaning: 'Per-replica request rate at which the handler saturates (latency climbs steeply above it).',
    example: '450',
  },
  {
    name: 'appKeepAliveSeconds',
    annotation: ANNOTATIONS.appKeepAliveSeconds,
    option: '--keepalive <name>=<seconds|none>',
    on: 'Service or workload',
    format:
      'seconds, "none" when the server closes the connection after each response, or "unlimited" when it never ' +
      'closes idle connections',
    meaning:
      "The application server's idle keep-alive timeout (uvicorn 5 s, Node.js <= " +
      '25 5 s, gunicorn gthread 2 s, ...).',
    example: '5',
  },
];

const BY_NAME = new Map(FACTS.map((f) => [f.name, f]));

export function factDefinition(name: FactName): FactDefinition {
  return BY_NAME.get(name)!;
}

/**
 * Facts given on the command line (or by a caller), by object name: `{ "checkout-api": {
 * readinessP99Seconds: "0.25" } }`. A key may also be `namespace/name`, which wins over a bare name.
 * Values use the annotation's format. They win over annotations on the object.
 */
export type LintFacts = Readonly<Record<string, Partial<Readonly<Record<FactName, string>>>>>;

/** A fact value that could be read, or why not. */
export type FactValue<T> =
  | { readonly ok: true; readonly value: T; readonly source: string }
  | { readonly ok: false; readonly invalid?: string; readonly source?: string };

/** Reads facts for an object: the CLI/caller facts first, then the object's annotation. */
export class FactReader {
  constructor(private readonly given: LintFacts = {}) {}

  /** The raw text of a fact for an object, and where it came from. */
  public raw(o: LintObject, name: FactName): { text: string; source: string } | undefined {
    const def = factDefinition(name);
    const byNs = o.namespace ? this.given[`${o.namespace}/${o.name}`]?.[name] : undefined;
    const given = byNs ?? this.given[o.name]?.[name];
    if (given !== undefined) return { text: given, source: `${def.option.split(' ')[0]} ${o.name}` };
    const annotations = (o.obj.metadata as { annotations?: Record<string, unknown> } | undefined)?.annotations;
    const a = annotations?.[def.annotation];
    if (a === undefined || a === null) return undefined;
    return { text: String(a), source: `annotation ${def.annotation} on ${o.ref}` };
  }

  /**
   * A positive number of seconds / requests; where allowed, `none` (closes after each response) and
   * `unlimited` (never closes idle connections) are returned as those strings.
   */
  public number(o: LintObject, name: FactName, allowNone = false): FactValue<number | 'none' | 'unlimited'> {
    const raw = this.raw(o, name);
    if (!raw) return { ok: false };
    const t = raw.text.trim();
    if (allowNone && (t.toLowerCase() === 'none' || t.toLowerCase() === 'unlimited'))
      return { ok: true, value: t.toLowerCase() as 'none' | 'unlimited', source: raw.source };
    const n = Number(t.replace(/s$/, ''));
    if (t === '' || !Number.isFinite(n) || n <= 0) return { ok: false, invalid: raw.text, source: raw.source };
    return { ok: true, value: n, source: raw.source };
  }

  public bool(o: LintObject, name: FactName): FactValue<boolean> {
    const raw = this.raw(o, name);
    if (!raw) return { ok: false };
    const t = raw.text.trim().toLowerCase();
    if (t === 'true') return { ok: true, value: true, source: raw.source };
    if (t === 'false') return { ok: true, value: false, source: raw.source };
    return { ok: false, invalid: raw.text, source: raw.source };
  }
}

/**
 * Builds LintFacts from `rollwise lint` options: lists of `name=value` (or `namespace/name=value`)
 * strings, and a list of names for `--calls-dependency`. Throws on an entry without `=`.
 */
export function factsFromOptions(opts: {
  p99?: readonly string[];
  keepalive?: readonly string[];
  peakRps?: readonly string[];
  saturationRps?: readonly string[];
  callsDependency?: readonly string[];
}): LintFacts {
  const out: Record<string, Partial<Record<FactName, string>>> = {};
  const put = (key: string, fact: FactName, value: string): void => {
    (out[key] ??= {})[fact] = value;
  };
  const pairs = (list: readonly string[] | undefined, fact: FactName, option: string): void => {
    for (const entry of list ?? []) {
      const i = entry.lastIndexOf('=');
      if (i <= 0 || i === entry.length - 1) {
        throw new Error(
          `${option} ${entry}: expected <name>=<value> (e.g. ${option} ` +
            `checkout-api=${fact === 'appKeepAliveSeconds' ? '5' : '0.25'})`,
        );
      }
      put(entry.slice(0, i), fact, entry.slice(i + 1));
    }
  };
  pairs(opts.p99, 'readinessP99Seconds', '--p99');
  pairs(opts.keepalive, 'appKeepAliveSeconds', '--keepalive');
  pairs(opts.peakRps, 'peakRps', '--peak-rps');
  pairs(opts.saturationRps, 'saturationRpsPerReplica', '--saturation-rps');
  for (const name of opts.callsDependency ?? []) put(name, 'readinessCallsDependency', 'true');
  return out;
}

/**
 * A fact as the rules read it: readinessCallsDependency as a boolean, appKeepAliveSeconds as a
 * number that may be `none` or `unlimited`, the others as positive numbers (the rules' calls of
 * FactReader; test/rules/errors-only.test.ts checks every call in src/rules against this).
 */
export function readFact(reader: FactReader, o: LintObject, name: FactName): FactValue<unknown> {
  if (name === 'readinessCallsDependency') return reader.bool(o, name);
  return reader.number(o, name, name === 'appKeepAliveSeconds');
}

/** Whether a fact of `o` is declared but cannot be read (a rule reading it reports RW903-invalid-fact). */
export function hasUnreadableFact(reader: FactReader, o: LintObject): boolean {
  return FACTS.some((d) => {
    const f = readFact(reader, o, d.name);
    return !f.ok && f.invalid !== undefined;
  });
}
