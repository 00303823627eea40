import t from 'tap'
import { redactWebhook } from '../../shared/net/webhook-redaction.js'

const SLACK = 'https://hooks.slack.com/services/T0123ABCD/B0456EFGH/xOxOxOxOsecretTOKEN1234'

t.test('a word of the message that is also a plain word of the webhook path is left alone', async (t) => {
  const message = 'The webhook answered with a redirect, which is not followed. Use the address the chat tool shows.'
  t.equal(redactWebhook(message, 'https://chat.example.com/redirect'), message)
  t.equal(redactWebhook('the services answered 500', SLACK), 'the services answered 500', '"services" is the path of every Slack webhook, not its secret')
})

t.test('the URL, its path and every secret-bearing segment are redacted wherever they appear', async (t) => {
  const text = `posting to ${SLACK} failed; path /services/T0123ABCD/B0456EFGH/xOxOxOxOsecretTOKEN1234; token xOxOxOxOsecretTOKEN1234; team T0123ABCD`
  const out = redactWebhook(text, SLACK)
  for (const secret of ['xOxOxOxOsecretTOKEN1234', 'T0123ABCD', 'B0456EFGH', 'hooks.slack.com/services/']) t.notOk(out.includes(secret), `no ${secret}`)
  t.match(out, /posting to \[redacted\] failed/)
})

t.test('a percent-encoded secret segment is redacted in its decoded form too', async (t) => {
  const url = 'https://hooks.example.com/api/webhooks/12345/ab%2Bcd%2Fsecret'
  const out = redactWebhook('rejected ab+cd/secret and 12345', url)
  t.notOk(out.includes('ab+cd/secret'))
  t.notOk(out.includes('12345'))
})
