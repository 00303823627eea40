/**
 * Chat markup in event text, through a model-written digest to the loopback chat: whatever the
 * model repeats of a title reaches the channel as text (inline code, mentions escaped), and a
 * paragraph that would carry bold, italics, strike-through, a mention, a link or a broken-out
 * code span falls back to its mechanical line. Asserted on the payload the chat received.
 */
import t from 'tap'
import type { ModelTurn } from '../../helpers/loopback/model-server.js'
import { startDigestHarness } from '../../helpers/digest-harness.js'

const MINUTE = 60_000

/** Each item by its users: its title, and the paragraph a careless (or steered) model writes about it. */
const ITEMS: ReadonlyArray<{ users: number; title: string; written: string }> = [
  { users: 4, title: 'TypeError: *bold* _x_ ~y~ <!channel> in `cart`', written: 'The error TypeError: *bold* _x_ ~y~ <!channel> in `cart` stopped 4 users.' },
  { users: 2, title: 'Error: *bold* happened', written: 'Something *bold* happened to 2 users.' },
  { users: 3, title: 'Error: a`*b*`c broke', written: 'It failed in `a`*b*`c broke` for 3 users.' },
  { users: 5, title: 'Failed to load <https://evil.example/login|your invoice>', written: 'Failed to load <https://evil.example/login|your invoice> for 5 users.' },
  { users: 6, title: 'Error: _x_ and ~y~', written: 'The error `Error: _x_ and ~y~` hit 6 users.' },
]

/** The model's answer: each item's paragraph under the marker the prompt gave it. */
function answer(turn: ModelTurn): { text: string } {
  const first = turn.messages[0]
  const prompt = first && first.role === 'user' ? first.text : ''
  const data = JSON.parse(/<digest_items>\n([\s\S]*)\n<\/digest_items>/.exec(prompt)![1]!) as Array<{ marker: string; users_affected: number }>
  return { text: data.map((item) => `${item.marker} ${ITEMS.find((i) => i.users === item.users_affected)!.written}`).join('\n') }
}

t.test('event text in a written digest reaches the chat literally, or its item falls back to the mechanical line', async (t) => {
  const h = await startDigestHarness(t, { start: '2026-06-10T08:59:00Z', script: answer })
  const project = await h.project('Shop', 'UTC')
  const ids = new Map<number, string>()
  for (const [i, item] of ITEMS.entries()) ids.set(item.users, await h.completed(project.id, { title: item.title, users: item.users, at: new Date(Date.UTC(2026, 5, 10, 1, i)) }))
  const digester = await h.digester()
  await h.settle(digester)
  h.clock.set('2026-06-10T09:00:10Z')
  await h.settle(digester)
  h.clock.advance(10 * MINUTE)
  await h.settle(digester)

  const details = (users: number): string => `Details: https://svc.example.com/projects/${project.id}/issues/${ids.get(users)}`
  const [sent] = h.posts(project.hook)
  t.equal(
    sent,
    [
      'Daily digest for Shop, 2026-06-10: 5 updates since the last digest.',
      "• The error `TypeError: *bold* _x_ ~y~ &lt;!channel&gt; in 'cart'` stopped 4 users.",
      `• \`Error: *bold* happened\`: the cause was found in your code; 2 users affected. ${details(2)}`,
      `• \`Error: a'*b*'c broke\`: the cause was found in your code; 3 users affected. ${details(3)}`,
      `• \`Failed to load &lt;https://evil.example/login|your invoice&gt;\`: the cause was found in your code; 5 users affected. ${details(5)}`,
      '• The error `Error: _x_ and ~y~` hit 6 users.',
    ].join('\n\n'),
    'the title the model repeated is inline code; bold, a broken-out code span and a link fell back; code the model quoted stays',
  )
  const { rows } = await h.stack.db.query<{ users: number; check_result: string; check_reason: string }>('SELECT users, check_result, check_reason FROM digest_items ORDER BY position')
  t.match(rows, [
    { users: 4, check_result: 'written' },
    { users: 2, check_result: 'mechanical', check_reason: /^markup: .*an asterisk/ },
    { users: 3, check_result: 'mechanical', check_reason: /^markup: .*an asterisk/ },
    { users: 5, check_result: 'mechanical', check_reason: /^link: / },
    { users: 6, check_result: 'written' },
  ], 'the check says why each fell back')
  t.match(h.model!.turns[0]!.system, /inside one pair of backticks/, 'the model is told to quote titles as inline code')
  t.match(h.model!.turns[0]!.messages[0], { text: /"title": "Error: a'\*b\*'c broke"/ }, "and is given titles whose backticks cannot close the code it quotes them in")
})
