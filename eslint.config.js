// typescript-eslint's type-aware recommended rules over every TypeScript file the tsconfigs cover
// (the service, tests and scripts; the browser tests; the pages' scripts, src/pages/scripts/, and the
// game SDK, client/sdk/, with the DOM library); `npm run lint` runs this beside tsc (which adds
// noUnusedLocals/noUnusedParameters). examples/ are separate projects, with their own packages.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/**', 'client/dist/**', 'generated/**', 'node_modules/**', 'data/**', 'bench-results/**', 'examples/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      // Off: an `async` function without `await` is how a synchronous body meets a Promise-returning
      // contract here (every handler is `Handler<Op>`; SqliteStore's prepared reads implement the
      // async Store), and `async` turns its throws into rejections, which callers rely on.
      '@typescript-eslint/require-await': 'off',
      // A leading underscore marks what is left out on purpose (a rest sibling, an unused argument).
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', ignoreRestSiblings: true }],
      // URLSearchParams stringifies to its query string; Node's types declare it, not the ES lib.
      '@typescript-eslint/restrict-template-expressions': ['error', { allow: [{ from: 'package', package: '@types/node', name: ['URL', 'URLSearchParams'] }] }],
    },
  },
  {
    files: ['test/**/*.ts'],
    rules: {
      // vitest's asymmetric matchers (expect.any, expect.stringMatching, ...) are typed `any`, and
      // an exact-body assertion places them inside the expected object.
      '@typescript-eslint/no-unsafe-assignment': 'off',
    },
  },
  { files: ['**/*.js', '**/*.mjs'], ...tseslint.configs.disableTypeChecked },
);
