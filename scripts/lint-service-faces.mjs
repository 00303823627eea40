// ESLint rule house/service-faces: a service imports another service only through that service's
// public faces: its index.ts, its read face (read.ts or read/) or its commands (commands.ts or
// commands/). Anything else in its folder is its insides, which only it may import. Type-only
// imports, re-exports and dynamic import() count alike; bin/, test/ and bench/ compose the
// services and may import anything.
import { dirname, relative, resolve, sep } from 'node:path'

const FACES = [/^index\.[cm]?[jt]s$/, /^read\.[cm]?[jt]s$/, /^read\//, /^commands\.[cm]?[jt]s$/, /^commands\//]

/**
 * Where a path lies among the services, as [service, path inside it], or undefined outside
 * services/. root is the repository's folder.
 */
export function serviceOf(root, path) {
  const parts = relative(root, path).split(sep)
  if (parts[0] !== 'services' || parts.length < 3) return undefined
  return [parts[1], parts.slice(2).join('/')]
}

/** Whether inner (a path inside a service's folder) is one of its public faces. */
export function isFace(inner) {
  return FACES.some((face) => face.test(inner))
}

/**
 * Why importing specifier from file breaks the rule, or undefined when it does not. Only relative
 * specifiers can reach another service; a package name cannot.
 */
export function violation(root, file, specifier) {
  if (typeof specifier !== 'string' || !specifier.startsWith('.')) return undefined
  const from = serviceOf(root, file)
  const to = serviceOf(root, resolve(dirname(file), specifier))
  if (from === undefined || to === undefined || from[0] === to[0] || isFace(to[1])) return undefined
  return `services/${from[0]} imports services/${to[0]}/${to[1]}, which is ${to[0]}'s insides: import what it publishes from services/${to[0]}/index.ts, its read face (read.ts or read/) or its commands (commands.ts or commands/), or move what both need to shared/.`
}

const rule = {
  meta: {
    type: 'problem',
    docs: { description: 'A service imports another service only through its index.ts, read face or commands.' },
    schema: [],
  },
  create(context) {
    const root = context.cwd
    const file = context.filename
    if (serviceOf(root, file) === undefined) return {}
    const check = (node, source) => {
      const message = violation(root, file, source?.value)
      if (message !== undefined) context.report({ node, message })
    }
    return {
      ImportDeclaration: (node) => check(node, node.source),
      ExportNamedDeclaration: (node) => check(node, node.source),
      ExportAllDeclaration: (node) => check(node, node.source),
      ImportExpression: (node) => check(node, node.source.type === 'Literal' ? node.source : undefined),
      TSImportType: (node) => check(node, node.argument?.literal ?? node.argument),
    }
  },
}

export default { rules: { 'service-faces': rule } }
