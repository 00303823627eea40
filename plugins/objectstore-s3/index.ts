/**
 * objectstore-s3: objects in an S3 bucket (AWS S3 or any S3-compatible store such as SeaweedFS,
 * compose.yml's), selected when S3_ENDPOINT is set. prepare() creates the bucket when it is missing
 * (`svc objectstore-setup`). Credentials are settings like any other: they reach the SDK
 * and nothing else, neither a log line nor an error.
 */
import type { ObjectStorePlugin, PluginModule } from '../../shared/plugins/types.js'
import { s3Store, type S3Settings } from './s3-store.js'

const configSchema = {
  type: 'object',
  properties: {
    endpoint: { type: 'string', format: 'uri', pattern: '^https?://', description: 'Address of the S3 API, e.g. http://objectstore:9000 (S3_ENDPOINT).' },
    // Length and characters are the store's to judge: AWS wants 3 to 63, Ceph can be told to allow more.
    bucket: { type: 'string', minLength: 1, description: 'Bucket the objects go in (S3_BUCKET); it must exist, or be made by svc objectstore-setup.' },
    region: { type: 'string', minLength: 1, default: 'us-east-1', description: 'Region the requests are signed for (S3_REGION); self-hosted stores such as SeaweedFS accept us-east-1.' },
    accessKeyId: { type: 'string', minLength: 1, description: 'Access key id (S3_ACCESS_KEY_ID).' },
    secretAccessKey: { type: 'string', minLength: 1, description: 'Secret access key (S3_SECRET_ACCESS_KEY); never logged.' },
    forcePathStyle: {
      type: 'boolean',
      default: true,
      description: 'Address buckets as http://host/bucket rather than http://bucket.host: SeaweedFS and most self-hosted stores need the path form.',
    },
  },
  required: ['endpoint', 'bucket', 'accessKeyId', 'secretAccessKey'],
  additionalProperties: false,
} as const

/** The plugin module the loader imports: manifest plus factory. */
const plugin: PluginModule<'objectstore'> = {
  manifest: { name: 'objectstore-s3', kind: 'objectstore', version: '1.0.0', configSchema },
  create(settings, context): ObjectStorePlugin {
    const store = s3Store(settings as unknown as S3Settings)
    // Where, never with whom: the key pair stays out of the log.
    context.log.debug('objectstore-s3: using bucket', { endpoint: new URL(settings.endpoint as string).origin, bucket: settings.bucket })
    return store
  },
}

export default plugin
