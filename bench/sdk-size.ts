/**
 * npm run bench:sdk: the SDK's weight in an app, measured side by side in one run. Minimal apps
 * calling our init and @sentry/browser's init, with and without session recording, are bundled by
 * esbuild the way a production build would (minified, tree-shaken, browser target, code splitting
 * on, as Vite and webpack split a dynamic import) and each output file is gzipped at level 9.
 * What the entry loads at once is the core; what only a dynamic import reaches is the lazy part.
 */
import { execFileSync } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'
import { gzipSync } from 'node:zlib'
import { build, type Metafile } from 'esbuild'

const ROOT = fileURLToPath(new URL('..', import.meta.url))
const KEY = 'svc_pk_seede2e00001_DevOnlyIngestKeyNotASecret000001'
const DSN = 'https://public@errors.example.com/1'
const APPS = {
  svc: `import { init } from '@svc/sdk'\ninit({ apiKey: '${KEY}', endpoint: 'https://errors.example.com' })\n`,
  svcRecording: `import { init } from '@svc/sdk'\ninit({ apiKey: '${KEY}', endpoint: 'https://errors.example.com', recording: { mode: 'all' } })\n`,
  sentry: `import { init } from '@sentry/browser'\ninit({ dsn: '${DSN}' })\n`,
  sentryReplay: `import { init, replayIntegration } from '@sentry/browser'\ninit({ dsn: '${DSN}', integrations: [replayIntegration()] })\n`,
}

interface Size {
  minified: number
  gzipped: number
}

interface AppSize {
  /** The entry and what it imports statically: loaded with the page. */
  eager: Size
  /** What only a dynamic import reaches: loaded when the app asks for it. */
  lazy: Size
}

/** Bundles one app and sums its output files, split into what loads at once and what loads later. */
async function appSize(name: string, source: string, dir: string): Promise<AppSize> {
  const entry = join(dir, `${name}.js`)
  writeFileSync(entry, source)
  const outdir = join(dir, `${name}-out`)
  const result = await build({
    entryPoints: [entry],
    bundle: true,
    minify: true,
    splitting: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2019',
    outdir,
    absWorkingDir: ROOT,
    write: false,
    metafile: true,
    nodePaths: [join(ROOT, 'node_modules')],
    logLevel: 'error',
  })
  const files = new Map(result.outputFiles.map((file) => [relative(ROOT, file.path), file.contents]))
  const outputs = result.metafile.outputs
  const entryOut = Object.keys(outputs).find((path) => outputs[path]!.entryPoint !== undefined)!
  const eager = reach(outputs, [entryOut], false)
  const all = reach(outputs, [entryOut], true)
  const sum = (paths: Iterable<string>): Size => {
    const size = { minified: 0, gzipped: 0 }
    for (const path of paths) {
      const code = files.get(path)!
      size.minified += code.byteLength
      size.gzipped += gzipSync(code, { level: 9 }).byteLength
    }
    return size
  }
  return { eager: sum(eager), lazy: sum([...all].filter((path) => !eager.has(path))) }
}

/** The output files reached from the given ones by static imports, and by dynamic ones too if asked. */
function reach(outputs: Metafile['outputs'], from: string[], dynamic: boolean): Set<string> {
  const seen = new Set<string>()
  const todo = [...from]
  while (todo.length) {
    const path = todo.pop()!
    if (seen.has(path)) continue
    seen.add(path)
    for (const imported of outputs[path]!.imports) {
      if (imported.external || !(imported.path in outputs)) continue
      if (imported.kind === 'import-statement' || (dynamic && imported.kind === 'dynamic-import')) todo.push(imported.path)
    }
  }
  return seen
}

execFileSync(process.execPath, [join(ROOT, 'sdk/build.mjs')], { stdio: 'inherit' })
const dir = mkdtempSync(join(tmpdir(), 'svc-bench-sdk-'))
try {
  const ours = await appSize('svc', APPS.svc, dir)
  const oursRecording = await appSize('svc_recording', APPS.svcRecording, dir)
  const theirs = await appSize('sentry', APPS.sentry, dir)
  const theirsReplay = await appSize('sentry_replay', APPS.sentryReplay, dir)
  const replay: Size = {
    minified: theirsReplay.eager.minified + theirsReplay.lazy.minified - theirs.eager.minified,
    gzipped: theirsReplay.eager.gzipped + theirsReplay.lazy.gzipped - theirs.eager.gzipped,
  }
  const kb = (n: number): string => `${(n / 1024).toFixed(1)} KB`
  const row = (app: string, size: Size, target: string): void => console.log(`| ${app} | ${kb(size.minified)} | ${kb(size.gzipped)} | ${target} |`)
  console.log('minimal apps bundled by esbuild (minified, browser, es2019, code splitting), each output file gzip -9')
  console.log('')
  console.log('| app | minified | gzipped | target |')
  console.log('|---|---|---|---|')
  row('@svc/sdk init (core)', ours.eager, '≤ 6 KB gzipped')
  row('@svc/sdk init({ recording }): loaded with the page', oursRecording.eager, 'the core (the recorder comes later)')
  row('@svc/sdk recorder (lazy chunk, rrweb inside)', oursRecording.lazy, '—')
  row('@sentry/browser init', theirs.eager, '—')
  row('@sentry/browser replayIntegration (added to init)', replay, '—')
  row('@sentry/browser init + replayIntegration', { minified: theirsReplay.eager.minified + theirsReplay.lazy.minified, gzipped: theirsReplay.eager.gzipped + theirsReplay.lazy.gzipped }, '—')
  console.log(`| core: ours / theirs (gzipped) | | ${(ours.eager.gzipped / theirs.eager.gzipped).toFixed(3)} | ≤ 0.333 |`)
  console.log(`| recorder: ours / their replay (gzipped) | | ${(oursRecording.lazy.gzipped / replay.gzipped).toFixed(3)} | — |`)
} finally {
  rmSync(dir, { recursive: true, force: true })
}
