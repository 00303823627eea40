import type { ESLint } from 'eslint'

/** Where a path lies among the services, as [service, path inside it], or undefined outside services/. */
export function serviceOf(root: string, path: string): [string, string] | undefined
/** Whether a path inside a service's folder is one of its public faces (index, read, commands). */
export function isFace(inner: string): boolean
/** Why importing specifier from file breaks the rule, or undefined when it does not. */
export function violation(root: string, file: string, specifier: unknown): string | undefined

declare const plugin: ESLint.Plugin
export default plugin
