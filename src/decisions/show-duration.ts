// Durations as the reasons and errors show them, and as Envoy Gateway reads them.
import { formatGoDuration } from './inputs';

/** "5 s", "500 ms", "65 s", "5 min", "1 h", "1 h 30 min": durations in reasons and errors. */
export function showDuration(s: number): string {
  if (!Number.isFinite(s)) return String(s);
  if (s > 0 && s < 1) return `${round3(s * 1000)} ms`;
  if (s >= 60 && Number.isInteger(s) && s % 60 === 0) {
    const h = Math.floor(s / 3600);
    const m = Math.floor((s % 3600) / 60);
    const sec = s % 60;
    return [h ? `${h} h` : '', m ? `${m} min` : '', sec ? `${sec} s` : ''].filter(Boolean).join(' ');
  }
  return `${round3(s)} s`;
}

/** Envoy Gateway duration string ("3s", "1h", "1m30s", "500ms"), matching the CRD's pattern. */
export function envoyDuration(s: number): string {
  if (s > 99_999 * 3600) throw new Error(`duration too long for Envoy Gateway: ${s} s`);
  return formatGoDuration(s);
}

export function representable(s: number): boolean {
  return Number.isFinite(s) && Math.abs(Math.round(s * 1000) - s * 1000) < 1e-6 && s <= 99_999 * 3600;
}

export function round3(n: number): number {
  return Math.round(n * 1000) / 1000;
}
