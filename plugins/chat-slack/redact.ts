/**
 * The last line of defence for webhook secrets: a Slack incoming-webhook URL is a bearer
 * credential (its path is the secret), so anything this plugin says about a delivery passes
 * through redactWebhook first, even though its messages are built without the URL.
 */

/** Parts shorter than this are not secret-bearing (e.g. "v1") and would mangle ordinary words. */
const MIN_PART = 3

/** Replaces the URL, its path, query and every path segment (raw and decoded) in text. */
export function redactWebhook(text: string, webhookUrl: string): string {
  const parts = new Set<string>([webhookUrl, webhookUrl.trim()])
  if (URL.canParse(webhookUrl.trim())) {
    const url = new URL(webhookUrl.trim())
    parts.add(url.href).add(url.pathname).add(url.search).add(url.hash)
    for (const segment of url.pathname.split('/')) {
      parts.add(segment)
      parts.add(safeDecode(segment))
    }
  } else {
    // Not a URL, but it may still be one mistyped: redact its longer pieces (a secret is long;
    // short ones would only blank out ordinary words of the message).
    for (const segment of webhookUrl.split(/[/?#\s]+/)) if (segment.length >= 8) parts.add(segment)
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
