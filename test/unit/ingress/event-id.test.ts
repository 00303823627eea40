import t from 'tap'
import { storedEventId } from '../../../services/ingress/event-id.js'

const PROJECT = '7f0b7d2e-4f8a-4c55-9a43-3b2f5c1d9e01'
const OTHER = '0c5c1e0a-2b1d-4e7f-8a9b-6d5e4f3a2b10'
const SENT = '3b241101-e2bb-4255-8caf-4136c566a962'
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/

t.test("an event the sender named is stored under an id derived from the sender's id and the project", async (t) => {
  const id = storedEventId(PROJECT, SENT)
  t.match(id, UUID, 'a UUID')
  t.not(id, SENT, "not the sender's id itself")
  t.equal(storedEventId(PROJECT, SENT), id, 'sent again, the same id: stored once')
  t.equal(storedEventId(PROJECT, SENT.toUpperCase().replaceAll('-', '')), id, 'whatever the case and hyphens')
  t.not(storedEventId(OTHER, SENT), id, "another project's event with the same sender id is another event")
  t.not(storedEventId(PROJECT, '3b241101-e2bb-4255-8caf-4136c566a963'), id, 'another sender id, another event')
})

t.test('the derived id never changes across versions: a resend after an upgrade is still stored once', async (t) => {
  // Pinned from the byte-wise XOR the first version computed.
  t.equal(storedEventId(PROJECT, SENT), '442f6c2f-ad31-0e00-16ec-7a19997b3763')
  t.equal(storedEventId(PROJECT, '3B241101E2BB42558CAF4136C566A962'), '442f6c2f-ad31-0e00-16ec-7a19997b3763')
})

t.test('an event without a sender id gets a fresh random id each time', async (t) => {
  const a = storedEventId(PROJECT, undefined)
  t.match(a, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/)
  t.not(storedEventId(PROJECT, undefined), a)
})
