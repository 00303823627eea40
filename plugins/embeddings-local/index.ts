/**
 * embeddings-local: vectors computed in-process with no key and no download, so the one-command
 * start matches known problems out of the box. The model is local:hashed-ngrams-v1
 * (hashed-ngrams.ts): feature hashing of words, word pairs and character trigrams; no npm package
 * ships the weights of a real small model that runs here without fetching them from a model hub at
 * run time (docs/known-problems.md, "Embeddings"). The work is CPU-bound (cpuBound), so the matcher
 * runs this plugin in its piscina worker threads.
 */
import type { EmbeddingsPlugin } from '../../shared/plugins/embeddings-types.js'
import type { PluginModule } from '../../shared/plugins/types.js'
import { embedText, MODEL_NAME } from './hashed-ngrams.js'

const configSchema = { type: 'object', properties: {}, additionalProperties: false } as const

/** The plugin module the loader imports: manifest plus factory. */
const plugin: PluginModule<'embeddings'> = {
  manifest: { name: 'embeddings-local', kind: 'embeddings', version: '1.0.0', configSchema },
  create(): EmbeddingsPlugin {
    return {
      model: MODEL_NAME,
      cpuBound: true,
      // Synchronous work behind a promise: in a pool thread that is what it should be.
      embed: async (texts) => texts.map(embedText),
    }
  },
}

export default plugin
