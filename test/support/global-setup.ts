import { execFileSync } from 'child_process';
import * as path from 'path';
import { locateSchemaDir, schemaDirCandidates } from '../../src/schemas/locate';

/**
 * Before the tests: the pinned schemas must be reachable ($ROLLWISE_SCHEMA_DIR, ../shared or
 * .schemas/); on a fresh clone without them, fetch them once (npm run fetch:schemas).
 */
export default function globalSetup(): void {
  try {
    locateSchemaDir();
  } catch {
    process.stdout.write(`no pinned schemas in ${schemaDirCandidates().join(', ')}; fetching them into .schemas/\n`);
    execFileSync(process.execPath, [path.join(__dirname, '..', '..', 'scripts', 'fetch-schemas.js')], { stdio: 'inherit' });
  }
  // Tests that copy the package or run an app elsewhere (a packed install, cdk8s synth in a
  // temporary project) find the same schemas as a user who sets the variable.
  process.env.ROLLWISE_SCHEMA_DIR ??= locateSchemaDir();
}
