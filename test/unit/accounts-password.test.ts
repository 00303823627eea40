import t from 'tap'
import { hashPassword, needsRehash, passwordProblem, PASSWORD_MIN_LENGTH, verifyPassword } from '../../services/web/accounts/password.js'

t.test('a password hash names its algorithm and parameters and carries its own salt', async (t) => {
  const stored = await hashPassword('correct horse battery')
  const [algorithm, N, r, p, salt, hash] = stored.split('$')
  t.equal(algorithm, 'scrypt')
  t.equal(Number(N), 2 ** 15)
  t.equal(Number(r), 8)
  t.equal(Number(p), 1)
  t.equal(Buffer.from(salt!, 'base64url').length, 16)
  t.equal(Buffer.from(hash!, 'base64url').length, 32)
  t.notMatch(stored, 'correct horse battery')
})

t.test('the same password hashes differently each time, and both hashes verify', async (t) => {
  const first = await hashPassword('correct horse battery')
  const second = await hashPassword('correct horse battery')
  t.not(first, second, 'a per-user salt')
  t.ok(await verifyPassword('correct horse battery', first))
  t.ok(await verifyPassword('correct horse battery', second))
})

t.test('a wrong password, a near miss and an empty one do not verify', async (t) => {
  const stored = await hashPassword('correct horse battery')
  t.notOk(await verifyPassword('correct horse batter', stored))
  t.notOk(await verifyPassword('Correct horse battery', stored))
  t.notOk(await verifyPassword('', stored))
})

t.test('a malformed or tampered stored hash never verifies, and cannot ask for huge memory', async (t) => {
  const stored = await hashPassword('pw-1234567890')
  const parts = stored.split('$')
  t.notOk(await verifyPassword('pw-1234567890', 'plain text'))
  t.notOk(await verifyPassword('pw-1234567890', ['bcrypt', ...parts.slice(1)].join('$')))
  t.notOk(await verifyPassword('pw-1234567890', [parts[0], 2 ** 22, 32, 1, parts[4], parts[5]].join('$')), 'a gigabyte-sized cost is refused unevaluated')
  t.notOk(await verifyPassword('pw-1234567890', [parts[0], 1000, 8, 1, parts[4], parts[5]].join('$')), 'N must be a power of two')
  const flipped = Buffer.from(parts[5]!, 'base64url')
  flipped[0]! ^= 1
  t.notOk(await verifyPassword('pw-1234567890', [...parts.slice(0, 5), flipped.toString('base64url')].join('$')))
})

t.test('a hash made with weaker parameters still verifies and asks to be renewed', async (t) => {
  const current = await hashPassword('an older password')
  t.notOk(needsRehash(current))
  const parts = current.split('$')
  // What a hash at N = 2^14 looks like: recompute one with node's scrypt directly.
  const { scryptSync } = await import('node:crypto')
  const salt = Buffer.from(parts[4]!, 'base64url')
  const weak = ['scrypt', 2 ** 14, 8, 1, parts[4], scryptSync('an older password', salt, 32, { N: 2 ** 14, r: 8, p: 1 }).toString('base64url')].join('$')
  t.ok(await verifyPassword('an older password', weak))
  t.ok(needsRehash(weak))
})

t.test('new passwords must have the minimum length and stay under the maximum', async (t) => {
  t.match(passwordProblem('x'.repeat(PASSWORD_MIN_LENGTH - 1)), `at least ${PASSWORD_MIN_LENGTH}`)
  t.equal(passwordProblem('x'.repeat(PASSWORD_MIN_LENGTH)), undefined)
  t.match(passwordProblem('x'.repeat(5000)), 'at most')
})
