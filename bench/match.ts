/**
 * npm run bench:match: the matcher's costs, part by part, in one run. Each part is a module of
 * its own that measures and formats (bench/match-<part>.ts); this file runs them in order and
 * prints their lines. Parts: embeddings (bench/match/embeddings.ts), one matching decision's p99
 * with 10,000 known problems in the environment (bench/match/decision.ts), and the matching
 * corpus's decisions scored against its ground truth: joins right, splits, merges and the checks
 * (bench/match/corpus.ts, test/fixtures/matching-corpus).
 */
import { availableParallelism, loadavg } from 'node:os'
import { runMatchCorpusBench } from './match/corpus.js'
import { runMatchDecisionBench } from './match/decision.js'
import { benchEmbeddings, formatEmbeddingsBench } from './match/embeddings.js'

/** One part of the bench: a name for the heading, and its run that answers the lines to print. */
interface BenchPart {
  readonly name: string
  run(): Promise<string[]>
}

const PARTS: readonly BenchPart[] = [
  { name: 'embeddings', run: async () => formatEmbeddingsBench(await benchEmbeddings()) },
  { name: 'matching decision', run: runMatchDecisionBench },
  { name: 'matching corpus', run: runMatchCorpusBench },
]

// Figures from a machine busy with other work are not comparable: the load says how busy it was.
console.log(`machine: ${availableParallelism()} cores, load average ${loadavg()[0]!.toFixed(2)} at the start`)
for (const part of PARTS) {
  const start = performance.now()
  for (const line of await part.run()) console.log(line)
  console.log(`  (${part.name} part took ${((performance.now() - start) / 1000).toFixed(1)} s)`)
}
