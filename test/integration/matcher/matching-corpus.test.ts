/**
 * The matching corpus (test/fixtures/matching-corpus) through the scan, matching and checks on a
 * real PostgreSQL with pgvector: 55 sessions recorded in Chromium on a shop of four screens, dead,
 * throwing and working controls, and a release that reworded or re-identified some of them. No
 * finding may join, and no check may be confirmed by, a known problem of another control; the
 * decisions must be those of golden.json.
 */
import t, { type Test } from 'tap'
import { createDb } from '../../../shared/db/index.js'
import { migrate } from '../../../shared/db/migrate.js'
import { createOrm } from '../../../shared/db/orm.js'
import { EMBEDDING_DIMENSIONS } from '../../../shared/plugins/embeddings-types.js'
import { runMatchingCorpus, type CorpusDeps, type CorpusRun } from '../../../bench/match/corpus.js'
import { scoreMatching } from '../../../bench/match/corpus-score.js'
import { MATCHER_ENTITIES } from '../../../services/matcher/store/entities.js'
import { CONTROLS, loadCorpus } from '../../fixtures/matching-corpus/corpus.js'
import { compareGolden, goldenOf, readGolden } from '../../fixtures/matching-corpus/golden.js'
import { createTestDatabase } from '../../helpers/stack.js'

const corpus = loadCorpus()

async function corpusDeps(t: Test): Promise<CorpusDeps> {
  const db = createDb(await createTestDatabase(t), { max: 4 })
  t.teardown(() => db.close())
  await migrate(db)
  const orm = await createOrm(db, MATCHER_ENTITIES)
  t.teardown(() => orm.close())
  return { db, orm }
}

/** The known problems a control's findings went to, by the key of the finding that opened each. */
function knownProblemsOf(run: CorpusRun, control: string, kind: string): string[] {
  return [...new Set(run.decisions.filter((d) => d.problem === `${control} ${kind}`).map((d) => d.ticket!))]
}

t.test('with the local embedder no two controls share a known problem, and every check is of its own control', async (t) => {
  const run = await runMatchingCorpus(await corpusDeps(t), corpus)
  const score = scoreMatching(run)
  const notes = score.notes.join('\n')
  t.equal(score.unaccounted, 0, `every finding is one a shopper's action made:\n${notes}`)
  t.equal(score.mergesAcrossControls, 0, `no finding joined another control's known problem:\n${notes}`)
  t.equal(score.merges, 0, `nor another problem's of its own control:\n${notes}`)
  t.equal(score.checks.confirmedByAnotherControl, 0, `no check was confirmed by another control's finding:\n${notes}`)
  t.equal(score.checks.confirmedWrong, 0, 'nor by another problem of its control')
  t.equal(score.checks.refutedWrong, 0, 'and none refuted on a recording that showed the problem')

  t.same(knownProblemsOf(run, 'checkout.pay', 'rage_click').length, 1, "the issue's Pay: one known problem for both releases' wording")
  const saveCard = knownProblemsOf(run, 'checkout.save-card', 'rage_click')
  t.equal(saveCard.length, 1, 'Save card: one known problem of its own, across its new id')
  t.notSame(saveCard, knownProblemsOf(run, 'checkout.pay', 'rage_click'), "and not Pay's")
  for (const control of CONTROLS.filter((c) => c.change === 'text' || c.change === 'id')) {
    for (const kind of ['rage_click', 'dead_click', 'error_after_click']) {
      const opened = knownProblemsOf(run, control.name, kind)
      if (opened.length > 0) t.equal(opened.length, 1, `${control.name} (${control.change} changed): its ${kind}s are one known problem`)
    }
  }
  t.equal(knownProblemsOf(run, 'cart.close-banner', 'dead_click').length, 2, 'the banner button that changed both its label and its id is a new control: a split, never a guess')

  const golden = readGolden()
  if (!golden) t.fail('golden.json is missing: node --import tsx test/fixtures/matching-corpus/write-golden.ts')
  else t.same(compareGolden(golden, goldenOf(run)), [], 'every decision and check is as golden.json has it')
})

t.test('with an embedder that finds every text the same, the target alone still keeps the controls apart', async (t) => {
  const same = Array.from({ length: EMBEDDING_DIMENSIONS }, (_, i) => (i === 0 ? 1 : 0))
  const run = await runMatchingCorpus({ ...(await corpusDeps(t)), embedder: { model: 'test:all-the-same', embed: async (texts) => texts.map(() => [...same]) } }, corpus)
  const score = scoreMatching(run)
  t.equal(score.mergesAcrossControls, 0, `nearness cannot merge two controls:\n${score.notes.join('\n')}`)
  t.equal(score.checks.confirmedByAnotherControl, 0, 'nor confirm one with another')
})
