/**
 * objectstore-fs: objects as files in a local folder, the embedded default (no S3_ENDPOINT).
 * One process or several on one machine may share the folder: writes are atomic renames.
 */
import { resolve } from 'node:path'
import type { ObjectStorePlugin, PluginModule } from '../../shared/plugins/types.js'
import { folderStore } from './folder-store.js'

const configSchema = {
  type: 'object',
  properties: {
    dir: { type: 'string', minLength: 1, description: 'Folder the objects are kept in (SVC_OBJECT_DIR); created on first write.' },
  },
  required: ['dir'],
  additionalProperties: false,
} as const

/** The plugin module the loader imports: manifest plus factory. */
const plugin: PluginModule<'objectstore'> = {
  manifest: { name: 'objectstore-fs', kind: 'objectstore', version: '1.0.0', configSchema },
  create(settings): ObjectStorePlugin {
    // Resolved once, so a later chdir cannot move the store.
    return folderStore(resolve(settings.dir as string))
  },
}

export default plugin
