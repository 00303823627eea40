import t from 'tap'
import { generateKey, hashSecret, KEY_PREFIX, parseKey, secretMatches } from '../../../shared/keys.js'

t.test('a generated key has prefix, identifier, underscore and secret, and parses back', async (t) => {
  for (const kind of ['ingest', 'sourcemap', 'api'] as const) {
    const key = generateKey(kind)
    t.ok(key.token.startsWith(KEY_PREFIX[kind]), `${kind} prefix`)
    const parsed = parseKey(key.token)
    t.equal(parsed?.kind, kind)
    t.equal(parsed?.id, key.id)
    t.ok(secretMatches(parsed!.secret, key.secretHash), 'the stored hash verifies the secret')
  }
  t.equal(KEY_PREFIX.ingest, 'svc_pk_')
  t.equal(KEY_PREFIX.sourcemap, 'svc_sk_')
})

t.test('a truncated, extended or edited key cannot be parsed or verified', async (t) => {
  const { token, secretHash } = generateKey('ingest')
  t.equal(parseKey(token.slice(0, -1)), undefined, 'truncated')
  t.equal(parseKey(token + 'x'), undefined, 'extended')
  t.equal(parseKey(token.replace('svc_pk_', 'svc_xk_')), undefined, 'unknown prefix')
  t.equal(parseKey(' ' + token), undefined, 'padded')
  const edited = parseKey(token.slice(0, -1) + (token.endsWith('a') ? 'b' : 'a'))
  t.ok(edited, 'an edited last character still has the shape')
  t.notOk(secretMatches(edited!.secret, secretHash), 'but does not verify')
})

t.test('the stored hash is not the secret', async (t) => {
  const { token, secretHash } = generateKey('api')
  const secret = parseKey(token)!.secret
  t.not(secretHash.toString('utf8'), secret)
  t.same(hashSecret(secret), secretHash)
})
