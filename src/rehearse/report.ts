/**
 * Text, JSON and SVG output of a rehearsal: per release the outcome sentence, whether it met its
 * expectation, and a timeline (route weight per minute, one mark per measurement).
 */
import type { Phase } from './condition';
import type { Rehearsal, ReleaseResult } from './rehearse';

const MARK: Record<Phase, string> = { Successful: '+', Failed: 'x', Inconclusive: '?', Error: '!' };
const BLOCKS = ['▁', '▂', '▃', '▄', '▅', '▆', '▇', '█'];

/** One character per minute: the route weight (0 drawn as '_'). */
export function weightLine(weights: number[], until: number): string {
  let out = '';
  for (let m = 0; m * 60 <= until; m++) {
    const slice = weights.slice(m * 60, Math.min(until + 1, (m + 1) * 60));
    const w = slice.length ? Math.max(...slice) : 0;
    out += w <= 0 ? '_' : BLOCKS[Math.min(7, Math.max(0, Math.ceil((w / 100) * 8) - 1))];
  }
  return out;
}

/** One character per minute per metric: the worst phase measured in that minute, '.' if none. */
export function metricLine(r: ReleaseResult, run: string, metric: string, until: number): string {
  const rank: Phase[] = ['Successful', 'Inconclusive', 'Error', 'Failed'];
  const cols: Array<Phase | undefined> = [];
  for (const m of r.verdict.measurements) {
    if (m.run !== run || m.metric !== metric) continue;
    const c = Math.floor(m.t / 60);
    const cur = cols[c];
    if (!cur || rank.indexOf(m.phase) > rank.indexOf(cur)) cols[c] = m.phase;
  }
  let out = '';
  for (let c = 0; c * 60 <= until; c++) out += cols[c] ? MARK[cols[c] as Phase] : ' ';
  return out;
}

export function formatRelease(r: ReleaseResult, timeline: boolean): string {
  const lines = [`  ${r.met ? 'ok  ' : 'FAIL'} ${r.release.id.padEnd(24)} ${r.sentence}`];
  if (!r.met) lines.push(`       expected ${r.release.expect}: ${r.release.because}`);
  if (timeline) {
    const until = r.verdict.t;
    lines.push(`       ${'route weight'.padEnd(34)} |${weightLine(r.world.weight, until)}|`);
    const seen = new Set<string>();
    for (const m of r.verdict.measurements) {
      const key = `${m.run}\u0000${m.metric}`;
      if (seen.has(key)) continue;
      seen.add(key);
      const label = `${m.run === 'background' ? '' : `${m.run} `}${m.metric}`;
      lines.push(`       ${label.slice(0, 34).padEnd(34)} |${metricLine(r, m.run, m.metric, until)}|`);
    }
  }
  return lines.join('\n');
}

export function formatRehearsal(rs: Rehearsal[], timeline = true): string {
  const out: string[] = [];
  for (const r of rs) {
    const met = r.results.filter((x) => x.met).length;
    const m = r.rollout;
    out.push(
      `${m.namespace}/${m.name}: ${met} of ${r.results.length} releases behaved as expected` +
        ` (${m.replicas} replicas, ${m.peakRps ?? '?'} req/s peak; canary cluster ${m.canaryCluster})`,
    );
    for (const x of r.results) out.push(formatRelease(x, timeline));
    if (timeline)
      out.push(
        '  timeline: one column per minute; route weight ▁ low .. █ 100 %, _ 0 %; measurements + passed, x failed, ? ' +
          'inconclusive, ! error',
      );
  }
  return `${out.join('\n')}\n`;
}

export function rehearsalJson(rs: Rehearsal[]): unknown {
  return rs.map((r) => ({
    rollout: `${r.rollout.namespace}/${r.rollout.name}`,
    ok: r.ok,
    releases: r.results.map((x) => ({
      id: x.release.id,
      title: x.release.title,
      expect: x.release.expect,
      met: x.met,
      outcome: x.verdict.outcome,
      atSeconds: x.verdict.t,
      atWeight: x.verdict.weight,
      run: x.verdict.run,
      metric: x.verdict.metric,
      sentence: x.sentence,
      rps: x.world.rps,
      events: x.world.events.filter((e) => e.t <= x.verdict.t),
      measurements: x.verdict.measurements,
    })),
  }));
}

function esc(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** An SVG with one lane per release: the route weight over time and a dot per measurement. */
export function renderRehearsalSvg(r: Rehearsal): string {
  const W = 960;
  const LEFT = 220;
  const LANE = 46;
  const top = 40;
  const tMax = Math.max(60, ...r.results.map((x) => x.verdict.t));
  const x = (t: number) => LEFT + ((W - LEFT - 20) * t) / tMax;
  const color: Record<Phase, string> = {
    Successful: '#2a9d4b',
    Failed: '#d62728',
    Inconclusive: '#e6a700',
    Error: '#7b3fa0',
  };
  const parts: string[] = [];
  parts.push(
    '<text x="10" y="22" font-size="15" ' +
      `font-weight="bold">${esc(`${r.rollout.namespace}/${r.rollout.name}: rehearsal`)}</text>`,
  );
  r.results.forEach((res, i) => {
    const y0 = top + i * LANE;
    const h = LANE - 14;
    parts.push(
      `<text x="10" y="${y0 + 14}" font-size="12" ` +
        `fill="${res.met ? '#222' : '#d62728'}">${esc(res.release.id)}</text>`,
    );
    parts.push(`<text x="10" y="${y0 + 28}" font-size="10" fill="#555">${esc(res.sentence.slice(0, 38))}</text>`);
    let d = '';
    for (let t = 0; t <= res.verdict.t && t < res.world.weight.length; t += 5)
      d += `${d ? 'L' : 'M'}${x(t).toFixed(1)},${(y0 + h - (h * res.world.weight[t]) / 100).toFixed(1)}`;
    parts.push(`<path d="${d}" fill="none" stroke="#1f77b4" stroke-width="1.5"/>`);
    for (const m of res.verdict.measurements) {
      const cx = x(m.t).toFixed(1);
      const title = esc(`${m.metric} at ${m.t} s: ${m.phase} ${m.value ?? m.message ?? ''}`);
      parts.push(
        `<circle cx="${cx}" cy="${y0 + h + 4}" r="2.5" fill="${color[m.phase]}"><title>${title}</title></circle>`,
      );
    }
  });
  const H = top + r.results.length * LANE + 30;
  parts.push(
    `<text x="${LEFT}" y="${H - 10}" font-size="11" fill="#555">0 .. ${Math.round(tMax / 60)} min; blue: canary ` +
      'route weight; dots: measurements (green passed, red failed, amber inconclusive, purple error)</text>',
  );
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" ` +
    `font-family="sans-serif">\n${parts.join('\n')}\n</svg>\n`
  );
}
