import t from 'tap'
import type { HostedService } from '../../../shared/service.js'
import { healthReport, STALL_AFTER } from '../../../services/worker/health.js'

const NOW = 1_000_000_000

function service(overrides: { eligible?: number; heldBack?: number; progressAgo?: number; fleetIdle?: number; waiting?: { what: string; since: number } }): HostedService {
  return {
    name: 'grouper',
    start: async () => {},
    stop: async () => {},
    depth: async () => ({ eligible: overrides.eligible ?? 0, heldBack: overrides.heldBack ?? 0, deadLettered: 0 }),
    lastProgressAt: () => NOW - (overrides.progressAgo ?? 0),
    fleetIdleMs: async () => overrides.fleetIdle ?? 0,
    waitingFor: () => overrides.waiting,
  }
}

t.test('health is ok with nothing eligible, even when no loop turned for long', async (t) => {
  const report = await healthReport([service({ progressAgo: STALL_AFTER * 10 })], NOW)
  t.equal(report.status, 'ok')
  t.match(report.text, /^queue_depth: eligible=0 held_back=0$/m)
  t.match(report.text, /^restarts: 0$/m)
})

t.test('health is stalled when work is eligible and no consumer of the fleet turns its loop', async (t) => {
  const report = await healthReport([service({ eligible: 5, heldBack: 2, progressAgo: STALL_AFTER + 1, fleetIdle: STALL_AFTER + 1 })], NOW, 3)
  t.equal(report.status, 'stalled')
  t.match(report.text, /^status: stalled$/m)
  t.match(report.text, /^queue_depth: eligible=5 held_back=2$/m, 'eligible and held back apart')
  t.match(report.text, /^restarts: 3$/m, 'with the restarts a supervisor counted')
})

t.test('health is waiting, not stalled, while a service holds its work for a dependency that is down', async (t) => {
  const report = await healthReport([service({ eligible: 40, progressAgo: STALL_AFTER * 4, fleetIdle: STALL_AFTER * 4, waiting: { what: 'database', since: NOW - 12_000 } })], NOW)
  t.equal(report.status, 'waiting')
  t.match(report.text, /service grouper: waiting eligible=40 held_back=0 dead_lettered=0 waiting_for=database down_for=12s/)
})
