#!/usr/bin/env node
// The README's test command. Uses TEST_DATABASE_URL / TEST_REDIS_URL when given; otherwise starts
// a throwaway PostgreSQL (initdb in a temp folder, as the postgres user when run as root, since
// PostgreSQL refuses root) and a throwaway Redis on free ports (scripts/throwaway-services.mjs),
// runs tap, and removes them. A missing binary or pgvector stops it at once with the line that
// installs it; nothing is skipped.
// The last line is "N passed, N failed".
import { execFileSync, spawn } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { INSTALL, ProvisionError, startPostgres, startRedis } from './throwaway-services.mjs'

const cleanups = []
let cleaned = false

async function cleanup() {
  if (cleaned) return
  cleaned = true
  for (const fn of cleanups.reverse()) {
    try {
      await fn()
    } catch (error) {
      console.error(`test: cleanup step failed: ${error.message}`)
    }
  }
}

function die(message) {
  console.error(`test: ${message}`)
  console.log('0 passed, 1 failed')
  return cleanup().then(() => process.exit(1))
}

/** Starts one throwaway server (scripts/throwaway-services.mjs); a failure stops the run. */
async function provision(start) {
  try {
    return await start((fn) => cleanups.push(fn))
  } catch (error) {
    return die(error instanceof ProvisionError ? error.message : (error.stack ?? String(error)))
  }
}

/** Programs tests run as a user would (browsers, and curl and jq for the README's walk-through). */
function checkTools() {
  const tools = [['/usr/bin/chromium'], ['/usr/bin/firefox-esr'], ['curl', '--version'], ['jq', '--version']]
  for (const [command, ...args] of tools) {
    try {
      execFileSync(command, args.length ? args : ['--version'], { stdio: 'ignore' })
    } catch (error) {
      if (error.code === 'ENOENT') return die(`${command} is missing: ${INSTALL}`)
    }
  }
}

async function main() {
  for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => cleanup().then(() => process.exit(130)))
  await checkTools()
  const env = { ...process.env }
  env.TEST_DATABASE_URL ||= await provision(startPostgres)
  env.TEST_REDIS_URL ||= await provision(startRedis)
  // The SDK's browser tests load what ships: build sdk/dist once, before test files run in parallel.
  try {
    execFileSync(process.execPath, ['sdk/build.mjs'], { stdio: ['ignore', 'ignore', 'inherit'] })
  } catch {
    return die('building the SDK (node sdk/build.mjs) failed; see the error above')
  }
  // Each test database is checked for the fix invariants before it is dropped (test/helpers/suite-invariants.ts).
  const invariantLog = join(mkdtempSync(join(tmpdir(), 'svc-invariants-')), 'log')
  writeFileSync(invariantLog, '')
  cleanups.push(() => rmSync(dirname(invariantLog), { recursive: true, force: true }))
  env.SVC_INVARIANT_LOG = invariantLog
  const args = process.argv.slice(2)
  const tap = spawn('npx', ['tap', '--reporter=tap', ...args], { env, stdio: ['ignore', 'pipe', 'inherit'] })
  let tail = ''
  tap.stdout.on('data', (chunk) => {
    process.stdout.write(chunk)
    tail = (tail + chunk).slice(-2000)
  })
  const code = await new Promise((resolve) => tap.once('exit', (c) => resolve(c ?? 1)))
  const invariants = suiteInvariants(readFileSync(invariantLog, 'utf8'))
  await cleanup()
  // tap's closing summary: "# { total: 12, pass: 11, fail: 1, skip: 0 }" (absent keys are zero).
  const summary = /#\s*\{([^}]*)\}\s*(?:#[^\n]*\s*)*$/.exec(tail)?.[1] ?? ''
  const count = (key) => Number(new RegExp(`\\b${key}:\\s*(\\d+)`).exec(summary)?.[1] ?? 0)
  const total = count('total')
  const passed = count('pass') + (invariants.checked > 0 && invariants.violations.length === 0 ? 1 : 0)
  const failed = Math.max(count('fail'), code === 0 ? 0 : total - passed || 1) + (invariants.violations.length > 0 ? 1 : 0)
  const skipped = count('skip') + count('todo')
  console.log(`${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}`)
  process.exit(code === 0 && total > 0 && failed === 0 && skipped === 0 ? 0 : 1)
}

/** The check over every test database with fix tables: no issue left in investigated or fixing, no ready pull request on a head without E0, E1 and E2. */
function suiteInvariants(log) {
  const lines = log.split('\n').filter(Boolean)
  const checked = lines.filter((line) => line.startsWith('checked ')).length
  const seeded = lines.filter((line) => line.startsWith('seeded ')).length
  const violations = lines.filter((line) => line.startsWith('violation '))
  if (checked + seeded + violations.length === 0) return { checked, violations }
  console.log(`# fix invariants after the suite: ${checked} test databases checked, ${seeded} seeded by hand (not checked), ${violations.length} violations`)
  for (const line of violations) console.log(`#   ${line}`)
  console.log(`${violations.length === 0 ? 'ok' : 'not ok'} - no issue left in investigated or fixing past its lease, no ready-for-review pull request on a head without executed E0, E1 and E2 (over every test database)`)
  return { checked, violations }
}

main().catch((error) => die(error.stack ?? String(error)))
