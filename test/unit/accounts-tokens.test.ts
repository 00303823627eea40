import t from 'tap'
import { finishOAuth, OAUTH_STATE_TTL_MS, safeNextPath, startOAuth } from '../../services/web/accounts/oauth-state.js'
import { digestText, hashToken, randomToken, sameToken } from '../../services/web/accounts/tokens.js'
import { oauthRedirectUri, oauthWarnings } from '../../services/web/accounts/oauth-settings.js'
import { signInPath } from '../../services/web/http/viewer.js'
import { loadConfig } from '../../shared/config/index.js'

t.test('session tokens are 256 random bits in base64url, stored as their SHA-256', async (t) => {
  const tokens = new Set(Array.from({ length: 1000 }, () => randomToken()))
  t.equal(tokens.size, 1000)
  for (const token of [...tokens].slice(0, 10)) t.match(token, /^[A-Za-z0-9_-]{43}$/)
  const token = randomToken()
  t.equal(hashToken(token).length, 32)
  t.same(hashToken(token), hashToken(token))
  t.notSame(hashToken(token), hashToken(randomToken()))
})

t.test('tokens compare equal only when identical, and an empty one never matches', async (t) => {
  const token = randomToken()
  t.ok(sameToken(token, `${token}`))
  t.notOk(sameToken(token, token.slice(0, -1)))
  t.notOk(sameToken(token, randomToken()))
  t.notOk(sameToken('', ''))
})

t.test('the OAuth state is the hash of the browser cookie, so a state alone does not forge the cookie', async (t) => {
  const { cookieValue, state } = startOAuth('/setup/abc')
  t.equal(state, digestText(cookieValue))
  t.notMatch(cookieValue, state)
  t.same(finishOAuth(cookieValue, state), { next: '/setup/abc' })
  t.equal(finishOAuth(cookieValue, digestText('other')), undefined, 'another state is refused')
  t.equal(finishOAuth(undefined, state), undefined, 'a browser without the cookie is refused')
  t.equal(finishOAuth(startOAuth('/setup/abc').cookieValue, state), undefined, 'another browser’s cookie is refused')
})

t.test('an OAuth sign-in older than ten minutes is refused', async (t) => {
  const started = Date.now()
  const { cookieValue, state } = startOAuth('/', started)
  t.ok(finishOAuth(cookieValue, state, started + OAUTH_STATE_TTL_MS - 1000))
  t.equal(finishOAuth(cookieValue, state, started + OAUTH_STATE_TTL_MS + 1000), undefined)
})

t.test('after sign-in a person is sent only to a path on this site', async (t) => {
  t.equal(safeNextPath('/setup/abc?x=1'), '/setup/abc?x=1')
  t.equal(safeNextPath(undefined), '/')
  t.equal(safeNextPath(''), '/')
  t.equal(safeNextPath('https://evil.example/'), '/')
  t.equal(safeNextPath('//evil.example/'), '/')
  t.equal(safeNextPath('/\\evil.example/'), '/')
  t.equal(safeNextPath('/ok\r\nSet-Cookie: x=1'), '/')
  t.equal(safeNextPath('javascript:alert(1)'), '/')
  t.equal(startOAuth('//evil.example').cookieValue.split('.')[2], Buffer.from('/').toString('base64url'), 'the state cookie keeps only a safe path')
})

t.test('the sign-in a signed-out page sends to returns to the page, and its address stays short', async (t) => {
  t.equal(signInPath('/projects/p/recordings?user=bob'), '/signin?next=%2Fprojects%2Fp%2Frecordings%3Fuser%3Dbob')
  const long = `/projects/p/recordings?user=${'u'.repeat(20 * 1024)}`
  t.equal(signInPath(long), '/signin?next=%2Fprojects%2Fp%2Frecordings', 'a query too long to come back to is dropped, the path kept')
  t.equal(safeNextPath(decodeURIComponent(signInPath(long).split('=')[1]!)), '/projects/p/recordings', 'and the sign-in accepts what it names')
  const edge = `/p?q=${'x'.repeat(512 - 5)}`
  t.equal(safeNextPath(decodeURIComponent(signInPath(edge).split('next=')[1]!)), edge, 'a path as long as a sign-in returns to is kept whole')
  t.equal(signInPath(`/${'p'.repeat(600)}`), '/signin', 'a path too long by itself returns to the projects')
})

t.test('the OAuth callback lives on DASHBOARD_ORIGIN, else on the service address', async (t) => {
  t.equal(oauthRedirectUri({ dashboardOrigin: 'https://dash.example', baseUrl: 'http://localhost:8082' }), 'https://dash.example/auth/codehost/callback')
  t.equal(oauthRedirectUri({ dashboardOrigin: undefined, baseUrl: 'http://localhost:8082' }), 'http://localhost:8082/auth/codehost/callback')
})

t.test('start-up warns when code-host sign-in is configured without DASHBOARD_ORIGIN or only half configured', async (t) => {
  const key = (await import('node:crypto')).generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ type: 'pkcs1', format: 'pem' }) as string
  const app = { CODEHOST_APP_ID: '123', CODEHOST_APP_SLUG: 'svc-app', CODEHOST_APP_PRIVATE_KEY: key }
  const client = { CODEHOST_APP_CLIENT_ID: 'Iv1.abc', CODEHOST_APP_CLIENT_SECRET: 'shh' }
  t.same(oauthWarnings(loadConfig({})), [], 'nothing configured, nothing to say')
  const [withoutOrigin] = oauthWarnings(loadConfig({ ...app, ...client }))
  t.match(withoutOrigin, 'without DASHBOARD_ORIGIN')
  t.match(withoutOrigin, 'http://localhost:8082/auth/codehost/callback')
  t.notMatch(withoutOrigin, 'shh', 'the secret is never repeated')
  t.same(oauthWarnings(loadConfig({ ...app, ...client, DASHBOARD_ORIGIN: 'http://localhost:8082' })), [])
  t.match(oauthWarnings(loadConfig({ ...app, CODEHOST_APP_CLIENT_ID: 'Iv1.abc' }))[0], 'CODEHOST_APP_CLIENT_SECRET is not set')
  t.match(oauthWarnings(loadConfig(client))[0], 'CODEHOST_APP_ID is not')
})
