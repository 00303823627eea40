/**
 * The signing secret of the generic signed chat webhook (chat-webhook), in the Standard Webhooks
 * form `whsec_<base64>`: checked by the configuration (naming SVC_CHAT_WEBHOOK_SECRET) and again by
 * the plugin, so a malformed secret stops start-up instead of signing with a key no receiver has.
 * Messages never repeat the value.
 */

/** How to make a secret, for messages and docs. */
export const MAKE_WEBHOOK_SECRET = 'Make one with: echo "whsec_$(openssl rand -base64 32)"'

/** Standard Webhooks keeps secrets between 24 and 64 bytes; shorter is guessable, longer is refused by some receivers. */
const MIN_BYTES = 24
const MAX_BYTES = 64

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/

/** What is wrong with secret, in words without its value, or undefined when it is a usable whsec_ secret. */
export function webhookSecretProblem(secret: string): string | undefined {
  if (!secret.startsWith('whsec_')) return `must be whsec_ followed by base64 (the Standard Webhooks form). ${MAKE_WEBHOOK_SECRET}`
  const encoded = secret.slice('whsec_'.length)
  if (encoded === '' || !BASE64.test(encoded)) return `must be whsec_ followed by standard base64 (A-Z, a-z, 0-9, + and /, padded with =). ${MAKE_WEBHOOK_SECRET}`
  const bytes = Buffer.from(encoded, 'base64').length
  if (bytes < MIN_BYTES || bytes > MAX_BYTES) return `holds ${bytes} bytes after whsec_; Standard Webhooks secrets are ${MIN_BYTES} to ${MAX_BYTES} bytes. ${MAKE_WEBHOOK_SECRET}`
  return undefined
}
