import t from 'tap'
import { readQuery, unstorableField } from '../../../shared/http/request-text.js'
import { isStorable, storableText } from '../../../shared/domain/untrusted-text.js'

t.test('text PostgreSQL cannot hold is a NUL or a lone surrogate; a pair, U+FFFD and other controls are fine', async (t) => {
  for (const bad of ['\0', 'a\0b', '\ud800', 'x\udc00', '\udc00\ud800']) t.notOk(isStorable(bad), JSON.stringify(bad))
  for (const good of ['', 'plain', '😀', '\uFFFD', '\u202e', 'a\nb', '\x01']) t.ok(isStorable(good), JSON.stringify(good))
  t.equal(storableText('a\0b\ud800c😀'), 'a\uFFFDb\uFFFDc😀', 'each becomes U+FFFD, pairs stay')
})

t.test('a query reads every name and value as stored text reads', async (t) => {
  const query = readQuery('user=a%00b&%00=1&page=%FF&ok=fine')
  t.same([...query], [['user', 'a\uFFFDb'], ['\uFFFD', '1'], ['page', '\uFFFD'], ['ok', 'fine']], 'a NUL and invalid UTF-8 both read as U+FFFD, in order')
  t.same([...readQuery(undefined)], [])
  const plain = readQuery('p=2&errors=1')
  t.same([...plain], [['p', '2'], ['errors', '1']])
})

t.test('a form or JSON body names the first field holding unstorable text', async (t) => {
  t.equal(unstorableField(new URLSearchParams('csrf=x&label=ci%00bot&other=%00')), 'label')
  t.equal(unstorableField(new URLSearchParams('csrf=x&label=%FF')), undefined, 'invalid UTF-8 was read as U+FFFD already')
  t.equal(unstorableField(new URLSearchParams('a%00b=1')), 'a\uFFFDb', 'a name, shown as it can be')
  t.equal(unstorableField({ step: 'ok', note: 'x\0', more: '\ud800' }), 'note')
  t.equal(unstorableField({ steps: [{ note: 'ok' }, { note: 'ok' }, { note: '\udfff' }] }), 'steps.2.note')
  t.equal(unstorableField({ ['k\0']: 'v' }), 'k\uFFFD')
  t.equal(unstorableField('\0'), '', 'a body that is itself such a string')
  t.equal(unstorableField({ n: 1, b: true, z: null, s: '😀' }), undefined)
  let deep: unknown = '\0'
  for (let i = 0; i < 20_000; i++) deep = [deep]
  t.equal(unstorableField(deep)?.split('.').length, 20_000, 'nesting thousands deep is walked without overflowing the stack')
  t.equal(unstorableField({ [`${'n'.repeat(500)}\0`]: 1 })?.length, 80, 'a long name is cut for the answer')
})
