/**
 * A reference setup-session client that follows the spec's client contract, the way a coding agent
 * should: the poll token lives in a private header file (mode 0600) and is read from it for each
 * call; keys go to a private env file; the chat webhook URL comes from a file; none of them is
 * ever put in a command argument or printed. Retry rules: 404 and 410 never retry; 429 waits
 * retry_after (60 s if absent); polling retries other failures up to 6 times 10 s apart, attach
 * 3 times (503 up to 6), any other step stops after two failed attempts.
 */
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'

export interface ClientOptions {
  baseUrl: string
  /** Private folder for the header and key files. */
  dir: string
  /** Multiplies every retry delay: tests shrink 10 s to milliseconds. */
  delayScale?: number
  /** Where progress lines go; never given a secret. */
  say?: (line: string) => void
}

/** A failure the client stops on, with the message to show the person. */
export class ClientStop extends Error {
  constructor(
    message: string,
    readonly status: number,
    readonly body: Record<string, unknown> = {},
  ) {
    super(message)
  }
}

interface Answer {
  status: number
  body: Record<string, unknown>
}

type RetryRule = { tries: number; unavailableTries: number }
const POLLING: RetryRule = { tries: 6, unavailableTries: 6 }
const ATTACH: RetryRule = { tries: 3, unavailableTries: 6 }
const OTHER: RetryRule = { tries: 2, unavailableTries: 2 }

export class AgentClient {
  readonly #options: Required<ClientOptions>
  pollId = ''

  constructor(options: ClientOptions) {
    this.#options = { delayScale: 1, say: (line) => process.stdout.write(`${line}\n`), ...options }
    mkdirSync(options.dir, { recursive: true, mode: 0o700 })
  }

  get headerFile(): string {
    return join(this.#options.dir, 'poll-token.header')
  }

  get keysFile(): string {
    return join(this.#options.dir, 'keys.env')
  }

  /** Registers a session; the token goes straight to the header file. Returns auth_url (not a secret). */
  async register(input: { projectName: string; agentName: string; gitRemote: string }): Promise<string> {
    const answer = await this.#request('POST', '/api/v1/agent/setup', { project_name: input.projectName, agent_name: input.agentName, git_remote: input.gitRemote }, OTHER, false)
    if (answer.status !== 200) throw new ClientStop(`registration failed with ${answer.status}: ${String(answer.body.message ?? '')}`, answer.status, answer.body)
    writeFileSync(this.headerFile, `X-Svc-Poll-Token: ${String(answer.body.poll_token)}\n`, { mode: 0o600 })
    chmodSync(this.headerFile, 0o600)
    this.pollId = String(answer.body.poll_id)
    return String(answer.body.auth_url)
  }

  /** Polls until approved (keys saved to the key file) or the session fails or expires. */
  async waitForApproval(maxPolls = 240): Promise<{ projectId: string; projectName: string }> {
    for (let i = 0; i < maxPolls; i++) {
      const answer = await this.#call('GET', '?wait=30', undefined, POLLING)
      if (answer.body.status === 'failed') throw new ClientStop(String(answer.body.message), 200, answer.body)
      if (answer.body.approved === true) {
        if (typeof answer.body.ingest_key === 'string') {
          const lines = ['ingest_key', 'api_key', 'sourcemap_key'].map((k) => `SVC_${k.toUpperCase()}=${String(answer.body[k])}`)
          writeFileSync(this.keysFile, `${lines.join('\n')}\n`, { mode: 0o600 })
        }
        return { projectId: String(answer.body.project_id), projectName: String(answer.body.project_name) }
      }
    }
    throw new ClientStop('the person did not approve in time', 0)
  }

  /** Reads a key from the private key file. */
  key(name: 'ingest_key' | 'api_key' | 'sourcemap_key'): string {
    const line = readFileSync(this.keysFile, 'utf8').split('\n').find((l) => l.startsWith(`SVC_${name.toUpperCase()}=`))
    if (!line) throw new ClientStop(`${name} was never delivered`, 0)
    return line.slice(line.indexOf('=') + 1)
  }

  /** Sends one test error with the delivered ingest key. */
  async sendTestError(): Promise<void> {
    const event = {
      timestamp: new Date().toISOString(),
      error: { type: 'Error', message: 'svc setup test error', stack: 'Error: svc setup test error\n    at setupCheck (http://localhost/setup-check.js:1:1)' },
      breadcrumbs: [],
      context: { url: 'http://localhost/setup-check', user_agent: 'svc-reference-agent' },
      sdk_version: '0.1.0',
      platform: 'javascript',
    }
    const response = await fetch(`${this.#options.baseUrl}/api/v1/events`, { method: 'POST', headers: { 'Content-Type': 'application/json', 'X-API-Key': this.key('ingest_key') }, body: JSON.stringify(event) })
    if (response.status !== 202) throw new ClientStop(`the test error was refused with ${response.status}`, response.status)
  }

  /** Holds on the state until has_events is true. */
  async waitForFirstEvent(maxPolls = 10): Promise<Record<string, unknown>> {
    for (let i = 0; i < maxPolls; i++) {
      const answer = await this.#call('GET', '/state?wait=30&until=event', undefined, POLLING)
      if (answer.body.has_events === true) return answer.body
    }
    throw new ClientStop('no event arrived: check the ingest key and the endpoint the app sends to', 0)
  }

  /** Reads the state facts once. */
  async state(): Promise<Record<string, unknown>> {
    return (await this.#call('GET', '/state', undefined, POLLING)).body
  }

  /** Reports a step; any answer but 204 is a failure to record. */
  async progress(step: string, status: string, note = ''): Promise<void> {
    const answer = await this.#call('POST', '/progress', { step, status, note }, OTHER)
    if (answer.status !== 204) throw new ClientStop(`progress for ${step} was not recorded (${answer.status}): ${String(answer.body.message ?? '')}`, answer.status, answer.body)
  }

  /** Attaches owner/repo; answers the body of any outcome (200, 400, 409) for the caller to act on. */
  async attach(repo: string): Promise<Answer> {
    return this.#call('POST', '/codehost', { repo }, ATTACH)
  }

  /** Connects chat with the webhook URL read from a private file. */
  async connectChat(webhookFile: string): Promise<{ ok: boolean; error?: string }> {
    const webhookUrl = readFileSync(webhookFile, 'utf8').trim()
    const answer = await this.#call('POST', '/chat', { webhook_url: webhookUrl }, OTHER)
    return answer.body as { ok: boolean; error?: string }
  }

  /** Completes: true on 200, false on 422 (go back to verification, files intact). */
  async complete(): Promise<boolean> {
    const answer = await this.#call('POST', '/complete', {}, OTHER)
    if (answer.status === 200) return true
    if (answer.status === 422) return false
    throw new ClientStop(`complete failed with ${answer.status}: ${String(answer.body.message ?? '')}`, answer.status, answer.body)
  }

  #call(method: string, path: string, body: unknown, rule: RetryRule): Promise<Answer> {
    if (!this.pollId) throw new ClientStop('register first', 0)
    return this.#request(method, `/api/v1/agent/poll/${this.pollId}${path}`, body, rule, true)
  }

  async #request(method: string, path: string, body: unknown, rule: RetryRule, withToken: boolean): Promise<Answer> {
    let failures = 0
    let unavailable = 0
    for (;;) {
      const headers: Record<string, string> = {}
      if (withToken) {
        // Read for every call from the private file, as `curl -H @file` would.
        const [name, value] = readFileSync(this.headerFile, 'utf8').trim().split(/:\s*/, 2) as [string, string]
        headers[name] = value
      }
      if (body !== undefined) headers['Content-Type'] = 'application/json'
      let answer: Answer
      try {
        const response = await fetch(`${this.#options.baseUrl}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) })
        const text = await response.text()
        answer = { status: response.status, body: text ? (JSON.parse(text) as Record<string, unknown>) : {} }
      } catch (error) {
        answer = { status: 0, body: { message: (error as Error).message } }
      }
      const { status } = answer
      if (status === 404 || status === 410) throw new ClientStop(String(answer.body.message ?? `session gone (${status})`), status, answer.body)
      if (status === 429) {
        const seconds = typeof answer.body.retry_after === 'number' ? answer.body.retry_after : 60
        this.#options.say(`rate limited; waiting ${seconds} s`)
        await this.#sleep(seconds * 1000)
        continue
      }
      const failed = status === 0 || status >= 500
      if (!failed) return answer
      if (status === 503 ? ++unavailable >= rule.unavailableTries : ++failures >= rule.tries) {
        throw new ClientStop(`${method} ${path.split('?')[0]} failed ${status === 503 ? unavailable : failures} times; last status ${status}: ${String(answer.body.message ?? '')}`, status, answer.body)
      }
      this.#options.say(`${method} ${path.split('?')[0]} answered ${status}; retrying in 10 s`)
      await this.#sleep(10_000)
    }
  }

  #sleep(ms: number): Promise<void> {
    return new Promise((resolve) => setTimeout(resolve, ms * this.#options.delayScale))
  }
}
