/** URLs leave the page without credentials: no user:password, no values of secret-looking parameters. */

const SECRET_NAME = /(token|key|secret|pass|auth|session|code|sig|jwt|credential|bearer)/i

/** The URL with userinfo removed and the values of secret-looking query and fragment parameters masked. */
export function stripUrl(raw: string, base = typeof location === 'undefined' ? undefined : location.href): string {
  let url: URL
  try {
    url = new URL(raw, base)
  } catch {
    return raw.split(/[?#]/, 1)[0] ?? ''
  }
  url.username = ''
  url.password = ''
  for (const name of Array.from(url.searchParams.keys())) {
    if (SECRET_NAME.test(name)) url.searchParams.set(name, '[redacted]')
  }
  if (url.hash.includes('=')) {
    const params = new URLSearchParams(url.hash.slice(1))
    for (const name of Array.from(params.keys())) if (SECRET_NAME.test(name)) params.set(name, '[redacted]')
    url.hash = params.toString()
  }
  return url.toString()
}
