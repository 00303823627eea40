/**
 * svc objectstore-setup: create the object store's bucket if it is missing and prove it usable
 * (compose.yml's one-shot step before the ingress and worker; safe to rerun). It speaks S3 through
 * the same plugin and settings as the service, so what it prepares is what the service will use.
 */
import { Command } from 'clipanion'
import { prepareObjectStore } from '../../shared/object-store.js'
import { loadContext } from '../context.js'

export class ObjectStoreSetupCommand extends Command {
  static override paths = [['objectstore-setup']]
  static override usage = Command.Usage({
    description: 'Create the S3 bucket (S3_BUCKET) if it does not exist and check the service can use it; without S3_ENDPOINT, make the object folder. Safe to rerun.',
  })

  async execute(): Promise<number> {
    const { config, log } = loadContext('objectstore-setup')
    try {
      const where = await prepareObjectStore(config.objectStore, { log })
      this.context.stdout.write(`objectstore-setup: ${where} is ready\n`)
      return 0
    } catch (error) {
      // ObjectStoreUnavailable and PluginError messages name the store and what to fix, never a key.
      this.context.stderr.write(`svc objectstore-setup: ${(error as Error).message}\n`)
      return 1
    }
  }
}
