/**
 * Which embeddings plugin turns friction narratives into vectors, its settings, and the size of
 * the matcher's pool of threads that runs an in-process one (part of the configuration;
 * shared/config/index.ts calls it). docs/known-problems.md, "Embeddings".
 */
import type { PluginChoice } from './plugins.js'
import { PLUGIN_NAME } from './plugins.js'
import { ConfigError, int, text, url, type Env } from './values.js'

export interface EmbeddingsConfig {
  /**
   * The plugin and its settings: embeddings-openai when EMBEDDINGS_API_KEY is set, else
   * embeddings-local (no key, no download), unless SVC_EMBEDDINGS_PLUGIN names another. Undefined
   * only with SVC_EMBEDDINGS_PLUGIN=none: matching then runs without embeddings.
   */
  readonly plugin: PluginChoice | undefined
  /** Worker threads of the pool a CPU-bound plugin (embeddings-local) computes in (SVC_EMBEDDINGS_POOL_THREADS). */
  readonly poolThreads: number
}

/** The variable behind each embeddings plugin setting, so the loader's messages name what to fix. */
export const EMBEDDINGS_SETTING_SOURCES: Readonly<Record<string, string>> = Object.freeze({ apiKey: 'EMBEDDINGS_API_KEY', baseUrl: 'EMBEDDINGS_BASE_URL', model: 'EMBEDDINGS_MODEL' })

/** The settings only an endpoint-calling plugin reads; embeddings-local has none. */
const REMOTE_VARIABLES = ['EMBEDDINGS_API_KEY', 'EMBEDDINGS_BASE_URL', 'EMBEDDINGS_MODEL'] as const

/** The embeddings choice the environment makes. */
export function embeddingsConfig(env: Env): EmbeddingsConfig {
  // One by default: the matcher embeds a finding's narrative at a time, and a second thread would
  // take a core from the grouper on a 2-core machine. Raise it for a backfill.
  return { plugin: embeddingsChoice(env), poolThreads: int(env, 'SVC_EMBEDDINGS_POOL_THREADS', 1, 1, 64) }
}

function embeddingsChoice(env: Env): PluginChoice | undefined {
  const apiKey = text(env, 'EMBEDDINGS_API_KEY')
  const fallback = apiKey === undefined ? 'embeddings-local' : 'embeddings-openai'
  const name = text(env, 'SVC_EMBEDDINGS_PLUGIN') ?? fallback
  if (name === 'none') return undefined
  if (!PLUGIN_NAME.test(name) || name.split('/').includes('..')) {
    throw new ConfigError('SVC_EMBEDDINGS_PLUGIN', `must be a built-in plugin name, an installed npm package name (plugins are never loaded by path) or none, got "${name}". Unset it for ${fallback}.`)
  }
  if (name === 'embeddings-local') {
    // A key or endpoint set beside the local plugin is a remote someone expects to be used.
    const stray = REMOTE_VARIABLES.find((v) => text(env, v) !== undefined)
    if (stray) throw new ConfigError(stray, 'is read by endpoint-calling embeddings plugins only, but SVC_EMBEDDINGS_PLUGIN is embeddings-local. Unset it, or unset SVC_EMBEDDINGS_PLUGIN.')
    return { name, settings: {} }
  }
  if (name === 'embeddings-openai' && apiKey === undefined) {
    throw new ConfigError('EMBEDDINGS_API_KEY', 'is required by embeddings-openai (any value for a local server that needs no key). Set it, or set SVC_EMBEDDINGS_PLUGIN=embeddings-local.')
  }
  // Unset ones are left out, so the plugin's own defaults (its schema's) apply.
  const optional = { apiKey, baseUrl: url(env, 'EMBEDDINGS_BASE_URL'), model: text(env, 'EMBEDDINGS_MODEL') }
  return { name, settings: Object.fromEntries(Object.entries(optional).filter(([, v]) => v !== undefined)) }
}
