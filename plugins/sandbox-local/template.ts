/**
 * Reads a template folder (SVC_SANDBOX_JAVASCRIPT_TEMPLATE): its template.json names how a project
 * is installed, built and tested, or asks for the commands to be chosen per project ("detect"),
 * and may name a prepared node_modules folder. Anything unusable is a SandboxTemplateMissing whose
 * message says what was wrong and what to set.
 */
import { readFile, stat } from 'node:fs/promises'
import { isAbsolute, join, resolve } from 'node:path'
import { Ajv2020, type ErrorObject } from 'ajv/dist/2020.js'
import { SandboxTemplateMissing, type SandboxTemplate } from '../../shared/plugins/sandbox-types.js'

/** A template as read from its folder. */
export interface LoadedTemplate {
  readonly template: SandboxTemplate
  /** Absolute path of the prepared dependency folder, under the workspace's node_modules (prepared.ts). */
  readonly nodeModules: string | undefined
}

const command = { type: 'string', minLength: 1 } as const
const report = {
  oneOf: [
    { type: 'object', properties: { format: { const: 'tap' } }, required: ['format'], additionalProperties: false },
    { type: 'object', properties: { format: { enum: ['jest-json', 'mocha-json'] }, file: command }, required: ['format', 'file'], additionalProperties: false },
  ],
} as const
const COMMAND_SCHEMA = {
  type: 'object',
  properties: {
    install: command,
    build: command,
    test: command,
    // Without the placeholder the command would run the whole suite where one file was asked for.
    testFile: { type: 'string', pattern: '\\{file\\}' },
    report,
    nodeModules: command,
  },
  required: ['install', 'build', 'test', 'testFile'],
  additionalProperties: false,
} as const
// Commands chosen per project; install and build may be fixed (install "true" over prepared dependencies).
const DETECT_SCHEMA = {
  type: 'object',
  properties: { detect: { const: 'javascript' }, install: command, build: command, nodeModules: command },
  required: ['detect'],
  additionalProperties: false,
} as const

const ajv = new Ajv2020({ allErrors: true, strict: true, logger: false })
const validateCommands = ajv.compile(COMMAND_SCHEMA)
const validateDetect = ajv.compile(DETECT_SCHEMA)

const FIX = 'Set SVC_SANDBOX_JAVASCRIPT_TEMPLATE=<folder with template.json>; the repository ships sandbox-templates/javascript (see docs/sandbox.md).'
const FORMS = '{ "install", "build", "test", "testFile" (with {file}), "report"?, "nodeModules"? } or { "detect": "javascript", "install"?, "build"?, "nodeModules"? }'

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
  const detecting = typeof parsed === 'object' && parsed !== null && 'detect' in parsed
  const validate = detecting ? validateDetect : validateCommands
  if (!validate(parsed)) {
    const problems = [...new Set((validate.errors ?? []).map(describe))].join('; ')
    throw new SandboxTemplateMissing(`${file} is not a sandbox template: ${problems}. It holds ${FORMS}. ${FIX}`)
  }
  const { nodeModules, ...template } = parsed as SandboxTemplate & { nodeModules?: string }
  const modules = nodeModules === undefined ? undefined : isAbsolute(nodeModules) ? nodeModules : resolve(folder, nodeModules)
  if (modules !== undefined && !(await isFolder(modules))) {
    throw new SandboxTemplateMissing(`${file} names nodeModules ${modules}, which is not a folder. Prepare it (npm ci in a copy of the project) or remove nodeModules. ${FIX}`)
  }
  return { template: Object.freeze(template), nodeModules: modules }
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
  if (error.keyword === 'const' || error.keyword === 'enum') return `"${error.instancePath.slice(1)}" must be ${JSON.stringify(params.allowedValue ?? params.allowedValues)}`
  return `${error.instancePath === '' ? 'the file' : `"${error.instancePath.slice(1)}"`} ${error.message ?? 'is invalid'}`
}
