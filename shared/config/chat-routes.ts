/**
 * Which built-in chat plugin a webhook URL belongs to, known by its host: Slack's and Discord's
 * incoming webhooks live at fixed addresses. Any other URL goes to the plugin SVC_CHAT_PLUGIN
 * names. Pure and without imports, so the configuration can name the routed plugins too.
 */

/** A built-in chat plugin and the webhook URLs that belong to it. */
interface ChatRoute {
  readonly plugin: string
  /** Host names, lower case, without a trailing dot. */
  readonly hosts: readonly string[]
  /** The path a webhook of this tool has. */
  readonly path: RegExp
}

/** The routes, in order; the first that matches wins. */
export const CHAT_ROUTES: readonly ChatRoute[] = Object.freeze([
  { plugin: 'chat-slack', hosts: ['hooks.slack.com'], path: /^\// },
  // /api/webhooks/<id>/<token>, or with an API version (/api/v10/webhooks/…), as Discord also accepts.
  { plugin: 'chat-discord', hosts: ['discord.com', 'discordapp.com', 'ptb.discord.com', 'canary.discord.com'], path: /^\/api\/(?:v\d+\/)?webhooks\// },
])

/** The names of the plugins CHAT_ROUTES sends to, each loaded whatever SVC_CHAT_PLUGIN says. */
export const ROUTED_CHAT_PLUGINS: readonly string[] = Object.freeze([...new Set(CHAT_ROUTES.map((route) => route.plugin))])

/** The built-in plugin whose tool webhookUrl belongs to, or undefined for the configured fallback (any other or unparsable URL). */
export function chatRouteFor(webhookUrl: unknown): string | undefined {
  if (typeof webhookUrl !== 'string' || !URL.canParse(webhookUrl.trim())) return undefined
  const url = new URL(webhookUrl.trim())
  // URL lower-cases the host; a fully qualified name's trailing dot is the same host.
  const host = url.hostname.replace(/\.$/, '')
  return CHAT_ROUTES.find((route) => route.hosts.includes(host) && route.path.test(url.pathname))?.plugin
}
