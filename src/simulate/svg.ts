/**
 * A dependency-free SVG chart of a simulation: three stacked panels sharing
 * the time axis: ready endpoints (proxy view, with the floor), load per ready
 * replica (with the per-replica capacity), and the error ratio.
 */
import type { SimResult } from './results';

const W = 960;
const PANEL_H = 170;
const GAP = 38;
const LEFT = 64;
const RIGHT = 20;
const TOP = 52;

function esc(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

function fmt(x: number): string {
  if (Math.abs(x) >= 1000)
    return Math.round(x)
      .toString()
      .replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  return Number.isInteger(x) ? String(x) : x.toFixed(x < 1 ? 2 : 1);
}

interface Panel {
  title: string;
  values: Array<number | null>;
  max: number;
  color: string;
  /** Dashed reference line (floor, capacity). */
  ref?: { value: number; label: string };
  format?: (v: number) => string;
  step?: boolean;
}

/** Render the chart. `title` defaults to the scenario name and verdict. */
export function renderSvg(r: SimResult, title?: string): string {
  const m = r.summary;
  const t = r.series.t;
  const tMax = m.durationSeconds;
  const plotW = W - LEFT - RIGHT;
  const x = (s: number): number => LEFT + (s / tMax) * plotW;
  // no spread: series can hold 10^6 samples
  const loadMax = r.series.loadPerReady.reduce<number>((a, v) => Math.max(a, v ?? 0), m.capacityRpsPerReplica * 1.25);
  const panels: Panel[] = [
    {
      title: 'ready endpoints (proxy view)',
      values: r.series.readyEndpoints,
      max: m.replicas,
      color: '#1f6feb',
      ref: { value: m.floor, label: `floor ${m.floor}` },
      step: true,
    },
    {
      title: 'load per ready replica (req/s); gaps: no endpoint',
      values: r.series.loadPerReady,
      max: loadMax,
      color: '#9a6700',
      ref: { value: m.capacityRpsPerReplica, label: `capacity ${fmt(m.capacityRpsPerReplica)}` },
    },
    {
      title: 'error ratio',
      values: r.series.errorRatio,
      max: 1,
      color: '#cf222e',
      format: (v) => `${Math.round(v * 100)} %`,
    },
  ];
  const height = TOP + panels.length * (PANEL_H + GAP) + 10;
  const out: string[] = [];
  out.push(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${height}" viewBox="0 0 ${W} ${height}" ` +
      'font-family="sans-serif" font-size="12">',
  );
  out.push(`<rect width="100%" height="100%" fill="#ffffff"/>`);
  out.push(`<text x="${LEFT}" y="22" font-size="15" font-weight="bold">${esc(title ?? m.name)}</text>`);
  out.push(`<text x="${LEFT}" y="40" fill="#444">${esc(`verdict: ${m.verdict} - ${m.explanation}`)}</text>`);

  panels.forEach((p, i) => {
    const top = TOP + i * (PANEL_H + GAP) + 14;
    const y = (v: number): number => top + PANEL_H - (Math.min(v, p.max) / p.max) * PANEL_H;
    const f = p.format ?? fmt;
    out.push(`<text x="${LEFT}" y="${top - 6}" font-weight="bold">${esc(p.title)}</text>`);
    out.push(`<rect x="${LEFT}" y="${top}" width="${plotW}" height="${PANEL_H}" fill="#f6f8fa" stroke="#d0d7de"/>`);
    for (const frac of [0, 0.5, 1]) {
      const v = p.max * frac;
      out.push(`<text x="${LEFT - 6}" y="${y(v) + 4}" text-anchor="end" fill="#555">${esc(f(v))}</text>`);
    }
    if (p.ref) {
      out.push(
        `<line x1="${LEFT}" x2="${LEFT + plotW}" y1="${y(p.ref.value)}" y2="${y(p.ref.value)}" stroke="#666" ` +
          'stroke-dasharray="5,4"/>',
      );
      out.push(
        `<text x="${LEFT + plotW - 4}" y="${y(p.ref.value) - 4}" text-anchor="end" ` +
          `fill="#555">${esc(p.ref.label)}</text>`,
      );
    }
    // Polylines, broken where the value is null (no ready endpoint).
    let seg: string[] = [];
    const flush = (): void => {
      if (seg.length > 0)
        out.push(`<polyline fill="none" stroke="${p.color}" stroke-width="1.5" points="${seg.join(' ')}"/>`);
      seg = [];
    };
    let prevY = '';
    p.values.forEach((v, k) => {
      if (v === null) return flush();
      const px = x(t[k]).toFixed(1);
      const py = y(v).toFixed(1);
      // Step line: hold the previous value until this sample, then jump.
      if (p.step && seg.length > 0 && py !== prevY) seg.push(`${px},${prevY}`);
      if (!p.step || py !== prevY || k === p.values.length - 1) seg.push(`${px},${py}`);
      prevY = py;
    });
    flush();
    // Time axis.
    const ticks = 6;
    for (let k = 0; k <= ticks; k++) {
      const s = (tMax * k) / ticks;
      const label = tMax >= 1200 ? `${Math.round(s / 60)} min` : `${Math.round(s)} s`;
      out.push(`<text x="${x(s)}" y="${top + PANEL_H + 14}" text-anchor="middle" fill="#555">${label}</text>`);
    }
  });
  out.push('</svg>');
  return out.join('\n') + '\n';
}
