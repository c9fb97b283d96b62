import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { locateSchemaDir, schemaDirCandidates } from '../../src/schemas/locate';
import { fetchPinnedSchemas } from '../../src/schemas/pinned';

/**
 * Before the tests: the pinned schemas must be reachable ($ROLLWISE_SCHEMA_DIR, ../shared or
 * .schemas/); on a fresh clone without them, fetch them once (what `rollwise schemas fetch` does).
 */
export default async function globalSetup(): Promise<void> {
  try {
    locateSchemaDir();
  } catch {
    process.stdout.write(`no pinned schemas in ${schemaDirCandidates().join(', ')}; fetching them into .schemas/\n`);
    await fetchPinnedSchemas(path.join(__dirname, '..', '..', '.schemas'), {
      onFile: (f) => process.stdout.write(`fetched ${f}\n`),
    });
  }
  // Tests that copy the package or run an app elsewhere (a packed install, cdk8s synth in a
  // temporary project) find the same schemas as a user who sets the variable.
  process.env.ROLLWISE_SCHEMA_DIR ??= locateSchemaDir();
  // Every temporary folder of this run (cdk8s's Testing.app() makes one per app and never removes
  // it) goes under one folder that global-teardown.ts removes, pass or fail.
  const runTmp = fs.mkdtempSync(path.join(os.tmpdir(), 'rollwise-test-'));
  // Open to every user like /tmp (sticky): a test runs synth as nobody to prove permissions matter.
  fs.chmodSync(runTmp, 0o1777);
  process.env.ROLLWISE_TEST_TMPDIR = runTmp;
  process.env.TMPDIR = runTmp;
  // Tests render into no user's kustomize cache (~/.cache/rollwise); the cache's own tests pass a folder.
  process.env.ROLLWISE_KUSTOMIZE_CACHE ??= 'off';
}
