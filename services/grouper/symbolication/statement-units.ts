/**
 * Statements of a parsed source file, as fingerprint version 4 keys a throw site: the smallest
 * statement around a position, cut at the statements it holds (an `if`'s head is `if (test)`,
 * without its branches). Engines point at different tokens of one minified statement, and a map
 * sends those tokens to different lines of the original one, so the statement is what they agree
 * on; its line is not. An arrow function's expression body is not a statement of its own: a
 * recursion through `reduce((n, c) => n + count(c), 1)` runs out of stack in the arrow or in the
 * call around it, wherever the engine stopped, and both must be the one statement.
 *
 * Works on any ESTree-like tree with start and end offsets (@babel/parser's), walking children
 * generically, so a syntax this file does not name is walked all the same.
 */

/** A parser node as this module reads it: its type, its offsets, and child nodes under other keys. */
export interface AstNode {
  type: string
  start: number
  end: number
  [key: string]: unknown
}

/** A node on the way down to a position, with the key it hangs from in its parent. */
export interface Step {
  node: AstNode
  key: string
  parent: AstNode | undefined
}

const NOT_CHILDREN = new Set(['type', 'start', 'end', 'loc', 'range', 'extra', 'leadingComments', 'trailingComments', 'innerComments', 'comments', 'errors', 'tokens'])
/** Statement-like nodes that are neither *Statement nor *Declaration. */
const UNIT_TYPES = new Set(['SwitchCase', 'CatchClause', 'ClassProperty', 'ClassPrivateProperty', 'ClassAccessorProperty', 'ClassMethod', 'ClassPrivateMethod', 'ObjectMethod'])
/** Where a statement holds other statements: its segments lie between them. */
const BODY_KEYS = new Set(['body', 'consequent', 'alternate', 'block', 'handler', 'finalizer', 'cases', 'declaration'])
const BODY_TYPES = new Set(['ClassBody', 'SwitchCase', 'CatchClause', 'TSModuleBlock', 'StaticBlock'])
const STATEMENT = /(?:Statement|Declaration)$/

function isNode(value: unknown): value is AstNode {
  return typeof value === 'object' && value !== null && typeof (value as AstNode).type === 'string' && typeof (value as AstNode).start === 'number'
}

/** Calls visit for each child of node (in source order for every parser tree seen) until it returns true. */
export function someChild(node: AstNode, visit: (key: string, child: AstNode) => boolean | void): boolean {
  for (const key in node) {
    if (NOT_CHILDREN.has(key)) continue
    const value = node[key]
    if (Array.isArray(value)) {
      for (const item of value) if (isNode(item) && visit(key, item)) return true
    } else if (isNode(value) && visit(key, value)) return true
  }
  return false
}

/** The nodes from root down to the innermost one that holds offset. */
export function pathTo(root: AstNode, offset: number): Step[] {
  const path: Step[] = [{ node: root, key: '', parent: undefined }]
  for (;;) {
    const here = path[path.length - 1]!.node
    let next: Step | undefined
    someChild(here, (key, child) => {
      if (child.start <= offset && offset < child.end) next = { node: child, key, parent: here }
      return next !== undefined
    })
    if (!next) return path
    path.push(next)
  }
}

/** True for a node keyed as a statement: a statement or declaration, not a bare block. */
export function isUnit(node: AstNode): boolean {
  return node.type !== 'BlockStatement' && (STATEMENT.test(node.type) || UNIT_TYPES.has(node.type))
}

function isBody(key: string, child: AstNode): boolean {
  return BODY_KEYS.has(key) && (STATEMENT.test(child.type) || BODY_TYPES.has(child.type))
}

/** The pieces of a unit between the statements it holds, as [start, end) offsets: `if (x)`, `else`. */
export function segmentsOf(unit: AstNode): Array<[number, number]> {
  const cuts: AstNode[] = []
  someChild(unit, (key, child) => void (isBody(key, child) && cuts.push(child)))
  cuts.sort((a, b) => a.start - b.start)
  const out: Array<[number, number]> = []
  let from = unit.start
  for (const cut of cuts) {
    out.push([from, cut.start])
    from = Math.max(from, cut.end)
  }
  out.push([from, unit.end])
  return out
}

/** The segment of the innermost unit around offset, or undefined when no statement holds it. */
export function segmentAt(root: AstNode, offset: number): [number, number] | undefined {
  const path = pathTo(root, offset)
  for (let i = path.length - 1; i > 0; i--) {
    if (!isUnit(path[i]!.node)) continue
    // None when offset lies in a block the unit holds outside any statement of it (on a brace).
    return segmentsOf(path[i]!.node).find(([start, end]) => start <= offset && offset < end)
  }
  return undefined
}

/** Calls visit for every unit of the tree, outermost first. */
export function forEachUnit(root: AstNode, visit: (unit: AstNode) => void): void {
  const stack: AstNode[] = [root]
  while (stack.length > 0) {
    const node = stack.pop()!
    if (isUnit(node)) visit(node)
    someChild(node, (_key, child) => void stack.push(child))
  }
}
