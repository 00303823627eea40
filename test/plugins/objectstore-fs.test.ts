// objectstore-fs through the loader, on a temporary folder: the objectstore conformance suite,
// plus what is particular to files (atomic writes leave no temporary files; the store the
// configuration names by default).
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { readFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { objectStoreConformance } from '../../plugins/conformance/objectstore.js'
import { capturingLogger } from '../../plugins/conformance/leaks.js'
import { loadConfig } from '../../shared/config/index.js'
import { createObjectStore } from '../../shared/object-store.js'
import { importPluginModule, loadPlugin } from '../../shared/plugins/loader.js'
import { PluginError } from '../../shared/plugins/plugin-error.js'

const root = mkdtempSync(join(tmpdir(), 'svc-objectstore-fs-'))
t.teardown(() => rmSync(root, { recursive: true, force: true }))
const dir = join(root, 'objects')
// A regular file where the folder should be: every write and read under it fails.
const notAFolder = join(root, 'not-a-folder')
writeFileSync(notAFolder, 'a file, not a folder')

const filesUnder = (folder: string): string[] => readdirSync(folder, { recursive: true, withFileTypes: true }).filter((e) => e.isFile()).map((e) => join(e.parentPath, e.name))

t.test('objectstore-fs passes the objectstore conformance suite', async (t) => {
  await objectStoreConformance(t, await importPluginModule('objectstore', 'objectstore-fs'), {
    settings: () => ({ dir }),
    outages: () => [{ what: 'the folder is a file', start: async () => ({ dir: notAFolder }), end: async () => {} }],
    secrets: () => [],
    stored: (key) => readFile(join(dir, key)).catch(() => undefined),
  })
})

t.test('writes leave no temporary files behind, even when many writers race for one key', async (t) => {
  const folder = join(root, 'atomic')
  const store = await loadPlugin('objectstore', 'objectstore-fs', { dir: folder }, { log: capturingLogger().log })
  await Promise.all(Array.from({ length: 20 }, (_, i) => store.put('projects/p/sourcemaps/same.map', Buffer.from(`version ${i}`))))
  await store.check()
  t.same(filesUnder(folder), [join(folder, 'projects/p/sourcemaps/same.map')], 'one file, no .tmp left and no check probe')
  t.match((await store.get('projects/p/sourcemaps/same.map'))?.toString(), /^version \d+$/)
})

t.test('a delete removes the folders it empties, up to the store folder and no further', async (t) => {
  const folder = join(root, 'pruned')
  const store = await loadPlugin('objectstore', 'objectstore-fs', { dir: folder }, { log: capturingLogger().log })
  await store.put('recordings/p/r1/000000-a.json.gz', Buffer.from('a'))
  await store.put('recordings/p/r1/000001-b.json.gz', Buffer.from('b'))
  await store.put('recordings/p/r2/000000-c.json.gz', Buffer.from('c'))
  await store.delete(['recordings/p/r1/000000-a.json.gz', 'recordings/p/r1/000001-b.json.gz'])
  t.same(readdirSync(join(folder, 'recordings/p')), ['r2'], "r1's folder went with its last object; r2's stays")
  await store.delete(['recordings/p/r2/000000-c.json.gz'])
  t.same(readdirSync(folder), [], 'every folder the keys made is gone')
  await store.put('recordings/p/r1/000002-d.json.gz', Buffer.from('d'))
  t.equal((await store.get('recordings/p/r1/000002-d.json.gz'))?.toString(), 'd', 'and a later put makes them again')
})

t.test('a put beside an object being deleted lands, whichever removes or makes the folder first', async (t) => {
  const store = await loadPlugin('objectstore', 'objectstore-fs', { dir: join(root, 'racing') }, { log: capturingLogger().log })
  for (let i = 0; i < 50; i++) {
    await store.put(`r/${i}/old.bin`, Buffer.from('old'))
    await Promise.all([store.delete([`r/${i}/old.bin`]), store.put(`r/${i}/new.bin`, Buffer.from('new'))])
    if ((await store.get(`r/${i}/new.bin`))?.toString() !== 'new') return t.fail(`round ${i}: the put was lost`)
  }
  t.pass('50 rounds, every put kept')
})

t.test('a key that is a folder of other keys, or runs through an object, is missing rather than an outage', async (t) => {
  const store = await loadPlugin('objectstore', 'objectstore-fs', { dir: join(root, 'shapes') }, { log: capturingLogger().log })
  await store.put('a/b.map', Buffer.from('x'))
  t.equal(await store.get('a'), undefined, 'a folder')
  t.equal(await store.get('a/b.map/c'), undefined, 'under an object')
  await t.resolves(store.delete(['a', 'a/b.map/c']), 'and deleting either is no error')
  t.equal((await store.get('a/b.map'))?.toString(), 'x', 'nor removes the object')
})

t.test('createObjectStore loads objectstore-fs when S3_ENDPOINT is unset, over SVC_OBJECT_DIR', async (t) => {
  const folder = join(root, 'configured')
  const config = loadConfig({ SVC_OBJECT_DIR: folder })
  t.equal(config.objectStore.kind, 'fs')
  const store = await createObjectStore(config.objectStore, capturingLogger().log)
  await store.put('projects/p/sourcemaps/abc.map', Buffer.from('{"version":3}'))
  t.equal((await readFile(join(folder, 'projects/p/sourcemaps/abc.map'))).toString(), '{"version":3}', 'the object is a file under the folder')
})

t.test('a folder that cannot be written stops start-up with a PluginError naming SVC_OBJECT_DIR', async (t) => {
  const config = loadConfig({ SVC_OBJECT_DIR: join(notAFolder, 'objects') })
  const error = await t.rejects(createObjectStore(config.objectStore, capturingLogger().log))
  t.type(error, PluginError)
  t.match((error as Error).message, /^Plugin objectstore-fs \(objectstore\): cannot be used: .*SVC_OBJECT_DIR/)
})

t.test('the loader refuses settings objectstore-fs does not have, naming them', async (t) => {
  const missing = await t.rejects(loadPlugin('objectstore', 'objectstore-fs', {}, { log: capturingLogger().log }, { settingSources: { dir: 'SVC_OBJECT_DIR' } }))
  t.match((missing as Error).message, /"dir" \(set by SVC_OBJECT_DIR\) is required/)
  const extra = await t.rejects(loadPlugin('objectstore', 'objectstore-fs', { dir, bucket: 'x' }, { log: capturingLogger().log }))
  t.match((extra as Error).message, /"bucket" is not a setting of this plugin/)
})
