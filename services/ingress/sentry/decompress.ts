/**
 * Bodies the Sentry SDKs compress: gzip, deflate (zlib-wrapped, or raw as some clients send it) and
 * brotli. Output is capped: zlib stops producing once the cap is passed, so a decompression bomb
 * (100 MB of zeros in 100 KB) costs at most the cap in memory, never its whole inflated size.
 */
import { brotliDecompress, gunzip, inflate, inflateRaw, type ZlibOptions } from 'node:zlib'
import { IngestError } from '../errors.js'

/** The Content-Encoding values this ingress takes; '' and identity are the body as sent. */
export const SENTRY_ENCODINGS = ['', 'identity', 'gzip', 'x-gzip', 'deflate', 'br'] as const

export type SentryEncoding = (typeof SENTRY_ENCODINGS)[number]

/** True for a Content-Encoding value decompressBody can undo. */
export function isSentryEncoding(value: string): value is SentryEncoding {
  return (SENTRY_ENCODINGS as readonly string[]).includes(value)
}

type Inflater = (buffer: Buffer, options: ZlibOptions, done: (error: Error | null, result: Buffer) => void) => void

const INFLATERS: Readonly<Record<Exclude<SentryEncoding, '' | 'identity'>, Inflater>> = {
  gzip: gunzip,
  'x-gzip': gunzip,
  deflate: inflate,
  br: brotliDecompress,
}

/**
 * The body decompressed, at most cap bytes of output. Throws IngestError payload_too_large past the
 * cap, or badBody (the route's 400) for bytes that do not decompress.
 */
export async function decompressBody(wire: Buffer, encoding: SentryEncoding, cap: number, badBody: (message: string) => IngestError): Promise<Buffer> {
  if (encoding === '' || encoding === 'identity') return wire
  const tooLarge = (): IngestError => new IngestError('payload_too_large', { message: `The body is over ${cap} bytes after decompression; nothing was stored. Send fewer or smaller items.` })
  const notEncoded = (): IngestError => badBody(`The body is marked Content-Encoding: ${encoding} but does not decompress. Send valid ${encoding} or drop the header.`)
  try {
    return await run(INFLATERS[encoding], wire, cap)
  } catch (error) {
    if (isTooLarge(error)) throw tooLarge()
    if (encoding !== 'deflate') throw notEncoded()
  }
  // "deflate" on the web has meant both zlib-wrapped and raw deflate; the wrapped form failed.
  try {
    return await run(inflateRaw, wire, cap)
  } catch (error) {
    throw isTooLarge(error) ? tooLarge() : notEncoded()
  }
}

function run(inflater: Inflater, wire: Buffer, cap: number): Promise<Buffer> {
  return new Promise((resolve, reject) => inflater(wire, { maxOutputLength: cap }, (error, result) => (error ? reject(error) : resolve(result))))
}

function isTooLarge(error: unknown): boolean {
  return (error as NodeJS.ErrnoException | undefined)?.code === 'ERR_BUFFER_TOO_LARGE'
}
