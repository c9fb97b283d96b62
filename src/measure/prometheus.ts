/**
 * A small Prometheus HTTP API client on Node's fetch: instant queries, range queries and the series
 * endpoint (the API of prometheus/prometheus web/api/v1, stable since 2.0). Every failure becomes a
 * MeasureError that says what is missing and how to get it, never a stack trace.
 */

/** A failure of `measure` / `verify` that is not the user's code: names what, why and the fix. */
export class MeasureError extends Error {
  constructor(
    public readonly what: string,
    public readonly why: string,
    public readonly fix: string,
  ) {
    super(`${what}: ${why} Fix: ${fix}`);
    this.name = 'MeasureError';
  }
}

export interface PrometheusCredentials {
  /** Basic auth (Prometheus' --web.config.file basic_auth_users, or a proxy in front). */
  readonly basicAuth?: { readonly username: string; readonly password: string };
  /** A bearer token (e.g. a service-account token for an authenticating proxy). */
  readonly bearerToken?: string;
}

export interface PrometheusClientOptions extends PrometheusCredentials {
  /** Base URL, e.g. http://prometheus-operated.monitoring.svc:9090 */
  readonly url: string;
  /**
   * Per-request timeout.
   * @default 30 s (the Argo Rollouts Prometheus provider's default timeout)
   */
  readonly timeoutMs?: number;
}

export interface Sample {
  readonly t: number;
  readonly v: number;
}
export interface SeriesSamples {
  readonly labels: Readonly<Record<string, string>>;
  readonly samples: readonly Sample[];
}

interface ApiResponse {
  status: 'success' | 'error';
  errorType?: string;
  error?: string;
  data?: unknown;
}

export class PrometheusClient {
  public readonly url: string;
  private readonly headers: Record<string, string>;
  private readonly timeoutMs: number;

  constructor(opts: PrometheusClientOptions) {
    if (typeof opts.url !== 'string' || !/^https?:\/\/[^\s/]+/.test(opts.url)) {
      throw new MeasureError(
        `Prometheus address "${opts.url}"`,
        'is not an absolute http(s) URL.',
        'pass --prometheus http://<host>:9090 (from a laptop: kubectl -n monitoring port-forward ' +
          'svc/prometheus-operated 9090, then http://127.0.0.1:9090).',
      );
    }
    this.url = opts.url.replace(/\/+$/, '');
    this.timeoutMs = opts.timeoutMs ?? 30_000;
    this.headers = { Accept: 'application/json', 'Content-Type': 'application/x-www-form-urlencoded' };
    if (opts.basicAuth)
      this.headers.Authorization = `Basic ${Buffer.from(
        `${opts.basicAuth.username}:${opts.basicAuth.password}`,
      ).toString('base64')}`;
    else if (opts.bearerToken) this.headers.Authorization = `Bearer ${opts.bearerToken}`;
  }

  /** Instant query: one value per series (a vector), or raw samples for a range selector (a matrix). */
  async instant(query: string, time: number): Promise<SeriesSamples[]> {
    return parseResult(await this.call('/api/v1/query', { query, time: String(time) }, query), query);
  }

  /** Range query from start to end (seconds) every step seconds. */
  async range(query: string, start: number, end: number, step: number): Promise<SeriesSamples[]> {
    return parseResult(
      await this.call(
        '/api/v1/query_range',
        { query, start: String(start), end: String(end), step: String(step) },
        query,
      ),
      query,
    );
  }

  /** The label sets of series matching `match` with samples between start and end (default: all the server holds). */
  async series(match: string, start?: number, end?: number): Promise<Array<Record<string, string>>> {
    const range: Record<string, string> =
      start === undefined || end === undefined ? {} : { start: String(start), end: String(end) };
    const data = await this.call('/api/v1/series', { 'match[]': match, ...range }, match);
    return Array.isArray(data) ? (data as Array<Record<string, string>>) : [];
  }

  private async call(endpoint: string, params: Record<string, string>, what: string): Promise<unknown> {
    let res: Response;
    try {
      res = await fetch(`${this.url}${endpoint}`, {
        method: 'POST',
        headers: this.headers,
        body: new URLSearchParams(params).toString(),
        signal: AbortSignal.timeout(this.timeoutMs),
      });
    } catch (e) {
      const cause = describeFetchError(e);
      throw new MeasureError(
        `Prometheus at ${this.url}`,
        `cannot be reached (${cause}).`,
        "check the address (--prometheus, or the platform's prometheusAddress) and that this machine can reach it; " +
          'from outside the cluster: kubectl -n monitoring port-forward svc/prometheus-operated 9090 and ' +
          '--prometheus http://127.0.0.1:9090.',
      );
    }
    if (res.status === 401 || res.status === 403) {
      throw new MeasureError(
        `Prometheus at ${this.url}`,
        'refused the request ' +
          `(HTTP ${res.status} ${res.statusText}): ${
            this.headers.Authorization
              ? 'the credentials given were not accepted'
              : 'it requires credentials and none were ' + 'given'
          }.`,
        'pass --user <name> with the password in $ROLLWISE_PROMETHEUS_PASSWORD, or a token in ' +
          '$ROLLWISE_PROMETHEUS_TOKEN, for an account allowed to query.',
      );
    }
    const text = await readBodyCapped(res, `Prometheus at ${this.url}`);
    let body: ApiResponse | undefined;
    try {
      body = JSON.parse(text) as ApiResponse;
    } catch {
      body = undefined;
    }
    if (!body || (body.status !== 'success' && body.status !== 'error')) {
      throw new MeasureError(
        `Prometheus at ${this.url}`,
        `answered HTTP ${res.status} with something that is not the Prometheus API ` +
          `(${text.slice(0, 120).replace(/\s+/g, ' ')}).`,
        'point --prometheus at the Prometheus server itself (the URL whose /api/v1/query answers JSON), not at ' +
          'Grafana or a login page.',
      );
    }
    if (body.status === 'error') {
      throw new MeasureError(
        `query ${what}`,
        `was refused by Prometheus (${body.errorType}: ${body.error}).`,
        body.errorType === 'bad_data'
          ? "this is a rollwise bug if the query is rollwise's own; report it with the " + 'query.'
          : "retry later or raise the server's query limits (--query.timeout, --query.max-samples).",
      );
    }
    return body.data;
  }
}

/**
 * The most bytes read from one Prometheus answer: 64 MiB. The largest answer rollwise asks for is
 * a week of one service's series at the busiest hour's resolution, a few MiB; a server (or a proxy
 * in front of it) that streams without end is stopped there instead of filling memory. The fetch's
 * timeout (AbortSignal.timeout) bounds the time, body included.
 */
export const MAX_RESPONSE_BYTES = 64 * 1024 * 1024;

async function readBodyCapped(res: Response, server: string, max = MAX_RESPONSE_BYTES): Promise<string> {
  if (!res.body) return '';
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    let r: { done: boolean; value?: Uint8Array };
    try {
      r = await reader.read();
    } catch (e) {
      throw new MeasureError(
        server,
        `stopped answering while sending its response (${describeFetchError(e)}).`,
        "retry; if it keeps failing, check the server's load and the --timeout.",
      );
    }
    if (r.done || !r.value) break;
    total += r.value.byteLength;
    if (total > max) {
      await reader.cancel().catch(() => undefined);
      throw new MeasureError(
        server,
        `sent more than ${max} bytes in one answer (the cap: no query rollwise makes returns that much).`,
        'point --prometheus at the Prometheus server itself, not at a proxy or a stream.',
      );
    }
    chunks.push(r.value);
  }
  return Buffer.concat(chunks, total).toString('utf8');
}

function describeFetchError(e: unknown): string {
  const err = e as { name?: string; message?: string; cause?: { code?: string; message?: string } };
  if (err.name === 'TimeoutError') return 'no answer within the timeout';
  return err.cause?.code ?? err.cause?.message ?? err.message ?? String(e);
}

function parseResult(data: unknown, query: string): SeriesSamples[] {
  const d = data as { resultType?: string; result?: unknown };
  const num = (s: string) => (s === 'NaN' ? NaN : s === '+Inf' ? Infinity : s === '-Inf' ? -Infinity : Number(s));
  if (d.resultType === 'vector') {
    return (d.result as Array<{ metric: Record<string, string>; value: [number, string] }>).map((r) => ({
      labels: r.metric,
      samples: [{ t: r.value[0], v: num(r.value[1]) }],
    }));
  }
  if (d.resultType === 'matrix') {
    return (d.result as Array<{ metric: Record<string, string>; values: Array<[number, string]> }>).map((r) => ({
      labels: r.metric,
      samples: r.values.map(([t, v]) => ({ t, v: num(v) })),
    }));
  }
  if (d.resultType === 'scalar') {
    const [t, v] = d.result as [number, string];
    return [{ labels: {}, samples: [{ t, v: num(v) }] }];
  }
  throw new MeasureError(
    `query ${query}`,
    `returned an unexpected result type "${d.resultType}".`,
    'report this as a rollwise bug with the query.',
  );
}
