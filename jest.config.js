/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  // Fetches the pinned schemas on a fresh clone that has none (src/schemas/locate.ts says where).
  globalSetup: '<rootDir>/test/support/global-setup.ts',
  // Removes the run's temporary folder that global-setup.ts made, also when tests fail.
  globalTeardown: '<rootDir>/test/support/global-teardown.ts',
  testMatch: ['**/*.test.ts'],
  transform: { '^.+\\.ts$': ['@swc/jest', { jsc: { parser: { syntax: 'typescript' }, target: 'es2022' } }] },
  // The summary reporter prints "jest: N passed, N failed" so CI can read the result.
  reporters: ['default', '<rootDir>/test/support/summary-reporter.js'],
};
