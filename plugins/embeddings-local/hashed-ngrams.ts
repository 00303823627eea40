/**
 * A weights-free text embedding (local:hashed-ngrams-v1): the text is normalised, cut into word
 * unigrams, word bigrams and character trigrams of each word, and each feature is hashed to one of
 * EMBEDDING_DIMENSIONS places with a hashed sign (the "hashing trick" with signed hashing, so
 * collisions cancel out on average instead of piling up). Counts are damped (1 + ln count) and
 * weighted by kind, and the vector is scaled to unit length. Near-identical narratives share most
 * features and land close; narratives about other things share few and land far. It knows no
 * synonyms: "Pay" and "Checkout" are as far apart as any two words. Deterministic, and the same in
 * every process and version of Node: changing anything here needs a new model name.
 */
import { blankTextVector, EMBEDDING_DIMENSIONS } from '../../shared/plugins/embeddings-types.js'

export const MODEL_NAME = 'local:hashed-ngrams-v1'

/** Untrusted text costs at most this much: narratives are a sentence or two. */
export const MAX_TEXT_CHARS = 10_000

/**
 * Weights per feature kind. Words carry the meaning; bigrams tell "not clicked" from "clicked
 * not"; trigrams let "button" meet "buttons" and a typo its original, but a word has many of them,
 * so each weighs less.
 */
const WEIGHT = { word: 1, bigram: 0.8, trigram: 0.3 } as const
const KIND: Readonly<Record<string, keyof typeof WEIGHT>> = { w: 'word', b: 'bigram', c: 'trigram' }

/**
 * Words too common to tell narratives apart: every friction narrative has some of them, and left
 * in they would pull unrelated narratives together.
 */
const STOP_WORDS = new Set(['a', 'an', 'and', 'at', 'by', 'for', 'in', 'is', 'it', 'of', 'on', 'or', 'the', 'then', 'to', 'was', 'with'])

/** The unit vector of text (blankTextVector() for text without a letter or digit). */
export function embedText(text: string): number[] {
  const words = normalise(text.slice(0, MAX_TEXT_CHARS))
  if (words.length === 0) return blankTextVector()
  // Occurrences of each feature; its kind (the prefix) gives its weight.
  const counts = new Map<string, number>()
  const add = (feature: string): void => {
    counts.set(feature, (counts.get(feature) ?? 0) + 1)
  }
  const kept = words.filter((word) => !STOP_WORDS.has(word))
  for (const word of kept.length > 0 ? kept : words) {
    add(`w:${word}`)
    const padded = `<${word}>`
    for (let i = 0; i + 3 <= padded.length; i++) add(`c:${padded.slice(i, i + 3)}`)
  }
  // Bigrams over all words, stop words included: "on checkout" and "to checkout" differ.
  for (let i = 0; i + 1 < words.length; i++) add(`b:${words[i]} ${words[i + 1]}`)

  const vector = new Float64Array(EMBEDDING_DIMENSIONS)
  for (const [feature, count] of counts) {
    const hash = fnv1a(feature)
    const place = mix(hash) % EMBEDDING_DIMENSIONS
    const sign = mix(hash ^ 0x9e3779b9) & 1 ? 1 : -1
    // Sublinear term frequency: a word said five times is not five times the narrative.
    vector[place]! += sign * WEIGHT[KIND[feature[0]!]!] * (1 + Math.log(count))
  }
  let sum = 0
  for (const value of vector) sum += value * value
  // Features can cancel out exactly only in theory; a zero vector would have no direction.
  if (sum === 0) return blankTextVector()
  const norm = Math.sqrt(sum)
  return Array.from(vector, (value) => value / norm)
}

/**
 * Lower-case words of letters and digits, after Unicode compatibility folding (full-width forms,
 * ligatures); every run of digits becomes 0, so "6 times" meets "4 times" and /orders/1234 meets
 * /orders/98.
 */
export function normalise(text: string): string[] {
  return text
    .normalize('NFKC')
    .toLowerCase()
    .replace(/\p{Nd}+/gu, '0')
    .split(/[^\p{L}\p{N}]+/u)
    .filter((word) => word !== '')
}

/** 32-bit FNV-1a over UTF-16 code units. */
function fnv1a(text: string): number {
  let hash = 0x811c9dc5
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i)
    hash = Math.imul(hash, 0x01000193)
  }
  return hash >>> 0
}

/** MurmurHash3's finaliser: spreads FNV's weak low bits over the whole word. */
function mix(value: number): number {
  let h = value >>> 0
  h ^= h >>> 16
  h = Math.imul(h, 0x85ebca6b)
  h ^= h >>> 13
  h = Math.imul(h, 0xc2b2ae35)
  h ^= h >>> 16
  return h >>> 0
}
