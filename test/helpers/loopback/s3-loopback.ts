/**
 * An S3 stand-in on 127.0.0.1 for tests: node:http speaking the part of the S3 REST API that
 * objectstore-s3 uses (path-style PUT, GET and HEAD of objects, HEAD of a bucket, CreateBucket,
 * DeleteObjects), with S3's XML errors. CreateBucket answers as AWS does outside us-east-1: 409
 * BucketAlreadyOwnedByYou for a bucket that exists, and a refusal unless the body names the region.
 * Every request must carry an AWS Signature Version 4 Authorization header for the configured key
 * pair, and the signature is checked, so a client that signs with the wrong secret, region or
 * payload hash is refused as S3 would refuse it. Controls make it answer 500, drop every
 * connection, or hang.
 */
import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto'
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo, Socket } from 'node:net'

/** How the loopback answers: normally, with 500 InternalError, by resetting every connection, or never (connections accepted, requests left hanging). */
export type S3LoopbackMode = 'ok' | 'failing' | 'unreachable' | 'hanging'

/** One request as the loopback saw it. */
export interface S3Request {
  readonly method: string
  /** Path as sent, e.g. /svc/projects/p/x.map. */
  readonly path: string
  readonly status: number
  /** The S3 error code answered, if any. */
  readonly code: string | undefined
}

/** A running loopback; see startS3Loopback. */
export interface S3Loopback {
  /** http://127.0.0.1:<port> */
  readonly endpoint: string
  readonly bucket: string
  readonly region: string
  readonly accessKeyId: string
  readonly secretAccessKey: string
  /** Every request answered, oldest first. */
  readonly requests: S3Request[]
  /** Settings for objectstore-s3 pointing at this loopback; overrides replace any of them. */
  settings(overrides?: Record<string, unknown>): Record<string, unknown>
  /** S3_* variables pointing loadConfig at this loopback. */
  env(): Record<string, string>
  /** The object stored under key in bucket (default: the loopback's bucket). */
  object(key: string, bucket?: string): Buffer | undefined
  /** Keys stored in bucket (default: the loopback's bucket). */
  keys(bucket?: string): string[]
  /** Switches how requests are answered; unreachable also drops connections already open. */
  setMode(mode: S3LoopbackMode): void
  close(): Promise<void>
}

/** Largest clock difference S3 accepts between x-amz-date and its own clock. */
const MAX_SKEW_MS = 15 * 60 * 1000
const AUTHORIZATION = /^AWS4-HMAC-SHA256 Credential=([^/,\s]+)\/(\d{8})\/([^/,\s]+)\/s3\/aws4_request, ?SignedHeaders=([a-z0-9;-]+), ?Signature=([0-9a-f]{64})$/

/** Starts a loopback holding one empty bucket, with a fresh key pair unless one is given. */
export async function startS3Loopback(options: { bucket?: string; region?: string; accessKeyId?: string; secretAccessKey?: string } = {}): Promise<S3Loopback> {
  const bucket = options.bucket ?? 'svc-test'
  const region = options.region ?? 'us-east-1'
  const accessKeyId = options.accessKeyId ?? `AKIA${randomBytes(8).toString('hex').toUpperCase()}`
  const secretAccessKey = options.secretAccessKey ?? randomBytes(30).toString('base64url')
  const buckets = new Map<string, Map<string, Buffer>>([[bucket, new Map()]])
  const requests: S3Request[] = []
  const sockets = new Set<Socket>()
  let mode: S3LoopbackMode = 'ok'

  const server = createServer((req, res) => {
    if (mode === 'unreachable') return void req.socket.destroy()
    if (mode === 'hanging') return
    const chunks: Buffer[] = []
    req.on('data', (chunk: Buffer) => chunks.push(chunk))
    req.on('end', () => {
      const answer = handle(req, Buffer.concat(chunks))
      requests.push({ method: req.method ?? '', path: (req.url ?? '').split('?')[0]!, status: answer.status, code: answer.code })
      send(req, res, answer)
    })
  })
  server.on('connection', (socket) => {
    if (mode === 'unreachable') return void socket.destroy()
    sockets.add(socket)
    socket.once('close', () => sockets.delete(socket))
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`

  function handle(req: IncomingMessage, body: Buffer): Answer {
    if (mode === 'failing') return error(500, 'InternalError', 'We encountered an internal error. Please try again.')
    const refused = checkSignature(req, body, { accessKeyId, secretAccessKey, region })
    if (refused) return refused
    const [rawPath] = (req.url ?? '/').split('?') as [string]
    const slash = rawPath.indexOf('/', 1)
    const name = decodeURIComponent(slash === -1 ? rawPath.slice(1) : rawPath.slice(1, slash))
    const key = slash === -1 ? '' : decodeURIComponent(rawPath.slice(slash + 1))
    if (key === '' && req.method === 'PUT') return createBucket(name, body.toString('utf8'))
    const objects = buckets.get(name)
    if (!objects) return error(404, 'NoSuchBucket', 'The specified bucket does not exist', { BucketName: name })
    if (key === '') {
      if (req.method === 'HEAD') return { status: 200, headers: { 'x-amz-bucket-region': region } }
      if (req.method === 'POST' && new URLSearchParams((req.url ?? '').split('?')[1] ?? '').has('delete')) return deleteObjects(objects, body.toString('utf8'))
      return error(501, 'NotImplemented', 'A header you provided implies functionality that is not implemented')
    }
    if (req.method === 'PUT') {
      objects.set(key, body)
      return { status: 200, headers: { ETag: etag(body) } }
    }
    if (req.method === 'GET' || req.method === 'HEAD') {
      const stored = objects.get(key)
      if (!stored) return error(404, 'NoSuchKey', 'The specified key does not exist.', { Key: key })
      return { status: 200, headers: { ETag: etag(stored), 'Content-Type': 'application/octet-stream', 'Last-Modified': new Date().toUTCString() }, body: stored }
    }
    return error(501, 'NotImplemented', 'A header you provided implies functionality that is not implemented')
  }

  function createBucket(name: string, body: string): Answer {
    if (buckets.has(name)) return error(409, 'BucketAlreadyOwnedByYou', 'Your previous request to create the named bucket succeeded and you already own it.', { BucketName: name })
    const asked = /<LocationConstraint>([^<]*)<\/LocationConstraint>/.exec(body)?.[1] ?? 'us-east-1'
    if (asked !== region) return error(400, 'IllegalLocationConstraintException', `The ${asked} location constraint is incompatible for the region specific endpoint this request was sent to.`)
    buckets.set(name, new Map())
    return { status: 200, headers: { Location: `/${name}` } }
  }

  return {
    endpoint,
    bucket,
    region,
    accessKeyId,
    secretAccessKey,
    requests,
    settings: (overrides = {}) => ({ endpoint, bucket, region, accessKeyId, secretAccessKey, ...overrides }),
    env: () => ({ S3_ENDPOINT: endpoint, S3_BUCKET: bucket, S3_REGION: region, S3_ACCESS_KEY_ID: accessKeyId, S3_SECRET_ACCESS_KEY: secretAccessKey }),
    object: (key, name = bucket) => buckets.get(name)?.get(key),
    keys: (name = bucket) => [...(buckets.get(name)?.keys() ?? [])],
    setMode(next) {
      mode = next
      if (next === 'unreachable') for (const socket of sockets) socket.destroy()
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve())
        server.closeAllConnections()
      }),
  }
}

interface Answer {
  status: number
  code?: string
  headers?: Record<string, string>
  body?: Buffer
}

/** An S3 error answer: the XML document S3 sends (HEAD answers carry no body, as on S3). */
function error(status: number, code: string, message: string, extra: Record<string, string> = {}): Answer {
  const fields = Object.entries(extra).map(([name, value]) => `<${name}>${escapeXml(value)}</${name}>`).join('')
  const xml = `<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>${code}</Code><Message>${escapeXml(message)}</Message>${fields}<RequestId>${randomBytes(8).toString('hex').toUpperCase()}</RequestId><HostId>loopback</HostId></Error>`
  return { status, code, headers: { 'Content-Type': 'application/xml' }, body: Buffer.from(xml) }
}

/** DeleteObjects: removes each <Key> of the XML body (a missing one counts as deleted); a quiet request hears only of failures, of which there are none. */
function deleteObjects(objects: Map<string, Buffer>, xml: string): Answer {
  const keys = [...xml.matchAll(/<Key>([^<]*)<\/Key>/g)].map((m) => unescapeXml(m[1]!))
  if (!xml.includes('<Delete') || keys.length === 0 || keys.length > 1000) return error(400, 'MalformedXML', 'The XML you provided was not well-formed or did not validate against our published schema')
  for (const key of keys) objects.delete(key)
  const deleted = /<Quiet>true<\/Quiet>/.test(xml) ? '' : keys.map((key) => `<Deleted><Key>${escapeXml(key)}</Key></Deleted>`).join('')
  const result = `<?xml version="1.0" encoding="UTF-8"?>\n<DeleteResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/">${deleted}</DeleteResult>`
  return { status: 200, headers: { 'Content-Type': 'application/xml' }, body: Buffer.from(result) }
}

function unescapeXml(value: string): string {
  return value.replace(/&(#(\d+)|#x([0-9a-f]+)|amp|lt|gt|quot|apos);/gi, (entity, _: string, dec?: string, hex?: string) => {
    if (dec) return String.fromCodePoint(Number(dec))
    if (hex) return String.fromCodePoint(parseInt(hex, 16))
    return { '&amp;': '&', '&lt;': '<', '&gt;': '>', '&quot;': '"', '&apos;': "'" }[entity.toLowerCase()] ?? entity
  })
}

function send(req: IncomingMessage, res: ServerResponse, answer: Answer): void {
  const body = answer.body ?? Buffer.alloc(0)
  res.writeHead(answer.status, { Server: 'AmazonS3', 'x-amz-request-id': randomBytes(8).toString('hex').toUpperCase(), 'Content-Length': String(body.length), ...answer.headers })
  res.end(req.method === 'HEAD' ? undefined : body)
}

/**
 * Checks the request's SigV4 signature as S3 does: same key id, a credential scope for this
 * region and s3, a fresh x-amz-date, a payload hash that matches the body, and a signature over
 * the canonical request computed with the secret. Answers the S3 error, or undefined when valid.
 */
function checkSignature(req: IncomingMessage, body: Buffer, keys: { accessKeyId: string; secretAccessKey: string; region: string }): Answer | undefined {
  const authorization = req.headers.authorization
  if (authorization === undefined) return error(403, 'AccessDenied', 'Access Denied')
  const parts = AUTHORIZATION.exec(authorization)
  if (!parts) return error(400, 'AuthorizationHeaderMalformed', 'The authorization header is malformed.')
  const [, keyId, day, region, signedHeaders, signature] = parts as unknown as [string, string, string, string, string, string]
  if (keyId !== keys.accessKeyId) return error(403, 'InvalidAccessKeyId', 'The AWS Access Key Id you provided does not exist in our records.')
  if (region !== keys.region) return error(400, 'AuthorizationHeaderMalformed', `The authorization header is malformed; the region '${region}' is wrong; expecting '${keys.region}'`)
  const amzDate = String(req.headers['x-amz-date'] ?? '')
  const when = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(amzDate)
  if (!when || !amzDate.startsWith(day)) return error(403, 'AccessDenied', 'AWS authentication requires a valid Date or x-amz-date header')
  const at = Date.UTC(+when[1]!, +when[2]! - 1, +when[3]!, +when[4]!, +when[5]!, +when[6]!)
  if (Math.abs(Date.now() - at) > MAX_SKEW_MS) return error(403, 'RequestTimeTooSkewed', 'The difference between the request time and the current time is too large.')
  const payloadHash = String(req.headers['x-amz-content-sha256'] ?? '')
  if (payloadHash.startsWith('STREAMING-')) return error(501, 'NotImplemented', 'Chunked (aws-chunked) uploads are not implemented by this loopback')
  if (payloadHash !== 'UNSIGNED-PAYLOAD' && payloadHash !== sha256(body)) return error(400, 'XAmzContentSHA256Mismatch', 'The provided x-amz-content-sha256 header does not match what was computed.')
  const names = signedHeaders.split(';')
  if (!names.includes('host') || !names.includes('x-amz-date')) return error(403, 'AccessDenied', 'host and x-amz-date must be signed')

  const [path, query = ''] = (req.url ?? '/').split('?') as [string, string?]
  const canonicalQuery = [...new URLSearchParams(query)]
    .map(([name, value]) => [encodeRfc3986(name), encodeRfc3986(value)] as const)
    .sort(([a, x], [b, y]) => (a < b ? -1 : a > b ? 1 : x < y ? -1 : x > y ? 1 : 0))
    .map(([name, value]) => `${name}=${value}`)
    .join('&')
  const canonicalHeaders = names.map((name) => `${name}:${String(req.headers[name] ?? '').trim().replace(/\s+/g, ' ')}\n`).join('')
  const canonicalRequest = [req.method, path, canonicalQuery, canonicalHeaders, signedHeaders, payloadHash].join('\n')
  const scope = `${day}/${region}/s3/aws4_request`
  const stringToSign = ['AWS4-HMAC-SHA256', amzDate, scope, sha256(Buffer.from(canonicalRequest))].join('\n')
  let signingKey = hmac(`AWS4${keys.secretAccessKey}`, day)
  for (const part of [region, 's3', 'aws4_request']) signingKey = hmac(signingKey, part)
  const expected = hmac(signingKey, stringToSign)
  if (!timingSafeEqual(expected, Buffer.from(signature, 'hex'))) {
    return error(403, 'SignatureDoesNotMatch', 'The request signature we calculated does not match the signature you provided. Check your key and signing method.')
  }
  return undefined
}

function hmac(key: string | Buffer, data: string): Buffer {
  return createHmac('sha256', key).update(data).digest()
}

function sha256(data: Buffer): string {
  return createHash('sha256').update(data).digest('hex')
}

function etag(body: Buffer): string {
  return `"${createHash('md5').update(body).digest('hex')}"`
}

function encodeRfc3986(value: string): string {
  return encodeURIComponent(value).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)
}

function escapeXml(value: string): string {
  return value.replace(/[<>&'"]/g, (c) => `&#${c.charCodeAt(0)};`)
}
