/**
 * The JSON helpers and the Quantity grammar (apimachinery pkg/api/resource/quantity.go) the built-in checks share.
 * Split from src/schemas/builtin.ts (issue 26); each check cites its source where it is.
 */

export type Json = Record<string, unknown>;

export function rec(x: unknown): Json | undefined {
  return x && typeof x === 'object' && !Array.isArray(x) ? (x as Json) : undefined;
}

export function arr(x: unknown): unknown[] {
  return Array.isArray(x) ? x : [];
}

export const show = (v: unknown) => {
  const s = JSON.stringify(v) ?? String(v);
  return s.length > 70 ? `${s.slice(0, 67)}...` : s;
};

/** Quantity syntax (apimachinery pkg/api/resource/quantity.go, ParseQuantity). */
export const QUANTITY = /^[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+|[KMGTPE]i|[numkMGTPE])?$/;

export type Add = (path: string, message: string, value?: unknown) => void;

const QUANTITY_SUFFIX: Record<string, number> = {
  '': 1,
  n: 1e-9,
  u: 1e-6,
  m: 1e-3,
  k: 1e3,
  M: 1e6,
  G: 1e9,
  T: 1e12,
  P: 1e15,
  E: 1e18,
  Ki: 2 ** 10,
  Mi: 2 ** 20,
  Gi: 2 ** 30,
  Ti: 2 ** 40,
  Pi: 2 ** 50,
  Ei: 2 ** 60,
};

/** A quantity's value as a number (apimachinery resource.ParseQuantity's grammar), or undefined when it is not one. */
export function quantityValue(q: unknown): number | undefined {
  if (typeof q === 'number') return Number.isFinite(q) ? q : undefined;
  if (typeof q !== 'string') return undefined;
  const m = /^([+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+))(?:[eE]([+-]?[0-9]+)|([KMGTPE]i|[numkMGTPE]))?$/.exec(q);
  if (!m) return undefined;
  return Number(m[1]) * (m[2] !== undefined ? 10 ** Number(m[2]) : QUANTITY_SUFFIX[m[3] ?? '']);
}
