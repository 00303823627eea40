/**
 * The embeddings part of npm run bench:match: how many narratives a second the matcher's embedder
 * turns into vectors, with the configured CPU-bound plugin (embeddings-local unless configured
 * otherwise) in a piscina pool of 1 and of 2 threads, side by side in one run, plus what one
 * narrative costs alone (the matcher's usual call: a finding at a time) and the same work on the
 * calling thread without a pool, for scale.
 */
import { createEmbedder } from '../../services/matcher/embeddings/index.js'
import { loadConfig, readEnv, type Config } from '../../shared/config/index.js'
import { createLogger } from '../../shared/log.js'
import { loadEmbeddingsPlugin } from '../../shared/plugins/loader.js'
import type { EmbeddingsPlugin } from '../../shared/plugins/embeddings-types.js'
import { frictionNarratives, type Narrative } from './friction-narratives.js'

export interface EmbeddingsBenchOptions {
  readonly narratives: number
  readonly threads: readonly number[]
  /** Timed passes over all narratives per pool size; the median counts. */
  readonly rounds: number
  /** Single-narrative calls timed per pool size. */
  readonly singles: number
}

export interface EmbeddingsBenchResult {
  readonly model: string
  readonly narratives: number
  /** The note printed when the configured plugin is not CPU-bound and embeddings-local was measured instead. */
  readonly note: string | undefined
  /** Embeddings a second on the calling thread, no pool. */
  readonly inProcessPerSecond: number
  readonly pools: ReadonlyArray<{ readonly threads: number; readonly perSecond: number; readonly singleMedianMs: number }>
  /** Cosine similarity of pairs of narratives of the same problem and of different problems (a sample of 400). */
  readonly separation: Separation
  /** The same for the subjects of its rage and dead clicks (what matching embeds), by control: the same control, and other controls. */
  readonly controls: Separation
}

interface Separation {
  readonly samePercentile5: number
  readonly sameMedian: number
  readonly differentMedian: number
  readonly differentPercentile95: number
}

export const DEFAULT_EMBEDDINGS_BENCH: EmbeddingsBenchOptions = { narratives: 2000, threads: [1, 2], rounds: 7, singles: 200 }

const percentile = (values: number[], share: number): number => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(values.length * share))]!
const median = (values: number[]): number => percentile(values, 0.5)
const cosine = (a: readonly number[], b: readonly number[]): number => a.reduce((sum, value, i) => sum + value * b[i]!, 0)

/** The configuration measured: the environment's embeddings choice if it computes in-process, else embeddings-local. */
async function measuredConfig(threads: number): Promise<{ config: Config; note: string | undefined }> {
  const env = readEnv()
  const silent = createLogger('silent')
  const configured = loadConfig({ ...env, SVC_EMBEDDINGS_POOL_THREADS: String(threads) })
  const plugin = await loadEmbeddingsPlugin(configured, silent)
  if (plugin?.cpuBound === true) return { config: { ...configured, logLevel: 'silent' }, note: undefined }
  const local = loadConfig({ SVC_EMBEDDINGS_PLUGIN: 'embeddings-local', SVC_EMBEDDINGS_POOL_THREADS: String(threads) })
  const why = plugin === undefined ? 'embeddings are off (SVC_EMBEDDINGS_PLUGIN=none)' : `the configured plugin (${plugin.model}) calls an endpoint from the main thread`
  return { config: { ...local, logLevel: 'silent' }, note: `${why}; embeddings-local is measured instead` }
}

export async function benchEmbeddings(options: EmbeddingsBenchOptions = DEFAULT_EMBEDDINGS_BENCH): Promise<EmbeddingsBenchResult> {
  const narratives = frictionNarratives(options.narratives)
  const texts = narratives.map((narrative) => narrative.text)
  const silent = createLogger('silent')
  // Every pool and the bare plugin are started and warmed first (threads up, the plugin's code
  // compiled by the JIT in each), then timed in turns, round by round: a machine busy with
  // something else slows them alike instead of whichever ran last.
  const measured = await Promise.all(options.threads.map((threads) => measuredConfig(threads)))
  const note = measured[0]?.note
  const pools = await Promise.all(measured.map(async ({ config }) => (await createEmbedder(config, silent))!))
  const direct = (await loadEmbeddingsPlugin((await measuredConfig(1)).config, silent))!
  const runners = [...pools.map((pool) => (batch: readonly string[]) => pool.embed(batch)), (batch: readonly string[]) => direct.embed(batch)]
  try {
    for (const run of runners) await run(texts.slice(0, 500))
    const passes: number[][] = runners.map(() => [])
    for (let round = 0; round < options.rounds; round++) {
      for (const [index, run] of runners.entries()) {
        const start = performance.now()
        await run(texts)
        passes[index]!.push(performance.now() - start)
      }
    }
    const singles: number[][] = pools.map(() => [])
    for (let i = 0; i < options.singles; i++) {
      for (const [index, pool] of pools.entries()) {
        const start = performance.now()
        await pool.embed([texts[i % texts.length]!])
        singles[index]!.push(performance.now() - start)
      }
    }
    const perSecond = (index: number): number => texts.length / (median(passes[index]!) / 1000)
    const results = options.threads.map((threads, index) => ({ threads, perSecond: perSecond(index), singleMedianMs: median(singles[index]!) }))
    return { model: pools[0]!.model, narratives: texts.length, note, inProcessPerSecond: perSecond(pools.length), pools: results, separation: await separation(direct, narratives), controls: await controlSeparation(direct, narratives) }
  } finally {
    await Promise.all(pools.map((pool) => pool.close()))
  }
}

/** How far apart the vectors put one problem's narratives and different problems' (what a match threshold works with). */
async function separation(direct: EmbeddingsPlugin, narratives: readonly Narrative[]): Promise<Separation> {
  const sample = narratives.slice(0, 400)
  return pairs(await direct.embed(sample.map((narrative) => narrative.text)), sample.map((narrative) => narrative.problem))
}

/** How far apart the subjects of rage and dead clicks put one control and other controls (narratives put every control of a screen near). */
async function controlSeparation(direct: EmbeddingsPlugin, narratives: readonly Narrative[]): Promise<Separation> {
  const sample = narratives.filter((narrative) => narrative.control !== undefined).slice(0, 400)
  return pairs(await direct.embed(sample.map((narrative) => narrative.subject)), sample.map((narrative) => narrative.control!))
}

function pairs(vectors: readonly number[][], groups: readonly string[]): Separation {
  const same: number[] = []
  const different: number[] = []
  for (let i = 0; i < vectors.length; i++) {
    for (let j = i + 1; j < vectors.length; j++) (groups[i] === groups[j] ? same : different).push(cosine(vectors[i]!, vectors[j]!))
  }
  return { samePercentile5: percentile(same, 0.05), sameMedian: median(same), differentMedian: median(different), differentPercentile95: percentile(different, 0.95) }
}

/** The part's lines for the report. */
export function formatEmbeddingsBench(result: EmbeddingsBenchResult): string[] {
  const rate = (perSecond: number): string => `${Math.round(perSecond).toLocaleString('en-US')} embeddings/s`
  const lines = [`embeddings: ${result.model}, ${result.narratives.toLocaleString('en-US')} friction narratives a pass (median of the passes)`]
  if (result.note) lines.push(`  (${result.note})`)
  const base = result.pools[0]?.perSecond
  for (const pool of result.pools) {
    const scale = base === undefined || pool === result.pools[0] ? '' : ` (${(pool.perSecond / base).toFixed(2)}× the ${result.pools[0]!.threads}-thread pool)`
    lines.push(`  pool of ${pool.threads} thread${pool.threads === 1 ? '' : 's'}: ${rate(pool.perSecond)}${scale}; one narrative alone ${pool.singleMedianMs.toFixed(2)} ms (median)`)
  }
  lines.push(`  same plugin on the calling thread, no pool: ${rate(result.inProcessPerSecond)}`)
  const { samePercentile5, sameMedian, differentMedian, differentPercentile95 } = result.separation
  lines.push(`  cosine similarity, 400 narratives: same problem median ${sameMedian.toFixed(2)} (5th percentile ${samePercentile5.toFixed(2)}); different problems median ${differentMedian.toFixed(2)} (95th percentile ${differentPercentile95.toFixed(2)})`)
  const c = result.controls
  lines.push(`  cosine similarity, 400 subjects of rage and dead clicks (what matching embeds): same control median ${c.sameMedian.toFixed(2)} (5th percentile ${c.samePercentile5.toFixed(2)}); other controls median ${c.differentMedian.toFixed(2)} (95th percentile ${c.differentPercentile95.toFixed(2)})`)
  return lines
}
