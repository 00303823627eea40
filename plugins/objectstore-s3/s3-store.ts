/**
 * Objects in one S3 bucket through @aws-sdk/client-s3: any S3-compatible store (AWS, SeaweedFS,
 * R2, Ceph). PUT replaces an object whole, so readers never see half of one.
 */
import { CreateBucketCommand, DeleteObjectsCommand, GetObjectCommand, HeadBucketCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3'
import { OBJECT_KEY, type ObjectStorePlugin } from '../../shared/plugins/types.js'
import { MINUTE, SECOND } from '../../shared/time.js'
import { unavailableFrom, unavailableFromDeleteErrors, type StoreAddress } from './s3-errors.js'

/**
 * Longest each operation may take, retries included. A store that accepts connections and then
 * hangs would otherwise hold an upload, or a grouper batch waiting on a map, for every retry's
 * idle timeout in turn. A put may carry 50 MiB; a get sits on the grouper's path; a check only
 * delays start-up.
 */
const DEADLINE = { put: 2 * MINUTE, get: 20 * SECOND, delete: 30 * SECOND, check: 10 * SECOND } as const
/** Keys per DeleteObjects request: the most S3 takes in one. */
const DELETE_BATCH = 1000
/**
 * What CreateBucket answers when the bucket is there already: AWS says BucketAlreadyOwnedByYou to
 * its owner, SeaweedFS and s3rver say BucketAlreadyExists to anyone. Only HeadBucket can then
 * tell whether this key pair may use it.
 */
const ALREADY_THERE = new Set(['BucketAlreadyOwnedByYou', 'BucketAlreadyExists'])

/** Settings after the loader applied the schema's defaults. */
export interface S3Settings {
  readonly endpoint: string
  readonly bucket: string
  readonly region: string
  readonly accessKeyId: string
  readonly secretAccessKey: string
  readonly forcePathStyle: boolean
}

/** The store over settings.bucket. */
export function s3Store(settings: S3Settings): ObjectStorePlugin {
  const client = new S3Client({
    endpoint: settings.endpoint,
    region: settings.region,
    // Given outright, so the SDK never falls back to the environment, ~/.aws or instance metadata.
    credentials: { accessKeyId: settings.accessKeyId, secretAccessKey: settings.secretAccessKey },
    forcePathStyle: settings.forcePathStyle,
    // Checksums only where S3 demands them: since 2025 the SDK adds CRC32 headers and chunked
    // trailers by default, which several S3-compatible stores refuse.
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
    // Three tries with the SDK's jittered backoff ride out a blip; an upload then answers 503.
    maxAttempts: 3,
    // A dead host is noticed in seconds; socketTimeout is idle time, so a 50 MiB map on a slow link still fits.
    requestHandler: { connectionTimeout: 5 * SECOND, socketTimeout: 10 * SECOND },
  })
  const address: StoreAddress = { origin: new URL(settings.endpoint).origin, bucket: settings.bucket }
  const checkKey = (key: string): void => {
    if (typeof key !== 'string' || !OBJECT_KEY.test(key)) throw new Error(`invalid object key "${String(key)}": keys are slash-separated segments of letters, digits, dot, dash and underscore`)
  }

  return {
    async put(key, body) {
      checkKey(key)
      try {
        await client.send(new PutObjectCommand({ Bucket: settings.bucket, Key: key, Body: body, ContentLength: body.length }), { abortSignal: AbortSignal.timeout(DEADLINE.put) })
      } catch (error) {
        throw unavailableFrom(error, address, `write object ${key}`)
      }
    },
    async get(key) {
      checkKey(key)
      try {
        const answer = await client.send(new GetObjectCommand({ Bucket: settings.bucket, Key: key }), { abortSignal: AbortSignal.timeout(DEADLINE.get) })
        if (answer.Body === undefined) return Buffer.alloc(0)
        const bytes = await answer.Body.transformToByteArray()
        return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)
      } catch (error) {
        if ((error as { name?: string }).name === 'NoSuchKey') return undefined
        throw unavailableFrom(error, address, `read object ${key}`)
      }
    },
    async delete(keys) {
      keys.forEach(checkKey)
      for (let i = 0; i < keys.length; i += DELETE_BATCH) {
        const batch = keys.slice(i, i + DELETE_BATCH)
        let answer
        try {
          // Quiet: the answer lists only the keys that failed. A key with no object counts as deleted.
          const request = { Bucket: settings.bucket, Delete: { Objects: batch.map((Key) => ({ Key })), Quiet: true } }
          answer = await client.send(new DeleteObjectsCommand(request), { abortSignal: AbortSignal.timeout(DEADLINE.delete) })
        } catch (error) {
          throw unavailableFrom(error, address, `delete ${batch.length} objects`)
        }
        const failed = (answer.Errors ?? []).filter((e) => e.Code !== 'NoSuchKey')
        if (failed.length > 0) throw unavailableFromDeleteErrors(failed, batch.length, address)
      }
    },
    async check() {
      if (!(await bucketThere())) throw unavailableFrom(NO_SUCH_BUCKET, address, `use bucket "${settings.bucket}"`)
    },
    async prepare() {
      if (await bucketThere()) return
      try {
        // Outside us-east-1 the SDK names the client's region in the request, as S3 requires.
        await client.send(new CreateBucketCommand({ Bucket: settings.bucket }), { abortSignal: AbortSignal.timeout(DEADLINE.check) })
      } catch (error) {
        // Made meanwhile (a second setup at once): usable or not, the HeadBucket below says.
        if (!ALREADY_THERE.has((error as { name?: string }).name ?? '')) throw unavailableFrom(error, address, `create bucket "${settings.bucket}"`)
      }
      if (!(await bucketThere())) throw unavailableFrom(NO_SUCH_BUCKET, address, `use bucket "${settings.bucket}"`)
    },
  }

  /** Whether the bucket exists and this key pair may use it; false when it does not exist, throws for anything else. */
  async function bucketThere(): Promise<boolean> {
    try {
      await client.send(new HeadBucketCommand({ Bucket: settings.bucket }), { abortSignal: AbortSignal.timeout(DEADLINE.check) })
      return true
    } catch (error) {
      const failed = error as { name?: string; $metadata?: { httpStatusCode?: number } }
      if (failed.name === 'NoSuchBucket' || (failed.$metadata?.httpStatusCode === 404 && failed.name === 'NotFound')) return false
      throw unavailableFrom(error, address, `use bucket "${settings.bucket}"`)
    }
  }
}

/** A 404 as the SDK reports HeadBucket's, for the one message a missing bucket gets. */
const NO_SUCH_BUCKET = { name: 'NotFound', $metadata: { httpStatusCode: 404 } }
