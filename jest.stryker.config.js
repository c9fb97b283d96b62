/**
 * The jest config StrykerJS runs (stryker.config.json): the tests that exercise the mutated
 * folders, chosen by ROLLWISE_MUTATE ("invariants" or "decisions"), without the schema fetch and
 * the summary reporter.
 */
const fs = require('fs');
const path = require('path');
const base = require('./jest.config.js');

// Stryker runs the tests in a sandbox (.stryker-tmp/sandbox-*), where ../shared and .schemas/ are
// not beside the package: find the pinned schemas above it instead of fetching them again.
if (!process.env.ROLLWISE_SCHEMA_DIR) {
  for (let dir = __dirname; path.dirname(dir) !== dir; dir = path.dirname(dir)) {
    const found = [path.join(dir, '..', 'shared'), path.join(dir, '.schemas')].find((d) =>
      fs.existsSync(path.join(d, 'schemas', 'k8s-v1.28.0-definitions.json')),
    );
    if (found) {
      process.env.ROLLWISE_SCHEMA_DIR = found;
      break;
    }
  }
}

const tests = {
  // the invariants at their edges on the committed example output, and the app-wide checks
  // (conflicts, final objects, decided values) on small apps of plain ApiObjects: no synth, so a
  // mutant run takes ~1 s
  invariants: [
    '<rootDir>/test/invariants/invariants-unit.test.ts',
    '<rootDir>/test/invariants/invariants-edges.test.ts',
    '<rootDir>/test/invariants/app-wide-unit.test.ts',
  ],
  decisions: ['<rootDir>/test/decisions/**/*.test.ts', '<rootDir>/test/inputs/**/*.test.ts'],
};

/** @type {import('jest').Config} */
module.exports = {
  ...base,
  testMatch: tests[process.env.ROLLWISE_MUTATE ?? 'invariants'],
  reporters: ['default'],
  globalSetup: undefined,
  globalTeardown: undefined,
};
