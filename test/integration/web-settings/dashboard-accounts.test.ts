import { createHash } from 'node:crypto'
import t from 'tap'
import { createLogger } from '../../../shared/log.js'
import { loadPlugin } from '../../../shared/plugins/loader.js'
import { DashboardClient } from '../../helpers/dashboard.js'
import { startGithubLoopback } from '../../helpers/loopback/github-loopback.js'
import { startTestStack } from '../../helpers/stack.js'

t.test('signing up starts a session: HttpOnly, SameSite=Lax, Path=/ cookie whose token is stored only as a hash', async (t) => {
  const stack = await startTestStack(t)
  const client = new DashboardClient(stack.baseUrl)
  const answer = await client.signUp('Ada@Example.test', 'correct horse battery', '/')
  t.equal(answer.status, 303)
  t.equal(answer.location, '/')
  const line = answer.setCookies.find((c) => c.startsWith('svc_session='))!
  t.match(line, /; Path=\/; Max-Age=\d+; HttpOnly; SameSite=Lax$/, 'flags of a plain-http deployment')
  const token = client.cookies.get('svc_session')!
  const { rows } = await stack.db.query<{ token_hash: Buffer; email: string }>('SELECT s.token_hash, u.email FROM web_sessions s JOIN users u ON u.id = s.user_id')
  t.equal(rows.length, 1)
  t.same(rows[0]!.token_hash, createHash('sha256').update(token).digest(), 'only the SHA-256 of the cookie is stored')
  t.equal(rows[0]!.email, 'Ada@Example.test')
  const home = await client.get('/')
  t.equal(home.status, 200)
  t.match(home.text, 'Ada@Example.test', 'the header names who is signed in')
  t.match(home.text, 'You have no projects yet')
})

t.test('signing out ends the session row, clears the cookie, and the old cookie no longer signs in', async (t) => {
  const stack = await startTestStack(t)
  const client = new DashboardClient(stack.baseUrl)
  await client.signUp('grace@example.test')
  const stolen = client.cookies.get('svc_session')!
  await client.get('/')
  const out = await client.post('/signout', {})
  t.equal(out.status, 303)
  t.equal(out.location, '/signin')
  t.ok(out.setCookies.some((c) => c.startsWith('svc_session=;') && c.includes('Max-Age=0')), 'the cookie is cleared')
  const { rows } = await stack.db.query('SELECT 1 FROM web_sessions')
  t.equal(rows.length, 0)
  const replay = await fetch(`${stack.baseUrl}/`, { headers: { cookie: `svc_session=${stolen}` }, redirect: 'manual' })
  t.equal(replay.status, 302)
  t.equal(replay.headers.get('location'), '/signin')
})

t.test('signs in with the right password; a wrong password and an unknown email get the same 401 message', async (t) => {
  const { baseUrl } = await startTestStack(t)
  await new DashboardClient(baseUrl).signUp('linus@example.test', 'a long enough password')
  const client = new DashboardClient(baseUrl)
  await client.get('/signin')
  const wrong = await client.post('/signin', { email: 'linus@example.test', password: 'not the password', next: '/' })
  t.equal(wrong.status, 401)
  const unknown = await client.post('/signin', { email: 'nobody@example.test', password: 'not the password', next: '/' })
  t.equal(unknown.status, 401)
  const message = (text: string) => /role="alert" id="form-error">([^<]+)</.exec(text)?.[1]
  t.ok(message(wrong.text))
  t.equal(message(wrong.text), message(unknown.text), 'the page does not tell which emails have accounts')
  t.match(wrong.text, 'value="linus@example.test"', 'the email is kept in the form')
  t.notMatch(wrong.text, 'not the password', 'the password is never echoed')
  const right = await client.post('/signin', { email: 'LINUS@example.test', password: 'a long enough password', next: '/projects' })
  t.equal(right.status, 303)
  t.equal(right.location, '/projects', 'returns where the person started; email compared without case')
  t.ok(client.cookies.get('svc_session'))
})

t.test('a sign-in form cannot send the person to another site afterwards', async (t) => {
  const { baseUrl } = await startTestStack(t)
  await new DashboardClient(baseUrl).signUp('ken@example.test', 'a long enough password')
  const client = new DashboardClient(baseUrl)
  await client.get('/signin')
  const answer = await client.post('/signin', { email: 'ken@example.test', password: 'a long enough password', next: '//evil.example/phish' })
  t.equal(answer.status, 303)
  t.equal(answer.location, '/')
})

t.test('a form post without the CSRF token, or with a wrong one, is refused with 403', async (t) => {
  const { baseUrl } = await startTestStack(t)
  const client = new DashboardClient(baseUrl)
  await client.signUp('barbara@example.test')
  await client.get('/')
  const missing = await client.request('/signout', { form: { next: '/' } })
  t.equal(missing.status, 403)
  t.match(missing.text, 'Form expired')
  const wrong = await client.request('/signout', { form: { csrf: 'x'.repeat(43) } })
  t.equal(wrong.status, 403)
  t.equal((await client.get('/')).status, 200, 'still signed in')

  const fresh = new DashboardClient(baseUrl)
  await fresh.get('/signin')
  const forged = await fresh.request('/signin', { form: { csrf: 'forged', email: 'barbara@example.test', password: 'correct horse battery' } })
  t.equal(forged.status, 403, 'the signed-out forms carry a token too')
  const noCookie = await fetch(`${baseUrl}/signin`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: `csrf=${fresh.csrf}&email=barbara%40example.test&password=correct+horse+battery`, redirect: 'manual' })
  t.equal(noCookie.status, 403, 'a token without its cookie is not enough')
})

t.test('a cross-origin post is refused even with the right token', async (t) => {
  const { baseUrl } = await startTestStack(t)
  const client = new DashboardClient(baseUrl)
  await client.signUp('margaret@example.test')
  await client.get('/')
  const foreign = await client.post('/signout', {}, { origin: 'https://evil.example' })
  t.equal(foreign.status, 403)
  t.match(foreign.text, 'another site')
  const crossSite = await client.post('/signout', {}, { 'sec-fetch-site': 'cross-site' })
  t.equal(crossSite.status, 403)
  const opaque = await client.post('/signout', {}, { origin: 'null' })
  t.equal(opaque.status, 403, 'an opaque origin without Sec-Fetch-Site is refused')
  const same = await client.post('/signout', {}, { origin: baseUrl, 'sec-fetch-site': 'same-origin' })
  t.equal(same.status, 303)
  await client.signUp('margaret2@example.test')
  await client.get('/')
  const noReferrer = await client.post('/signout', {}, { origin: 'null', 'sec-fetch-site': 'same-origin' })
  t.equal(noReferrer.status, 303, 'Origin null is what browsers send under Referrer-Policy no-referrer; Sec-Fetch-Site vouches for it')
})

t.test('over https every cookie is Secure and __Host- prefixed', async (t) => {
  // Cookies are Secure when the public address is https: (what SVC_BASE_URL names, not this test's port).
  const { baseUrl } = await startTestStack(t, { env: { SVC_BASE_URL: 'https://svc.example' } })
  const client = new DashboardClient(baseUrl)
  const page = await client.get('/signup')
  t.match(page.setCookies[0], /^__Host-svc_form=[A-Za-z0-9_-]{43}; Path=\/; Max-Age=\d+; HttpOnly; SameSite=Lax; Secure$/)
  const answer = await client.post('/signup', { email: 'radia@example.test', password: 'correct horse battery', next: '/' })
  t.equal(answer.status, 303)
  t.match(answer.setCookies.find((c) => c.startsWith('__Host-svc_session=')), /; HttpOnly; SameSite=Lax; Secure$/)
})

t.test('sign-up refuses a short password, a malformed email and an email taken in another case', async (t) => {
  const { baseUrl } = await startTestStack(t)
  await new DashboardClient(baseUrl).signUp('frances@example.test')
  const client = new DashboardClient(baseUrl)
  await client.get('/signup')
  const short = await client.post('/signup', { email: 'x@example.test', password: 'short', next: '/' })
  t.equal(short.status, 400)
  t.match(short.text, 'at least 10 characters')
  const malformed = await client.post('/signup', { email: 'not-an-email', password: 'correct horse battery', next: '/' })
  t.equal(malformed.status, 400)
  const taken = await client.post('/signup', { email: 'FRANCES@example.test', password: 'correct horse battery', next: '/' })
  t.equal(taken.status, 409)
  t.match(taken.text, 'already exists')
})

t.test('password attempts are throttled per email: past the limit even the right password is refused with 429', async (t) => {
  const { baseUrl } = await startTestStack(t)
  await new DashboardClient(baseUrl).signUp('adele@example.test', 'the right password')
  const client = new DashboardClient(baseUrl)
  await client.get('/signin')
  for (let i = 0; i < 10; i++) {
    const answer = await client.post('/signin', { email: 'adele@example.test', password: `guess ${i}`, next: '/' })
    t.equal(answer.status, 401, `attempt ${i + 1} is only wrong`)
  }
  const blocked = await client.post('/signin', { email: 'adele@example.test', password: 'the right password', next: '/' })
  t.equal(blocked.status, 429)
  t.ok(Number(blocked.headers.get('retry-after')) > 0, 'Retry-After says when')
  t.match(blocked.text, 'Too many attempts')
})

t.test('every page forbids framing, referrers and inline script', async (t) => {
  const { baseUrl } = await startTestStack(t)
  const page = await fetch(`${baseUrl}/signin`)
  t.equal(page.headers.get('content-type'), 'text/html; charset=utf-8')
  t.equal(page.headers.get('x-frame-options'), 'DENY')
  t.equal(page.headers.get('referrer-policy'), 'no-referrer')
  const csp = page.headers.get('content-security-policy') ?? ''
  t.match(csp, "default-src 'none'")
  t.match(csp, "style-src 'self'")
  t.match(csp, "frame-ancestors 'none'")
  t.notMatch(csp, 'unsafe-inline')
  const css = await fetch(`${baseUrl}/assets/app.css`)
  t.equal(css.status, 200)
  t.equal(css.headers.get('content-type'), 'text/css; charset=utf-8')
  t.match(await css.text(), ':focus-visible')
})

t.test('code-host sign-in through the GitHub plugin creates the account and returns to where it started', async (t) => {
  const github = await startGithubLoopback()
  t.teardown(() => github.close())
  const log = createLogger('silent')
  const settings = { appId: github.appId, privateKey: github.privateKey, appSlug: github.appSlug, apiUrl: github.apiUrl, webUrl: github.webUrl, clientId: github.clientId, clientSecret: github.clientSecret }
  const codehost = await loadPlugin('codehost', 'codehost-github', settings, { log })
  const stack = await startTestStack(t, { plugins: { codehost, chat: undefined } })
  const client = new DashboardClient(stack.baseUrl)
  const signin = await client.get('/signin?next=%2Fprojects')
  t.match(signin.text, 'href="/auth/codehost/start?next=%2Fprojects"', 'the sign-in page offers the code host')
  const start = await client.get('/auth/codehost/start?next=%2Fprojects')
  t.equal(start.status, 302)
  const authorize = new URL(start.location)
  t.equal(`${authorize.origin}${authorize.pathname}`, `${github.webUrl}/login/oauth/authorize`)
  // The code host sends the person back to the public address the service was configured with.
  const redirectUri = `${stack.config.baseUrl}/auth/codehost/callback`
  t.equal(authorize.searchParams.get('redirect_uri'), redirectUri)
  const state = authorize.searchParams.get('state')!
  t.notOk(start.setCookies[0]!.includes(state), 'the cookie holds the nonce, the code host sees only its hash')

  const person = { id: 4242, login: 'octo', name: 'Octo Cat', emails: [{ email: 'octo@example.test', primary: true, verified: true }] }
  const stranger = new DashboardClient(stack.baseUrl)
  const forged = await stranger.get(`/auth/codehost/callback?code=${github.issueOAuthCode(person, redirectUri)}&state=${state}`)
  t.equal(forged.status, 400, 'a state without the browser cookie that started it is refused')

  const callback = await client.get(`/auth/codehost/callback?code=${github.issueOAuthCode(person, redirectUri)}&state=${encodeURIComponent(state)}`)
  t.equal(callback.status, 303)
  t.equal(callback.location, '/projects')
  t.ok(client.cookies.get('svc_session'), 'signed in')
  t.notOk(client.cookies.has('svc_oauth'), 'the state cookie is spent')
  const { rows } = await stack.db.query<{ codehost_id: string; codehost_login: string; email: string }>('SELECT codehost_id, codehost_login, email FROM users')
  t.same(rows, [{ codehost_id: '4242', codehost_login: 'octo', email: 'octo@example.test' }])

  const replay = await client.get(`/auth/codehost/callback?code=x&state=${encodeURIComponent(state)}`)
  t.equal(replay.status, 400, 'a state is good for one sign-in')
})
