/**
 * What the detectors know of the recorded page at a moment: the nodes of its last full snapshot as
 * later mutations changed them (tag, attributes, text, parent), so a clicked node id can be told
 * as the element a person saw (`button#pay.primary "Pay now"`), and whether it is a control that
 * should answer a click. Everything kept here is the recorded page's own text: untrusted.
 */
import { cleanName, cleanText } from '../../../shared/domain/untrusted-text.js'
import { controlNames, foldLabel, stableId } from './control.js'
import { maskedOrValue, roleOf, type TargetRole } from './element-role.js'
import { NODE_ELEMENT, NODE_TEXT } from '../../../shared/domain/rrweb.js'

export type { TargetRole } from './element-role.js'

/** Characters of a target's label (tag, id, classes) and of its text. */
export const TARGET_LABEL_MAX = 80
export const TARGET_TEXT_MAX = 80
/** Characters of an id or class name, and how many classes a label names. */
const NAME_MAX = 40
const CLASSES_SHOWN = 3
/** How far up from the clicked node a control is looked for (a span inside a button). */
const CONTROL_DEPTH = 8
/** How far up from a control the ancestor that tells a shared label apart is looked for. */
const CONTEXT_DEPTH = 32
/** Nodes an element's text is gathered from at most: a control holding thousands is told by its first ones. */
const TEXT_NODES_MAX = 1000

/** A page is its address's path and query, as the recordings' pages are (docs/recordings.md). */
const PAGE_MAX = 500
const PAGE_URL_MAX = 16 * 1024

/** A node of the recorded page: an element's tag and attributes, or a text node's text. */
interface PageNode {
  tag?: string
  attributes: Record<string, unknown>
  text?: string
  parent?: number
  children: number[]
}

/** A clicked element as the detectors use it: the control it belongs to, told as text. */
export interface ClickTarget {
  /** The node the click counts for: the control around the clicked node, or that node. */
  nodeId: number
  description: string
  role: TargetRole
  /** The names the control goes by on its page at the click (control.ts). */
  names: string[]
}

/** The recorded page's nodes, fed snapshots and mutations in order. */
export class PageModel {
  private nodes = new Map<number, PageNode>()
  /** Each element's ids by tag, and its label once told (forgotten with a change under it): a click counts its tag's labels from these. */
  private byTag = new Map<string, Set<number>>()
  private labels = new Map<number, string>()
  /** Per tag, how many elements of the page show each label; forgotten whenever the page changes. */
  private labelCounts = new Map<string, Map<string, number>>()

  /** A full snapshot replaces the page: its tree is what is known from now on. */
  replace(root: unknown): void {
    this.nodes = new Map()
    this.byTag.clear()
    this.labels.clear()
    this.labelCounts.clear()
    this.adopt(root, undefined)
  }

  /** Applies an rrweb mutation (adds, removes, texts, attributes); anything malformed is ignored. */
  mutate(data: Record<string, unknown>): void {
    this.labelCounts.clear()
    for (const add of array(data.adds)) {
      if (!isRecord(add)) continue
      const parentId = typeof add.parentId === 'number' ? add.parentId : undefined
      this.adopt(add.node, parentId)
      this.changedText(parentId)
    }
    for (const change of array(data.texts)) {
      const node = this.changed(change)
      if (node && isRecord(change) && typeof change.value === 'string') {
        node.text = change.value
        this.changedText(change.id as number)
      }
    }
    for (const change of array(data.attributes)) {
      const node = this.changed(change)
      if (node && isRecord(change) && isRecord(change.attributes)) {
        node.attributes = { ...node.attributes, ...change.attributes }
        // An element's attributes name only itself (its words when it has no text, its classes).
        this.labels.delete(change.id as number)
      }
    }
    // Removed last: a click is told when it happens, so a node gone later no longer matters.
    for (const remove of array(data.removes)) {
      if (!isRecord(remove) || typeof remove.id !== 'number') continue
      this.changedText(this.nodes.get(remove.id)?.parent)
      this.forget(remove.id)
    }
  }

  /** The clicked node as a target, or undefined when the page does not know it as an element. */
  target(clickedId: number): ClickTarget | undefined {
    const clicked = this.nodes.get(clickedId)
    if (!clicked?.tag) return undefined
    let nodeId = clickedId
    let role = roleOf(clicked)
    for (let id = clicked.parent, depth = 0; role === 'other' && id !== undefined && depth < CONTROL_DEPTH; depth++) {
      const node = this.nodes.get(id)
      if (!node) break
      if (node.tag && roleOf(node) === 'control') [nodeId, role] = [id, 'control']
      id = node.parent
    }
    return { nodeId, description: this.describe(nodeId), role, names: this.namesOf(nodeId) }
  }

  /** How an element reads: tag#id.class.class "its text" (or its label when it has no text). */
  describe(id: number): string {
    const node = this.nodes.get(id)
    const attributes = node?.attributes ?? {}
    let label = tagOf(node)
    const elementId = cleanName(attributes.id, NAME_MAX)
    if (elementId) label += `#${elementId}`
    label += classesOf(node).map((name) => `.${name}`).join('')
    label = cleanText(label, TARGET_LABEL_MAX)
    const text = this.wordsOf(id)
    return text ? `${label} "${text}"` : label
  }

  /**
   * The names the element goes by now (control.ts): its stable id, and its label (its words, or
   * without words its classes) unless another element of its tag shows the same label, in which
   * case the label names it only beside the nearest ancestor's stable id, and not when it has an
   * id of its own.
   */
  namesOf(id: number): string[] {
    const node = this.nodes.get(id)
    if (!node?.tag) return []
    const tag = tagOf(node)
    const label = this.labelOf(id)
    const labelShared = label !== '' && (this.labelCountsOf(node.tag).get(label) ?? 0) > 1
    return controlNames({ tag, id: stableId(cleanName(node.attributes.id, NAME_MAX)), label, labelShared, context: labelShared ? this.contextOf(id) : undefined })
  }

  /** Its text, or its aria-label, title, alt or value (not a masked one), cleaned. */
  private wordsOf(id: number): string {
    const attributes = this.nodes.get(id)?.attributes ?? {}
    return cleanText(this.textOf(id), TARGET_TEXT_MAX) || [attributes['aria-label'], attributes.title, attributes.alt, maskedOrValue(attributes.value)].map((value) => cleanText(value, TARGET_TEXT_MAX)).find(Boolean) || ''
  }

  /** Its words folded, or without words its classes (`.icon close`); kept until a change under it. */
  private labelOf(id: number): string {
    let label = this.labels.get(id)
    if (label !== undefined) return label
    label = foldLabel(this.wordsOf(id))
    if (!label) {
      const classes = classesOf(this.nodes.get(id)).map(foldLabel).filter(Boolean)
      label = classes.length > 0 ? `.${classes.join('.')}` : ''
    }
    this.labels.set(id, label)
    return label
  }

  /** How many elements of tag show each label now, counted once per page state. */
  private labelCountsOf(tag: string): Map<string, number> {
    let counts = this.labelCounts.get(tag)
    if (counts) return counts
    counts = new Map()
    for (const id of this.byTag.get(tag) ?? []) {
      const label = this.labelOf(id)
      if (label) counts.set(label, (counts.get(label) ?? 0) + 1)
    }
    this.labelCounts.set(tag, counts)
    return counts
  }

  /** The text under id changed: its label and every ancestor's are told again when next asked. */
  private changedText(id: number | undefined): void {
    for (let at = id, depth = 0; at !== undefined && depth < this.nodes.size; depth++) {
      this.labels.delete(at)
      at = this.nodes.get(at)?.parent
    }
  }

  /** The stable id of the nearest ancestor that has one. */
  private contextOf(id: number): string | undefined {
    for (let at = this.nodes.get(id)?.parent, depth = 0; at !== undefined && depth < CONTEXT_DEPTH; depth++) {
      const node = this.nodes.get(at)
      if (!node) return undefined
      const context = stableId(cleanName(node.attributes.id, NAME_MAX))
      if (node.tag && context) return context
      at = node.parent
    }
    return undefined
  }

  /** The known node a text or attribute change names. */
  private changed(change: unknown): PageNode | undefined {
    return isRecord(change) && typeof change.id === 'number' ? this.nodes.get(change.id) : undefined
  }

  private adopt(root: unknown, parent: number | undefined): void {
    const pending: Array<{ node: unknown; parent: number | undefined }> = [{ node: root, parent }]
    while (pending.length > 0) {
      const { node, parent: parentId } = pending.pop()!
      if (!isRecord(node) || typeof node.id !== 'number') continue
      const known: PageNode = { attributes: {}, children: [], parent: parentId }
      // An id added again (a malformed stream) is a new node: nothing told of the old one holds.
      const old = this.nodes.get(node.id)
      if (old?.tag) this.byTag.get(old.tag)?.delete(node.id)
      this.labels.delete(node.id)
      if (node.type === NODE_ELEMENT && typeof node.tagName === 'string') {
        known.tag = node.tagName.toLowerCase()
        if (isRecord(node.attributes)) known.attributes = node.attributes
        this.byTag.set(known.tag, (this.byTag.get(known.tag) ?? new Set()).add(node.id))
      }
      if (node.type === NODE_TEXT && typeof node.textContent === 'string') known.text = node.textContent
      this.nodes.set(node.id, known)
      if (parentId !== undefined) this.nodes.get(parentId)?.children.push(node.id)
      // Pushed last child first, so they are taken (and joined to their parent) in document order.
      const children = array(node.childNodes)
      for (let i = children.length - 1; i >= 0; i--) pending.push({ node: children[i], parent: node.id })
    }
  }

  private forget(id: number): void {
    const pending = [id]
    while (pending.length > 0) {
      const current = pending.pop()!
      const node = this.nodes.get(current)
      if (!node) continue
      this.nodes.delete(current)
      this.labels.delete(current)
      if (node.tag) this.byTag.get(node.tag)?.delete(current)
      pending.push(...node.children)
    }
  }

  /** The element's text, depth first, until there is enough of it; styles and scripts are not text. */
  private textOf(id: number): string {
    let text = ''
    const pending = [id]
    const seen = new Set<number>()
    while (pending.length > 0 && text.length < TARGET_TEXT_MAX * 2 && seen.size < TEXT_NODES_MAX) {
      const current = pending.pop()!
      if (seen.has(current)) continue
      seen.add(current)
      const node = this.nodes.get(current)
      if (!node || node.tag === 'style' || node.tag === 'script') continue
      if (node.tag === undefined && node.text !== undefined) text += ` ${node.text.slice(0, TARGET_TEXT_MAX * 2)}`
      for (let i = node.children.length - 1; i >= 0; i--) pending.push(node.children[i]!)
    }
    return text
  }
}

/** An element's tag as a target tells it (`element` when it has none a name can be). */
function tagOf(node: PageNode | undefined): string {
  return cleanName(node?.tag, NAME_MAX).replace(/[^a-z0-9-]/g, '') || 'element'
}

/** Its first classes, cleaned. */
function classesOf(node: PageNode | undefined): string[] {
  const value = node?.attributes.class
  if (typeof value !== 'string') return []
  return value.slice(0, 1000).split(/\s+/).map((name) => cleanName(name, NAME_MAX)).filter(Boolean).slice(0, CLASSES_SHOWN)
}

/** The path and query of an http(s) address (as the recordings' pages keep it), or undefined. */
export function pageOf(href: unknown): string | undefined {
  if (typeof href !== 'string') return undefined
  let url: URL
  try {
    url = new URL(href.slice(0, PAGE_URL_MAX))
  } catch {
    return undefined
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return undefined
  return `${url.pathname}${url.search}`.slice(0, PAGE_MAX)
}

export function array(value: unknown): unknown[] {
  return Array.isArray(value) ? value : []
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}
