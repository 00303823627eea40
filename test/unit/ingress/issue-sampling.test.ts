import t from 'tap'
import { DEFAULT_SAMPLING, walkWindow } from '../../../services/grouper/issue-sampling.js'

const HOUR = 60 * 60 * 1000
const sampling = { storedPerWindow: 3, windowMs: HOUR, oneIn: 4 }
const events = (from: number, n: number, at = 0) => Array.from({ length: n }, (_, i) => ({ id: `e${String(from + i).padStart(3, '0')}`, at: at + from + i }))

t.test('stores the first K of a window whole, then every N-th past K', async (t) => {
  const walked = walkWindow({ start: null, events: 0 }, events(1, 12), sampling)
  t.same(walked.slim, ['e004', 'e005', 'e006', 'e008', 'e009', 'e010', 'e012'], 'the 7th and 11th are whole (3 + 4, 3 + 8)')
  t.same(walked.window, { start: 1, events: 12 })
})

t.test('carries the count across batches, and a batch in any order walks by receipt', async (t) => {
  const first = walkWindow({ start: null, events: 0 }, events(1, 5), sampling)
  const second = walkWindow(first.window, events(6, 6).reverse(), sampling)
  t.same([...first.slim, ...second.slim], ['e004', 'e005', 'e006', 'e008', 'e009', 'e010'])
  t.equal(second.window.events, 11)
})

t.test('an event a window after the window opened starts a new one, stored whole again', async (t) => {
  const full = walkWindow({ start: 0, events: 40 }, events(1, 2), sampling)
  t.same(full.slim, ['e001', 'e002'], 'past the cap in the open window')
  const next = walkWindow(full.window, events(1, 4, HOUR), sampling)
  t.same(next.slim, ['e004'], 'three whole in the new window')
  t.same(next.window, { start: HOUR + 1, events: 4 })
})

t.test('an unset environment gives 1000 an hour per issue, then 1 in 100', async (t) => {
  t.same(DEFAULT_SAMPLING, { storedPerWindow: 1000, windowMs: HOUR, oneIn: 100 })
})
