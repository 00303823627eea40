/**
 * Reads a template folder (SVC_SANDBOX_JAVASCRIPT_TEMPLATE): its template.json says how a project
 * is installed, built and tested, and may name a prepared node_modules folder. Anything unusable
 * is a SandboxTemplateMissing whose message says what was wrong and what to set.
 */
import { readFile, stat } from 'node:fs/promises'
import { isAbsolute, join, resolve } from 'node:path'
import { Ajv2020, type ErrorObject } from 'ajv/dist/2020.js'
import { SandboxTemplateMissing, type SandboxTemplate } from '../../shared/plugins/sandbox-types.js'

/** A template as read from its folder. */
export interface LoadedTemplate {
  readonly template: SandboxTemplate
  /** Absolute path of the prepared dependency folder, mounted read-only as <workspace>/node_modules. */
  readonly nodeModules: string | undefined
}

const command = { type: 'string', minLength: 1 } as const
const TEMPLATE_SCHEMA = {
  type: 'object',
  properties: {
    install: command,
    build: command,
    test: command,
    // Without the placeholder the command would run the whole suite where one file was asked for.
    testFile: { type: 'string', pattern: '\\{file\\}' },
    nodeModules: { type: 'string', minLength: 1 },
  },
  required: ['install', 'build', 'test', 'testFile'],
  additionalProperties: false,
} as const

const validate = new Ajv2020({ allErrors: true, strict: true, logger: false }).compile(TEMPLATE_SCHEMA)

const FIX = 'Set SVC_SANDBOX_JAVASCRIPT_TEMPLATE=<folder with template.json>; the repository ships sandbox-templates/javascript (see docs/sandbox.md).'

/** Loads the template folder named by value (relative paths from the working directory). */
export async function loadTemplate(value: string | undefined): Promise<LoadedTemplate> {
  if (value === undefined || value.trim() === '') throw new SandboxTemplateMissing(`SVC_SANDBOX_JAVASCRIPT_TEMPLATE is not set. ${FIX}`)
  const folder = resolve(value)
  if (!(await isFolder(folder))) throw new SandboxTemplateMissing(`SVC_SANDBOX_JAVASCRIPT_TEMPLATE names ${folder}, which is not a folder. ${FIX}`)
  const file = join(folder, 'template.json')
  let text: string
  try {
    text = await readFile(file, 'utf8')
  } catch (error) {
    throw new SandboxTemplateMissing(`${file} cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'}). ${FIX}`)
  }
  let parsed: unknown
  try {
    parsed = JSON.parse(text)
  } catch (error) {
    throw new SandboxTemplateMissing(`${file} is not JSON (${(error as Error).message}). ${FIX}`)
  }
  if (!validate(parsed)) {
    const problems = [...new Set((validate.errors ?? []).map(describe))].join('; ')
    throw new SandboxTemplateMissing(`${file} is not a sandbox template: ${problems}. It holds { "install", "build", "test", "testFile" (with {file}), "nodeModules"? }. ${FIX}`)
  }
  const { install, build, test, testFile, nodeModules } = parsed as SandboxTemplate & { nodeModules?: string }
  const modules = nodeModules === undefined ? undefined : isAbsolute(nodeModules) ? nodeModules : resolve(folder, nodeModules)
  if (modules !== undefined && !(await isFolder(modules))) {
    throw new SandboxTemplateMissing(`${file} names nodeModules ${modules}, which is not a folder. Prepare it (npm ci in a copy of the project) or remove nodeModules. ${FIX}`)
  }
  return { template: Object.freeze({ install, build, test, testFile }), nodeModules: modules }
}

async function isFolder(path: string): Promise<boolean> {
  return stat(path).then(
    (info) => info.isDirectory(),
    () => false,
  )
}

function describe(error: ErrorObject): string {
  const params = error.params as Record<string, unknown>
  if (error.keyword === 'required') return `"${String(params.missingProperty)}" is required`
  if (error.keyword === 'additionalProperties') return `"${String(params.additionalProperty)}" is not a template field`
  if (error.keyword === 'pattern') return `"${error.instancePath.slice(1)}" must contain {file}`
  return `${error.instancePath === '' ? 'the file' : `"${error.instancePath.slice(1)}"`} ${error.message ?? 'is invalid'}`
}
