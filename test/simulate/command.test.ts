import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { runSimulate } from '../../src/simulate';

const dir = path.join(__dirname, '..', '..', 'examples', 'scenarios');
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'sim-cmd-'));

function run(scenario: string, extra: { svg?: string; json?: boolean } = {}): { code: number; out: string } {
  let out = '';
  const code = runSimulate({ scenario, ...extra, write: (t) => (out += t) });
  return { code, out };
}

describe('runSimulate', () => {
  test('(a) prints the saw-tooth and exits 1; the SVG is written', () => {
    const svg = path.join(tmp, 'a.svg');
    const { code, out } = run(path.join(dir, 'a-incident-throttled-drain.yaml'), { svg });
    expect(code).toBe(1);
    expect(out).toContain('verdict: oscillating - ready endpoints fell to 0');
    expect(out).toContain('min ready            0/10');
    // The ready-endpoints sparkline alternates between empty (_) and full columns.
    const spark = out.split('\n')[out.split('\n').findIndex((l) => l.startsWith('ready endpoints')) + 1];
    expect((spark.match(/_/g) ?? []).length).toBeGreaterThan(10);
    expect(spark).toMatch(/▇/);
    const text = fs.readFileSync(svg, 'utf8');
    expect(text.startsWith('<svg xmlns="http://www.w3.org/2000/svg"')).toBe(true);
    expect((text.match(/<polyline/g) ?? []).length).toBeGreaterThan(3); // load line broken at every collapse
    expect(out).toContain(`chart written to ${svg}`);
  });

  test('(b) stable exits 0; (c) flapping exits 1; (d) stable exits 0', () => {
    expect(run(path.join(dir, 'b-rollwise-defaults-drain.yaml')).code).toBe(0);
    const c = run(path.join(dir, 'c-readiness-calls-dependency.yaml'));
    expect(c.code).toBe(1);
    expect(c.out).toContain('verdict: flapping');
    expect(run(path.join(dir, 'd-dependency-fixed.yaml')).code).toBe(0);
  });

  test('--json prints the scenario, the summary and the series', () => {
    const { code, out } = run(path.join(dir, 'b-rollwise-defaults-drain.yaml'), { json: true });
    expect(code).toBe(0);
    const j = JSON.parse(out);
    expect(j.summary.verdict).toBe('stable');
    expect(j.scenario.readiness.timeoutSeconds).toBe(3);
    expect(j.series.readyEndpoints).toHaveLength(600);
  });

  test('an invalid scenario exits 2 and names the field, the value, why and the fix', () => {
    const f = path.join(tmp, 'bad.yaml');
    fs.writeFileSync(
      f,
      'replicas: 0\nreadiness: {timeoutSeconds: 1}\ncapacity: {cpu: {requestCores: 1, cpuSecondsPerRequest: 0.001}}\nload: {constantRps: 10}\n',
    );
    const { code, out } = run(f);
    expect(code).toBe(2);
    expect(out).toContain(`invalid scenario ${f}:`);
    expect(out).toContain('replicas = 0: must be at least 1 (a pod count). Fix: set it to 1 or more.');
  });

  test('a missing scenario file exits 2', () => {
    const { code, out } = run(path.join(tmp, 'missing.yaml'));
    expect(code).toBe(2);
    expect(out).toContain('ENOENT');
  });
});
