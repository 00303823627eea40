#!/usr/bin/env node
// svc-sourcemaps <build-dir> [--format es] [--keep-maps] [--release R] [--endpoint URL] [--url-prefix /]
//
// Uploads the build's JavaScript source maps to svc with the source-map key, then removes every
// JavaScript and CSS map from the build so none is deployed. The rules (the spec's):
//   1. SVC_SOURCEMAP_KEY unset: print a skip line and exit 0.
//   2. after every upload succeeded, remove the remaining .js.map and .css.map files, unless
//      --keep-maps (not for deployment).
//   3. any failed upload exits non-zero, so the build stops.
//   4. --format es is given for ESM output (accepted for every format; maps upload the same way).
//   5. a Next.js build folder (.next/static, beside .next/BUILD_ID; `next build && svc-sourcemaps
//      .next/static`) is served under /_next/static/ (after basePath or assetPrefix), its maps are
//      filed under SVC_RELEASE else the build id, and its chunks are stamped with debug ids first
//      (dist/next-build.js), so events find their maps whatever release the app passes to init.
// The key is read from the environment only and never printed. The upload itself lives in
// dist/upload-maps.js, shared with the Vite plugin, so both tools behave the same.
import { stat } from 'node:fs/promises'
import { parseArgs } from 'node:util'
import { dropMapComments, nextBuildOf, stampNextChunks } from '../dist/next-build.js'
import { SKIP_LINE, UploadFailed, uploadBuildMaps, uploadSettings } from '../dist/upload-maps.js'

const USAGE = 'usage: svc-sourcemaps <build-dir> [--format es] [--keep-maps] [--release R] [--endpoint URL] [--url-prefix /]'

function fail(message) {
  console.error(`svc-sourcemaps: ${message}`)
  process.exit(1)
}

let parsed
try {
  parsed = parseArgs({
    allowPositionals: true,
    options: {
      format: { type: 'string' },
      'keep-maps': { type: 'boolean', default: false },
      release: { type: 'string' },
      endpoint: { type: 'string' },
      'url-prefix': { type: 'string' },
    },
  })
} catch (error) {
  console.error(`svc-sourcemaps: ${error.message}\n${USAGE}`)
  process.exit(2)
}
const { values, positionals } = parsed
if (positionals.length !== 1) {
  console.error(USAGE)
  process.exit(2)
}
if (values.format !== undefined && !['es', 'esm', 'cjs', 'iife', 'umd', 'system'].includes(values.format)) {
  console.error(`svc-sourcemaps: --format must be es, cjs, iife, umd or system\n${USAGE}`)
  process.exit(2)
}

const dir = positionals[0]
const next = await nextBuildOf(dir)
const settings = uploadSettings({ endpoint: values.endpoint, release: values.release, fallbackRelease: next?.buildId })
if (!settings.key) {
  console.log(`svc-sourcemaps: ${SKIP_LINE}`)
  process.exit(0)
}

try {
  if (!(await stat(dir)).isDirectory()) fail(`${dir} is not a folder`)
} catch {
  fail(`${dir} does not exist: pass the build output folder (e.g. dist)`)
}

const log = (line) => console.log(`svc-sourcemaps: ${line}`)
try {
  const chunks = next ? await stampNextChunks(dir, log) : undefined
  const urlPrefix = values['url-prefix'] ?? next?.urlPrefix ?? '/'
  const keepMaps = values['keep-maps']
  await uploadBuildMaps({ ...settings, dir, urlPrefix, keepMaps, servedFiles: chunks?.servedFiles, log })
  if (chunks && !keepMaps) await dropMapComments(chunks.chunks)
} catch (error) {
  if (error instanceof UploadFailed) fail(error.message)
  throw error
}
