/**
 * Engines word one error differently: V8 "Cannot read properties of undefined (reading 'x')",
 * SpiderMonkey "can't access property "x", a is undefined" or "a is undefined", JavaScriptCore
 * "undefined is not an object (evaluating 'a.x')". Where a fingerprint must fall back on the
 * message, it reads it in one wording, so one bug does not split by browser.
 */

interface Wording {
  pattern: RegExp
  canonical: string | ((match: RegExpExecArray) => string)
}

const WORDINGS: readonly Wording[] = [
  // Reading a property of undefined or null.
  { pattern: /^Cannot read propert(?:y|ies) of (undefined|null)\b.*$/s, canonical: (m) => `property of ${m[1]}` },
  { pattern: /^can't access property .*?, .* is (undefined|null)$/s, canonical: (m) => `property of ${m[1]}` },
  { pattern: /^(undefined|null) is not an object \(evaluating .*\)$/s, canonical: (m) => `property of ${m[1]}` },
  { pattern: /^Cannot set propert(?:y|ies) of (undefined|null)\b.*$/s, canonical: (m) => `property of ${m[1]}` },
  { pattern: /^[\w$.[\]()]+ is (undefined|null)$/s, canonical: (m) => `property of ${m[1]}` },
  // Calling what is not a function: JavaScriptCore adds "(In 'a.b()', 'a.b' is undefined)".
  // The property called survives minification ("n(...).track"); a bare callee name may not.
  { pattern: /^(.*?) is not a function\b.*$/s, canonical: (m) => `${calledProperty(m[1]!)} is not a function` },
  // An undeclared name.
  { pattern: /^Can't find variable: ([\w$]+)$/s, canonical: (m) => `${m[1]} is not defined` },
  // fetch() that never got an answer (V8, SpiderMonkey, JavaScriptCore).
  { pattern: /^(?:Failed to fetch|NetworkError when attempting to fetch resource\.?|Load failed)$/s, canonical: 'fetch failed' },
  // Too much recursion.
  { pattern: /^(?:Maximum call stack size exceeded|too much recursion)\.?$/s, canonical: 'stack overflow' },
]

/**
 * The error type as the engines agree on it: SpiderMonkey reports too much recursion as
 * InternalError where V8 and JavaScriptCore say RangeError.
 */
export function canonicalType(type: string, message: string): string {
  return type === 'InternalError' && /^too much recursion/.test(message.trim()) ? 'RangeError' : type
}

/** The message in one engine-neutral wording, or as given when no wording is known. */
export function canonicalMessage(message: string): string {
  const text = message.trim()
  for (const { pattern, canonical } of WORDINGS) {
    const match = pattern.exec(text)
    if (match) return typeof canonical === 'string' ? canonical : canonical(match)
  }
  return text
}

function calledProperty(callee: string): string {
  const dot = callee.lastIndexOf('.')
  const property = dot >= 0 ? callee.slice(dot + 1) : ''
  return /^[\w$]+$/.test(property) ? `.${property}` : '<callee>'
}
