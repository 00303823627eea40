// Lint: typescript-eslint's recommended rules plus the house caps from STYLE.md.
import js from '@eslint/js'
import tseslint from 'typescript-eslint'
import serviceFaces from './scripts/lint-service-faces.mjs'

export default tseslint.config(
  { ignores: ['node_modules/**', 'dist/**', '.svc-data/**', 'test/fixtures/**', 'sdk/dist/**', 'tmp/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      'max-lines': ['error', { max: 1000, skipBlankLines: true, skipComments: true }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-restricted-syntax': ['error', { selector: "MemberExpression[object.name='process'][property.name='env']", message: 'Read configuration through shared/config/ only.' }],
    },
  },
  {
    // Ingestion and the web side share only the kernel (shared/http/ and the rest of shared/); the
    // process in bin/front/ composes them. A relative import that climbs out of one into the other
    // fails lint (type-only imports too).
    files: ['services/ingress/**'],
    rules: { 'no-restricted-imports': ['error', { patterns: [{ regex: '^(\\.\\./)+(services/)?web/', message: 'services/ingress must not import services/web: put what both need in shared/, or wire it in bin/front/.' }] }] },
  },
  {
    files: ['services/web/**'],
    rules: { 'no-restricted-imports': ['error', { patterns: [{ regex: '^(\\.\\./)+(services/)?ingress/', message: 'services/web must not import services/ingress: put what both need in shared/, or wire it in bin/front/.' }] }] },
  },
  {
    // One owner per room: a service reaches another only through its index.ts, its read face
    // (read.ts or read/) or its commands (commands.ts or commands/); scripts/lint-service-faces.mjs.
    files: ['services/**/*.ts'],
    plugins: { house: serviceFaces },
    rules: { 'house/service-faces': 'error' },
  },
  {
    // The kernel imports no service.
    files: ['shared/**'],
    rules: { 'no-restricted-imports': ['error', { patterns: [{ regex: '^(\\.\\./)+services/', message: 'shared/ is the kernel: it must not import a service.' }] }] },
  },
  {
    // Plain Node scripts (not TypeScript): Node's globals.
    files: ['**/*.mjs', 'bin/*.js'],
    languageOptions: {
      globals: { process: 'readonly', console: 'readonly', setTimeout: 'readonly', clearTimeout: 'readonly', setInterval: 'readonly', Buffer: 'readonly', URL: 'readonly', URLSearchParams: 'readonly', fetch: 'readonly' },
    },
  },
  {
    // The SDK's CLI is not the service: it reads its own variables (SVC_SOURCEMAP_KEY, per the spec).
    files: ['shared/config/index.ts', 'test/**', 'bench/**', 'scripts/**', 'bin/**', 'sdk/bin/**'],
    rules: { 'no-restricted-syntax': 'off' },
  },
)
