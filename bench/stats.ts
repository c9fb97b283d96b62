/** The median of samples (the mean of the middle two for an even count). */
export function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
}

/** Runs `fn` once to warm up (let V8 optimise it), then `repeat` times; the median wall time in ms. */
export function medianMs(fn: () => void, repeat: number): number {
  fn();
  const times: number[] = [];
  for (let i = 0; i < repeat; i++) {
    const t0 = process.hrtime.bigint();
    fn();
    times.push(Number(process.hrtime.bigint() - t0) / 1e6);
  }
  return median(times);
}
