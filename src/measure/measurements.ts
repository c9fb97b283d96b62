import * as path from 'path';
import { RollwiseInputError } from '../errors';
import { readTextCapped } from '../read-limit';

/** The measurements file's format version; a reader refuses versions it does not know. */
export const MEASUREMENTS_API_VERSION = 'rollwise.dev/measurements/v1';

/** One measured figure with its provenance. `value` is null when the data cannot give it (`note` says why). */
export interface Measured {
  readonly value: number | null;
  readonly unit: string;
  /** The PromQL that produced it, exactly as run. */
  readonly query: string;
  readonly window: { readonly start: string; readonly end: string };
  /** The exporter and series (and upstream definition). */
  readonly source: string;
  readonly note?: string;
}

export interface CapacityPoint {
  /** Requests per second per ready replica in that hour. */
  readonly rps: number;
  /** The readiness handler's p99 in that hour, seconds (interpolated in the kubelet's buckets). */
  readonly p99Seconds: number;
  /** Hours of data in this point. */
  readonly hours: number;
}

/** The JSON written by `rollwise measure` (one file per service). */
export interface MeasurementsDocument {
  readonly apiVersion: typeof MEASUREMENTS_API_VERSION;
  readonly kind: 'Measurements';
  readonly service: {
    readonly name: string;
    readonly namespace: string;
    readonly container: string;
    readonly workload: 'rollout' | 'deployment';
  };
  readonly prometheus: string;
  /** When `measure` ran (ISO 8601). */
  readonly measuredAt: string;
  readonly window: { readonly start: string; readonly end: string };
  /** The busiest hour of the window, found by request count on the route. */
  readonly peak: {
    readonly start: string;
    readonly end: string;
    readonly requestsPerSecond: number;
    readonly pods: number;
    readonly query: string;
  };
  readonly readiness: {
    /**
     * The p99 of successful and failed probes together (every failure counted as slower than every
     * success): the upper bound of the kubelet's bucket that holds it (conservative;
     * `interpolatedSeconds` is Prometheus' estimate); null when more than 1 % failed.
     */
    readonly p99: Measured & {
      readonly interpolatedSeconds: number | null;
      readonly bucketLowerSeconds: number | null;
      /** Probes counted: successful (observed) plus failed (only counted by the kubelet). */
      readonly probesCounted?: number;
      readonly failedProbes?: number;
      /** The bucket upper bound of the successful probes' own p99, for comparison. */
      readonly successfulOnlySeconds?: number | null;
    };
    readonly p50: Measured;
    readonly failedAtPeak: Measured;
    /** The p99 of the app's own histogram for the readiness path, when one was named. */
    readonly appP99?: Measured;
  };
  readonly traffic: { readonly peakRequestsPerSecond: Measured; readonly perReadyReplicaAtPeak: Measured };
  readonly cpu: { readonly secondsPerRequestAtPeak: Measured; readonly throttledRatioAtPeak: Measured };
  readonly endpoints: { readonly lowestReadyRatio: Measured };
  readonly proxy: { readonly remoteResetsWithActiveRequest: Measured; readonly idleTimeouts: Measured };
  readonly capacity: {
    readonly points: readonly CapacityPoint[];
    readonly saturation: { readonly estimateRps: number | null; readonly sentence: string };
  };
}

/**
 * Measurements of one service, read from the file `rollwise measure` writes. Pass it to
 * HttpService's `measurements`: the readiness timeout is then derived from the measured p99 and
 * the reason cites where it came from.
 */
export class Measurements {
  /** Reads and checks a measurements file (JSON). */
  public static fromFile(file: string): Measurements {
    let text: string;
    try {
      text = readTextCapped(file);
    } catch (e) {
      throw new RollwiseInputError(
        'measurements',
        file,
        `the file cannot be read (${(e as NodeJS.ErrnoException).code ?? (e as Error).message}).`,
        'run `rollwise measure <service> --namespace <ns> --out <file>` first, or fix the path.',
      );
    }
    let doc: unknown;
    try {
      doc = JSON.parse(text);
    } catch (e) {
      throw new RollwiseInputError(
        'measurements',
        file,
        `is not JSON (${(e as Error).message}).`,
        'use the file `rollwise measure` wrote, unedited.',
      );
    }
    return Measurements.fromJson(doc, path.basename(file));
  }

  /** Checks a parsed measurements document. `origin` names it in errors and reasons. */
  public static fromJson(doc: unknown, origin = 'measurements'): Measurements {
    const d = doc as Partial<MeasurementsDocument> | null;
    if (!d || typeof d !== 'object' || d.kind !== 'Measurements') {
      throw new RollwiseInputError(
        'measurements',
        origin,
        'is not a rollwise measurements file (kind: Measurements).',
        'pass the file `rollwise measure` wrote.',
      );
    }
    if (d.apiVersion !== MEASUREMENTS_API_VERSION) {
      throw new RollwiseInputError(
        'measurements',
        `${origin} apiVersion ${String(d.apiVersion)}`,
        `this rollwise reads ${MEASUREMENTS_API_VERSION} only; another version may mean different fields.`,
        'measure again with this rollwise version.',
      );
    }
    checkFields(d, origin);
    const measuredAt = Date.parse(String(d.measuredAt));
    if (!Number.isFinite(measuredAt)) {
      throw new RollwiseInputError(
        `measurements ${origin} measuredAt`,
        d.measuredAt ?? null,
        'is not an ISO 8601 time.',
        'measure again; do not edit the file by hand.',
      );
    }
    // A time after now (beyond a clock skew between the machine that measured and this one) is a
    // wrong clock or a hand edit, and it would make the file look fresh forever (the age check).
    if (measuredAt > Date.now() + MAX_CLOCK_SKEW_MS) {
      throw new RollwiseInputError(
        `measurements ${origin} measuredAt`,
        d.measuredAt ?? null,
        `is in the future (now is ${new Date().toISOString().slice(0, 19)}Z; up to ${MAX_CLOCK_SKEW_MS / 60000} min ` +
          'of clock skew is allowed): a clock that was wrong or a hand edit, and an age never grows past ' +
          'platform.measurementMaxAge, so the file would never be called stale.',
        'measure again on a machine with a correct clock, and commit the file as written.',
      );
    }
    // A p99 rollwise measure would never write: a negative or zero duration (null with a note is how
    // it says "not measured")
    const p99 = d.readiness?.p99?.value;
    if (typeof p99 === 'number' && !(p99 > 0)) {
      throw new RollwiseInputError(
        `measurements ${origin} readiness.p99.value`,
        p99,
        'is not a duration a probe can take (a p99 is above 0 s); rollwise measure writes null with a note when it ' +
          'cannot measure one.',
        'measure again and commit the file as written; do not edit it by hand.',
      );
    }
    return new Measurements(d as MeasurementsDocument, origin, measuredAt / 1000);
  }

  private constructor(
    public readonly document: MeasurementsDocument,
    public readonly origin: string,
    public readonly measuredAtSeconds: number,
  ) {}

  /** The readiness handler's p99 at peak in seconds, or undefined when the file has none. */
  public get readinessP99Seconds(): number | undefined {
    const v = this.document.readiness.p99.value;
    return typeof v === 'number' && v > 0 ? v : undefined;
  }

  /** Age in seconds at `now` (seconds since the epoch). */
  public ageSeconds(now = Date.now() / 1000): number {
    return now - this.measuredAtSeconds;
  }

  /**
   * Where the p99 came from, for reasons: "the kubelet's readiness probe durations, busiest hour
   * 2026-11-24 12:00-13:00 UTC, 4 pods, ..., query ...".
   */
  public readinessP99Provenance(): string {
    const d = this.document;
    const p = d.readiness.p99;
    const interp =
      p.interpolatedSeconds === null
        ? ''
        : `, Prometheus interpolates ${ms(p.interpolatedSeconds)}; ` +
          `the bucket's upper bound is used so the timeout never rests on interpolation`;
    return (
      `measured by rollwise measure (${this.origin}, ${d.measuredAt.slice(0, 10)}): ${p.source}, busiest ` +
      `hour ${rangeText(d.peak.start, d.peak.end)} at ${Math.round(d.peak.requestsPerSecond)} req/s, ${d.peak.pods} ` +
      `pods${
        p.bucketLowerSeconds === null ? '' : `, in the bucket ${ms(p.bucketLowerSeconds)}-${ms(p.value ?? 0)}`
      }${interp}; ` +
      `query ${p.query}`
    );
  }
}

/** How far ahead of this machine's clock a measurement time may be (clocks of two machines differ). */
const MAX_CLOCK_SKEW_MS = 10 * 60 * 1000;

type FieldType = 'string' | 'number' | 'number|null' | 'string|null' | 'object' | 'array';
const MEASURED: Record<string, FieldType> = {
  value: 'number|null',
  unit: 'string',
  query: 'string',
  window: 'object',
  source: 'string',
};

/** Every field rollwise reads from the file, by path, with the type it must have. */
const FIELDS: Record<string, FieldType> = {
  service: 'object',
  'service.name': 'string',
  'service.namespace': 'string',
  'service.container': 'string',
  'service.workload': 'string',
  prometheus: 'string',
  measuredAt: 'string',
  window: 'object',
  'window.start': 'string',
  'window.end': 'string',
  peak: 'object',
  'peak.start': 'string',
  'peak.end': 'string',
  'peak.requestsPerSecond': 'number',
  'peak.pods': 'number',
  'peak.query': 'string',
  readiness: 'object',
  'readiness.p99.interpolatedSeconds': 'number|null',
  'readiness.p99.bucketLowerSeconds': 'number|null',
  ...Object.fromEntries(
    ['readiness.p99', 'readiness.p50', 'readiness.failedAtPeak'].flatMap((m): [string, FieldType][] => [
      [m, 'object'],
      ...Object.entries(MEASURED).map(([k, t]): [string, FieldType] => [`${m}.${k}`, t]),
    ]),
  ),
  capacity: 'object',
  'capacity.points': 'array',
  'capacity.saturation': 'object',
  'capacity.saturation.sentence': 'string',
  'capacity.saturation.estimateRps': 'number|null',
};

/**
 * Refuses a file with a field missing or of the wrong type, naming the file and the field (never a TypeError later).
 */
function checkFields(d: unknown, origin: string): void {
  for (const [field, type] of Object.entries(FIELDS)) {
    let v: unknown = d;
    for (const k of field.split('.'))
      v = v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>)[k] : undefined;
    const ok =
      type === 'object'
        ? v !== null && typeof v === 'object' && !Array.isArray(v)
        : type === 'array'
          ? Array.isArray(v)
          : type
              .split('|')
              .some((t) =>
                t === 'null'
                  ? v === null
                  : t === 'number'
                    ? typeof v === 'number' && Number.isFinite(v)
                    : typeof v === t,
              );
    if (!ok) {
      throw new RollwiseInputError(
        `measurements ${origin} ${field}`,
        v === undefined ? 'missing' : v,
        'must ' +
          `be ${
            type === 'number|null'
              ? 'a finite number or null'
              : type === 'string|null'
                ? 'a string or null'
                : `a${/^[ao]/.test(type) ? 'n' : ''} ${type}`
          }; ` +
          `the file is not what \`rollwise measure\` writes.`,
        'measure again and commit the file as written; do not edit it by hand.',
      );
    }
  }
}

function ms(s: number): string {
  return s < 1 ? `${Math.round(s * 1000)} ms` : `${Math.round(s * 1000) / 1000} s`;
}

function rangeText(startIso: string, endIso: string): string {
  const a = startIso.replace('T', ' ').slice(0, 16);
  const b = endIso.replace('T', ' ').slice(0, 16);
  return a.slice(0, 10) === b.slice(0, 10) ? `${a}-${b.slice(11)} UTC` : `${a} - ${b} UTC`;
}
