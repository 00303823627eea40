import t from 'tap'
import { approveNewProject, DashboardClient } from '../../helpers/dashboard.js'
import { seedEnvironment, seedTicket } from '../../helpers/investigation/friction-seed.js'
import { startTestStack } from '../../helpers/stack.js'
import { seededByHand } from '../../helpers/suite-invariants.js'

t.test("the owner's answers on known problems: investigate published ones at once, and one fix for two or not", async (t) => {
  const stack = await startTestStack(t)
  await seededByHand(stack.db)
  const db = stack.db
  const owner = new DashboardClient(stack.baseUrl)
  await owner.signUp('owner@example.test')
  const projectId = await approveNewProject(stack, owner, 'Shop')
  const env = await seedEnvironment(db, projectId, 'production')
  const pay = await seedTicket(db, projectId, env, 'awaiting_approval')
  const cart = await seedTicket(db, projectId, env, 'awaiting_approval')
  const lone = await seedTicket(db, projectId, env, 'candidate')
  await db.query(`UPDATE tickets SET same_fix = 'asked', same_fix_ticket_id = $2 WHERE id = $1`, [pay.ticketId, cart.ticketId])
  const list = `/projects/${projectId}/known-problems`
  const autoOf = async (): Promise<boolean> => (await db.query<{ on: boolean }>('SELECT friction_auto_investigate AS on FROM projects WHERE id = $1', [projectId])).rows[0]!.on

  t.test('auto-investigation: off by default, switched on and off by the owner only', async (t) => {
    const page = await owner.get(list)
    t.match(page.text, 'data-on="0"')
    t.match(page.text, 'Published known problems wait for a person to press Investigate.')
    t.equal(await autoOf(), false, 'a new project waits for a person')
    t.equal((await owner.post(`${list}/auto-investigate`, { on: '1', csrf: 'forged' })).status, 403, 'a forged form changes nothing')
    t.equal(await autoOf(), false)
    const stranger = new DashboardClient(stack.baseUrl)
    await stranger.signUp('eve@example.test')
    await stranger.get('/')
    t.equal((await stranger.post(`${list}/auto-investigate`, { on: '1' })).status, 403, 'another person may not switch it')
    t.equal(await autoOf(), false)
    t.equal((await owner.post(`${list}/auto-investigate`, { on: 'yes' })).status, 400, 'an answer that is not 1 or 0 is refused')
    const on = await owner.post(`${list}/auto-investigate`, { on: '1' })
    t.equal(on.status, 303)
    t.equal(on.location, list)
    t.equal(await autoOf(), true)
    t.match((await owner.get(list)).text, 'Published known problems go to the investigator at once.')
    await owner.post(`${list}/auto-investigate`, { on: '0' })
    t.equal(await autoOf(), false, 'and off again')
  })

  t.test('the same-fix question: answered, changed, and refused where none was asked', async (t) => {
    const path = `${list}/${pay.ticketId}`
    const page = await owner.get(path)
    t.match(page.text, `action="${path}/same-fix"`, 'the owner is offered the answers')
    t.match(page.text, 'One fix solves both')
    const same = await owner.post(`${path}/same-fix`, { answer: 'same' })
    t.equal(same.status, 303)
    const answered = await owner.get(path)
    t.match(answered.text, 'data-same-fix="same"')
    t.match(answered.text, 'yes: one fix solves both')
    t.notMatch(answered.text, 'One fix solves both</button>', 'the given answer is not offered again')
    t.match(answered.text, 'Each needs its own fix</button>', 'but it can be changed')
    await owner.post(`${path}/same-fix`, { answer: 'different' })
    const row = await db.query<{ same_fix: string; same_fix_ticket_id: string }>('SELECT same_fix, same_fix_ticket_id FROM tickets WHERE id = $1', [pay.ticketId])
    t.same(row.rows[0], { same_fix: 'different', same_fix_ticket_id: cart.ticketId }, 'the answer is stored beside the question')
    t.equal((await owner.post(`${path}/same-fix`, { answer: 'maybe' })).status, 400)
    await owner.get(`${list}/${lone.ticketId}`)
    t.equal((await owner.post(`${list}/${lone.ticketId}/same-fix`, { answer: 'same' })).status, 409, 'no question, no answer')
    const loneRow = await db.query<{ same_fix: string | null }>('SELECT same_fix FROM tickets WHERE id = $1', [lone.ticketId])
    t.equal(loneRow.rows[0]!.same_fix, null, 'and nothing written')
    t.equal((await owner.post(`${list}/${'0'.repeat(8)}-0000-0000-0000-000000000000/same-fix`, { answer: 'same' })).status, 404)
  })
})
