import { benchDiff } from './diff';
import { benchLint, benchLintFolder } from './lint';
import { benchSimulate } from './simulate';
import { benchSynth } from './synth';
import { benchRehearse } from './rehearse';

/**
 * Every benchmark `npm run bench` runs, in order. Each entry's function returns a markdown table.
 * `node lib/bench/index.js simulate lint` runs only the named ones.
 */
export const BENCHES: ReadonlyArray<readonly [name: string, run: () => Promise<string>]> = [
  ['simulate', () => benchSimulate()],
  ['lint', () => benchLint()],
  ['lint-folder', () => benchLintFolder()],
  ['synth', () => benchSynth()],
  ['rehearse', () => benchRehearse()],
  ['diff', () => benchDiff()],
];

/** Runs the benches named on the command line (all when none is named) and prints their tables. */
export async function runBenches(names: readonly string[] = []): Promise<string> {
  const unknown = names.filter((n) => !BENCHES.some(([b]) => b === n));
  if (unknown.length)
    throw new Error(`unknown bench(es): ${unknown.join(', ')}; known: ${BENCHES.map(([b]) => b).join(', ')}`);
  const out: string[] = [];
  for (const [name, run] of BENCHES) {
    if (names.length && !names.includes(name)) continue;
    out.push(`## ${name}\n\n${await run()}\n`);
  }
  return out.join('\n');
}

if (require.main === module) {
  runBenches(process.argv.slice(2)).then(
    (text) => process.stdout.write(text),
    (e) => {
      process.stderr.write(`${e instanceof Error ? e.stack : String(e)}\n`);
      process.exitCode = 1;
    },
  );
}
