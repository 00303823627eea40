// Builds dist/: the browser entries as one ES module each for bundlers (unminified: the app's
// bundler minifies), the Node side (the Vite plugin and the map upload the svc-sourcemaps command
// shares with it, and the command's Next.js support), and the types of both.
import { execFileSync } from 'node:child_process'
import { readFileSync, rmSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { build } from 'esbuild'

const root = fileURLToPath(new URL('.', import.meta.url))
const { version } = JSON.parse(readFileSync(new URL('./package.json', import.meta.url), 'utf8'))
rmSync(new URL('./dist', import.meta.url), { recursive: true, force: true })
await build({
  absWorkingDir: root,
  // The entry points share one chunk, so @svc/sdk/react reports through the client init started
  // and the recorder finds it too. The recorder (rrweb within it) is only in recording.js, which
  // init({ recording }) imports on demand: the core does not grow by it.
  entryPoints: ['src/index.ts', 'src/react.ts', 'src/recording.ts'],
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
await build({
  absWorkingDir: root,
  // Shared chunk: the plugin and bin/svc-sourcemaps.mjs run one copy of the upload and stamping code.
  entryPoints: ['node/vite-plugin.ts', 'node/upload-maps.ts', 'node/next-build.ts'],
  outdir: 'dist',
  entryNames: '[name]',
  chunkNames: 'node-[name]-[hash]',
  splitting: true,
  external: ['vite'],
  bundle: true,
  format: 'esm',
  target: 'node18',
  platform: 'node',
  logLevel: 'warning',
})
const tsc = fileURLToPath(import.meta.resolve('typescript/bin/tsc'))
execFileSync(process.execPath, [tsc, '-p', `${root}tsconfig.json`], { stdio: 'inherit' })
execFileSync(process.execPath, [tsc, '-p', `${root}node/tsconfig.json`], { stdio: 'inherit' })
