// Every image compose.yml pulls and every base image of the Dockerfile is pinned to one release.
// No registry is reachable here, so the file is read: a moving tag (latest, none, a bare major)
// lets a fresh `docker compose up` pull something nobody tested, and a repository that disappears
// (minio/minio and minio/mc left Docker Hub in September 2026) stops the stack before it starts.
import { readFileSync } from 'node:fs'
import t from 'tap'
import { parse } from 'yaml'

const root = new URL('../../../', import.meta.url)
const compose = parse(readFileSync(new URL('compose.yml', root), 'utf8'), { merge: true }) as { services: Record<string, { image?: string; build?: unknown }> }
const dockerfile = readFileSync(new URL('Dockerfile', root), 'utf8')

/**
 * Images whose releases are numbered in two parts (SeaweedFS: 4.46, 4.47), so that major.minor
 * names one release. Every other image needs major.minor.patch: redis:7.4 or node:20.20 follow
 * their line's newest patch.
 */
const TWO_PART_RELEASES = new Set(['chrislusf/seaweedfs'])

/** Why ref is not pinned to one release, or undefined when it is. */
function unpinned(ref: string): string | undefined {
  if (ref.includes('@sha256:')) return undefined
  const slash = ref.lastIndexOf('/')
  const colon = ref.lastIndexOf(':')
  const name = (colon > slash ? ref.slice(0, colon) : ref).replace(/^(docker\.io\/)?(library\/)?/, '')
  const tag = colon > slash ? ref.slice(colon + 1) : undefined
  if (/(^|\/)minio\//.test(name)) return 'a MinIO image: Docker Hub removed minio/minio and minio/mc, and the community edition is source-only'
  if (tag === undefined) return 'no tag, which pulls latest'
  if (tag === 'latest') return 'the latest tag'
  const version = /^v?(\d+(?:\.\d+)*)/.exec(tag)?.[1]
  if (version === undefined) return `the tag "${tag}" names no version`
  const needed = TWO_PART_RELEASES.has(name) ? 2 : 3
  const parts = version.split('.').length
  if (parts < needed) return `the tag "${tag}" names ${parts === 1 ? 'only a major version' : 'only major.minor'}, a line that moves`
  return undefined
}

/** The images a Dockerfile builds from (FROM lines, stage names dropped). */
function baseImages(text: string): string[] {
  return [...text.matchAll(/^FROM\s+(?:--platform=\S+\s+)?(\S+)/gim)].map((m) => m[1]!)
}

t.test('every image compose.yml pulls is pinned to one release, and none is a MinIO image', async (t) => {
  const pulled = Object.entries(compose.services).filter(([, service]) => service.build === undefined)
  t.ok(pulled.length >= 3, 'redis, the database and the object store are pulled')
  for (const [name, service] of pulled) {
    t.ok(service.image, `${name} names an image`)
    t.equal(unpinned(service.image ?? ''), undefined, `${name}: ${service.image}`)
  }
  for (const [name, service] of Object.entries(compose.services).filter(([, s]) => s.build !== undefined)) {
    t.equal(service.image, 'svc:local', `${name} is built here from the Dockerfile, never pulled`)
  }
})

t.test("every base image of the Dockerfile is pinned to one release", async (t) => {
  const bases = baseImages(dockerfile)
  t.ok(bases.length >= 1, 'the Dockerfile builds from an image')
  for (const base of bases) t.equal(unpinned(base), undefined, base)
})

t.test('the rule refuses what the stack used to name and accepts one release of each image', async (t) => {
  for (const [ref, why] of [
    ['minio/minio:latest', /MinIO/],
    ['minio/mc:RELEASE.2025-08-13T08-35-41Z', /MinIO/],
    ['quay.io/minio/minio:RELEASE.2025-09-07T16-13-09Z', /MinIO/],
    ['redis', /no tag/],
    ['redis:latest', /latest/],
    ['redis:7-alpine', /only a major version/],
    ['redis:7.4-alpine', /only major\.minor/],
    ['pgvector/pgvector:pg16', /names no version/],
    ['node:20-bookworm-slim', /only a major version/],
    ['chrislusf/seaweedfs:4', /only a major version/],
    ['chrislusf/seaweedfs:latest', /latest/],
  ] as const) {
    t.match(unpinned(ref), why, `refuses ${ref}`)
  }
  for (const ref of ['redis:7.4.11-alpine', 'pgvector/pgvector:0.8.1-pg16', 'pgvector/pgvector:0.8.6-pg16-bookworm', 'chrislusf/seaweedfs:4.47', 'docker.io/library/node:20.20.2-bookworm-slim', `node:20-bookworm-slim@sha256:${'a'.repeat(64)}`]) {
    t.equal(unpinned(ref), undefined, `accepts ${ref}`)
  }
  t.same(baseImages('FROM node:20.20.2-bookworm-slim AS build\nRUN x\nfrom --platform=linux/amd64 alpine:3.22.2\n'), ['node:20.20.2-bookworm-slim', 'alpine:3.22.2'])
})
