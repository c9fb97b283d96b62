/**
 * The jest config StrykerJS runs (stryker.config.json): the tests that exercise the mutated
 * folders, chosen by ROLLWISE_MUTATE ("invariants" or "decisions"), without the schema fetch and
 * the summary reporter.
 */
const base = require('./jest.config.js');

const tests = {
  invariants: ['<rootDir>/test/invariants/**/*.test.ts', '<rootDir>/test/invariants-mutants.test.ts'],
  decisions: ['<rootDir>/test/decisions/**/*.test.ts', '<rootDir>/test/inputs/**/*.test.ts'],
};

/** @type {import('jest').Config} */
module.exports = {
  ...base,
  testMatch: tests[process.env.ROLLWISE_MUTATE ?? 'invariants'],
  reporters: ['default'],
};
