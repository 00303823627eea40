/** The one error the plugin loader throws: its message names the plugin and says what to change. */
import type { PluginKind } from './types.js'

/** A plugin could not be found, is not a valid plugin of its kind, has bad settings, or failed to start. */
export class PluginError extends Error {
  constructor(
    readonly plugin: string,
    readonly kind: PluginKind,
    /** The message without the plugin prefix. */
    readonly detail: string,
  ) {
    super(`Plugin ${plugin} (${kind}): ${detail}`)
    this.name = 'PluginError'
  }
}
