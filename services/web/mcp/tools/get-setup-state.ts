/**
 * Tool get_setup_state: the project's setup as facts (the spec's state facts, for the project as a
 * whole rather than one setup session) and the steps its latest setup session recorded. The facts
 * are readProjectFacts', the same read as the session's state endpoint and the dashboard's, and a
 * step whose fact is true is done, as the state endpoint reports it (stepsOf).
 */
import { latestSessionOf, readRecordedSteps, stepsOf } from '../../setup/facts.js'
import { projectLinks, readProjectFacts } from '../../setup/project-facts.js'
import { defineTool } from '../tool.js'

export const getSetupState = defineTool('mcp-get-setup-state.json', {
  name: 'get_setup_state',
  title: 'Get the setup state',
  description:
    'Reads how far the project is set up: whether errors arrived (has_events), the browser SDK was seen, the repository is attached and the code host app installed, chat is connected (chat_error says why it broke when the chat refused the digest), source maps were uploaded, and each setup step as the latest setup session recorded it (a step whose fact is true is done). Includes the dashboard links.',
  readOnly: true,
  async run(ctx) {
    const setup = await readProjectFacts(ctx.db, ctx.baseUrl, ctx.projectId, null)
    // The key's project exists while the key verifies (keys go with their project).
    if (!setup) throw new Error(`project ${ctx.projectId} of a verified key is gone`)
    const session = await latestSessionOf(ctx.db, ctx.projectId)
    const steps = stepsOf(setup.facts, session ? await readRecordedSteps(ctx.db, session.id) : [])
    return {
      project: { id: ctx.projectId, ...projectLinks(ctx.baseUrl, ctx.projectId), untrusted: { name: setup.name } },
      facts: setup.facts,
      setup_session: session ? { status: session.status } : null,
      steps: Object.fromEntries(Object.entries(steps).map(([step, { status, note }]) => [step, { status, untrusted: { note } }])),
    }
  },
})
