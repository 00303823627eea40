/**
 * Groups the recorded corpus (test/fixtures/grouping-corpus) the way the grouper does: frames
 * parsed, symbolicated against the corpus's own maps (by debug id, else release and URL path, as
 * uploaded maps are found), then fingerprinted. Shared by npm run bench:grouping and its test.
 */
import { CURRENT_GROUPING_VERSION, groupEvent, isFetchFailure, lastFailedRequest, parseFrames, type GroupingResult, type StackFrame } from '../../services/grouper/grouping/index.js'
import { Symbolicator, type MapSource } from '../../services/grouper/symbolication/symbolicator.js'
import { normalizeSourcePath } from '../../shared/domain/source-path.js'
import type { Corpus, CorpusEvent } from '../../test/fixtures/grouping-corpus/corpus.js'

const PROJECT = '00000000-0000-4000-8000-00000000c0c0'

/** The corpus's maps, found as the service finds uploaded ones. */
export function corpusMaps(corpus: Corpus): MapSource {
  return {
    hasMaps: async () => true,
    byDebugId: async (_project, debugId) => corpus.maps.find((map) => map.debugId === debugId)?.mapText,
    byUrlPath: async (_project, release, path) => corpus.maps.find((map) => map.release === release && map.path === path)?.mapText,
  }
}

export interface GroupedEvent {
  event: CorpusEvent
  result: GroupingResult
  /** The frame the fingerprint keyed on, when the event has in-app frames. */
  site: StackFrame | undefined
}

/** Groups every event of the corpus with the given version (default: the current one). */
export async function groupCorpus(corpus: Corpus, version: number = CURRENT_GROUPING_VERSION): Promise<GroupedEvent[]> {
  const symbolicator = new Symbolicator(corpusMaps(corpus))
  const out: GroupedEvent[] = []
  for (const event of corpus.events) {
    const { error, context, release, debug_ids: debugIds } = event.body
    const failedRequest = isFetchFailure(error.message) ? lastFailedRequest(event.body.breadcrumbs) : undefined
    const input = { type: error.type, message: error.message, stack: error.stack, url: context.url, thrown: (error as { thrown?: string }).thrown, failedRequest }
    const frames = await symbolicator.symbolicate({ projectId: PROJECT, release, frames: parseFrames(input), debugIds })
    const result = groupEvent({ ...input, frames, statementOf: symbolicator.statementOf }, version)
    out.push({ event, result, site: result.site })
  }
  return out
}

/**
 * True when the throw site maps to the file the defect lives in: a defect label reads
 * "<file>.<function>/<what>", and the site's original file must be src/<file>.ts.
 */
export function siteMappedRight(grouped: GroupedEvent): boolean {
  const file = grouped.event.defect.split('.', 1)[0]!
  return grouped.site?.original !== undefined && normalizeSourcePath(grouped.site.original.file) === `src/${file}.ts`
}
