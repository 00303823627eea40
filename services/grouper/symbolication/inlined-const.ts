/**
 * Minifiers inline a const that is read once: `const format = new Intl.NumberFormat(…)` followed
 * by `return format.format(x)` ships as `return new Intl.NumberFormat(…).format(x)`, and the map
 * gives the inlined expression's first token the position of the read it replaced. V8 and
 * SpiderMonkey point at that token (`new`) and land on the `return` line; JavaScriptCore points
 * at the call's parenthesis, inside the expression, and lands in the const's statement (recorded
 * in test/fixtures/grouping-corpus, bug multi-line). A read of a const cannot throw, so a throw
 * position at the very start of one is its inlined initializer's: the position moves there.
 */
import { pathTo, someChild, type AstNode, type Step } from './statement-units.js'

/** Nodes whose body runs at another time than the code around them: nothing is inlined across them. */
const DEFERRED = new Set(['FunctionDeclaration', 'FunctionExpression', 'ArrowFunctionExpression', 'ObjectMethod', 'ClassMethod', 'ClassPrivateMethod', 'ClassProperty', 'ClassPrivateProperty', 'ClassAccessorProperty', 'StaticBlock'])
/** Keys under which an identifier names a binding, a label or a property, not a value read. */
const NOT_READ = new Set(['id', 'params', 'param', 'label', 'local', 'imported', 'exported', 'meta'])

/** The offset of the initializer of the const read at offset, when a minifier may have inlined it there. */
export function inlinedInitializer(root: AstNode, offset: number): number | undefined {
  const path = pathTo(root, offset)
  const read = path[path.length - 1]!
  if (read.node.type !== 'Identifier' || read.node.start !== offset || !isRead(read)) return undefined
  const name = read.node.name as string
  for (let i = path.length - 2; i >= 0; i--) {
    const scope = path[i]!.node
    for (const statement of statementsOf(scope)) {
      // Only what was declared before the read: one declared after it is not yet initialised.
      if (statement.end > offset) break
      const bound = bindingOf(statement, name)
      if (bound === 'other') return undefined
      if (bound) return readsOf(scope, name) === 1 ? bound.start : undefined
    }
    if (DEFERRED.has(scope.type)) return undefined
  }
  return undefined
}

function statementsOf(node: AstNode): AstNode[] {
  const list = node.type === 'SwitchCase' ? node.consequent : node.type === 'Program' || node.type === 'BlockStatement' || node.type === 'StaticBlock' || node.type === 'TSModuleBlock' ? node.body : undefined
  return Array.isArray(list) ? (list as AstNode[]) : []
}

/** The initializer when statement declares name as a const with one; 'other' when it binds name otherwise. */
function bindingOf(statement: AstNode, name: string): AstNode | 'other' | undefined {
  const declaration = statement.type === 'ExportNamedDeclaration' && statement.declaration ? (statement.declaration as AstNode) : statement
  if (declaration.type === 'VariableDeclaration') {
    for (const declarator of declaration.declarations as AstNode[]) {
      const id = declarator.id as AstNode
      if (id.type === 'Identifier' && id.name === name) return declaration.kind === 'const' && declarator.init ? (declarator.init as AstNode) : 'other'
      if (id.type !== 'Identifier' && namesIn(id).includes(name)) return 'other'
    }
    return undefined
  }
  if (declaration.type === 'ImportDeclaration') return (declaration.specifiers as AstNode[]).some((specifier) => (specifier.local as AstNode).name === name) ? 'other' : undefined
  return (declaration.id as AstNode | null | undefined)?.name === name ? 'other' : undefined
}

/** Every identifier name in a destructuring pattern (over-inclusive: defaults count too, which only makes it more careful). */
function namesIn(pattern: AstNode): string[] {
  const names: string[] = []
  const stack = [pattern]
  while (stack.length > 0) {
    const node = stack.pop()!
    if (node.type === 'Identifier') names.push(node.name as string)
    someChild(node, (_key, child) => void stack.push(child))
  }
  return names
}

/** How many places in scope read name: a const read more than once is not inlined. */
function readsOf(scope: AstNode, name: string): number {
  // By offset: a shorthand property ({ format }) holds one identifier twice, as key and as value.
  const starts = new Set<number>()
  const stack: Step[] = [{ node: scope, key: '', parent: undefined }]
  while (stack.length > 0) {
    const step = stack.pop()!
    if (step.node.type === 'Identifier' && step.node.name === name && isRead(step)) starts.add(step.node.start)
    someChild(step.node, (key, child) => void stack.push({ node: child, key, parent: step.node }))
  }
  return starts.size
}

function isRead({ key, parent }: Step): boolean {
  if (!parent || NOT_READ.has(key)) return false
  if ((key === 'property' || key === 'key') && !parent.computed && !(parent.type === 'ObjectProperty' && parent.shorthand)) return false
  if (parent.type === 'AssignmentExpression' && key === 'left') return false
  if (parent.type.endsWith('Pattern') || parent.type === 'RestElement') return false
  // Types are erased: `typeof format` in a type annotation reads nothing at run time.
  return !parent.type.startsWith('TS') || key === 'expression'
}
