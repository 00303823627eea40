/**
 * Alert deliveries to a loopback chat (docs/alerts.md): several firings folded into one message, a
 * chat outage waited out with backoff and delivered once, a webhook the chat refuses marking the
 * project's chat broken, and event text kept inert in the message.
 */
import t from 'tap'
import { startAlertStack } from '../../helpers/alerts.js'
import { waitFor } from '../../helpers/stack.js'

t.setTimeout(120_000)

t.test('several new issues at once are folded into one message that lists each with its link', async (t) => {
  const a = await startAlertStack(t, { ALERT_GATHER_SECONDS: '3' })
  const names = ['renderCart', 'payInvoice', 'openMenu', 'saveDraft']
  const issues = await Promise.all((await Promise.all(names.map((name) => a.send(name)))).map((id) => a.issueOf(id)))
  await a.settled()
  t.equal(a.posts().length, 1, 'one message')
  const [message] = a.posts()
  t.match(message, /^4 alerts for e2e:\n/)
  for (const [i, name] of names.entries()) t.match(message, `• \`Error: ${name} failed\`: new issue. ${a.stack.config.baseUrl.replace(/\/+$/, '')}/projects/${a.stack.projectId}/issues/${issues[i]}`, `it lists ${name}`)
  const { rows } = await a.stack.db.query<{ deliveries: number; firings: number }>('SELECT count(DISTINCT delivery_id)::int AS deliveries, count(*)::int AS firings FROM alert_firings')
  t.same(rows[0], { deliveries: 1, firings: 4 }, 'four firings, one delivery')
})

t.test('a chat outage is waited out with backoff: the message is posted again until the chat takes it, and delivered once', async (t) => {
  const a = await startAlertStack(t, {}, 'server_error')
  const issue = await a.issueOf(await a.send('fetchPrices'))
  await waitFor(async () => (await a.stack.db.query(`SELECT 1 FROM alert_deliveries WHERE sends >= 2 AND state = 'pending'`)).rows.length > 0, 15_000)
  const waiting = await a.stack.db.query<{ error: string; not_before: Date; first_sent_at: Date }>('SELECT error, not_before, first_sent_at FROM alert_deliveries')
  t.match(waiting.rows[0]!.error, /500/, 'the outage is recorded, redacted')
  t.notMatch(waiting.rows[0]!.error, a.webhook, 'never with the webhook')
  a.receiver.setAnswer(a.webhook, 'ok')
  await a.settled()
  const { rows } = await a.stack.db.query<{ state: string; sends: number; delivered_at: Date | null }>('SELECT state, sends, delivered_at FROM alert_deliveries')
  t.equal(rows.length, 1)
  t.equal(rows[0]!.state, 'delivered')
  t.ok(rows[0]!.sends >= 3, `posted ${rows[0]!.sends} times: the failed ones, then the one the chat took`)
  const posts = a.posts()
  t.equal(new Set(posts).size, 1, 'every post carried the same message')
  t.match(posts[0], `/issues/${issue}`)
  t.equal(posts.length, rows[0]!.sends, 'no post after the chat took it')
})

t.test('a webhook the chat refuses marks the project\'s chat broken, and later firings are recorded but not posted', async (t) => {
  const a = await startAlertStack(t, {}, 'invalid_token')
  await a.issueOf(await a.send('exportCsv'))
  await a.settled()
  const { rows: [project] } = await a.stack.db.query<{ chat_broken_at: Date | null; chat_error: string }>('SELECT chat_broken_at, chat_error FROM projects WHERE id = $1', [a.stack.projectId])
  t.ok(project!.chat_broken_at, 'the chat is marked broken')
  t.match(project!.chat_error, /invalid_token|403/)
  const { rows: [delivery] } = await a.stack.db.query<{ state: string; sends: number }>('SELECT state, sends FROM alert_deliveries')
  t.same(delivery, { state: 'broken', sends: 1 }, 'the delivery ends broken after one post')
  const later = await a.issueOf(await a.send('importCsv'))
  await a.settled()
  const fired = await a.stack.db.query<{ delivery_id: string | null }>('SELECT delivery_id FROM alert_firings WHERE issue_id = $1', [later])
  t.same(fired.rows, [{ delivery_id: null }], 'the later firing is recorded without a delivery')
  t.equal(a.posts().length, 1, 'and nothing more was posted')
})

t.test('a title that tries to mention, link or format reaches the chat as inert inline code', async (t) => {
  const a = await startAlertStack(t)
  await a.send('x', { error: { type: 'Error', message: '<!channel> *bold* `code` <https://evil.example|click>\nsecond line', stack: 'Error: x\n    at inject (http://localhost:5173/assets/inject.js:1:1)' } })
  const [post] = await waitFor(async () => (a.posts().length > 0 ? a.posts() : undefined), 10_000)
  const line = post!.split('\n')[1]!
  t.match(line, /^• `Error: &lt;!channel&gt; \*bold\* [^`]*second line`: new issue\. http/, 'the title sits inside one inline code span, its mention escaped')
  t.notMatch(line.slice(0, line.indexOf(': new issue')), /[<>]/, 'no raw angle bracket: no mention or link can form')
  t.equal(post!.split('\n').length, 2, 'one line per alert: the title\'s line break is gone')
})
