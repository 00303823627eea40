/**
 * A recording's rrweb events made clean for the replay page, on the server, before the browser
 * gets them: whatever SDK recorded them (older ones kept inline handlers) and whatever a forged
 * chunk holds. The replay draws the recorded page in an iframe sandboxed without scripts, under a
 * policy that fetches nothing from elsewhere (REPLAY_PAGE_POLICY); both would refuse what this
 * takes out, but each refusal is an error on the console and a broken picture. Taken out:
 * - inline event handler attributes (onclick, onsubmit, …) and any attribute holding a javascript:
 *   URL: in the sandbox they only log "Blocked script execution";
 * - every attribute that fetches (src, srcset, poster, background, an href other than a link's,
 *   srcdoc, …) unless it holds a data: image. An image without its src is drawn as a grey box of
 *   the size the page gave it (the replay page's style, recording-replay.js), without its alt
 *   text and title, which would draw it as a broken image; one the page left to its picture's
 *   size has none, as before its picture loads;
 * - in CSS (style attributes and changes, style elements' text, inlined stylesheets, rules added
 *   later): url()s that fetch, and @import (clean-css.ts);
 * - font and canvas events, which load fonts and images by URL (the SDK records neither).
 * A removed attribute stays a removal in an attribute change (null), so the replay does not keep
 * the value it had before. Events are changed in place: they were parsed for this answer alone.
 */
import type { RrwebEvent } from '../chunks.js'
import { cleanCss } from './clean-css.js'

const FULL_SNAPSHOT = 2
const INCREMENTAL = 3
const ELEMENT = 2
const TEXT = 3
/** rrweb's incremental sources read here. */
const MUTATION = 0
const STYLE_SHEET_RULE = 8
const CANVAS_MUTATION = 9
const FONT = 10
const STYLE_DECLARATION = 13
const ADOPTED_STYLE_SHEET = 15

/** Attributes a browser fetches (or, srcdoc, draws as a document of its own), lowercased. */
const FETCHED = new Set(['src', 'srcset', 'imagesrcset', 'poster', 'background', 'data', 'lowsrc', 'dynsrc', 'manifest', 'codebase', 'archive', 'classid', 'icon', 'srcdoc', 'rr_dataurl', 'href', 'xlink:href'])
/** Elements whose href is only followed when clicked: there it stays. */
const LINKS = new Set(['a', 'area'])
/** Elements drawn from a data: image in src; rr_dataURL is rrweb's own copy of an image or a canvas. */
const IMAGES = new Set(['img', 'input'])
/** SVG elements drawn from a data: image in href. */
const SVG_IMAGES = new Set(['image', 'feimage'])
const DATA_IMAGE = /^\s*data:image\//i
/** srcset lists several URLs: the replay draws src alone. */
const NEVER_KEPT = new Set(['srcset', 'imagesrcset', 'srcdoc'])

type Attributes = Record<string, unknown>

interface Node {
  type?: unknown
  id?: unknown
  tagName?: unknown
  attributes?: unknown
  childNodes?: unknown
  textContent?: unknown
  isStyle?: unknown
}

/** Cleans one recording's events, chunk after chunk in seq order: it remembers each node's tag. */
export class ReplayCleaner {
  /** Element node id → tag name, for attribute changes, which name only the node. */
  readonly #tags = new Map<number, string>()
  /** Text nodes inside style elements: their text is CSS. */
  readonly #styleTexts = new Set<number>()

  /** The events to replay, cleaned; font and canvas events are left out. */
  clean(events: RrwebEvent[]): RrwebEvent[] {
    return events.filter((event) => this.#keep(event))
  }

  #keep(event: RrwebEvent): boolean {
    const data = event.data
    if (event.type === FULL_SNAPSHOT) this.#tree(data.node as Node, undefined)
    if (event.type !== INCREMENTAL) return true
    switch (data.source) {
      case MUTATION:
        this.#mutation(data)
        return true
      case STYLE_SHEET_RULE:
        cleanRules(data.adds)
        for (const key of ['replace', 'replaceSync']) {
          const css = data[key]
          if (typeof css === 'string') data[key] = cleanCss(css)
        }
        return true
      case STYLE_DECLARATION: {
        const set = data.set as { value?: unknown } | undefined
        if (isObject(set) && typeof set.value === 'string') set.value = cleanCss(set.value)
        return true
      }
      case ADOPTED_STYLE_SHEET:
        for (const sheet of list(data.styles)) if (isObject(sheet)) cleanRules(sheet.rules)
        return true
      case FONT:
      case CANVAS_MUTATION:
        return false
      default:
        return true
    }
  }

  #mutation(data: Record<string, unknown>): void {
    for (const add of list(data.adds)) {
      if (isObject(add)) this.#tree(add.node as Node, typeof add.parentId === 'number' ? this.#tags.get(add.parentId) : undefined)
    }
    for (const change of list(data.attributes)) {
      if (isObject(change) && isObject(change.attributes)) cleanAttributes(typeof change.id === 'number' ? this.#tags.get(change.id) : undefined, change.attributes, true)
    }
    for (const text of list(data.texts)) {
      if (isObject(text) && typeof text.id === 'number' && this.#styleTexts.has(text.id) && typeof text.value === 'string') text.value = cleanCss(text.value)
    }
  }

  /** Every node under root (without recursion: a forged chunk may nest deeper than the stack goes). */
  #tree(root: Node | undefined, rootParentTag: string | undefined): void {
    const stack: Array<[Node, string | undefined]> = isObject(root) ? [[root, rootParentTag]] : []
    for (let next = stack.pop(); next; next = stack.pop()) {
      const [node, parentTag] = next
      let tag: string | undefined
      if (node.type === ELEMENT && typeof node.tagName === 'string') {
        tag = node.tagName.toLowerCase()
        if (typeof node.id === 'number') this.#tags.set(node.id, tag)
        if (isObject(node.attributes)) cleanAttributes(tag, node.attributes, false)
      } else if (node.type === TEXT && (node.isStyle === true || parentTag === 'style')) {
        if (typeof node.id === 'number') this.#styleTexts.add(node.id)
        if (typeof node.textContent === 'string') node.textContent = cleanCss(node.textContent)
      }
      for (const child of list(node.childNodes)) if (isObject(child)) stack.push([child, tag])
    }
  }
}

/** Takes out of one element's attributes what would run or fetch; tag is undefined when unknown. */
function cleanAttributes(tag: string | undefined, attributes: Attributes, change: boolean): void {
  for (const name of Object.keys(attributes)) {
    const value = attributes[name]
    const lower = name.toLowerCase()
    if (lower.startsWith('on')) {
      // Never recorded, so there is nothing for a change to remove.
      delete attributes[name]
    } else if ((typeof value === 'string' && isScriptUrl(value)) || (FETCHED.has(lower) && !keeps(tag, lower, value)) || (tag === 'meta' && lower === 'http-equiv')) {
      // meta http-equiv: a refresh would navigate the replay's frame away.
      if (change) attributes[name] = null
      else delete attributes[name]
    } else if (lower === 'style' || lower === '_csstext') {
      attributes[name] = cleanStyle(value)
    }
  }
  if (tag === 'img' && (change || typeof attributes.src !== 'string')) {
    // Chromium draws an image without a picture but with alt text (or, failing that, a title) as
    // a broken-image icon beside the text: without them it is a plain box.
    delete attributes.alt
    delete attributes.title
  }
}

/** Whether a fetching attribute may stay: a link's href, a reference into the page, a data: image. */
function keeps(tag: string | undefined, name: string, value: unknown): boolean {
  if (typeof value !== 'string' || NEVER_KEPT.has(name)) return value === null
  if (name === 'href' || name === 'xlink:href') return (tag !== undefined && LINKS.has(tag)) || value.trim().startsWith('#') || (tag !== undefined && SVG_IMAGES.has(tag) && DATA_IMAGE.test(value))
  if (name === 'src') return tag !== undefined && IMAGES.has(tag) && DATA_IMAGE.test(value)
  return (name === 'rr_dataurl' || name === 'poster' || name === 'background') && DATA_IMAGE.test(value)
}

/** A style attribute: text, or in a change rrweb's diff of it (property → value, [value, priority], or false). */
function cleanStyle(value: unknown): unknown {
  if (typeof value === 'string') return cleanCss(value)
  if (!isObject(value)) return value
  for (const [property, set] of Object.entries(value)) {
    if (typeof set === 'string') value[property] = cleanCss(set)
    else if (Array.isArray(set) && typeof set[0] === 'string') set[0] = cleanCss(set[0])
  }
  return value
}

function cleanRules(rules: unknown): void {
  for (const rule of list(rules)) if (isObject(rule) && typeof rule.rule === 'string') rule.rule = cleanCss(rule.rule)
}

const SCHEME = 'javascript:'

/**
 * Whether value is a javascript: URL as a browser reads one: leading controls and spaces are
 * ignored, and so are tabs and newlines anywhere in the scheme. Reads only the scheme (values may
 * be megabytes of data: URL).
 */
function isScriptUrl(value: string): boolean {
  let i = 0
  while (i < value.length && value.charCodeAt(i) <= 0x20) i++
  let matched = 0
  for (; i < value.length && matched < SCHEME.length; i++) {
    const c = value[i]!
    if (c === '\t' || c === '\n' || c === '\r') continue
    if (c.toLowerCase() !== SCHEME[matched]) return false
    matched++
  }
  return matched === SCHEME.length
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

function list(value: unknown): unknown[] {
  return Array.isArray(value) ? value : []
}
