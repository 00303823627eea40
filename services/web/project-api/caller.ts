/**
 * Who calls the project API, and for which project: a signed-in member by the dashboard's session
 * cookie, or a coding agent by the project's api key (Authorization: Bearer svc_ak_..., the tool
 * server's credential). A key answers only for its own project: any other project id is "not
 * found", as another person's project is for a session.
 */
import type { Db } from '../../../shared/db/index.js'
import type { KeyAuthenticator } from '../../../shared/key-auth.js'
import type { FixRequester } from '../../investigator/commands.js'
import { getWebSession } from '../accounts/web-sessions.js'
import { isUuid } from '../../../shared/domain/uuid.js'
import { getMemberProject } from '../projects/project-queries.js'
import { ProjectApiError } from './errors.js'

/** Seconds a client waits before retrying when a key cannot be checked. */
const KEY_CHECK_RETRY_SECONDS = 5

export interface Caller {
  projectId: string
  /** Who a fix it asks for is started by: a person's may open ready for review, an agent's only as a draft. */
  requester: FixRequester
  /** True for an api key: no cookie came, so no browser's cross-site post can be acting for it. */
  byKey: boolean
}

/** The credentials a request carried; read before the first await. */
export interface Credentials {
  sessionToken: string | undefined
  /** The Authorization header, '' when absent. */
  authorization: string
}

/**
 * The caller of a request about projectId, or ProjectApiError. A request with an Authorization
 * header is judged by it alone; otherwise by the session cookie.
 */
export async function projectCaller(deps: { db: Db; auth: KeyAuthenticator }, credentials: Credentials, projectId: string): Promise<Caller> {
  if (credentials.authorization !== '') {
    const match = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(credentials.authorization)
    const auth = await deps.auth.authenticate(match?.[1] ?? '', 'api')
    if (!auth.ok) {
      if (auth.code === 'key_check_unavailable') throw new ProjectApiError('unavailable', { retryAfter: KEY_CHECK_RETRY_SECONDS })
      throw new ProjectApiError(auth.code === 'key_missing' ? 'key_malformed' : auth.code)
    }
    if (!isUuid(projectId)) throw new ProjectApiError('invalid_id', { field: 'project_id' })
    if (projectId.toLowerCase() !== auth.projectId) throw new ProjectApiError('project_not_found')
    return { projectId: auth.projectId, requester: { trigger: 'agent', userId: null }, byKey: true }
  }
  const session = await getWebSession(deps.db, credentials.sessionToken)
  if (!session) throw new ProjectApiError('not_signed_in')
  if (!isUuid(projectId)) throw new ProjectApiError('invalid_id', { field: 'project_id' })
  const project = await getMemberProject(deps.db, session.user.id, projectId)
  if (!project) throw new ProjectApiError('project_not_found')
  return { projectId: project.id, requester: { trigger: 'manual', userId: session.user.id }, byKey: false }
}
