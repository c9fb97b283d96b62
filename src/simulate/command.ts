/**
 * `rollwise simulate <scenario.yaml> [--svg out.svg] [--json]`.
 *
 * The CLI wiring lives in src/cli (owned by the lead); this module is the
 * whole behaviour: read and validate the scenario, simulate, print the report
 * (or JSON), write the SVG when asked, and return the exit code:
 *   0  verdict stable or degraded
 *   1  verdict flapping, oscillating or cascade
 *   2  invalid scenario (every problem is printed with field, value, why, fix)
 */
import * as fs from 'fs';
import { simulate } from './model';
import { isBadVerdict } from './results';
import { formatReport } from './report';
import { loadScenarioFile } from './scenario';
import { ScenarioError } from './scenario-error';
import { renderSvg } from './svg';

export interface RunSimulateOptions {
  /** Path of the scenario YAML file. */
  scenario: string;
  /** Write an SVG chart to this path. */
  svg?: string;
  /** Print the scenario, summary and series as JSON instead of the text report. */
  json?: boolean;
  /** Where output goes (e.g. `(t) => process.stdout.write(t)`). */
  write: (text: string) => void;
}

export function runSimulate(opts: RunSimulateOptions): number {
  let scenario;
  try {
    scenario = loadScenarioFile(opts.scenario);
  } catch (e) {
    if (e instanceof ScenarioError) {
      opts.write(`${e.message}\n`);
      return 2;
    }
    throw e;
  }
  const result = simulate(scenario);
  if (opts.json) {
    opts.write(JSON.stringify({ scenario, summary: result.summary, series: result.series }, null, 2) + '\n');
  } else {
    opts.write(formatReport(scenario, result));
  }
  if (opts.svg) {
    fs.writeFileSync(opts.svg, renderSvg(result));
    if (!opts.json) opts.write(`chart written to ${opts.svg}\n`);
  }
  return isBadVerdict(result.summary.verdict) ? 1 : 0;
}
