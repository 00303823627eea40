/**
 * The browser behind a user agent string, as the issue page counts them: family and major version
 * ("Chrome 126"). A short hand-written rule list, not a user-agent database: the page needs to tell
 * the engines apart (their stacks and bugs differ), not every browser brand. Chromium-based brands
 * other than Edge (Opera, Samsung Internet, Brave) count as Chrome; so do Chrome's iOS builds,
 * which are WebKit underneath but say CriOS.
 */

export interface Browser {
  /** Chrome, Chromium, Edge, Firefox, Safari, WebKit, Other or Unknown. */
  family: string
  /** Major version as written, '' when the string has none. */
  major: string
}

// Order matters: Edge and Chrome on iOS carry "Safari/", Edge carries "Chrome/".
const RULES: ReadonlyArray<readonly [family: string, pattern: RegExp]> = [
  ['Edge', /\b(?:Edg|Edge|EdgA|EdgiOS)\/(\d+)/],
  ['Firefox', /\b(?:Firefox|FxiOS)\/(\d+)/],
  ['Chromium', /\bChromium\/(\d+)/],
  ['Chrome', /\b(?:HeadlessChrome|Chrome|CriOS)\/(\d+)/],
]

/** Longer strings are not user agents; reading them costs time for nothing. */
const MAX_LENGTH = 1024

/** The family and major version of a user agent string; never throws. */
export function browserOf(userAgent: unknown): Browser {
  if (typeof userAgent !== 'string' || userAgent.trim() === '') return { family: 'Unknown', major: '' }
  const text = userAgent.slice(0, MAX_LENGTH)
  for (const [family, pattern] of RULES) {
    const match = pattern.exec(text)
    if (match) return { family, major: match[1]! }
  }
  // AppleWebKit without any Chrome token: Safari when it says its version, else an embedded WebKit.
  if (/\bAppleWebKit\//.test(text)) {
    const version = /\bVersion\/(\d+)/.exec(text)
    return version ? { family: 'Safari', major: version[1]! } : { family: 'WebKit', major: '' }
  }
  return { family: 'Other', major: '' }
}

/** "Chrome 126", or the family alone when there is no version. */
export function browserLabel(userAgent: unknown): string {
  const { family, major } = browserOf(userAgent)
  return major ? `${family} ${major}` : family
}
