import { MeasureError, PrometheusClient, SeriesSamples } from './prometheus';
import { MetricSource, ServiceQueries } from './queries';

/** "2026-11-24 12:00 UTC" */
export function showTime(t: number): string {
  return new Date(t * 1000)
    .toISOString()
    .replace('T', ' ')
    .replace(/:\d\d(\.\d+)?Z$/, ' UTC');
}

/** "2026-11-24 12:00-13:00 UTC" (or both dates when the range crosses midnight). */
export function showRange(start: number, end: number): string {
  const a = showTime(start).replace(' UTC', '');
  const b = showTime(end).replace(' UTC', '');
  return a.slice(0, 10) === b.slice(0, 10) ? `${a}-${b.slice(11)} UTC` : `${a} - ${b} UTC`;
}

export function iso(t: number): string {
  return new Date(t * 1000).toISOString();
}

/** A PromQL range: whole minutes ("1h", "90m", "7d" are all fine for Prometheus). */
export function promRange(seconds: number): string {
  const s = Math.max(60, Math.round(seconds / 60) * 60);
  if (s % 86400 === 0) return `${s / 86400}d`;
  if (s % 3600 === 0) return `${s / 3600}h`;
  return `${s / 60}m`;
}

export interface CounterEvents {
  /** The increase over the window, counting series that appear in it from 0. */
  readonly total: number;
  /** Increases by sample time (seconds), ascending; only positive ones. */
  readonly events: ReadonlyArray<{ t: number; n: number }>;
}

/**
 * The exact increase of counters over [start, end] from their raw samples. PromQL's increase()
 * cannot see the first increment of a series created at its first use (the kubelet's "failed"
 * result, Envoy's response classes): the series starts at 1 with no earlier sample, and increase()
 * reports 0. Here a series without a sample before `start` counts from 0, and a drop is a reset.
 */
export function counterIncrease(series: readonly SeriesSamples[], start: number): CounterEvents {
  const byTime = new Map<number, number>();
  let total = 0;
  for (const s of series) {
    let prev: number | undefined;
    for (const { t, v } of s.samples) {
      if (t <= start) {
        prev = v;
        continue;
      }
      const delta = prev === undefined ? v : v >= prev ? v - prev : v;
      prev = v;
      if (delta > 0) {
        total += delta;
        byTime.set(t, (byTime.get(t) ?? 0) + delta);
      }
    }
  }
  return { total, events: [...byTime.entries()].sort((a, b) => a[0] - b[0]).map(([t, n]) => ({ t, n })) };
}

/** Raw counter samples over [start, end] plus a margin before start to find each series' baseline. */
export async function rawCounter(
  client: PrometheusClient,
  selector: (w: string) => string,
  start: number,
  end: number,
): Promise<SeriesSamples[]> {
  // Ten minutes covers the baseline for scrape intervals up to 5 minutes.
  return client.instant(selector(promRange(end - start + 600)), end);
}

/** The names of the service's pods (owned by one of its ReplicaSets) at any time in [start, end]. */
export async function ownedPodNames(
  client: PrometheusClient,
  q: ServiceQueries,
  start: number,
  end: number,
): Promise<Set<string>> {
  const r = await client.instant(q.ownedPods(promRange(end - start + 600)), end);
  return new Set(r.map((x) => x.labels.pod).filter((p): p is string => typeof p === 'string'));
}

/** The single value of an instant query, or undefined for no sample / NaN. */
export async function scalar(client: PrometheusClient, query: string, time: number): Promise<number | undefined> {
  const r = await client.instant(query, time);
  const v = r[0]?.samples[0]?.v;
  return v === undefined || Number.isNaN(v) ? undefined : v;
}

/**
 * Fails with the source's enable hint when Prometheus holds no series of the metric for this
 * selector in the window; distinguishes "not scraped at all" from "nothing for this service".
 */
export async function requireSeries(
  client: PrometheusClient,
  src: MetricSource,
  selector: string,
  start: number,
  end: number,
  service: string,
): Promise<void> {
  if ((await client.series(`${src.metric}{${selector}}`, start, end)).length > 0) return;
  const any = (await client.series(src.metric, start, end)).length > 0;
  if (!any && (await client.series(`${src.metric}{${selector}}`)).length > 0) {
    throw new MeasureError(
      `the window ${showTime(start)} - ${showTime(end)}`,
      `is empty: Prometheus holds ${src.metric} for ${service}, but no sample in this window (before the service ` +
        `existed, after the last scrape, or beyond the server's retention).`,
      "choose a window with data (--end, --window, --since); the server's retention is its " +
        '--storage.tsdb.retention.time.',
    );
  }
  if (any) {
    // The exporter's own namespace label renamed by the scrape (honor_labels false: prometheus
    // scrape/scrape.go mutateSampleLabels keeps the target's namespace and stores the metric's as
    // exported_namespace; prometheus-operator v0.93.0 promcfg.go, docs/mechanisms.md#an-exporters-own-namespace-label).
    const ns = /(?:^|, )namespace="([^"]*)"/.exec(selector);
    if (ns) {
      const renamed = selector.replace(/(^|, )namespace="/, '$1exported_namespace="');
      const found = await client.series(`${src.metric}{${renamed}}`, start, end);
      if (found.length > 0) {
        const stored = [
          ...new Set(found.map((x) => `namespace="${x.namespace ?? ''}"${x.job ? `, job="${x.job}"` : ''}`)),
        ].join('; ');
        throw new MeasureError(
          `${src.metric}{${selector}}`,
          `Prometheus holds ${src.metric} for ${service} only with exported_namespace="${ns[1]}" (stored ` +
            `under ${stored}): the scrape did not keep the exporter's own namespace label (honor_labels false ` +
            `renames it), so every query by the service's namespace, the alerts' too, finds nothing.`,
          "set honorLabels: true on the ServiceMonitor or PodMonitor that scrapes it (rollwise platform's " +
            'PodMonitor argo-rollouts-controller has it); for a Prometheus with overrideHonorLabels or ' +
            'enforcedNamespaceLabel see docs/cluster.md, "The Argo Rollouts controller\'s metrics".',
        );
      }
    }
    throw new MeasureError(
      `${src.metric}{${selector}}`,
      `Prometheus has ${src.metric} between ${showTime(start)} and ${showTime(end)}, but no series for ${service}.`,
      `check the service's name, --namespace and --container; list what exists with: ${src.metric} in the Prometheus ` +
        `UI. (${src.source})`,
    );
  }
  throw new MeasureError(
    src.metric,
    `Prometheus has no ${src.metric} series at all between ${showTime(start)} and ${showTime(end)}: nothing ` +
      `scrapes ${src.source}.`,
    src.enable,
  );
}
