// Lint: typescript-eslint's recommended rules plus the house caps from STYLE.md.
import js from '@eslint/js'
import tseslint from 'typescript-eslint'

export default tseslint.config(
  { ignores: ['node_modules/**', 'dist/**', '.svc-data/**', 'test/fixtures/**', 'sdk/dist/**', 'tmp/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      'max-lines': ['error', { max: 1000, skipBlankLines: true, skipComments: true }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-restricted-syntax': ['error', { selector: "MemberExpression[object.name='process'][property.name='env']", message: 'Read configuration through shared/config.ts only.' }],
    },
  },
  {
    // Plain Node scripts (not TypeScript): Node's globals.
    files: ['**/*.mjs', 'bin/*.js'],
    languageOptions: {
      globals: { process: 'readonly', console: 'readonly', setTimeout: 'readonly', clearTimeout: 'readonly', Buffer: 'readonly', URL: 'readonly', URLSearchParams: 'readonly', fetch: 'readonly' },
    },
  },
  {
    // The SDK's CLI is not the service: it reads its own variables (SVC_SOURCEMAP_KEY, per the spec).
    files: ['shared/config.ts', 'test/**', 'bench/**', 'scripts/**', 'bin/**', 'sdk/bin/**'],
    rules: { 'no-restricted-syntax': 'off' },
  },
)
