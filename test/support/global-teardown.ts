import * as fs from 'fs';

/**
 * After the tests, passed or failed: remove the run's temporary folder (global-setup.ts points
 * TMPDIR at it), with every app output folder and scratch repository the tests left in it.
 */
export default function globalTeardown(): void {
  const runTmp = process.env.ROLLWISE_TEST_TMPDIR;
  if (runTmp && fs.existsSync(runTmp)) fs.rmSync(runTmp, { recursive: true, force: true });
}
