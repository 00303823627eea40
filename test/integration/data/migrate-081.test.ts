/**
 * Migration 081 over rows written before it: findings and known problems get their control (screen
 * and names) and subject from what they kept, their vectors are marked as vectors of narratives,
 * and matching after the upgrade keeps the controls apart that the old rule had merged.
 */
import { toSql } from 'pgvector/pg'
import t from 'tap'
import { createDb } from '../../../shared/db/index.js'
import { migrate, readMigrations } from '../../../shared/db/migrate.js'
import { createOrm } from '../../../shared/db/orm.js'
import { applySeed, SEED_PROJECT_ID } from '../../../shared/db/seed.js'
import { screenOf } from '../../../services/matcher/friction/control.js'
import { axis, HAND_MADE_MODEL } from '../../helpers/investigation/matching-fixtures.js'
import { matchFinding, type Embedder } from '../../../services/matcher/match/index.js'
import { MATCHER_ENTITIES } from '../../../services/matcher/store/entities.js'
import { seedEnvironment, seedRecording } from '../../helpers/investigation/friction-seed.js'
import { createTestDatabase } from '../../helpers/stack.js'

const PAGES = ['/checkout', '/checkout?step=2', '/checkout/', '/orders/1001', '/orders/77/items/5?x=1', '/u/0F8FAD5B-D9CB-469F-A165-70867728950E', '/p/8f3kz91qx12lm77a', '/blog/summer-sale-2026', '/', '/?q=1']

t.test('081 gives old findings and known problems their control and subject, and keeps merged controls apart from then on', async (t) => {
  const db = createDb(await createTestDatabase(t), { max: 2 })
  t.teardown(() => db.close())
  await migrate(db, readMigrations().filter((m) => m.version <= 80))
  await applySeed(db)
  const env = await seedEnvironment(db, SEED_PROJECT_ID, 'production')
  const recording = await seedRecording(db, SEED_PROJECT_ID, env, 30)
  const finding = async (kind: string, page: string, target: string, narrative: string, vector?: number[]): Promise<string> =>
    (await db.query<{ id: string }>(
      `INSERT INTO friction_findings (project_id, environment_id, recording_id, kind, page, target, at, narrative, embedding, embedding_model)
       VALUES ($1, $2, $3, $4, $5, $6, clock_timestamp(), $7, $8::vector, $9) RETURNING id`,
      [SEED_PROJECT_ID, env, recording, kind, page, target, narrative, vector ? toSql(vector) : null, vector ? HAND_MADE_MODEL : null],
    )).rows[0]!.id
  const pages = await Promise.all(PAGES.map((page, i) => finding('dead_click', page, `a#link-x${'y'.repeat(i)} "Go"`, 'old')))
  const pay = await finding('rage_click', '/checkout', 'button#pay.primary "Pay now"', 'Rage click: 5 clicks in 1.2 s on button#pay.primary "Pay now" on /checkout; nothing changed on the page.', axis(0))
  const saveCard = await finding('rage_click', '/checkout', 'button#save-card "Save card"', 'Rage click: 3 clicks in 0.6 s on button#save-card "Save card" on /checkout; nothing changed on the page.', axis(0))
  const numbered = await finding('dead_click', '/checkout', 'button#remove-1.link "Remove"', 'old')
  const bare = await finding('dead_click', '/checkout', 'button#item-7', 'old')
  const one = await finding('error_after_click', '/checkout', 'button#pay "Pay"', 'Error after click on button#pay "Pay" on /checkout: the error "Payment provider answered 502" 0.1 s later.')
  const many = await finding('error_after_click', '/checkout', 'button#pay "Pay"', 'Error after click: 2 clicks in 3.0 s on button#pay "Pay" on /checkout, each followed within 2 s by an error; the first, the error "He said "no"", 0.2 s after its click.')
  const none = await finding('error_after_click', '/checkout', 'button#pay "Pay"', 'Error after click on button#pay "Pay" on /checkout: an error without a message 0.1 s later.')
  // The old rule merged Save card into Pay's known problem.
  const { rows: [issue] } = await db.query<{ id: string }>("INSERT INTO issues (project_id, kind, fingerprint, grouping_version, status, title, first_seen, last_seen) VALUES ($1, 'friction', 'ticket:old', 4, 'candidate', 'Pay', now(), now()) RETURNING id", [SEED_PROJECT_ID])
  const { rows: [ticket] } = await db.query<{ id: string }>(
    `INSERT INTO tickets (project_id, environment_id, issue_id, kind, page, target, narrative, embedding, embedding_model, pages, matched, users)
     VALUES ($1, $2, $3, 'rage_click', '/checkout?step=2', 'button#pay.primary "Pay now"', 'Rage click on Pay', $4::vector, $5, '{/checkout?step=2}', 2, 2) RETURNING id`,
    [SEED_PROJECT_ID, env, issue!.id, toSql(axis(0)), HAND_MADE_MODEL],
  )
  for (const id of [pay, saveCard]) await db.query('INSERT INTO ticket_matches (ticket_id, finding_id, project_id, recording_id, at) VALUES ($1, $2, $3, $4, now())', [ticket!.id, id, SEED_PROJECT_ID, recording])
  await db.query("INSERT INTO matching_decisions (finding_id, project_id, environment_id, decision, ticket_id, decided_by) VALUES ($1, $2, $3, 'joined', $4, 'embeddings')", [pay, SEED_PROJECT_ID, env, ticket!.id])

  await migrate(db)
  const row = async (id: string) => (await db.query('SELECT screen, control_names, subject, embedding_of FROM friction_findings WHERE id = $1', [id])).rows[0]!
  for (const [i, page] of PAGES.entries()) t.equal((await row(pages[i]!)).screen, screenOf(page), `the screen of ${page} is the one the scan gives it`)
  t.match(await row(pay), { screen: '/checkout', control_names: ['button#pay'], subject: 'button#pay.primary "Pay now" on /checkout', embedding_of: 'narrative' }, 'a control with an id of its own is named by it (whether its words were shared was not kept)')
  t.match(await row(numbered), { control_names: ['button "remove"'], embedding_of: null }, 'a numbered id is no name: its words are')
  t.match(await row(bare), { control_names: [] }, 'nothing to name it by')
  t.match(await row(one), { subject: 'Payment provider answered 502' }, "an error's subject is its message")
  t.match(await row(many), { subject: 'He said "no"' })
  t.match(await row(none), { subject: '' })
  t.match((await db.query('SELECT screen, control_names, subject, embedding_of FROM tickets WHERE id = $1', [ticket!.id])).rows[0], { screen: '/checkout', control_names: ['button#pay'], subject: 'button#pay.primary "Pay now" on /checkout', embedding_of: 'narrative' }, "a known problem is named by its own target, not by the findings the old rule gave it")

  const orm = await createOrm(db, MATCHER_ENTITIES)
  t.teardown(() => orm.close())
  const asked: string[] = []
  const embedder: Embedder = { model: HAND_MADE_MODEL, embed: async (texts) => (asked.push(...texts), texts.map(() => axis(0))) }
  const again = await matchFinding({ orm }, saveCard, embedder)
  t.same(asked, ['button#save-card "Save card" on /checkout'], 'an undecided finding embedded from its narrative is embedded again from its subject')
  t.match(again, { decision: 'created' }, "Save card, though its evidence, no longer joins Pay's known problem")
  const newPay = await finding('rage_click', '/checkout', 'button#pay.v2 "Pay"', 'new')
  await db.query(`UPDATE friction_findings SET screen = '/checkout', control_names = '{button#pay,"button \\"pay\\""}', subject = 'button#pay.v2 "Pay" on /checkout' WHERE id = $1`, [newPay])
  t.match(await matchFinding({ orm }, newPay, embedder), { decision: 'joined', ticket: { id: ticket!.id }, distance: null }, "Pay's next finding joins it by its id, its old vector never compared")
})
