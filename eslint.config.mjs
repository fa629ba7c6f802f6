// @ts-check
// Lint: typescript-eslint's recommended rules (syntax only: fast, no type information), with the house's
// few exceptions. `npm run lint`; formatting is prettier's (`npm run format:check`), not ESLint's.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'client/src/schema.d.ts', 'client/dist/**', 'coverage/**', '.data/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts', '**/*.tsx'],
    rules: {
      // `_name` marks a parameter or binding kept on purpose (a handler's signature, a destructured rest).
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrorsIgnorePattern: '^_', ignoreRestSiblings: true },
      ],
      // Heavy packages (stripe, qrcode, web-push, …) load at first use, not at start (docs/performance.md "Memory and start").
      '@typescript-eslint/no-require-imports': 'off',
      // Module augmentation (TenantSite extends Site) is an empty interface by design.
      '@typescript-eslint/no-empty-object-type': ['error', { allowInterfaces: 'with-single-extends' }],
      // Input checks match control characters on purpose (NUL, C0): that is what they refuse.
      'no-control-regex': 'off',
      // A binding assigned once but read first by a closure (a server's handler, a hook) is declared before it.
      'prefer-const': ['error', { ignoreReadBeforeAssign: true }],
    },
  },
  {
    // Tests and the bench read rows and bodies of any shape.
    files: ['test/**/*.ts', 'bench/**/*.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off', '@typescript-eslint/no-non-null-assertion': 'off' },
  },
  {
    files: ['**/*.js', '**/*.mjs', '**/*.cjs'],
    languageOptions: {
      globals: { require: 'readonly', module: 'writable', process: 'readonly', console: 'readonly', __dirname: 'readonly' },
    },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
);
