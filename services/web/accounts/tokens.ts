/**
 * Random tokens for cookies and forms. A sign-in token is 256 random bits, so a plain SHA-256 is
 * enough to store it: the database alone never lets anybody present a cookie.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto'

/** 256 random bits, base64url: safe in a cookie, a form field and a URL. */
export function randomToken(): string {
  return randomBytes(32).toString('base64url')
}

/** SHA-256 of a token, as stored. */
export function hashToken(token: string): Buffer {
  return createHash('sha256').update(token).digest()
}

/** SHA-256 of text as base64url, for values that travel in URLs (the OAuth state). */
export function digestText(text: string): string {
  return createHash('sha256').update(text).digest('base64url')
}

/** Compares two tokens in constant time; an empty one never matches. */
export function sameToken(a: string, b: string): boolean {
  // Hashing first makes both sides 32 bytes, so the length of the expected value does not leak either.
  return a.length > 0 && b.length > 0 && timingSafeEqual(hashToken(a), hashToken(b))
}
