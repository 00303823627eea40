/**
 * Turns what @aws-sdk/client-s3 throws into ObjectStoreUnavailable with a message a person can
 * act on. Messages are built from the store's address, the bucket, the HTTP status and S3's error
 * code only: never the SDK's own message, never a credential.
 */
import { ObjectStoreUnavailable } from '../../shared/plugins/types.js'

/** Where the store is, as messages name it. */
export interface StoreAddress {
  /** Scheme, host and port of the endpoint (no user info, no path). */
  readonly origin: string
  readonly bucket: string
}

/** S3 error codes that mean the key pair is unknown, wrong, or not allowed this bucket. */
const REFUSED = new Set(['InvalidAccessKeyId', 'SignatureDoesNotMatch', 'AccessDenied', 'InvalidToken', 'ExpiredToken', 'AllAccessDisabled'])
/** Codes S3 sends when it is overloaded rather than broken; the SDK already retried them. */
const THROTTLED = new Set(['SlowDown', 'ServiceUnavailable', 'RequestTimeout', 'Throttling', 'ThrottlingException'])

interface SdkError {
  readonly name?: string
  readonly code?: string
  readonly $metadata?: { readonly httpStatusCode?: number }
}

/** The ObjectStoreUnavailable for error, which the SDK threw while doing (e.g. "write an object"). */
export function unavailableFrom(error: unknown, address: StoreAddress, doing: string): ObjectStoreUnavailable {
  const sdk = (typeof error === 'object' && error !== null ? error : {}) as SdkError
  const status = sdk.$metadata?.httpStatusCode
  // HEAD answers have no body, so the SDK can only call their errors Unknown or NotFound.
  const code = sdk.name === 'Unknown' || sdk.name === 'UnknownError' ? undefined : safeCode(sdk.name)
  const store = `the S3 object store at ${address.origin}`
  if (status === undefined) {
    // No HTTP answer at all: refused, reset, timed out, or a name that does not resolve.
    // AbortError: the operation's deadline passed (s3-store.ts). The SDK also names a reset
    // socket TimeoutError, so a Node code such as ECONNRESET, when there is one, says more.
    const cause = sdk.name === 'AbortError' ? 'timed out' : (safeCode(sdk.code) ?? (sdk.name === 'TimeoutError' ? 'timed out' : (code ?? 'no answer')))
    return new ObjectStoreUnavailable(`Could not ${doing}: ${store} did not answer (${cause}). Check that it is running and that S3_ENDPOINT points at it.`, 'down')
  }
  const answered = `${store} answered ${status}${code ? ` ${code}` : ''}`
  if (status >= 500 || status === 429 || (code !== undefined && THROTTLED.has(code))) {
    return new ObjectStoreUnavailable(`Could not ${doing}: ${answered}. It is down or overloaded; try again shortly.`, 'down')
  }
  if (code === 'NoSuchBucket' || (status === 404 && code === 'NotFound')) {
    return new ObjectStoreUnavailable(`Could not ${doing}: the bucket "${address.bucket}" does not exist at ${address.origin}. Create it, or set S3_BUCKET to an existing bucket.`, 'misconfigured')
  }
  if (status === 401 || status === 403 || (code !== undefined && REFUSED.has(code))) {
    return new ObjectStoreUnavailable(
      `Could not ${doing}: ${answered}, refusing the credentials. Check S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY, and that the key may read and write the bucket "${address.bucket}".`,
      'misconfigured',
    )
  }
  return new ObjectStoreUnavailable(`Could not ${doing}: ${answered}. Check S3_ENDPOINT, S3_REGION and S3_BUCKET.`, 'misconfigured')
}

/**
 * The ObjectStoreUnavailable for a DeleteObjects answer that listed keys it could not delete
 * (S3 answers 200 and names each failure): refused ones mean a key pair without the right to
 * delete, anything else a store in trouble.
 */
export function unavailableFromDeleteErrors(failed: ReadonlyArray<{ readonly Code?: string }>, asked: number, address: StoreAddress): ObjectStoreUnavailable {
  const codes = [...new Set(failed.map((e) => safeCode(e.Code) ?? 'unknown'))].join(', ')
  const doing = `Could not delete ${failed.length} of ${asked} objects: the S3 object store at ${address.origin} answered ${codes}`
  if (failed.some((e) => e.Code !== undefined && REFUSED.has(e.Code))) {
    return new ObjectStoreUnavailable(`${doing}. Check that the key pair may delete objects in the bucket "${address.bucket}".`, 'misconfigured')
  }
  return new ObjectStoreUnavailable(`${doing}. It may be down or overloaded; try again shortly.`, 'down')
}

/** An error code as S3 or Node spell them (letters, digits, dot, dash, underscore), else nothing: no free text reaches a message. */
function safeCode(value: string | undefined): string | undefined {
  return typeof value === 'string' && /^[A-Za-z0-9._-]{1,64}$/.test(value) ? value : undefined
}
