/**
 * s3rver, a real S3 implementation from npm (objects as files under a folder, S3's REST API and
 * XML errors, access key ids checked; it does not verify V4 signatures), on 127.0.0.1 for tests.
 * It can be stopped and started again on the same port with the same objects, so a test can take
 * the store away from a running service and give it back.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { AddressInfo } from 'node:net'

/** The part of s3rver's class these tests use (the package ships no types). */
interface S3rverServer {
  run(): Promise<AddressInfo>
  close(): Promise<void>
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

/** Starts s3rver on a free port with one empty bucket, its objects in a temporary folder. */
export async function startS3rver(options: { bucket?: string } = {}): Promise<S3rverStore> {
  const bucket = options.bucket ?? 'svc-test'
  const directory = mkdtempSync(join(tmpdir(), 'svc-s3rver-'))
  let port = 0
  let server: S3rverServer | undefined
  const start = async (): Promise<void> => {
    const next = new S3rver({ address: '127.0.0.1', port, directory, silent: true, configureBuckets: [{ name: bucket }] })
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
