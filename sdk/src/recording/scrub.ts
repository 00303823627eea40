/**
 * What rrweb records that is script, taken out of each event before it is queued: inline event
 * handler attributes (onclick, onsubmit, …), attribute values that are javascript: URLs (href,
 * action, formaction, …) and iframes' srcdoc (a whole document, scripts and all, which rrweb
 * records as its own document anyway). rrweb keeps script elements' text out already. They are
 * cut from full snapshots, from the nodes mutations add, and from attribute changes, so a handler
 * set later with setAttribute is as absent as one in the page's HTML. The service drops them again
 * before a replay is drawn (for chunks of older SDKs).
 */

const FULL_SNAPSHOT = 2
const INCREMENTAL = 3
const MUTATION = 0

/** An rrweb serialized node: attributes on elements, children on elements and documents. */
interface SerializedNode {
  attributes?: Record<string, unknown>
  childNodes?: SerializedNode[]
}

interface ScrubbedEvent {
  type: number
  data?: {
    source?: number
    node?: SerializedNode
    adds?: Array<{ node?: SerializedNode }>
    attributes?: Array<{ attributes?: Record<string, unknown> }>
  }
}

/** Inline handlers and srcdoc go whatever their value. */
const SCRIPT_ATTRIBUTE = /^(on|srcdoc$)/i
const SCHEME = 'javascript:'

/**
 * Whether value is a javascript: URL as a browser reads one: leading controls and spaces are
 * ignored, and so are tabs and newlines anywhere in the scheme. Reads only the scheme, since
 * attribute values may be megabytes of data: URL.
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

/** Takes inline handlers, javascript: URLs and srcdoc out of an rrweb event, in place. */
export function scrubEvent(event: ScrubbedEvent): void {
  const data = event.data
  if (!data) return
  if (event.type === FULL_SNAPSHOT) return scrubTree(data.node)
  if (event.type !== INCREMENTAL || data.source !== MUTATION) return
  for (const add of data.adds ?? []) scrubTree(add.node)
  for (const change of data.attributes ?? []) if (change.attributes) scrubAttributes(change.attributes, true)
}

/** Every node under root, without recursion: a page may nest deeper than the stack goes. */
function scrubTree(root: SerializedNode | undefined): void {
  const stack = root ? [root] : []
  for (let node = stack.pop(); node; node = stack.pop()) {
    if (node.attributes) scrubAttributes(node.attributes, false)
    for (const child of node.childNodes ?? []) stack.push(child)
  }
}

/**
 * A change's javascript: URL becomes a removal (null), so the replay does not keep the address the
 * attribute held before; in a snapshot, or for a handler that was never recorded, the name goes.
 */
function scrubAttributes(attributes: Record<string, unknown>, change: boolean): void {
  for (const name of Object.keys(attributes)) {
    const value = attributes[name]
    if (SCRIPT_ATTRIBUTE.test(name)) delete attributes[name]
    else if (typeof value === 'string' && isScriptUrl(value)) {
      if (change) attributes[name] = null
      else delete attributes[name]
    }
  }
}
