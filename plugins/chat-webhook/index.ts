/**
 * chat-webhook: a generic signed webhook any tool can consume. Each message is a JSON POST
 * ({ version, type: "message", text, sent_at }) signed by the Standard Webhooks scheme with the
 * standardwebhooks package: headers webhook-id, webhook-timestamp and webhook-signature
 * (v1,<base64 HMAC-SHA256 of "id.timestamp.body">), verifiable by any Standard Webhooks library
 * or by hand (docs/chat-webhooks.md). Requests go through the guarded fetch (shared/net) as
 * chat-slack's do: no private or local addresses unless allowPrivateAddresses, no redirects.
 */
import { Webhook } from 'standardwebhooks'
import { ALLOW_PRIVATE_ADDRESSES, webhookChat } from '../../shared/plugins/chat-webhook-kit.js'
import type { ChatPlugin, PluginModule } from '../../shared/plugins/types.js'
import { webhookSecretProblem } from '../../shared/config/webhook-secret.js'
import { deliver } from './deliver.js'

/** Settings after the loader applied the schema's defaults. */
interface WebhookSettings {
  readonly allowPrivateAddresses: boolean
  readonly secret: string
}

const configSchema = {
  type: 'object',
  properties: {
    allowPrivateAddresses: ALLOW_PRIVATE_ADDRESSES,
    secret: {
      // Its form is checked by create(), whose message says how to make one; a schema pattern could not.
      type: 'string',
      description: 'The signing secret receivers verify with, whsec_<base64 of 24 to 64 random bytes> (Standard Webhooks form).',
    },
  },
  required: ['secret'],
  additionalProperties: false,
} as const

/** The plugin module the loader imports: manifest plus factory. */
const plugin: PluginModule<'chat'> = {
  manifest: { name: 'chat-webhook', kind: 'chat', version: '1.0.0', configSchema },
  create(settings, context): ChatPlugin {
    const { allowPrivateAddresses, secret } = settings as unknown as WebhookSettings
    const problem = webhookSecretProblem(secret)
    // The value is never in the message: it is the key every receiver trusts.
    if (problem !== undefined) throw new Error(`the secret (SVC_CHAT_WEBHOOK_SECRET) ${problem}`)
    const webhook = new Webhook(secret)
    return webhookChat('chat-webhook', context, allowPrivateAddresses, (fetch, url, text) => deliver(fetch, webhook, url, text, allowPrivateAddresses))
  },
}

export default plugin
