// ESLint for src/, test/, bench/ and scripts/: the recommended rules of ESLint and typescript-eslint,
// run by `npm test` (`npm run lint`). src/ and bench/ also get typescript-eslint's type-aware
// recommended rules (recommendedTypeChecked, on the program of tsconfig.eslint.json). test/ and the
// .js files get the syntax-only ones: on test/ the type-aware rules found only `any` flows out of
// parsed YAML and JSON (about 1,000 no-unsafe-* findings), for about 10 s more CPU per run.
// Formatting is not linted: Prettier owns it (`npm run format`, checked by `npm test`; CONTRIBUTING.md).
const js = require('@eslint/js');
const tseslint = require('typescript-eslint');

module.exports = tseslint.config(
  { ignores: ['lib/**', 'dist/**', 'imports/**', 'node_modules/**', 'coverage/**', '.schemas/**', '.dist-tmp-*/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    files: ['src/**/*.ts', 'bench/**/*.ts'],
    languageOptions: { parserOptions: { project: './tsconfig.eslint.json', tsconfigRootDir: __dirname } },
  },
  { files: ['**/*.js', 'test/**/*.ts'], ...tseslint.configs.disableTypeChecked },
  {
    files: ['src/**/*.ts', 'bench/**/*.ts'],
    rules: {
      // a cast the checker can prove redundant is noise, not a defect (56 in src/ and bench/)
      '@typescript-eslint/no-unnecessary-type-assertion': 'off',
      // flags String() and templates of `unknown` manifest and input values; the printers of bad
      // input (errors.ts, explain.ts) guard objects with JSON.stringify first
      '@typescript-eslint/no-base-to-string': 'off',
      // an async function without await is how a Promise-returning interface is met (the
      // validation plugin's validate, the bench cases)
      '@typescript-eslint/require-await': 'off',
    },
  },
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
    languageOptions: {
      sourceType: 'commonjs',
      globals: {
        require: 'readonly',
        module: 'writable',
        process: 'readonly',
        __dirname: 'readonly',
        console: 'readonly',
        Buffer: 'readonly',
        fetch: 'readonly',
      },
    },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
);
