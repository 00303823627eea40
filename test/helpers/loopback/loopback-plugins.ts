/**
 * The code host and chat plugins as the service loads them (through the loader, with GitHub's and
 * Slack's official clients), pointed at loopback servers that speak their wire protocols. Closed
 * with the test.
 */
import type { Logger } from '../../../shared/log.js'
import { createLogger } from '../../../shared/log.js'
import { loadPlugin } from '../../../shared/plugins/loader.js'
import type { ChatPlugin, CodehostPlugin } from '../../../shared/plugins/types.js'
import { startChatLoopback, type ChatLoopback } from './chat-loopback.js'
import { startGithubLoopback, type GithubLoopback } from './github-loopback.js'

interface Teardown {
  teardown(fn: () => unknown): void
}

export interface LoopbackPlugins {
  github: GithubLoopback
  chatReceiver: ChatLoopback
  /** Settings that point codehost-github at the loopback GitHub. */
  githubSettings: Record<string, unknown>
  codehost: CodehostPlugin
  /** chat-slack with private addresses allowed (the receiver is on 127.0.0.1). */
  chat: ChatPlugin
}

/** Starts both loopback servers and loads both plugins against them. */
export async function startLoopbackPlugins(t: Teardown, log: Logger = createLogger('silent')): Promise<LoopbackPlugins> {
  const github = await startGithubLoopback()
  const chatReceiver = await startChatLoopback()
  t.teardown(async () => {
    await github.close()
    await chatReceiver.close()
  })
  const githubSettings = { appId: github.appId, privateKey: github.privateKey, appSlug: github.appSlug, apiUrl: github.apiUrl, webUrl: github.webUrl }
  const codehost = await loadPlugin('codehost', 'codehost-github', githubSettings, { log })
  const chat = await loadPlugin('chat', 'chat-slack', { allowPrivateAddresses: true }, { log })
  return { github, chatReceiver, githubSettings, codehost, chat }
}
