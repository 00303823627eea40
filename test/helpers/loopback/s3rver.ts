/**
 * s3rver, a real S3 implementation from npm (objects as files under a folder, S3's REST API and
 * XML errors, access key ids checked; it does not verify V4 signatures), on 127.0.0.1 for tests.
 * It can be stopped and started again on the same port with the same objects, so a test can take
 * the store away from a running service and give it back.
 */
import { createHash, randomBytes } from 'node:crypto'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { mkdir, rename, writeFile } from 'node:fs/promises'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import type { AddressInfo } from 'node:net'

/** The part of s3rver's class these tests use (the package ships no types). */
interface S3rverServer {
  run(): Promise<AddressInfo>
  close(): Promise<void>
  store: S3rverFilesystemStore
}
/** The part of s3rver's filesystem store the atomic put below replaces and uses. */
interface S3rverFilesystemStore {
  getResourcePath(bucket: string, key: string, resource: string): string
  putMetadata(bucket: string, key: string, metadata: unknown, md5: string): Promise<void>
  putObject(object: { bucket: string; key: string; content: Buffer | NodeJS.ReadableStream; metadata: unknown }): Promise<{ size: number; md5: string }>
}
type S3rverClass = new (options: { address: string; port: number; directory: string; silent: boolean; configureBuckets: Array<{ name: string }> }) => S3rverServer

const S3rver = createRequire(import.meta.url)('s3rver') as S3rverClass

/** s3rver's one account: any other access key id is refused with InvalidAccessKeyId. */
const ACCESS_KEY = 'S3RVER'

export interface S3rverStore {
  /** http://127.0.0.1:<port> */
  readonly endpoint: string
  readonly bucket: string
  /** Settings for objectstore-s3 pointing at it; overrides replace any of them. */
  settings(overrides?: Record<string, unknown>): Record<string, unknown>
  /** S3_* variables pointing loadConfig at it. */
  env(): Record<string, string>
  /** The bytes s3rver holds under key, read from its folder behind the API's back. */
  object(key: string): Buffer | undefined
  /** Stops serving (connections refused); the objects stay. */
  stop(): Promise<void>
  /** Serves again on the same port. */
  start(): Promise<void>
  close(): Promise<void>
}

/**
 * s3rver 3.7.1 writes an object in place (open with truncation, then stream), so two PUTs of one
 * key at once can leave a mix of both bodies, and a GET can read a file still being written. S3
 * itself never shows a partial object: the last whole PUT wins. The conformance suite holds our
 * plugin to that, so s3rver is given the same guarantee: the body goes to a file beside the object
 * and is renamed over it once complete (rename is atomic within a folder).
 */
function writeWholeObjects(store: S3rverFilesystemStore): void {
  store.putObject = async (object) => {
    const objectPath = store.getResourcePath(object.bucket, object.key, 'object')
    await mkdir(dirname(objectPath), { recursive: true })
    const chunks: Buffer[] = []
    if (Buffer.isBuffer(object.content)) chunks.push(object.content)
    else for await (const chunk of object.content) chunks.push(Buffer.from(chunk as Buffer))
    const body = Buffer.concat(chunks)
    const partial = `${objectPath}.${randomBytes(6).toString('hex')}.partial`
    await writeFile(partial, body)
    await rename(partial, objectPath)
    const md5 = createHash('md5').update(body).digest('hex')
    await store.putMetadata(object.bucket, object.key, object.metadata, md5)
    return { size: body.length, md5 }
  }
}

/** Starts s3rver on a free port with one empty bucket, its objects in a temporary folder. */
export async function startS3rver(options: { bucket?: string } = {}): Promise<S3rverStore> {
  const bucket = options.bucket ?? 'svc-test'
  const directory = mkdtempSync(join(tmpdir(), 'svc-s3rver-'))
  let port = 0
  let server: S3rverServer | undefined
  const start = async (): Promise<void> => {
    const next = new S3rver({ address: '127.0.0.1', port, directory, silent: true, configureBuckets: [{ name: bucket }] })
    writeWholeObjects(next.store)
    port = (await next.run()).port
    server = next
  }
  const stop = async (): Promise<void> => {
    const running = server
    server = undefined
    await running?.close()
  }
  await start()
  const endpoint = `http://127.0.0.1:${port}`
  return {
    endpoint,
    bucket,
    settings: (overrides = {}) => ({ endpoint, bucket, region: 'us-east-1', accessKeyId: ACCESS_KEY, secretAccessKey: ACCESS_KEY, ...overrides }),
    env: () => ({ S3_ENDPOINT: endpoint, S3_BUCKET: bucket, S3_REGION: 'us-east-1', S3_ACCESS_KEY_ID: ACCESS_KEY, S3_SECRET_ACCESS_KEY: ACCESS_KEY }),
    object(key) {
      try {
        return readFileSync(join(directory, bucket, `${key}._S3rver_object`))
      } catch {
        return undefined
      }
    },
    stop,
    start,
    async close() {
      await stop()
      rmSync(directory, { recursive: true, force: true })
    },
  }
}
