import { once } from 'node:events'
import { brotliCompressSync, constants, createBrotliCompress, deflateRawSync, deflateSync, gzipSync } from 'node:zlib'
import t from 'tap'
import { IngestError } from '../../../services/ingress/errors.js'
import { decompressBody } from '../../../services/ingress/sentry/decompress.js'

const CAP = 1024 * 1024

/** Zeros brotli-compressed through a stream, 16 MiB at a time, so the test never holds them all. */
async function brotliBomb(bytes: number): Promise<Buffer> {
  const compressor = createBrotliCompress({ params: { [constants.BROTLI_PARAM_QUALITY]: 1 } })
  const out: Buffer[] = []
  compressor.on('data', (chunk: Buffer) => out.push(chunk))
  const piece = Buffer.alloc(16 * 1024 * 1024)
  for (let written = 0; written < bytes; written += piece.length) {
    if (!compressor.write(piece)) await once(compressor, 'drain')
  }
  compressor.end()
  await once(compressor, 'end')
  return Buffer.concat(out)
}
const bad = (message: string): IngestError => new IngestError('invalid_envelope', { message })

t.test('each encoding the SDKs send decompresses to the body', async (t) => {
  const body = Buffer.from('{"event_id":"x"}\n{"type":"event"}\n{}\n')
  t.equal((await decompressBody(gzipSync(body), 'gzip', CAP, bad)).toString(), body.toString())
  t.equal((await decompressBody(gzipSync(body), 'x-gzip', CAP, bad)).toString(), body.toString())
  t.equal((await decompressBody(deflateSync(body), 'deflate', CAP, bad)).toString(), body.toString())
  t.equal((await decompressBody(deflateRawSync(body), 'deflate', CAP, bad)).toString(), body.toString(), 'raw deflate too')
  t.equal((await decompressBody(brotliCompressSync(body), 'br', CAP, bad)).toString(), body.toString())
  t.equal(await decompressBody(body, '', CAP, bad), body, 'no encoding: the bytes as sent')
})

t.test('a bomb stops at the cap: 1 GB of zeros is refused quickly, with memory far below its size', async (t) => {
  const bomb = await brotliBomb(1024 * 1024 * 1024)
  global.gc?.()
  const before = process.memoryUsage()
  const started = performance.now()
  await t.rejects(decompressBody(bomb, 'br', CAP, bad), { code: 'payload_too_large' })
  const elapsed = performance.now() - started
  const after = process.memoryUsage()
  t.ok(elapsed < 1000, `refused in ${Math.round(elapsed)} ms`)
  t.ok(after.external + after.arrayBuffers - before.external - before.arrayBuffers < 64 * 1024 * 1024, 'memory grew by far less than the gigabyte')
  const gzipBomb = gzipSync(Buffer.alloc(100 * 1024 * 1024), { level: 9 })
  await t.rejects(decompressBody(gzipBomb, 'gzip', CAP, bad), { code: 'payload_too_large' })
  await t.rejects(decompressBody(deflateRawSync(Buffer.alloc(8 * CAP)), 'deflate', CAP, bad), { code: 'payload_too_large' }, 'a raw deflate bomb too')
})

t.test('bytes that do not decompress are the route\'s 400', async (t) => {
  for (const encoding of ['gzip', 'deflate', 'br'] as const) {
    await t.rejects(decompressBody(Buffer.from('plain text, not compressed'), encoding, CAP, bad), { code: 'invalid_envelope', message: new RegExp(`Content-Encoding: ${encoding}`) })
  }
})
