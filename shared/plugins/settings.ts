/**
 * Checks a plugin's settings against the JSON schema in its manifest, with ajv, and applies the
 * schema's defaults. Error messages name each bad setting and, when the caller says where the
 * setting comes from (an environment variable), that source; they never repeat a value, since
 * settings carry private keys and secrets.
 */
import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js'

/** Where each setting comes from, e.g. { appId: 'CODEHOST_APP_ID' }, for the fix in messages. */
export type SettingSources = Readonly<Record<string, string>>

/** Compiles a plugin's configSchema; throws with ajv's reason if it is not a usable schema. */
export function compileSettingsSchema(schema: Readonly<Record<string, unknown>>): ValidateFunction {
  // strict off: a plugin's schema may carry annotations ajv does not know; they are not ours to
  // reject. Formats: ajv-formats is not a dependency, so the ones settings need are defined here.
  const ajv = new Ajv2020({ allErrors: true, useDefaults: true, strict: false, logger: false })
  ajv.addFormat('uri', (value: string) => URL.canParse(value))
  ajv.addFormat('email', /^[^\s@]+@[^\s@]+$/)
  return ajv.compile(schema as object)
}

/**
 * Validates settings and returns a copy with defaults applied, or the list of problems in words
 * (`"appSlug" is required`), each with the source to fix when known.
 */
export function checkSettings(
  validate: ValidateFunction,
  settings: Readonly<Record<string, unknown>>,
  sources: SettingSources = {},
): { ok: true; settings: Record<string, unknown> } | { ok: false; problems: string[] } {
  const copy = structuredClone(settings) as Record<string, unknown>
  if (validate(copy)) return { ok: true, settings: copy }
  const problems = (validate.errors ?? []).map((error) => describe(error, sources))
  return { ok: false, problems: [...new Set(problems)] }
}

function describe(error: ErrorObject, sources: SettingSources): string {
  const params = error.params as Record<string, unknown>
  const setting =
    typeof params.missingProperty === 'string'
      ? params.missingProperty
      : typeof params.additionalProperty === 'string'
        ? params.additionalProperty
        : error.instancePath.replace(/^\//, '').replaceAll('/', '.')
  const where = sources[setting.split('.')[0] ?? ''] ? ` (set by ${sources[setting.split('.')[0]!]})` : ''
  if (setting === '') return `the settings ${error.message ?? 'are invalid'}`
  if (error.keyword === 'required') return `"${setting}"${where} is required`
  if (error.keyword === 'dependentRequired') return `"${setting}"${where} is required when "${String(params.property)}" is set`
  if (error.keyword === 'additionalProperties') return `"${setting}" is not a setting of this plugin; remove it`
  // ajv's messages describe the rule ("must be string", "must match format \"uri\""), never the value.
  return `"${setting}"${where} ${error.message ?? 'is invalid'}`
}
