import t from 'tap'
import { actorsNote, noiseNote } from '../../../services/investigator/admission-verdict.js'
import { admissionFacts, CLOCK_SKEW_MS, isAutomatedAgent, SEEN } from '../../../services/grouper/real-user.js'

const RULE = { minActors: 2, windowMs: 7 * 86_400_000 }
const none = { recent: 0, real: 0, total: 0, automated: false, ahead: false }

t.test('user agents of headless browsers, crawlers, monitoring agents and libraries are automated; browsers are not', async (t) => {
  for (const agent of [
    'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/126.0.0.0 Safari/537.36',
    'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)',
    'Mozilla/5.0 (compatible; UptimeRobot/2.0; http://www.uptimerobot.com/)',
    'Pingdom.com_bot_version_1.4_(http://www.pingdom.com/)',
    'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120 Safari/537.36 Checkly/1.0',
    'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120 Safari/537.36 DatadogSynthetics',
    'curl/8.4.0',
    'node-fetch',
    '',
    undefined,
  ]) {
    t.ok(isAutomatedAgent(agent), `automated: ${String(agent).slice(0, 60)}`)
  }
  for (const agent of [
    'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36',
    'Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0',
    'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1',
  ]) {
    t.notOk(isAutomatedAgent(agent), `a browser: ${agent.slice(0, 60)}`)
  }
})

t.test("an event counts by its own timestamp, unless a bot's or ahead of the clock beyond the tolerance", async (t) => {
  const browser = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36'
  const received = Date.parse('2026-11-26T12:00:00Z')
  t.same(admissionFacts(browser, '2026-11-20T08:00:00Z', received), { seenKinds: SEEN.real, realAt: new Date('2026-11-20T08:00:00Z') }, 'its own time, not the arrival')
  t.same(admissionFacts(browser, new Date(received + CLOCK_SKEW_MS).toISOString(), received).seenKinds, SEEN.real, 'ahead by the tolerance counts')
  t.same(admissionFacts(browser, new Date(received + CLOCK_SKEW_MS + 1000).toISOString(), received), { seenKinds: SEEN.ahead, realAt: null }, 'further ahead does not')
  t.same(admissionFacts(browser, 'yesterday', received), { seenKinds: SEEN.ahead, realAt: null }, 'an unreadable timestamp does not')
  t.same(admissionFacts('curl/8.4.0', '2026-11-26T12:00:00Z', received), { seenKinds: SEEN.automated, realAt: null }, "a client's that is not a browser does not")
})

t.test('the note says why in one line: too few, not real, too old', async (t) => {
  t.same(actorsNote({ ...none, recent: 1, real: 1, total: 1 }, RULE), { code: 'too_few_users', message: 'only one user so far; an issue is investigated once 2 distinct users or sessions run into it within 7 days' })
  t.same(actorsNote(none, RULE).code, 'too_few_users')
  t.match(actorsNote(none, RULE).message, /^no user or session that counts so far/)
  t.same(actorsNote({ ...none, recent: 1, real: 1, total: 5, automated: true }, RULE), {
    code: 'not_real_users',
    message: 'only one real user or session so far: the others were headless browsers, crawlers or monitoring agents; an issue is investigated once 2 distinct users or sessions run into it within 7 days',
  })
  t.match(actorsNote({ ...none, total: 2, ahead: true }, RULE).message, /^no real user or session so far: the 2 that ran into it were clients whose clocks are ahead/)
  t.same(actorsNote({ ...none, recent: 1, real: 3, total: 3 }, RULE).code, 'events_too_old')
  t.match(actorsNote({ ...none, recent: 1, real: 3, total: 3 }, RULE).message, /^events too old: by their own timestamps, only 1 of the 3 real users or sessions that ran into it did so within the last 7 days/)
  t.match(actorsNote({ ...none, recent: 1, real: 1, total: 1 }, { minActors: 3, windowMs: 36 * 3_600_000 }).message, /within 2 days$/)
})

t.test('noise says which noise, and that noise is never investigated', async (t) => {
  t.same(noiseNote('browser-extension'), { code: 'noise', message: 'marked as noise (the stack is made only of browser-extension frames): noise is never investigated' })
  t.match(noiseNote('something-new').message, /^marked as noise \(something-new\)/, 'an unknown reason is named as stored')
})
