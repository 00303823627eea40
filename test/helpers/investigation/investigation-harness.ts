/**
 * A whole investigation setting for tests: a real stack (ingress, grouper, investigator) on the test
 * PostgreSQL and Redis, the fixture app's repository served by the loopback GitHub over git's smart
 * HTTP (tagged with the fixture's release), the real model plugins talking to the scripted model
 * server, the fixture's source maps uploaded, and helpers to send a bug's events and wait for its
 * issue's state. Every test ends with the database invariants checked.
 */
import { randomBytes } from 'node:crypto'
import { readFile, rm } from 'node:fs/promises'
import { dirname } from 'node:path'
import { fileURLToPath } from 'node:url'
import { createLogger } from '../../../shared/log.js'
import { createOrm, type Orm } from '../../../shared/db/orm.js'
import { loadPlugin } from '../../../shared/plugins/loader.js'
import type { CodehostPlugin, ModelPlugin } from '../../../shared/plugins/types.js'
import { INVESTIGATOR_ENTITIES } from '../../../services/investigator/store/entities.js'
import { checkInvestigations, type Violation } from '../../../services/investigator/store/invariants.js'
import { buildInvestigateFixture, type FixtureBug, type InvestigateFixture } from './investigate-fixture.js'
import { investigatorBrain } from './investigator-brain.js'
import { makeRepository } from '../loopback/git-repository.js'
import { startGithubLoopback, type GithubLoopback } from '../loopback/github-loopback.js'
import { startModelServer, type ModelServer, type Script } from '../loopback/model-server.js'
import { postEvent, startTestStack, waitFor, type TestStack } from '../stack.js'

export const REPO = 'shop-co/shop'
export const MODEL_KEY = `sk-test-${randomBytes(12).toString('hex')}`

export interface HarnessOptions {
  provider?: 'anthropic' | 'openai'
  script?: Script
  env?: Record<string, string>
  /** false: no model configured (MODEL_API_KEY unset). */
  model?: boolean
  /** false: the project has no repository attached. */
  attach?: boolean
  /** false: the token the workers hold is not one the code host accepts. */
  grantToken?: boolean
  /** false: no source maps uploaded. */
  maps?: boolean
  /** Model turn timeout, ms. */
  modelTimeoutMs?: number
  /** A model plugin to use instead of one talking to the scripted server (the eval's real model). */
  modelPlugin?: ModelPlugin
  /** true: fixes run in the real local sandbox with the fixture's template (SVC_SANDBOX_JAVASCRIPT_TEMPLATE set). */
  sandbox?: boolean
}

/** The template the fix tests use: the fixture's suite, with the repository's node_modules mounted read-only. */
export const FIXTURE_TEMPLATE = fileURLToPath(new URL('../../fixtures/sandbox-template', import.meta.url))

export interface Harness {
  stack: TestStack
  fixture: InvestigateFixture
  github: GithubLoopback
  models: ModelServer
  orm: Orm
  token: string
  commit: string
  /** The bare repository the loopback serves as REPO. */
  bareDir: string
  /** Uploads the fixture's source maps for release (the harness uploads them for the fixture's own). */
  uploadMaps(release: string): Promise<void>
  /** Sends one event of bug per user (distinct users and sessions), answers the issue id. */
  send(bug: FixtureBug['key'], users: number, overrides?: { message?: string; release?: string; userAgent?: string; timestamp?: string }): Promise<string>
  /** Waits until the issue's status is one of states; answers its row. */
  waitForStatus(issueId: string, states: readonly string[], timeoutMs?: number): Promise<{ status: string; reason_code: string; reason_message: string }>
  /**
   * Waits until the issue settled (insight, needs_human, pr_draft or pr_created: an investigated
   * outcome goes on to its fix); answers the issue's row and its latest investigation's state.
   */
  settle(issueId: string, timeoutMs?: number): Promise<Settled>
  /**
   * Waits until admission noted why the issue is not investigated, and until settled accepts the
   * note: a note written for the first of several events is replaced once the rest are counted, so
   * by default a too_few_users note does not count for an issue sent by two users or more.
   */
  notInvestigated(issueId: string, timeoutMs?: number, settled?: (note: { code: string }) => boolean): Promise<{ code: string; message: string }>
  violations(): Promise<Violation[]>
}

export interface Settled {
  status: string
  reason_code: string
  reason_message: string
  /** The latest investigation's state (investigated, insight, needs_human). */
  outcome: string
}

/** Where an issue's status rests: an investigation's outcome other than investigated, or its fix's end. */
export const SETTLED = ['insight', 'needs_human', 'pr_draft', 'pr_created']

/** What startHarness registers its teardowns with: a tap Test, or anything that runs them (bench/). */
export interface HarnessTeardown {
  teardown(fn: () => unknown): void
}

/** Starts everything; torn down with t. */
export async function startHarness(t: HarnessTeardown, options: HarnessOptions = {}): Promise<Harness> {
  const fixture = await buildInvestigateFixture()
  t.teardown(() => fixture.cleanup())
  const github = await startGithubLoopback()
  t.teardown(() => github.close())
  const { bareDir, commit } = await makeRepository(fixture.repoDir, { tag: fixture.release })
  t.teardown(() => rm(dirname(bareDir), { recursive: true, force: true }))
  github.serveGit(REPO, bareDir)
  const token = `github_pat_${randomBytes(16).toString('hex')}`
  if (options.grantToken !== false) github.acceptToken(token, [REPO])
  const models = await startModelServer(options.script ?? investigatorBrain())
  t.teardown(() => models.close())
  const log = createLogger('silent')
  const codehost = await loadPlugin('codehost', 'codehost-github', { token, apiUrl: github.apiUrl, webUrl: github.webUrl }, { log })
  const model = options.model === false ? undefined : (options.modelPlugin ?? (await modelPlugin(options, models)))
  const sandboxes = options.sandbox ? await loadPlugin('sandbox', 'sandbox-local', {}, { log }) : undefined
  const env = { ...(options.sandbox ? { SVC_SANDBOX_JAVASCRIPT_TEMPLATE: FIXTURE_TEMPLATE } : {}), ...options.env }
  const stack = await startTestStack(t, { worker: true, env, plugins: { codehost: codehost as CodehostPlugin, chat: undefined }, model, sandboxes })
  const orm = await createOrm(stack.db, INVESTIGATOR_ENTITIES)
  t.teardown(() => orm.close())
  if (options.attach !== false) await stack.db.query('UPDATE projects SET codehost_repo = $1 WHERE id = $2', [REPO, stack.projectId])
  const uploadMaps = async (release: string): Promise<void> => {
    const key = await stack.mint('sourcemap')
    for (const map of fixture.maps) {
      const body = await readFile(map.file)
      const answer = await fetch(`${stack.baseUrl}/api/v1/sourcemaps?release=${encodeURIComponent(release)}&path=${map.urlPath}`, { method: 'POST', headers: { 'Content-Type': 'application/json', 'X-API-Key': key }, body })
      if (answer.status !== 201) throw new Error(`map upload answered ${answer.status}`)
    }
  }
  if (options.maps !== false) await uploadMaps(fixture.release)
  /** Users sent per issue: admission's too_few_users note of the first of two is not its last word. */
  const usersSent = new Map<string, number>()
  const harness: Harness = {
    stack,
    fixture,
    github,
    models,
    orm,
    token,
    commit,
    bareDir,
    uploadMaps,
    async send(bug, users, overrides = {}) {
      let eventId = ''
      for (let i = 0; i < users; i++) {
        const answer = await postEvent(stack.baseUrl, fixture.bugs[bug].event(overrides), { 'Content-Type': 'application/json', 'X-API-Key': stack.ingestKey })
        if (answer.status !== 202) throw new Error(`event answered ${answer.status}`)
        eventId = String(answer.body.id)
      }
      const issueId = await waitFor(async () => (await stack.db.query<{ issue_id: string }>('SELECT issue_id FROM events WHERE id = $1', [eventId])).rows[0]?.issue_id, 20_000, 50)
      usersSent.set(issueId, (usersSent.get(issueId) ?? 0) + users)
      return issueId
    },
    async waitForStatus(issueId, states, timeoutMs = 30_000) {
      return waitFor(async () => {
        const { rows } = await stack.db.query<{ status: string; reason_code: string; reason_message: string }>('SELECT status, reason_code, reason_message FROM issues WHERE id = $1', [issueId])
        return rows[0] && states.includes(rows[0].status) ? rows[0] : undefined
      }, timeoutMs, 100)
    },
    async settle(issueId, timeoutMs = 30_000) {
      return waitFor(async () => {
        const { rows } = await stack.db.query<Settled>(
          `SELECT i.status, i.reason_code, i.reason_message, v.state AS outcome FROM issues i
             JOIN investigations v ON v.issue_id = i.id WHERE i.id = $1 ORDER BY v.episode DESC LIMIT 1`,
          [issueId],
        )
        return rows[0] && SETTLED.includes(rows[0].status) ? rows[0] : undefined
      }, timeoutMs, 100)
    },
    async notInvestigated(issueId, timeoutMs = 30_000, settled = (note) => (usersSent.get(issueId) ?? 0) < 2 || note.code !== 'too_few_users') {
      return waitFor(async () => {
        const note = (await stack.db.query<{ code: string; message: string }>('SELECT code, message FROM issue_admission_notes WHERE issue_id = $1', [issueId])).rows[0]
        return note && settled(note) ? note : undefined
      }, timeoutMs, 100)
    },
    violations: () => checkInvestigations(orm, { graceMs: 2 * stack.config.investigations.leaseMs, maxAttempts: stack.config.stream.maxAttempts }),
  }
  return harness
}

async function modelPlugin(options: HarnessOptions, models: ModelServer): Promise<ModelPlugin> {
  const log = createLogger('silent')
  const timeoutMs = options.modelTimeoutMs ?? 20_000
  if (options.provider === 'openai') return loadPlugin('model', 'model-openai', { apiKey: MODEL_KEY, baseUrl: models.openaiBaseUrl, model: 'gpt-test', timeoutMs }, { log })
  return loadPlugin('model', 'model-anthropic', { apiKey: MODEL_KEY, baseUrl: models.anthropicBaseUrl, model: 'claude-test', timeoutMs }, { log })
}

/** What a real `svc worker` process needs to investigate and fix against the harness's stack, model server and code host. */
export function workerEnv(h: Harness): Record<string, string> {
  return {
    DATABASE_URL: h.stack.databaseUrl,
    REDIS_URL: h.stack.redisUrl,
    REDIS_KEY_PREFIX: h.stack.prefix,
    SVC_SERVICES: 'investigator',
    MODEL_API_KEY: MODEL_KEY,
    SVC_MODEL_PLUGIN: 'model-anthropic',
    SVC_MODEL_BASE_URL: h.models.anthropicBaseUrl,
    CODEHOST_TOKEN: h.token,
    CODEHOST_API_URL: h.github.apiUrl,
    CODEHOST_WEB_URL: h.github.webUrl,
  }
}
