/**
 * The conformance suite for objectstore plugins: any plugin of kind objectstore, ours or a
 * stranger's, runs it against a store its test provides (see plugins/README.md). It covers the
 * put/get contract byte for byte (binary, empty, several MiB), missing keys, overwrites,
 * concurrent writers, deletes (missing keys, more than one request's worth), the key shape,
 * prepare() where the plugin has it (a missing bucket made, twice at once, again without harm), and
 * that a store that cannot be used throws
 * ObjectStoreUnavailable with a message that carries no secret, in errors and log lines alike.
 */
import { createHash, randomBytes } from 'node:crypto'
import type { Test } from 'tap'
import { checkPluginModule, instantiatePlugin } from '../../shared/plugins/loader.js'
import { ObjectStoreUnavailable, type ObjectStorePlugin, type PluginModule } from '../../shared/plugins/types.js'
import { assertNoSecrets, capturingLogger } from './leaks.js'

/** One way the store can be unusable, arranged by the harness. */
export interface ObjectStoreOutage {
  /** What is wrong, for test titles: "the store answers 500". */
  readonly what: string
  /** Arranges the outage and answers settings of a store that suffers it. */
  start(): Promise<Record<string, unknown>>
  /** Undoes start(), so later tests see a working store. */
  end(): Promise<void>
}

/** A store the plugin can use (a folder, an S3 stand-in on 127.0.0.1), with controls. */
export interface ObjectStoreHarness {
  /** Settings of a working, empty store. */
  settings(): Record<string, unknown>
  /** Ways the store can be down or misconfigured; at least one. */
  outages(): ObjectStoreOutage[]
  /** Values that must never appear in an error or a log line (secret keys). */
  secrets(): string[]
  /** The bytes the store itself holds under key (read behind the plugin's back), to prove a put landed. */
  stored(key: string): Promise<Buffer | undefined>
  /** Settings of a store prepare() has to make ready (an S3 bucket nobody created); required when the plugin has prepare(). */
  unprepared?(): Record<string, unknown>
}

const MIB = 1024 * 1024

/** Runs the objectstore conformance suite against module as subtests of t. */
export async function objectStoreConformance(t: Test, module: unknown, harness: ObjectStoreHarness): Promise<void> {
  const plugin = checkPluginModule('objectstore', (module as PluginModule).manifest?.name ?? 'unknown', module, false)
  const { log, lines } = capturingLogger()
  const errors: string[] = []
  const create = (settings: Record<string, unknown>): Promise<ObjectStorePlugin> => instantiatePlugin(plugin, 'objectstore', settings, { log })
  const store = await create(harness.settings())
  // Keys unique to this run, so a shared store (a real bucket) cannot make a test pass by accident.
  const run = `conformance/${randomBytes(6).toString('hex')}`

  await t.test('check() passes on a working store', async (t) => {
    await t.resolves(store.check())
  })

  await t.test('an object put is read back byte for byte, as a Buffer, and lands in the store', async (t) => {
    const body = Buffer.concat([Buffer.from(Array.from({ length: 256 }, (_, i) => i)), randomBytes(4096), Buffer.from('\r\n\0\u00e9\u{1f600}')])
    await store.put(`${run}/binary.bin`, body)
    const read = await store.get(`${run}/binary.bin`)
    t.ok(Buffer.isBuffer(read), 'get answers a Buffer')
    t.ok(read?.equals(body), 'the same bytes, every byte value included')
    t.ok((await harness.stored(`${run}/binary.bin`))?.equals(body), 'the store itself holds them')
  })

  await t.test('an empty object is an object, not a missing one', async (t) => {
    await store.put(`${run}/empty`, Buffer.alloc(0))
    const read = await store.get(`${run}/empty`)
    t.ok(read !== undefined && read.length === 0, 'zero bytes, not undefined')
  })

  await t.test('a key nobody put answers undefined', async (t) => {
    t.equal(await store.get(`${run}/never-put.map`), undefined, 'beside other objects')
    t.equal(await store.get(`${randomBytes(6).toString('hex')}/nothing/here.map`), undefined, 'under a prefix nobody used')
    await store.put(`${run}/dir/inner.map`, Buffer.from('x'))
    t.equal(await store.get(`${run}/dir`), undefined, 'a prefix of other keys is not an object')
  })

  await t.test('a second put under a key replaces the first', async (t) => {
    await store.put(`${run}/overwrite.map`, Buffer.from('first version, which is longer'))
    await store.put(`${run}/overwrite.map`, Buffer.from('second'))
    t.equal((await store.get(`${run}/overwrite.map`))?.toString(), 'second')
  })

  await t.test('a large object (6 MiB) round-trips intact', async (t) => {
    const body = randomBytes(6 * MIB)
    await store.put(`${run}/large.bin`, body)
    const read = await store.get(`${run}/large.bin`)
    t.equal(read?.length, body.length, 'same length')
    t.equal(digest(read), digest(body), 'same SHA-256')
  })

  await t.test('concurrent puts all land, and concurrent writers of one key leave one whole object', async (t) => {
    const bodies = Array.from({ length: 16 }, (_, i) => Buffer.concat([Buffer.from(`object ${i}:`), randomBytes(64 * 1024)]))
    await Promise.all(bodies.map((body, i) => store.put(`${run}/many/${i}.bin`, body)))
    const read = await Promise.all(bodies.map((_, i) => store.get(`${run}/many/${i}.bin`)))
    t.ok(read.every((body, i) => body?.equals(bodies[i]!)), 'each key holds its own bytes')
    await Promise.all(bodies.map((body) => store.put(`${run}/contended.bin`, body)))
    const winner = await store.get(`${run}/contended.bin`)
    t.ok(bodies.some((body) => body.equals(winner ?? Buffer.alloc(0))), 'exactly one writer’s bytes, never a mix or a truncation')
  })

  await t.test('delete removes the objects named; a key with no object, a prefix of others and an empty list are no error', async (t) => {
    for (const name of ['a', 'b', 'kept', 'dir/inner']) await store.put(`${run}/delete/${name}.bin`, Buffer.from(name))
    await store.delete([`${run}/delete/a.bin`, `${run}/delete/b.bin`, `${run}/delete/never-put.bin`, `${run}/delete/dir`])
    t.equal(await store.get(`${run}/delete/a.bin`), undefined, 'get answers undefined for a deleted object')
    t.equal(await harness.stored(`${run}/delete/b.bin`), undefined, 'and the store itself no longer holds it')
    t.equal((await store.get(`${run}/delete/kept.bin`))?.toString(), 'kept', 'an object not named stays')
    t.equal((await store.get(`${run}/delete/dir/inner.bin`))?.toString(), 'dir/inner', 'so do the objects under a prefix named')
    await t.resolves(store.delete([`${run}/delete/a.bin`]), 'deleting again is no error')
    await t.resolves(store.delete([]), 'nor is deleting nothing')
    await store.delete([`${run}/delete/kept.bin`, `${run}/delete/dir/inner.bin`])
    await store.put(`${run}/delete/dir/inner.bin`, Buffer.from('again'))
    t.equal((await store.get(`${run}/delete/dir/inner.bin`))?.toString(), 'again', 'a key can be put again once its neighbours are all gone')
  })

  await t.test('a delete of more keys than one request takes (S3: 1,000) removes every one', async (t) => {
    const keys = Array.from({ length: 1005 }, (_, i) => `${run}/bulk/${String(i).padStart(4, '0')}.bin`)
    for (let i = 0; i < keys.length; i += 32) await Promise.all(keys.slice(i, i + 32).map((key) => store.put(key, Buffer.from(key))))
    t.ok((await harness.stored(keys.at(-1)!))?.equals(Buffer.from(keys.at(-1)!)), 'the objects were there')
    await store.delete(keys)
    const left: string[] = []
    for (let i = 0; i < keys.length; i += 32) {
      const read = await Promise.all(keys.slice(i, i + 32).map((key) => harness.stored(key)))
      read.forEach((body, j) => body !== undefined && left.push(keys[i + j]!))
    }
    t.same(left, [], 'none is left')
  })

  await t.test('refuses keys outside the key shape before touching the store', async (t) => {
    await store.put(`${run}/shape-kept.map`, Buffer.from('kept'))
    for (const key of ['', '/absolute', '../escape', 'a/../../escape', 'a//b', 'trailing/', '.hidden', 'space in key', 'a\\b']) {
      await t.rejects(store.put(key, Buffer.from('x')), `put ${JSON.stringify(key)}`)
      await t.rejects(store.get(key), `get ${JSON.stringify(key)}`)
      await t.rejects(store.delete([`${run}/shape-kept.map`, key]), `delete ${JSON.stringify(key)}`)
    }
    t.equal((await store.get(`${run}/shape-kept.map`))?.toString(), 'kept', 'a delete with one bad key removes none')
  })

  if (typeof store.prepare === 'function') await prepareConformance(t, create, harness, run)

  for (const outage of harness.outages()) {
    await t.test(`${outage.what}: put, get, delete and check throw ObjectStoreUnavailable saying what to check, without secrets`, async (t) => {
      const broken = await create(await outage.start())
      t.teardown(() => outage.end())
      // Settled as they start: all four run at once, and none is left rejecting unobserved.
      const settle = (attempt: Promise<unknown>): Promise<unknown> =>
        attempt.then(
          () => undefined,
          (reason: unknown) => reason,
        )
      const attempts: Array<[string, Promise<unknown>]> = [
        ['put', settle(broken.put(`${run}/during-outage.map`, Buffer.from('{}')))],
        ['get', settle(broken.get(`${run}/binary.bin`))],
        ['delete', settle(broken.delete([`${run}/binary.bin`]))],
        ['check', settle(broken.check())],
      ]
      for (const [what, attempt] of attempts) {
        const error = await attempt
        t.type(error, ObjectStoreUnavailable, `${what} throws ObjectStoreUnavailable`)
        const message = String((error as Error | undefined)?.message ?? '')
        errors.push(message)
        t.ok(message.length > 20, `${what}: the message says what is wrong`)
      }
    })
  }

  await t.test('no secret reaches an error message or a log line', async (t) => {
    assertNoSecrets(t, errors.join('\n'), harness.secrets(), 'every error message')
    assertNoSecrets(t, lines.join('\n'), harness.secrets(), 'the log')
  })
}

/** prepare(): a no-op on a ready store; on an unready one it makes the store usable, even when run twice at once. */
async function prepareConformance(t: Test, create: (settings: Record<string, unknown>) => Promise<ObjectStorePlugin>, harness: ObjectStoreHarness, run: string): Promise<void> {
  await t.test('prepare() on a ready store keeps what it holds', async (t) => {
    const store = await create(harness.settings())
    await store.put(`${run}/before-prepare.bin`, Buffer.from('kept'))
    await t.resolves(store.prepare!())
    t.equal((await store.get(`${run}/before-prepare.bin`))?.toString(), 'kept')
  })

  await t.test('prepare() makes an unready store usable, run twice at once and again later; check() first says what is missing', async (t) => {
    t.ok(harness.unprepared, 'a plugin with prepare() gives the suite a store to prepare')
    if (!harness.unprepared) return
    const store = await create(harness.unprepared())
    const before = await store.check().then(
      () => undefined,
      (reason: unknown) => reason,
    )
    t.type(before, ObjectStoreUnavailable, 'check() before prepare() fails')
    t.equal((before as ObjectStoreUnavailable | undefined)?.fault, 'misconfigured', 'as something to fix, not an outage')
    await t.resolves(Promise.all([store.prepare!(), store.prepare!()]), 'two at once (two setup runs) both succeed')
    await t.resolves(store.check(), 'check() then passes')
    await store.put(`${run}/prepared.bin`, Buffer.from('made'))
    await t.resolves(store.prepare!(), 'prepare() again is no error')
    t.equal((await store.get(`${run}/prepared.bin`))?.toString(), 'made', 'and leaves the objects be')
  })
}

function digest(body: Buffer | undefined): string {
  return createHash('sha256')
    .update(body ?? Buffer.alloc(0))
    .digest('hex')
}
