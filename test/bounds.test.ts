import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { main } from '../src/cli/main';
import { DEFAULT_MAX_INPUT_BYTES, readTextCapped } from '../src/read-limit';
import { runLint } from '../src/rules/run-lint';
import { runSimulate } from '../src/simulate/command';
import { estimateWork, MAX_SAMPLES, MAX_WORK_POD_STEPS, simulate } from '../src/simulate/model';
import { formatReport } from '../src/simulate/report';
import { scenarioFromObject, ScenarioError } from '../src/simulate/scenario';
import { renderSvg } from '../src/simulate/svg';

/**
 * Bounded work (issue 13): simulate estimates its work from the scenario and refuses above the
 * documented bound with the numbers; reports and SVGs never spread large arrays; lint, simulate
 * and explain cap what they read and name the file.
 */
let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rw-bounds-'));
});
afterEach(() => {
  fs.rmSync(dir, { recursive: true, force: true });
  delete process.env.ROLLWISE_MAX_INPUT_BYTES;
});

const fleet = {
  readiness: { periodSeconds: 10, timeoutSeconds: 3, failureThreshold: 3, successThreshold: 3 },
  capacity: { cpu: { cpuSecondsPerRequest: 0.0025, healthSeconds: 0.02, requestCores: 1 } },
};

function problems(raw: Record<string, unknown>): string[] {
  try {
    scenarioFromObject({ ...fleet, load: { constantRps: 100 }, ...raw });
  } catch (e) {
    if (e instanceof ScenarioError) return e.problems.map((p) => `${p.field}: ${p.why}`);
    throw e;
  }
  return [];
}

describe('simulate: a documented bound on work', () => {
  // 1,000 replicas x 500,000 steps (50,000 s at 0.1 s) is exactly 5 x 10^8 pod-steps
  const atBound = { replicas: 1000, durationSeconds: 50_000, stepSeconds: 0.1, sampleSeconds: 1 };

  test('at the bound the scenario is accepted', () => {
    expect(estimateWork({ ...atBound, events: [] }).podSteps).toBe(MAX_WORK_POD_STEPS);
    expect(problems(atBound)).toEqual([]);
  });

  test('just above it (one more replica) it is refused with the numbers and a fix', () => {
    const p = problems({ ...atBound, replicas: 1001 });
    expect(p).toHaveLength(1);
    expect(p[0]).toMatch(
      /^durationSeconds: the run is 500,000 steps \(durationSeconds 50000 \/ stepSeconds 0.1\) x up to 1,001 pods .* = 500,500,000 pod-steps, above the bound of 500,000,000/,
    );
  });

  test('the run of the issue (7 days, 1,000 replicas) is refused at once, not after minutes', () => {
    const file = path.join(dir, 'week.yaml');
    fs.writeFileSync(
      file,
      `replicas: 1000\ndurationSeconds: 604800\nload: { constantRps: 100 }\nreadiness: { periodSeconds: 10, timeoutSeconds: 3, failureThreshold: 3, successThreshold: 3 }\ncapacity: { cpu: { cpuSecondsPerRequest: 0.0025, healthSeconds: 0.02, requestCores: 1 } }\n`,
    );
    let out = '';
    const t0 = Date.now();
    expect(
      runSimulate({
        scenario: file,
        write: (t) => {
          out += t;
        },
      }),
    ).toBe(2);
    expect(Date.now() - t0).toBeLessThan(2000);
    expect(out).toMatch(/6,048,000,000 pod-steps, above the bound of 500,000,000/);
    expect(out).toContain('raise stepSeconds');
  });

  test('events count: 100,000 replaced drains are refused with the pods they add', () => {
    const events = Array.from({ length: 100_000 }, (_, i) => ({
      drain: { atSeconds: (i % 500) + 1, count: 1, replaceAfterSeconds: 5 },
    }));
    const p = problems({ replicas: 10, durationSeconds: 600, events });
    expect(p[0]).toMatch(/x up to 100,010 pods \(10 replicas and the pods 100000 events add\)/);
  });

  test('samples are bounded too', () => {
    expect(problems({ replicas: 2, durationSeconds: 604_800, stepSeconds: 0.1, sampleSeconds: 0.1 })[0]).toMatch(
      /keeps 6,048,000 samples per series .* above the bound of 1,000,000/,
    );
    expect(MAX_SAMPLES).toBe(1_000_000);
  });

  test('a library caller that builds a Scenario by hand is refused by simulate() too', () => {
    const s = scenarioFromObject({ ...fleet, load: { constantRps: 100 }, replicas: 10, durationSeconds: 60 });
    expect(() => simulate({ ...s, replicas: 100_000, durationSeconds: 604_800 })).toThrow(
      /rollwise simulate: the run is .* pod-steps, above the bound .* Fix: raise stepSeconds/,
    );
  });

  test('a long run with 200,000 samples per series reports and draws without spreading arrays', () => {
    // Math.max(...a) overflows the stack from about 130,000 elements on Node 20 (measured)
    const s = scenarioFromObject({
      ...fleet,
      load: { constantRps: 100 },
      replicas: 2,
      durationSeconds: 200_000,
      stepSeconds: 1,
      sampleSeconds: 1,
    });
    const r = simulate(s);
    expect(r.series.offeredRps.length).toBeGreaterThanOrEqual(200_000);
    expect(formatReport(s, r)).toContain('verdict');
    expect(renderSvg(r)).toMatch(/^<svg/);
  }, 60_000);
});

describe('input caps: lint, simulate and explain name the file', () => {
  test('lint /dev/zero stops at the cap (exit 2) instead of filling memory', () => {
    let err = '';
    const code = runLint({
      paths: ['/dev/zero'],
      format: 'text',
      failOn: 'error',
      write: () => undefined,
      writeError: (t) => {
        err += t;
      },
    });
    expect(code).toBe(2);
    expect(err).toContain(
      `rollwise lint: cannot read /dev/zero: /dev/zero is more than ${DEFAULT_MAX_INPUT_BYTES} bytes, above the input cap of ${DEFAULT_MAX_INPUT_BYTES} bytes (32 MiB)`,
    );
    expect(err).toContain('ROLLWISE_MAX_INPUT_BYTES');
  });

  test('a file above the cap is refused by its size; at the cap it is read', () => {
    process.env.ROLLWISE_MAX_INPUT_BYTES = '2000';
    const file = path.join(dir, 'big.yaml');
    const doc = 'apiVersion: v1\nkind: ConfigMap\nmetadata: { name: x }\ndata: { a: "';
    fs.writeFileSync(file, `${doc}${'x'.repeat(2000 - doc.length - 2)}"}`);
    expect(fs.statSync(file).size).toBe(2000);
    expect(readTextCapped(file)).toHaveLength(2000);
    fs.appendFileSync(file, '\n');
    let err = '';
    expect(
      runLint({
        paths: [file],
        format: 'text',
        failOn: 'error',
        write: () => undefined,
        writeError: (t) => {
          err += t;
        },
      }),
    ).toBe(2);
    expect(err).toContain(`${file} is 2001 bytes, above the input cap of 2000 bytes`);
  });

  test('a bad cap setting is named', () => {
    process.env.ROLLWISE_MAX_INPUT_BYTES = 'lots';
    expect(() => readTextCapped('/dev/null')).toThrow(
      /ROLLWISE_MAX_INPUT_BYTES = lots: must be a whole number of bytes above 0/,
    );
  });

  test('simulate with manifest: /dev/zero names the manifest (exit 2)', () => {
    const file = path.join(dir, 's.yaml');
    fs.writeFileSync(file, 'manifest: /dev/zero\nload: { constantRps: 10 }\n');
    let out = '';
    expect(
      runSimulate({
        scenario: file,
        write: (t) => {
          out += t;
        },
      }),
    ).toBe(2);
    expect(out).toMatch(/manifest.*\/dev\/zero is more than \d+ bytes, above the input cap/);
  });

  test('explain /dev/zero: exit 2 with the file named', async () => {
    let err = '';
    const code = await main(
      ['node', 'rollwise', 'explain', '/dev/zero'],
      () => undefined,
      (t) => {
        err += t;
      },
    );
    expect(code).toBe(2);
    expect(err).toMatch(/^rollwise: \/dev\/zero is more than \d+ bytes, above the input cap/);
  });
});
