/**
 * Reading /metrics as Prometheus would: a small reader of the text exposition format (HELP and
 * TYPE lines, samples with escaped label values), and the names docs/metrics.md documents.
 */
import { readFile } from 'node:fs/promises'

export interface Sample {
  name: string
  labels: Record<string, string>
  value: number
}

export interface Scrape {
  contentType: string
  /** Every metric family's name with its type, as its TYPE line says. */
  types: Map<string, string>
  /** How many TYPE lines each name has (more than one is an invalid exposition). */
  typeLines: Map<string, number>
  samples: Sample[]
  /** The sum of the samples of name whose labels include labels (0 when none match). */
  value(name: string, labels?: Record<string, string>): number
  /** True when some sample of name has labels including labels. */
  has(name: string, labels?: Record<string, string>): boolean
}

const SAMPLE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)(?:\s+\d+)?$/
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"\s*,?/gy

/** Reads an exposition text; throws on a line it cannot read. */
export function parseMetrics(text: string, contentType = ''): Scrape {
  const types = new Map<string, string>()
  const typeLines = new Map<string, number>()
  const samples: Sample[] = []
  for (const line of text.split('\n')) {
    if (line.trim() === '' || line.startsWith('# HELP ')) continue
    if (line.startsWith('# TYPE ')) {
      const [name, type] = line.slice(7).split(' ')
      types.set(name!, type!)
      typeLines.set(name!, (typeLines.get(name!) ?? 0) + 1)
      continue
    }
    if (line.startsWith('#')) continue
    const match = SAMPLE.exec(line)
    if (!match) throw new Error(`unreadable metrics line: ${line}`)
    const labels: Record<string, string> = {}
    const body = match[2] ?? ''
    LABEL.lastIndex = 0
    while (LABEL.lastIndex < body.length) {
      const label = LABEL.exec(body)
      if (!label) throw new Error(`unreadable labels: ${line}`)
      labels[label[1]!] = label[2]!.replace(/\\(.)/g, (_, c: string) => (c === 'n' ? '\n' : c))
    }
    const raw = match[3]!
    samples.push({ name: match[1]!, labels, value: raw === '+Inf' ? Infinity : raw === '-Inf' ? -Infinity : Number(raw) })
  }
  const matching = (name: string, labels: Record<string, string>) => samples.filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v))
  return {
    contentType,
    types,
    typeLines,
    samples,
    value: (name, labels = {}) => matching(name, labels).reduce((sum, s) => sum + s.value, 0),
    has: (name, labels = {}) => matching(name, labels).length > 0,
  }
}

/** GETs a /metrics URL; throws unless it answers 200. */
export async function scrape(url: string): Promise<Scrape> {
  const response = await fetch(url)
  const text = await response.text()
  if (response.status !== 200) throw new Error(`${url} answered ${response.status}: ${text}`)
  return parseMetrics(text, response.headers.get('content-type') ?? '')
}

/** The svc_ metric names docs/metrics.md lists: the first cell of its tables' rows. */
export async function documentedMetrics(): Promise<string[]> {
  const text = await readFile(new URL('../../docs/metrics.md', import.meta.url), 'utf8')
  return [...text.matchAll(/^\| `(svc_[a-z0-9_]+)` \|/gm)].map((m) => m[1]!)
}
