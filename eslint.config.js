// ESLint for src/, test/, bench/ and scripts/: the recommended rules of ESLint and typescript-eslint
// (syntax-only, no type information, so it stays fast), run by `npm test` (`npm run lint`).
// Formatting is not linted (no formatter is enforced: the tree keeps its style, see CONTRIBUTING.md).
const js = require('@eslint/js');
const tseslint = require('typescript-eslint');

module.exports = tseslint.config(
  { ignores: ['lib/**', 'dist/**', 'imports/**', 'node_modules/**', 'coverage/**', '.schemas/**', '.dist-tmp-*/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts'],
    rules: {
      // tsc (noUnusedLocals / noUnusedParameters) already reports these, with the same exceptions
      '@typescript-eslint/no-unused-vars': 'off',
      // bench/ drops references on purpose (`app = undefined` before gc()) so the heap holds only
      // what is measured
      'no-useless-assignment': 'off',
    },
  },
  {
    files: ['test/**/*.ts'],
    // test helpers rethrow a subprocess failure with its output as the message, which is the cause
    rules: { 'preserve-caught-error': 'off' },
  },
  {
    files: ['**/*.js'],
    languageOptions: { sourceType: 'commonjs', globals: { require: 'readonly', module: 'writable', process: 'readonly', __dirname: 'readonly', console: 'readonly', Buffer: 'readonly', fetch: 'readonly' } },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
);
