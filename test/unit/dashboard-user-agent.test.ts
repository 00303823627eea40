import t from 'tap'
import { browserLabel, browserOf } from '../../services/grouper/read/user-agent.js'

const AGENTS: ReadonlyArray<[string, string]> = [
  ['Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36', 'Chrome 126'],
  ['Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/131.0.6778.33 Safari/537.36', 'Chrome 131'],
  ['Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) CriOS/126.0.6478.54 Mobile/15E148 Safari/604.1', 'Chrome 126'],
  ['Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Ubuntu Chromium/80.0.3987.87 Chrome/80.0.3987.87 Safari/537.36', 'Chromium 80'],
  ['Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36 Edg/126.0.2592.87', 'Edge 126'],
  ['Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/70.0.3538.102 Safari/537.36 Edge/18.19041', 'Edge 18'],
  ['Mozilla/5.0 (Linux; Android 10; K) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Mobile Safari/537.36 EdgA/126.0.0.0', 'Edge 126'],
  ['Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0', 'Firefox 128'],
  ['Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) FxiOS/127.0 Mobile/15E148 Safari/605.1.15', 'Firefox 127'],
  ['Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Safari/605.1.15', 'Safari 17'],
  ['Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 [FBAN/FBIOS]', 'WebKit'],
  ['curl/8.5.0', 'Other'],
]

t.test('names the browser family and major version of common user agents', async (t) => {
  for (const [agent, label] of AGENTS) t.equal(browserLabel(agent), label, agent)
})

t.test('an AppleWebKit agent that names Chrome is Chrome, not Safari', async (t) => {
  t.same(browserOf('Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko) Chrome/99.0 Safari/537.36'), { family: 'Chrome', major: '99' })
})

t.test('a missing, empty or non-text user agent is Unknown, and hostile text is just Other', async (t) => {
  for (const agent of [undefined, null, '', '   ', 42, {}]) t.equal(browserLabel(agent), 'Unknown', String(agent))
  t.equal(browserLabel('"><img src=x onerror=alert(1)>'), 'Other')
  t.equal(browserLabel(`${'x'.repeat(100_000)} Firefox/1`), 'Other', 'only the first KiB is read')
})
