/**
 * npm run bench:sdk: the SDK's weight in an app, measured side by side in one run. Two minimal
 * apps, one calling our init and one calling @sentry/browser's init, are bundled by esbuild the way
 * a production build would (minified, tree-shaken, browser target) and gzipped at level 9.
 */
import { execFileSync } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { gzipSync } from 'node:zlib'
import { build } from 'esbuild'

const ROOT = fileURLToPath(new URL('..', import.meta.url))
const APPS = {
  '@svc/sdk': `import { init } from '@svc/sdk'\ninit({ apiKey: 'svc_pk_seede2e00001_DevOnlyIngestKeyNotASecret000001', endpoint: 'https://errors.example.com' })\n`,
  '@sentry/browser': `import { init } from '@sentry/browser'\ninit({ dsn: 'https://public@errors.example.com/1' })\n`,
}

async function gzippedSize(name: string, source: string, dir: string): Promise<{ minified: number; gzipped: number }> {
  const entry = join(dir, `${name.replace(/\W/g, '_')}.js`)
  writeFileSync(entry, source)
  const result = await build({ entryPoints: [entry], bundle: true, minify: true, format: 'esm', platform: 'browser', target: 'es2019', write: false, nodePaths: [join(ROOT, 'node_modules')], logLevel: 'error' })
  const code = result.outputFiles[0]!.contents
  return { minified: code.byteLength, gzipped: gzipSync(code, { level: 9 }).byteLength }
}

execFileSync(process.execPath, [join(ROOT, 'sdk/build.mjs')], { stdio: 'inherit' })
const dir = mkdtempSync(join(tmpdir(), 'svc-bench-sdk-'))
try {
  const ours = await gzippedSize('svc', APPS['@svc/sdk'], dir)
  const theirs = await gzippedSize('sentry', APPS['@sentry/browser'], dir)
  const kb = (n: number): string => `${(n / 1024).toFixed(1)} KB`
  console.log('a minimal app that calls init, bundled by esbuild (minified, browser, es2019), gzip -9')
  console.log('')
  console.log('| app | minified | gzipped | target |')
  console.log('|---|---|---|---|')
  console.log(`| @svc/sdk init | ${kb(ours.minified)} | ${kb(ours.gzipped)} | ≤ 6 KB gzipped |`)
  console.log(`| @sentry/browser init | ${kb(theirs.minified)} | ${kb(theirs.gzipped)} | — |`)
  console.log(`| ours / theirs (gzipped) | | ${(ours.gzipped / theirs.gzipped).toFixed(3)} | ≤ 0.333 |`)
} finally {
  rmSync(dir, { recursive: true, force: true })
}
