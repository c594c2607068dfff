// ESLint flat config. Formatting belongs to Prettier (.prettierrc.json); ESLint looks for bugs.
// src/ is linted with type information (tsconfig.json); the plain-JS tests, bench and bin get the JS rules plus the
// type-aware promise rules through tsconfig.test.json, which also type-checks them against dist/*.d.ts.
import js from '@eslint/js';
import { defineConfig } from 'eslint/config';
import tseslint from 'typescript-eslint';

/** Promises that nobody awaits lose their errors: a forgotten `await` on a write or a server close is a bug. */
const promiseRules = {
  '@typescript-eslint/no-floating-promises': 'error',
  '@typescript-eslint/no-misused-promises': 'error',
  '@typescript-eslint/await-thenable': 'error',
};

/** A leading underscore marks a deliberately unused name (`_req`, or `_a` dropped from an object by a rest pattern). */
const unused = { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none', ignoreRestSiblings: true };

export default defineConfig(
  { ignores: ['dist/', 'site/', '.bench/', 'tmp/', 'test/fixtures/', 'templates/', 'examples/'] },
  js.configs.recommended,
  {
    rules: {
      eqeqeq: ['error', 'always', { null: 'ignore' }],
      'no-unused-vars': ['error', unused],
    },
  },
  {
    files: ['src/**/*.ts'],
    extends: [tseslint.configs.recommendedTypeChecked],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      ...promiseRules,
      '@typescript-eslint/no-unused-vars': ['error', unused],
    },
  },
  {
    files: ['test/**/*.js', 'bench/**/*.js', 'bin/**/*.js', 'scripts/**/*.js'],
    languageOptions: {
      parser: tseslint.parser,
      parserOptions: { project: './tsconfig.test.json', tsconfigRootDir: import.meta.dirname },
    },
    plugins: { '@typescript-eslint': tseslint.plugin },
    rules: {
      ...promiseRules,
      // Names are checked by tsc -p tsconfig.test.json, which knows Node's globals.
      'no-undef': 'off',
    },
  },
  {
    files: ['eslint.config.js'],
    rules: { 'no-undef': 'off' },
  },
);
