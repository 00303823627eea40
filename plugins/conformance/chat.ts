/**
 * The conformance suite for chat plugins: any plugin of kind chat, ours or a stranger's, runs it
 * against a receiver its test provides (see plugins/README.md). It checks delivery, that failures
 * answer ok false with an error that never contains the webhook URL or its path (the path is
 * the secret), that private and local addresses are refused unless allowed, that redirects are
 * not followed, and that nothing of the URL reaches the log.
 */
import type { Test } from 'tap'
import { checkPluginModule, instantiatePlugin } from '../../shared/plugins/loader.js'
import type { ChatPlugin, ChatResult, PluginModule } from '../../shared/plugins/types.js'
import { assertNoSecrets, capturingLogger, webhookSecrets } from './leaks.js'

/** A webhook receiver on 127.0.0.1 speaking the plugin's chat tool, with controls. */
export interface ChatHarness {
  /** Settings for the plugin; allowPrivate true must let it post to this receiver (http, 127.0.0.1). */
  settings(options: { allowPrivate: boolean }): Record<string, unknown>
  /** A new webhook URL that accepts messages. */
  acceptingWebhook(): string
  /** Webhook URLs the tool refuses as revoked or unknown (for Slack: 403 invalid_token, 404 no_service). */
  rejectingWebhooks(): string[]
  /** A webhook URL answering with a redirect to target. */
  redirectingWebhook(target: string): string
  /** Texts of the messages that reached url. */
  textsPostedTo(url: string): string[]
  /** An http URL on 127.0.0.1 where nothing listens. */
  unreachableWebhook(): Promise<string>
}

/** Runs the chat conformance suite against module as subtests of t. */
export async function chatConformance(t: Test, module: unknown, harness: ChatHarness): Promise<void> {
  const plugin = checkPluginModule('chat', (module as PluginModule).manifest?.name ?? 'unknown', module, false)
  const { log, lines } = capturingLogger()
  const sent: string[] = []
  const shown: string[] = []
  const create = (allowPrivate: boolean): Promise<ChatPlugin> => instantiatePlugin(plugin, 'chat', harness.settings({ allowPrivate }), { log })
  const send = async (chat: ChatPlugin, url: string, text = 'svc conformance'): Promise<ChatResult> => {
    sent.push(url)
    const result = await chat.send(url, { text })
    if (!result.ok) shown.push(result.error)
    return result
  }
  const open = await create(true)
  const strict = await create(false)

  await t.test('delivers a message to a webhook that accepts it', async (t) => {
    const url = harness.acceptingWebhook()
    t.same(await send(open, url, 'first event arrived'), { ok: true })
    t.same(harness.textsPostedTo(url), ['first event arrived'], 'the receiver got the text once')
  })

  await t.test('a rejected webhook answers ok false with an error that never contains the URL or its path', async (t) => {
    for (const url of harness.rejectingWebhooks()) {
      const result = await send(open, url)
      t.equal(result.ok, false)
      if (result.ok) continue
      t.ok(result.error.length > 0, 'error says what went wrong')
      assertNoSecrets(t, result.error, webhookSecrets(url), 'the error')
    }
  })

  await t.test('refuses private, loopback and other non-public addresses unless allowed', async (t) => {
    const url = new URL(harness.acceptingWebhook())
    const path = url.pathname
    const forms = [
      url.href,
      `https://127.0.0.1:${url.port}${path}`,
      `https://localhost:${url.port}${path}`,
      `https://0x7f.1:${url.port}${path}`,
      `https://127.1:${url.port}${path}`,
      `https://2130706433:${url.port}${path}`,
      `https://[::1]:${url.port}${path}`,
      `https://[::ffff:127.0.0.1]:${url.port}${path}`,
      `https://10.0.0.1${path}`,
      `https://169.254.169.254${path}`,
      `https://[fe80::1]${path}`,
      `https://100.64.0.1${path}`,
      `https://0.0.0.0:${url.port}${path}`,
    ]
    for (const form of forms) {
      const result = await send(strict, form)
      t.equal(result.ok, false, `refused: ${form.replace(path, '/…')}`)
      if (!result.ok) t.match(result.error, /private|local|loopback|public|internal|reserved|https/i, 'the error says why')
    }
    t.same(harness.textsPostedTo(url.href), [], 'nothing reached the receiver')
    t.same(await send(open, url.href), { ok: true }, 'the same address is allowed when private addresses are allowed')
  })

  await t.test('does not follow a redirect, even to an address that is allowed', async (t) => {
    const target = harness.acceptingWebhook()
    const redirecting = harness.redirectingWebhook(target)
    const result = await send(open, redirecting)
    t.equal(result.ok, false)
    t.same(harness.textsPostedTo(target), [], 'the redirect target received nothing')
    if (!result.ok) assertNoSecrets(t, result.error, [...webhookSecrets(redirecting), ...webhookSecrets(target)], 'the error')
  })

  await t.test('an unreachable webhook answers ok false', async (t) => {
    const url = await harness.unreachableWebhook()
    const result = await send(open, url)
    t.equal(result.ok, false)
    if (!result.ok) assertNoSecrets(t, result.error, webhookSecrets(url), 'the error')
  })

  await t.test('a malformed URL answers ok false instead of throwing', async (t) => {
    for (const bad of ['', 'not a url', 'ftp://example.com/hook/x', 'https://user:pass@example.com/hook/123456secret', 'https://[::1']) {
      const result = await send(strict, bad)
      t.equal(result.ok, false, `refused: ${JSON.stringify(bad.replace(/\/hook\/.*$/, '/…'))}`)
      if (!result.ok) assertNoSecrets(t, result.error, webhookSecrets(bad).filter((s) => s.length >= 6), 'the error')
    }
  })

  await t.test('no error and no log line contains any webhook URL or path it was given', async (t) => {
    t.ok(shown.length >= 5 && lines.length > 0, 'errors and log lines were collected from the subtests above')
    const everything = [...shown, ...lines].join('\n')
    const secrets = sent.flatMap((url) => webhookSecrets(url)).filter((s) => s.length >= 6)
    assertNoSecrets(t, everything, secrets, `${shown.length} errors and ${lines.length} log lines`)
  })
}
