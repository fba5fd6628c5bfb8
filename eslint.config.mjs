// Lint rules for apps, libs, test and bench (`npm run lint`; import rules between folders are in
// .dependency-cruiser.cjs). Type-aware: floating promises and exhaustive switches need the types.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

/**
 * Files that import a repository a pipeline use case owns, listed so no new one comes: the SFTP
 * adapter, whose file system is the partner file store (its uploads move to a streaming use case with issue 14).
 */
const REPOSITORY_IMPORTS_TODAY = ['apps/gateway/src/sftp/sftp.server.ts', 'apps/gateway/src/sftp/sftp-session.ts'];

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'data/**', 'coverage/**', '.stryker-tmp/**', 'reports/**'] },
  {
    files: ['{apps,libs,test,bench}/**/*.{ts,tsx,mts}'],
    extends: [js.configs.recommended, ...tseslint.configs.recommendedTypeChecked],
    languageOptions: {
      parserOptions: {
        project: ['./tsconfig.json', './apps/console/tsconfig.json'],
        tsconfigRootDir: import.meta.dirname,
      },
    },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/switch-exhaustiveness-check': [
        'error',
        { considerDefaultExhaustiveForUnions: true, requireDefaultForNonUnion: false },
      ],
      curly: ['error', 'all'],
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', ignoreRestSiblings: true, caughtErrors: 'none' },
      ],
      '@typescript-eslint/restrict-template-expressions': [
        'error',
        {
          allow: [
            { name: ['Error', 'URL', 'URLSearchParams'], from: 'lib' },
            { name: 'URLSearchParams', from: 'package', package: 'url' },
          ],
        },
      ],
      '@typescript-eslint/prefer-promise-reject-errors': [
        'error',
        { allowThrowingAny: true, allowThrowingUnknown: true },
      ],
      // Off as noise here: request bodies, JSON and test doubles are any/unknown by nature (no-unsafe-*);
      // fakes implement async interfaces without awaiting; interfaces of plain functions are passed
      // around (unbound-method); 'Known' | string unions document the values the platform sends today;
      // String(unknown) is how reasons are made (no-base-to-string); the X12 scan cache keeps `this`.
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      '@typescript-eslint/require-await': 'off',
      '@typescript-eslint/unbound-method': 'off',
      '@typescript-eslint/no-redundant-type-constituents': 'off',
      '@typescript-eslint/no-base-to-string': 'off',
      '@typescript-eslint/no-this-alias': 'off',
      // Misreads intersections with TypeScript 6 (calls `error as (Error & TimedRetry)` unnecessary).
      '@typescript-eslint/no-unnecessary-type-assertion': 'off',
    },
  },
  {
    files: ['apps/**/*.ts'],
    ignores: ['**/*.spec.ts', ...REPOSITORY_IMPORTS_TODAY],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: '^@dockbridge/audit$',
              importNamePattern: 'Repository$',
              message: 'Messages, operations and replay runs are reached through a use case of @dockbridge/pipeline.',
            },
            {
              regex: '^@dockbridge/partners$',
              importNamePattern: '^PartnerFileRepository$',
              message:
                'Partner files are written by the ingest, acknowledgment and export use cases of @dockbridge/pipeline.',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['{test,bench}/**/*.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  {
    files: ['test/**/*.js'],
    extends: [js.configs.recommended],
    languageOptions: {
      sourceType: 'commonjs',
      globals: Object.fromEntries(
        ['require', 'module', '__dirname', 'process', 'console', 'setTimeout', 'setInterval', 'clearInterval'].map(
          (name) => [name, 'readonly'],
        ),
      ),
    },
    rules: { curly: ['error', 'all'] },
  },
);
