/** What a worker hosting the investigator needs for fixes: the sandbox plugin, the template, limits, and the dashboard's address. */
import type { Config } from '../../shared/config/index.js'
import type { Logger } from '../../shared/log.js'
import { loadSandboxPlugin } from '../../shared/plugins/loader.js'
import type { InvestigatorDeps } from '../investigator/index.js'

export async function loadFixes(config: Config, log: Logger): Promise<InvestigatorDeps['fixes'] | undefined> {
  if (!config.services.includes('investigator')) return undefined
  return {
    sandboxes: await loadSandboxPlugin(config, log),
    template: config.secrets.sandboxJavascriptTemplate,
    evidenceLimits: config.investigations.sandbox,
    publicUrl: config.dashboardOrigin ?? config.baseUrl,
  }
}
