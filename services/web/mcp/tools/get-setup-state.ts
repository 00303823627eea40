/**
 * Tool get_setup_state: the project's setup as facts (the spec's state facts, for the project as a
 * whole rather than one setup session) and the steps its latest setup session recorded. A step
 * whose fact is true is done, as the session's state endpoint reports it.
 */
import { projectLinks, STEP_NAMES } from '../../setup/facts.js'
import { defineTool } from '../tool.js'

const STEP_FACTS: Readonly<Record<string, string>> = { first_event: 'has_events', codehost: 'codehost_connected', chat: 'chat_connected', sourcemaps: 'sourcemaps_uploaded' }

export const getSetupState = defineTool('mcp-get-setup-state.json', {
  name: 'get_setup_state',
  title: 'Get the setup state',
  description:
    'Reads how far the project is set up: whether errors arrived (has_events), the browser SDK was seen, the repository is attached and the code host app installed, chat is connected, source maps were uploaded, and each setup step as the latest setup session recorded it (a step whose fact is true is done). Includes the dashboard links.',
  readOnly: true,
  async run(ctx) {
    const { rows } = await ctx.db.query<{ name: string; codehost_repo: string; codehost_installed: boolean; codehost_connected: boolean; codehost_repo_access: string; chat_connected: boolean; sourcemaps_uploaded: boolean; sdk_seen: boolean; has_events: boolean; session_id: string | null; session_status: string | null }>(
      `SELECT p.name, p.codehost_repo, p.codehost_installation_id <> '' AS codehost_installed, p.codehost_repo_access,
              p.codehost_connected_at IS NOT NULL AND p.codehost_repo <> '' AS codehost_connected,
              p.chat_connected_at IS NOT NULL AS chat_connected, p.sourcemaps_uploaded_at IS NOT NULL AS sourcemaps_uploaded,
              p.sdk_seen_at IS NOT NULL AS sdk_seen, EXISTS (SELECT 1 FROM events e WHERE e.project_id = p.id) AS has_events,
              s.id AS session_id, s.status AS session_status
         FROM projects p
         LEFT JOIN LATERAL (SELECT id, status FROM setup_sessions WHERE project_id = p.id ORDER BY created_at DESC LIMIT 1) s ON true
        WHERE p.id = $1`,
      [ctx.projectId],
    )
    const project = rows[0]
    // The key's project exists while the key verifies (keys go with their project).
    if (!project) throw new Error(`project ${ctx.projectId} of a verified key is gone`)
    const recorded = project.session_id ? (await ctx.db.query<{ step: string; status: string; note: string }>('SELECT step, status, note FROM setup_steps WHERE session_id = $1', [project.session_id])).rows : []
    const facts = {
      has_events: project.has_events,
      sdk_seen: project.sdk_seen,
      codehost_connected: project.codehost_connected,
      codehost_installed: project.codehost_installed,
      codehost_repo: project.codehost_repo,
      codehost_repo_access: project.codehost_repo_access,
      chat_connected: project.chat_connected,
      sourcemaps_uploaded: project.sourcemaps_uploaded,
    }
    const steps = Object.fromEntries(
      STEP_NAMES.map((step) => {
        const row = recorded.find((r) => r.step === step)
        const fact = STEP_FACTS[step]
        const done = fact !== undefined && facts[fact as keyof typeof facts] === true
        return [step, { status: done ? 'done' : (row?.status ?? 'pending'), untrusted: { note: row?.note ?? '' } }]
      }),
    )
    return {
      project: { id: ctx.projectId, ...projectLinks(ctx.baseUrl, ctx.projectId), untrusted: { name: project.name } },
      facts,
      setup_session: project.session_id ? { status: project.session_status } : null,
      steps,
    }
  },
})
