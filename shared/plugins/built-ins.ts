/**
 * The plugins that ship in this repository, by name. Their module addresses are computed at run
 * time, so nothing in the core imports a plugin: the loader imports only what is configured, and
 * a broken or slow plugin costs nothing when it is not selected.
 */

/** Names of the built-in plugins, each the folder plugins/<name>/. */
export const BUILT_IN_PLUGINS: readonly string[] = Object.freeze(['codehost-github', 'chat-slack', 'chat-discord', 'chat-webhook', 'objectstore-fs', 'objectstore-s3', 'model-anthropic', 'model-openai', 'sandbox-local', 'embeddings-openai', 'embeddings-local'])

/**
 * The module URL of a built-in plugin, or undefined for any other name. Under tsx the sources
 * (.ts) run; after `npm run build` this file is .js and so are the plugins beside it in dist/.
 */
export function builtInPluginUrl(name: string): URL | undefined {
  if (!BUILT_IN_PLUGINS.includes(name)) return undefined
  const extension = import.meta.url.endsWith('.ts') ? '.ts' : '.js'
  return new URL(`../../plugins/${name}/index${extension}`, import.meta.url)
}
