/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  transform: { '^.+\\.ts$': ['@swc/jest', { jsc: { parser: { syntax: 'typescript' }, target: 'es2022' } }] },
  // The summary reporter prints "jest: N passed, N failed" so CI can read the result.
  reporters: ['default', '<rootDir>/test/support/summary-reporter.js'],
};
