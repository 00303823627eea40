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
// The key is read from the environment only and never printed.
import { readdir, readFile, rm, stat } from 'node:fs/promises'
import { join, relative, sep } from 'node:path'
import { parseArgs } from 'node:util'

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
      'url-prefix': { type: 'string', default: '/' },
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
const key = process.env.SVC_SOURCEMAP_KEY?.trim()
if (!key) {
  console.log('svc-sourcemaps: SVC_SOURCEMAP_KEY is not set; skipping the source-map upload')
  process.exit(0)
}
const endpoint = (values.endpoint ?? process.env.SVC_ENDPOINT ?? 'http://localhost:8082').replace(/\/+$/, '')
const release = values.release ?? process.env.SVC_RELEASE ?? ''
const prefix = `/${values['url-prefix'].replace(/^\/+|\/+$/g, '')}/`.replace(/^\/\/$/, '/')

async function mapsUnder(root) {
  const found = []
  const walk = async (folder) => {
    for (const entry of await readdir(folder, { withFileTypes: true })) {
      const path = join(folder, entry.name)
      if (entry.isDirectory()) await walk(path)
      else if (entry.name.endsWith('.js.map') || entry.name.endsWith('.mjs.map') || entry.name.endsWith('.cjs.map') || entry.name.endsWith('.css.map')) found.push(path)
    }
  }
  await walk(root)
  return found.sort()
}

try {
  if (!(await stat(dir)).isDirectory()) fail(`${dir} is not a folder`)
} catch {
  fail(`${dir} does not exist: pass the build output folder (e.g. dist)`)
}

const maps = await mapsUnder(dir)
const scripts = maps.filter((path) => !path.endsWith('.css.map'))
let uploaded = 0
for (const mapPath of scripts) {
  const file = mapPath.slice(0, -'.map'.length)
  const urlPath = prefix + relative(dir, file).split(sep).join('/')
  const body = await readFile(mapPath, 'utf8')
  let debugId
  try {
    const map = JSON.parse(body)
    debugId = map.debugId ?? map.debug_id
  } catch {
    fail(`${relative(dir, mapPath)} is not valid JSON; nothing more was uploaded`)
  }
  const query = new URLSearchParams({ path: urlPath, release })
  const headers = { 'Content-Type': 'application/json', 'X-API-Key': key }
  if (typeof debugId === 'string') headers['X-Svc-Debug-Id'] = debugId
  let response
  try {
    response = await fetch(`${endpoint}/api/v1/sourcemaps?${query}`, { method: 'POST', headers, body })
  } catch (error) {
    fail(`could not reach ${endpoint} (${error.cause?.code ?? error.message}) uploading ${urlPath}; set SVC_ENDPOINT or --endpoint to your svc service`)
  }
  if (response.status !== 201) {
    const answer = await response.json().catch(() => ({}))
    fail(`upload of ${urlPath} failed with ${response.status}${answer.code ? ` ${answer.code}: ${answer.message}` : ''}`)
  }
  uploaded++
  console.log(`svc-sourcemaps: uploaded ${urlPath}${release ? ` (release ${release})` : ''}${typeof debugId === 'string' ? ` (debug id ${debugId})` : ''}`)
}

if (values['keep-maps']) {
  console.log(`svc-sourcemaps: ${uploaded} map(s) uploaded; --keep-maps given, so the maps stay in ${dir} (do not deploy them)`)
} else {
  for (const path of maps) await rm(path)
  console.log(`svc-sourcemaps: ${uploaded} map(s) uploaded; ${maps.length} map file(s) removed from ${dir}`)
}
