/**
 * node --import tsx bench/load/cpu-profile-top.ts <folder> [from-second] [to-second] [count]:
 * reads the .cpuprofile files that BENCH_CPU_PROF=<folder> npm run bench:ingest wrote (one per
 * ingress thread) and prints the functions with the most self time, then with the most inclusive
 * time, idle left out. from/to (seconds since each profile started) keep only a stretch, say one
 * accepted round; without them the whole run counts, start-up included. The profiler samples wall
 * time: on a loaded machine, time a thread waited for a core lands on whatever it was running.
 */
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'

interface ProfileNode {
  id: number
  callFrame: { functionName: string; url: string; lineNumber: number }
  children?: number[]
}
interface Profile {
  nodes: ProfileNode[]
  startTime: number
  samples: number[]
  timeDeltas: number[]
}

const [dir, from = '0', to = '1e9', count = '30'] = process.argv.slice(2)
if (!dir) {
  console.error('usage: cpu-profile-top.ts <folder> [from-second] [to-second] [count]')
  process.exit(2)
}
const self = new Map<string, number>()
const inclusive = new Map<string, number>()
let busy = 0
let idle = 0
const name = (node: ProfileNode): string => {
  const { functionName, url, lineNumber } = node.callFrame
  return `${functionName || '(anonymous)'} ${url.replace(/.*\/(node_modules\/|\.cache\/svc\/[^/]+\/)/, '')}:${lineNumber + 1}`
}
for (const file of readdirSync(dir).filter((f) => f.endsWith('.cpuprofile'))) {
  const profile = JSON.parse(readFileSync(join(dir, file), 'utf8')) as Profile
  const byId = new Map(profile.nodes.map((node) => [node.id, node]))
  const parent = new Map<number, number>()
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id)
  let at = profile.startTime
  profile.samples.forEach((id, i) => {
    const micros = profile.timeDeltas[i] ?? 0
    at += micros
    const second = (at - profile.startTime) / 1e6
    if (second < Number(from) || second >= Number(to) + 1) return
    const node = byId.get(id)!
    if (node.callFrame.functionName === '(idle)') return void (idle += micros)
    busy += micros
    self.set(name(node), (self.get(name(node)) ?? 0) + micros)
    const seen = new Set<string>()
    for (let up: number | undefined = id; up !== undefined; up = parent.get(up)) {
      const key = name(byId.get(up)!)
      if (seen.has(key)) continue
      seen.add(key)
      inclusive.set(key, (inclusive.get(key) ?? 0) + micros)
    }
  })
}
const top = (map: Map<string, number>): void => {
  for (const [key, micros] of [...map].sort((a, b) => b[1] - a[1]).slice(0, Number(count))) console.log(`${((100 * micros) / busy).toFixed(1).padStart(5)}%  ${key}`)
}
console.log(`busy ${(busy / 1e6).toFixed(2)} s, idle ${(idle / 1e6).toFixed(2)} s (every thread's profile summed)`)
console.log('-- self time')
top(self)
console.log('-- inclusive time')
top(inclusive)
