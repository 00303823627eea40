#!/usr/bin/env node
/**
 * The reference agent's whole flow as a command, so tests can check what a real agent process
 * prints and passes: register, hand over auth_url, wait for approval, send a test error, wait for
 * has_events, attach the repository, connect chat, report progress, complete.
 *
 *   node --import tsx test/agent-client/run.ts --base URL --dir DIR --project NAME --agent NAME
 *        [--repo owner/repo] [--webhook-file FILE] [--delay-scale 0.01] [--skip-event]
 *
 * Secrets never appear in arguments: the webhook URL is read from a file, keys and token live in
 * DIR. Exit codes: 0 completed, 3 complete answered 422 (back to verification), 4 stopped.
 */
import { parseArgs } from 'node:util'
import { AgentClient, ClientStop } from './client.js'

const { values } = parseArgs({
  options: {
    base: { type: 'string' },
    dir: { type: 'string' },
    project: { type: 'string', default: 'My app' },
    agent: { type: 'string', default: 'reference-agent' },
    repo: { type: 'string', default: '' },
    'webhook-file': { type: 'string' },
    'delay-scale': { type: 'string', default: '1' },
    'skip-event': { type: 'boolean', default: false },
  },
})
if (!values.base || !values.dir) {
  process.stderr.write('usage: run.ts --base URL --dir DIR [--project NAME] [--agent NAME] [--repo owner/repo] [--webhook-file FILE]\n')
  process.exit(2)
}
const say = (line: string): void => void process.stdout.write(`${line}\n`)
const client = new AgentClient({ baseUrl: values.base, dir: values.dir, delayScale: Number(values['delay-scale']), say })

try {
  const authUrl = await client.register({ projectName: values.project, agentName: values.agent, gitRemote: values.repo })
  say(`approve here: ${authUrl}`)
  const project = await client.waitForApproval()
  say(`approved: project ${project.projectName} (${project.projectId}); keys saved to ${client.keysFile}`)
  await client.progress('install_sdk', 'done', 'installed @svc/sdk and set VITE_SVC_API_KEY')
  if (!values['skip-event']) {
    await client.sendTestError()
    say('sent a test error')
    const facts = await client.waitForFirstEvent()
    say(`has_events: ${String(facts.has_events)}`)
  }
  if (values.repo) {
    const attached = await client.attach(values.repo)
    if (attached.status === 200) say(`attached ${values.repo}`)
    else {
      say(`attach answered ${attached.status} ${String(attached.body.code ?? '')}: ${String(attached.body.message ?? attached.body.error ?? '')}`)
      await client.progress('codehost', 'failed', String(attached.body.code ?? attached.status))
    }
  } else await client.progress('codehost', 'skipped', 'no repository on the code host')
  if (values['webhook-file']) {
    const chat = await client.connectChat(values['webhook-file'])
    say(chat.ok ? 'chat connected' : `chat refused: ${chat.error ?? ''}`)
    if (!chat.ok) await client.progress('chat', 'failed', chat.error ?? '')
  } else await client.progress('chat', 'skipped', 'no chat webhook given')
  await client.progress('mcp', 'skipped', 'not requested')
  if (await client.complete()) {
    say('setup complete')
    process.exit(0)
  }
  say('complete answered 422: no event has arrived yet; back to verification (files intact)')
  process.exit(3)
} catch (error) {
  if (error instanceof ClientStop) {
    say(`stopped: ${error.message}`)
    process.exit(4)
  }
  throw error
}
