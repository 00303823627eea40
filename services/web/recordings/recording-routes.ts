/**
 * The recording pages (docs/recordings.md, "Replay"): a project's recordings list, one session's
 * page with its replay, and the replay's scripts and styles under /assets/. The replay's events are
 * read through the project API (project-api/recording-routes.ts). Access is the issue pages': the
 * project's owner only, and another project's recording is "not found".
 */
import type uWS from 'uWebSockets.js'
import { exchange, sendText } from '../../../shared/http/exchange.js'
import { ObjectStoreUnavailable } from '../../../shared/object-store.js'
import type { DashboardDeps } from '../http/deps.js'
import { ownProject } from '../projects/own-project.js'
import { PLAYER_SCRIPT_PATH, PLAYER_STYLESHEET_PATH, REPLAY_SCRIPT_PATH, replayAsset } from './recording-assets.js'
import { walkChunks } from '../../recorder/read/chunks.js'
import { getMarkedIssues, getRecording, listChunks, listRecordings, MAX_LIST_PAGE, type RecordingFilters } from '../../recorder/read/recordings.js'
import { TimelineBuilder } from '../../recorder/read/timeline.js'
import { PageError, REPLAY_PAGE_POLICY, sendAsset, sendPage } from '../http/respond.js'
import { getPage } from '../http/route.js'
import { recordingPage, type RecordingPageData } from './views/recording-page.js'
import { recordingsPage } from './views/recordings.js'

const NO_RECORDING = (): PageError => new PageError(404, 'Not found', 'This project has no such recording (recordings are kept 30 days). Pick one from its recordings list.')
/** Characters of a filter kept: enough for any user id or path worth typing. */
const FILTER_TEXT = 200

/** Registers the list, the session page and the replay's assets. */
export function registerRecordingRoutes(app: uWS.TemplatedApp, deps: DashboardDeps): void {
  const db = deps.setup.db

  for (const path of [PLAYER_SCRIPT_PATH, PLAYER_STYLESHEET_PATH, REPLAY_SCRIPT_PATH]) {
    app.get(path, (res) => {
      const ex = exchange(res)
      try {
        const asset = replayAsset(path)
        sendAsset(ex, asset.contentType, asset.body)
      } catch (error) {
        // rrweb-player not installed (npm ci skipped it?): the page says the player did not load.
        deps.log.error('replay asset unreadable', { path, error })
        sendText(ex, 500, 'The replay player is not installed with the service. Run npm ci, then restart.\n', 'text/plain; charset=utf-8')
      }
    })
  }

  getPage(app, deps, '/projects/:id/recordings', async (ctx) => {
    const owned = await ownProject(deps, ctx)
    if (!owned) return
    const { query } = ctx.request
    const filters: RecordingFilters = { user: (query.get('user') ?? '').slice(0, FILTER_TEXT), page: (query.get('page') ?? '').slice(0, FILTER_TEXT), hasError: query.get('errors') === '1' }
    const asked = Number(query.get('p') ?? '1')
    const page = Number.isInteger(asked) && asked >= 1 ? Math.min(asked, MAX_LIST_PAGE) : 1
    const list = await listRecordings(db, owned.project.id, filters, page)
    sendPage(ctx.ex, 200, recordingsPage(ctx.viewer, owned.project, { filters, page, ...list }))
  })

  getPage(app, deps, '/projects/:id/recordings/:recording_id', async (ctx) => {
    const owned = await ownProject(deps, ctx)
    if (!owned) return
    const recording = await getRecording(db, owned.project.id, ctx.request.params[1]!)
    if (!recording) throw NO_RECORDING()
    const told = await tell(deps, owned.project.id, recording.id)
    const eventIds = told ? told.timeline.items.flatMap((item) => (item.kind === 'error' && item.eventId ? [item.eventId] : [])) : []
    const at = /^\d{1,15}$/.test(ctx.request.query.get('at') ?? '') ? Number(ctx.request.query.get('at')) : undefined
    const data: RecordingPageData = { recording, told, issues: await getMarkedIssues(db, owned.project.id, eventIds), at }
    sendPage(ctx.ex, 200, recordingPage(ctx.viewer, owned.project, data), { policy: REPLAY_PAGE_POLICY })
  })
}

/** The recording's timeline from its chunks; undefined when the object store cannot be read (the page says so). */
async function tell(deps: DashboardDeps, projectId: string, recordingId: string): Promise<RecordingPageData['told']> {
  const builder = new TimelineBuilder()
  try {
    const walk = await walkChunks(deps.objects, await listChunks(deps.setup.db, projectId, recordingId), (events) => builder.add(events))
    return { timeline: builder.finish(), walk }
  } catch (error) {
    if (!(error instanceof ObjectStoreUnavailable)) throw error
    deps.log.warn('recording timeline unavailable: object store down', { project_id: projectId, recording_id: recordingId, error: error.message })
    return undefined
  }
}
