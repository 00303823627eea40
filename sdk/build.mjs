// Builds dist/: one ES module for bundlers (unminified: the app's bundler minifies) and its types.
import { execFileSync } from 'node:child_process'
import { rmSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { build } from 'esbuild'

const root = fileURLToPath(new URL('.', import.meta.url))
const { version } = JSON.parse(await import('node:fs').then((fs) => fs.readFileSync(new URL('./package.json', import.meta.url), 'utf8')))
rmSync(new URL('./dist', import.meta.url), { recursive: true, force: true })
await build({
  absWorkingDir: root,
  // Both entry points share one chunk, so @svc/sdk/react reports through the client init started.
  entryPoints: ['src/index.ts', 'src/react.ts'],
  outdir: 'dist',
  splitting: true,
  external: ['react'],
  bundle: true,
  format: 'esm',
  target: 'es2019',
  platform: 'browser',
  define: { __SDK_VERSION__: JSON.stringify(version) },
  logLevel: 'warning',
})
execFileSync(process.execPath, [fileURLToPath(import.meta.resolve('typescript/bin/tsc')), '-p', `${root}tsconfig.json`], { stdio: 'inherit' })
