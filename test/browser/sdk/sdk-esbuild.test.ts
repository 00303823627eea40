/**
 * The packed @svc/sdk bundled by esbuild into an app, as a user's build would: no warning. The
 * package's sideEffects must agree with its files, or esbuild says it is "Ignoring this import …
 * marked as having no side effects" of the chunk dist/index.js imports for its evaluation. esbuild
 * keeps that warning quiet for a file whose path is inside node_modules, so the app here has the
 * package as a monorepo has it, a workspace or file: dependency: node_modules/@svc/sdk links to
 * the package's folder (the tarball, unpacked), whose real path is not.
 */
import { execFile } from 'node:child_process'
import { mkdirSync, mkdtempSync, realpathSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { build, type BuildOptions } from 'esbuild'
import t from 'tap'
import { installFixtureApp, packSdk } from '../../helpers/browser/browser.js'

const TMP = fileURLToPath(new URL('../../../tmp/', import.meta.url))

/** The packed package unpacked under the repository's tmp/ (so it finds react in the root node_modules, as an app's package would in its own). */
async function unpackedSdk(): Promise<string> {
  const tarball = await packSdk(t)
  mkdirSync(TMP, { recursive: true })
  const dir = mkdtempSync(join(TMP, 'svc-sdk-folder-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  await promisify(execFile)('tar', ['-xzf', tarball, '-C', dir])
  return join(dir, 'package')
}

const folder = await unpackedSdk()

/** The options of an app's own browser build; splitting as Vite-free apps often turn it on. */
function options(app: string, splitting: boolean): BuildOptions {
  return {
    absWorkingDir: app,
    entryPoints: ['src/main.jsx', 'src/minimal.js'],
    outdir: join(app, splitting ? 'split' : 'whole'),
    bundle: true,
    splitting,
    format: 'esm',
    platform: 'browser',
    jsx: 'automatic',
    minify: true,
    write: false,
    logLevel: 'silent',
  }
}

t.test('an app importing every browser entry of the packed SDK, as a linked package, bundles with esbuild without a warning, split or not', async (t) => {
  // npm install <folder> links it, as workspaces do.
  const app = await installFixtureApp(t, 'esbuild-app', folder)
  t.equal(realpathSync(join(app, 'node_modules/@svc/sdk')), realpathSync(folder), 'the app has the package linked from its folder')
  for (const splitting of [false, true]) {
    const result = await build(options(app, splitting))
    const files = result.outputFiles ?? []
    t.same(result.errors, [], `no error (splitting ${splitting})`)
    t.same(result.warnings.map((warning) => `${warning.text} (${warning.location?.file ?? 'no file'})`), [], `no warning (splitting ${splitting})`)
    const text = files.map((file) => file.text).join('\n')
    t.ok(text.includes('/api/v1/events') && text.includes('/api/v1/recordings'), `the SDK and its recorder are in the bundle (splitting ${splitting})`)
  }
})
