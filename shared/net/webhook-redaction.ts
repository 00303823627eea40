/**
 * The last line of defence for webhook secrets: a chat webhook URL (Slack's, Discord's, a signed
 * webhook's) is a bearer credential (its path is the secret), so anything a chat plugin says about
 * a delivery passes through redactWebhook first, even though its messages are built without the URL.
 */

/** Parts shorter than this are not secret-bearing (e.g. "v1") and would mangle ordinary words. */
const MIN_PART = 3

/**
 * A path segment made only of lowercase letters and hyphens, and short, is a word of the address
 * ("services", "hooks", "redirect"), not a credential: redacting it would blank the same word out
 * of the message ("answered with a [redacted]"). Secrets are long or carry digits or capitals.
 */
const PLAIN_WORD = /^[a-z-]{1,15}$/

/** Replaces the URL, its path, query and every secret-looking path segment (raw and decoded) in text. */
export function redactWebhook(text: string, webhookUrl: string): string {
  const parts = new Set<string>([webhookUrl, webhookUrl.trim()])
  const addSegment = (segment: string): void => {
    if (!PLAIN_WORD.test(segment)) parts.add(segment)
  }
  if (URL.canParse(webhookUrl.trim())) {
    const url = new URL(webhookUrl.trim())
    parts.add(url.href).add(url.pathname).add(url.search).add(url.hash)
    for (const segment of url.pathname.split('/')) {
      addSegment(segment)
      addSegment(safeDecode(segment))
    }
  } else {
    // Not a URL, but it may still be one mistyped: redact its longer pieces (a secret is long;
    // short ones would only blank out ordinary words of the message).
    for (const segment of webhookUrl.split(/[/?#\s]+/)) if (segment.length >= 8) addSegment(segment)
  }
  let out = text
  // Longest first, so a segment inside the whole URL does not leave the rest of it behind.
  for (const part of [...parts].filter((p) => p.length >= MIN_PART).sort((a, b) => b.length - a.length)) {
    out = out.split(part).join('[redacted]')
  }
  return out
}

function safeDecode(segment: string): string {
  try {
    return decodeURIComponent(segment)
  } catch {
    return segment
  }
}
