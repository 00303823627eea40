/**
 * GET /api/v1/projects/:project_id/recordings/:recording_id/events: a recording's rrweb events, in
 * seq order, for the dashboard's replay (its boot script fetches them with the session cookie) and
 * for any other reader of the project API. Capped at REPLAY_CAP_BYTES of events; the answer says
 * where the cap fell and which chunks could not be read. Gzipped when the client takes gzip: rrweb
 * events shrink about tenfold.
 */
import { promisify } from 'node:util'
import { gzip } from 'node:zlib'
import type uWS from 'uWebSockets.js'
import { exchange, statusLine, type Exchange } from '../../../shared/http/exchange.js'
import { ObjectStoreUnavailable, type ObjectStore } from '../../../shared/object-store.js'
import { cookieName, parseCookies } from '../http/cookies.js'
import { isUuid } from '../../../shared/domain/uuid.js'
import { replayJson } from '../../recorder/read/replay.js'
import { getRecording, listChunks } from '../../recorder/read/recordings.js'
import { ProjectApiError } from './errors.js'
import { projectCaller } from './caller.js'
import { answer, type ProjectApiDeps } from './routes.js'

const gzipAsync = promisify(gzip)

/** Seconds a client waits before asking again when the object store is down. */
const STORE_RETRY_SECONDS = 10

/** What the project API needs to read recordings: the object store the chunks are in. */
export interface RecordingApiDeps extends ProjectApiDeps {
  objects: ObjectStore
}

/** Registers the recording events read. */
export function registerRecordingApiRoutes(app: uWS.TemplatedApp, deps: RecordingApiDeps): void {
  app.get('/api/v1/projects/:project_id/recordings/:recording_id/events', (res, req) => {
    const ex = exchange(res)
    const projectId = req.getParameter(0) ?? ''
    const recordingId = req.getParameter(1) ?? ''
    const credentials = { sessionToken: parseCookies(req.getHeader('cookie')).get(cookieName('session', deps.secureCookies)), authorization: req.getHeader('authorization') }
    const acceptsGzip = /\bgzip\b/i.test(req.getHeader('accept-encoding'))
    deps.track(
      answer(ex, deps.log, async () => {
        const project = { id: (await projectCaller(deps, credentials, projectId)).projectId }
        if (!isUuid(recordingId)) throw new ProjectApiError('invalid_id', { field: 'recording_id' })
        const recording = await getRecording(deps.db, project.id, recordingId)
        if (!recording) throw new ProjectApiError('recording_not_found')
        let body: string
        try {
          body = await replayJson(deps.objects, recording.id, await listChunks(deps.db, project.id, recording.id))
        } catch (error) {
          if (error instanceof ObjectStoreUnavailable) throw new ProjectApiError('objectstore_unavailable', { retryAfter: STORE_RETRY_SECONDS })
          throw error
        }
        sendJson(ex, acceptsGzip ? await gzipAsync(body) : body, acceptsGzip)
      }),
    )
  })
}

/** A 200 JSON answer that no cache keeps (it is one person's private data). */
function sendJson(ex: Exchange, body: string | Buffer, gzipped: boolean): void {
  if (ex.aborted) return
  ex.aborted = true
  ex.res.cork(() => {
    ex.res.writeStatus(statusLine(200))
    ex.res.writeHeader('Content-Type', 'application/json')
    ex.res.writeHeader('Cache-Control', 'no-store')
    ex.res.writeHeader('X-Content-Type-Options', 'nosniff')
    ex.res.writeHeader('Vary', 'Accept-Encoding')
    if (gzipped) ex.res.writeHeader('Content-Encoding', 'gzip')
    ex.res.end(body)
  })
}
