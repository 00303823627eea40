/** The plugins the investigator's stages work with; undefined when not configured (every run then stops saying so). */
import type { CodehostPlugin, ModelPlugin } from '../../shared/plugins/types.js'

export interface Tools {
  model: ModelPlugin | undefined
  codehost: CodehostPlugin | undefined
}
