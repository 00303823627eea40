/**
 * One chat plugin in front of several: each webhook URL goes to the built-in plugin of its chat
 * tool (chatRouteFor in chat-routes.ts) and any other URL to the plugin SVC_CHAT_PLUGIN names.
 * Projects keep one webhook URL and no plugin column: the URL says which tool it is. The loader
 * puts the router where plugins.chat is built, so every caller of chat.send (setup, the digester,
 * the alerter) gets it unchanged.
 */
import { chatRouteFor } from '../config/chat-routes.js'
import type { ChatPlugin } from './types.js'

/**
 * A chat plugin that sends each message through the routed plugin of its URL (byName, keyed by
 * plugin name) or through fallback. A route whose plugin is missing from byName falls back too.
 */
export function createChatRouter(byName: ReadonlyMap<string, ChatPlugin>, fallback: ChatPlugin): ChatPlugin {
  return {
    send(webhookUrl, message) {
      const name = chatRouteFor(webhookUrl)
      const plugin = (name === undefined ? undefined : byName.get(name)) ?? fallback
      return plugin.send(webhookUrl, message)
    },
  }
}
