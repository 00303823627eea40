/**
 * Loads a configured plugin: imports the module by name (a built-in from plugins/<name>/, anything
 * else as an installed npm package), checks its manifest, validates the settings against the
 * manifest's schema, and calls its factory. Every failure is a PluginError whose message says
 * which plugin, what is wrong and what to change; none repeats a setting's value.
 */
import { EMBEDDINGS_SETTING_SOURCES, PLUGIN_NAME, PLUGIN_SETTING_SOURCES, type EmbeddingsConfig, type PluginsConfig } from '../config/index.js'
import type { Logger } from '../log.js'
import { BUILT_IN_PLUGINS, builtInPluginUrl } from './built-ins.js'
import { createChatRouter } from './chat-router.js'
import { CHAT_ROUTES } from '../config/chat-routes.js'
import type { EmbeddingsPlugin } from './embeddings-types.js'
import type { ModelPlugin } from './model-types.js'
import { PluginError } from './plugin-error.js'
import type { SandboxPlugin } from './sandbox-types.js'
import { checkSettings, compileSettingsSchema, type SettingSources } from './settings.js'
import type { ChatPlugin, CodehostPlugin, PluginContext, PluginInstance, PluginKind, PluginModule } from './types.js'

/** Options of loadPlugin and instantiatePlugin. */
export interface LoadOptions {
  /** Where each setting comes from (e.g. an environment variable), named in error messages. */
  readonly settingSources?: SettingSources
}

const MANIFEST_NAME = /^[a-z0-9][a-z0-9-]*$/
const VERSION = /^\d+\.\d+\.\d+(?:[-+][0-9A-Za-z.+-]+)?$/

/** Imports, checks and creates the plugin configured as name for kind. */
export async function loadPlugin<K extends PluginKind>(
  kind: K,
  name: string,
  settings: Readonly<Record<string, unknown>>,
  context: PluginContext,
  options: LoadOptions = {},
): Promise<PluginInstance<K>> {
  const module = await importPluginModule(kind, name)
  return instantiatePlugin(module, kind, settings, context, options)
}

/** Imports the module configured as name and checks that its default export is a kind plugin. */
export async function importPluginModule<K extends PluginKind>(kind: K, name: string): Promise<PluginModule<K>> {
  const builtIn = builtInPluginUrl(name)
  if (builtIn === undefined && (!PLUGIN_NAME.test(name) || name.split('/').includes('..'))) {
    throw new PluginError(
      name,
      kind,
      `is neither a built-in plugin (${BUILT_IN_PLUGINS.join(', ')}) nor an npm package name. Plugins are loaded by name, never by path: install it with npm and give its package name.`,
    )
  }
  let namespace: { default?: unknown }
  try {
    namespace = (await import(builtIn?.href ?? name)) as { default?: unknown }
  } catch (error) {
    const code = (error as { code?: string }).code
    const root = name.startsWith('@') ? name.split('/').slice(0, 2).join('/') : name.split('/')[0]!
    // The code is lost under some loader hooks (tap's); node's message names the package either way.
    const missing = code === 'ERR_MODULE_NOT_FOUND' || /Cannot find (package|module)/.test(String((error as Error).message))
    if (builtIn === undefined && missing && String((error as Error).message).includes(`'${root}'`)) {
      throw new PluginError(name, kind, `is not a built-in plugin (${BUILT_IN_PLUGINS.join(', ')}) and no npm package of that name is installed. Run npm install ${root}, or choose a built-in.`)
    }
    throw new PluginError(name, kind, `failed to load: ${(error as Error).message}. Reinstall the plugin, or choose another.`)
  }
  return checkPluginModule(kind, name, namespace.default, builtIn !== undefined)
}

/**
 * Checks that exported (a module's default export) is a plugin of kind: a manifest with a name, the
 * kind, a version and a compilable configSchema, and a create function. Built-ins must also carry
 * the name they are registered under.
 */
export function checkPluginModule<K extends PluginKind>(kind: K, name: string, exported: unknown, builtIn: boolean): PluginModule<K> {
  const fail = (what: string): never => {
    throw new PluginError(name, kind, `is not a valid plugin: ${what}. A plugin's default export is { manifest: { name, kind, version, configSchema }, create(settings, context) } (see plugins/README.md).`)
  }
  if (!isObject(exported)) return fail('it has no default export object')
  const manifest = exported.manifest
  if (!isObject(manifest)) return fail('its default export has no manifest')
  if (typeof manifest.name !== 'string' || !MANIFEST_NAME.test(manifest.name)) return fail('manifest.name must be a lower-case name such as codehost-example')
  if (builtIn && manifest.name !== name) return fail(`manifest.name is "${manifest.name}", not "${name}"`)
  if (manifest.kind !== kind) {
    throw new PluginError(name, kind, `is a ${String(manifest.kind)} plugin, not a ${kind} plugin. Choose a ${kind} plugin for this setting.`)
  }
  if (typeof manifest.version !== 'string' || !VERSION.test(manifest.version)) return fail('manifest.version must be a version string such as 1.0.0')
  if (!isObject(manifest.configSchema)) return fail('manifest.configSchema must be a JSON schema object')
  try {
    compileSettingsSchema(manifest.configSchema)
  } catch (error) {
    return fail(`manifest.configSchema is not a valid JSON schema (${(error as Error).message})`)
  }
  if (typeof exported.create !== 'function') return fail('create must be a function')
  return exported as unknown as PluginModule<K>
}

/** Validates settings against module's schema (applying its defaults) and calls create(). */
export async function instantiatePlugin<K extends PluginKind>(
  module: PluginModule<K>,
  kind: K,
  settings: Readonly<Record<string, unknown>>,
  context: PluginContext,
  options: LoadOptions = {},
): Promise<PluginInstance<K>> {
  const { name } = module.manifest
  const checked = checkSettings(compileSettingsSchema(module.manifest.configSchema), settings, options.settingSources)
  if (!checked.ok) {
    throw new PluginError(name, kind, `has bad settings: ${checked.problems.join('; ')}. Fix them and start again.`)
  }
  let instance: PluginInstance<K>
  try {
    instance = await module.create(Object.freeze(checked.settings), context)
  } catch (error) {
    // A plugin's own message: ours are written not to carry secrets, and a stranger's are its author's to keep clean.
    throw new PluginError(name, kind, `could not start: ${(error as Error).message ?? String(error)}`)
  }
  if (!isObject(instance)) throw new PluginError(name, kind, 'create() returned no plugin object. This is a bug in the plugin.')
  return instance
}

/** The plugins a process uses, as configured. */
export interface ConfiguredPlugins {
  /** Undefined when neither a code-host app nor a token is configured (CODEHOST_APP_ID and CODEHOST_TOKEN unset). */
  readonly codehost: CodehostPlugin | undefined
  /** The chat router: Slack and Discord webhook URLs to their built-ins, any other URL to SVC_CHAT_PLUGIN's plugin. */
  readonly chat: ChatPlugin
}

/**
 * Loads the code-host and chat plugins config.plugins selects, each with a child logger naming it,
 * and puts the chat router (chat-router.ts) in front of the chat plugins. Errors say which variable
 * selects the plugin, so a typo in SVC_CHAT_PLUGIN is found at start-up.
 */
export async function loadConfiguredPlugins(config: { readonly plugins: PluginsConfig }, log: Logger): Promise<ConfiguredPlugins> {
  const { codehost, chat, chatRouted } = config.plugins
  const load = async <K extends 'codehost' | 'chat'>(kind: K, choice: { name: string; settings: Readonly<Record<string, unknown>> }, why: string) => {
    try {
      return await loadPlugin(kind, choice.name, choice.settings, { log: log.child({ plugin: choice.name }) }, { settingSources: PLUGIN_SETTING_SOURCES[kind] })
    } catch (error) {
      if (error instanceof PluginError) throw new PluginError(error.plugin, error.kind, `${error.detail} (${why})`)
      throw error
    }
  }
  const loadedCodehost = codehost === undefined ? undefined : await load('codehost', codehost, 'SVC_CODEHOST_PLUGIN selects the plugin.')
  const fallback = await load('chat', chat, 'SVC_CHAT_PLUGIN selects the plugin.')
  const routed = new Map<string, ChatPlugin>()
  for (const choice of chatRouted) {
    // The fallback is reused when it is the same plugin with the same settings (chat-slack by default).
    const same = choice.name === chat.name && JSON.stringify(choice.settings) === JSON.stringify(chat.settings)
    routed.set(choice.name, same ? fallback : await load('chat', choice, 'Built in: its chat tool\'s webhook URLs are routed to it.'))
  }
  const routes = CHAT_ROUTES.filter((route) => routed.has(route.plugin)).map((route) => `${route.hosts[0]} to ${route.plugin}`)
  log.info('plugins loaded', { codehost: codehost?.name ?? 'none (CODEHOST_APP_ID and CODEHOST_TOKEN unset)', chat: chat.name, chatRoutes: [...routes, `any other URL to ${chat.name}`].join(', ') })
  return { codehost: loadedCodehost, chat: createChatRouter(routed, fallback) }
}

/**
 * Loads the model plugin config.plugins selects, or answers undefined when none is configured
 * (MODEL_API_KEY unset), with a child logger naming it. Errors name the variable to fix.
 */
export async function loadModelPlugin(config: { readonly plugins: PluginsConfig }, log: Logger): Promise<ModelPlugin | undefined> {
  const choice = config.plugins.model
  if (choice === undefined) {
    log.info('model plugin: none (MODEL_API_KEY unset)')
    return undefined
  }
  try {
    const model = await loadPlugin('model', choice.name, choice.settings, { log: log.child({ plugin: choice.name }) }, { settingSources: PLUGIN_SETTING_SOURCES.model })
    // The label (provider/model), never the settings: they hold the key.
    log.info('model plugin loaded', { plugin: choice.name, model: model.label })
    return model
  } catch (error) {
    if (error instanceof PluginError) throw new PluginError(error.plugin, error.kind, `${error.detail} (SVC_MODEL_PLUGIN selects the plugin.)`)
    throw error
  }
}

/**
 * Loads the sandbox plugin config.plugins selects (sandbox-local unless SVC_SANDBOX_PLUGIN says
 * otherwise), with a child logger naming it. Errors name the variable to fix.
 */
export async function loadSandboxPlugin(config: { readonly plugins: PluginsConfig }, log: Logger): Promise<SandboxPlugin> {
  const choice = config.plugins.sandbox
  try {
    const sandbox = await loadPlugin('sandbox', choice.name, choice.settings, { log: log.child({ plugin: choice.name }) }, { settingSources: PLUGIN_SETTING_SOURCES.sandbox })
    // The label says how commands are isolated (or that they are not); the settings may hold a key.
    log.info('sandbox plugin loaded', { plugin: choice.name, sandbox: sandbox.label })
    return sandbox
  } catch (error) {
    if (error instanceof PluginError) throw new PluginError(error.plugin, error.kind, `${error.detail} (SVC_SANDBOX_PLUGIN selects the plugin.)`)
    throw error
  }
}

/**
 * Loads the embeddings plugin config.embeddings selects (embeddings-local unless EMBEDDINGS_API_KEY
 * or SVC_EMBEDDINGS_PLUGIN says otherwise), or answers undefined with SVC_EMBEDDINGS_PLUGIN=none.
 * The matcher calls it through createEmbedder (services/matcher/embeddings/), which moves a
 * CPU-bound plugin into its worker threads. Errors name the variable to fix.
 */
export async function loadEmbeddingsPlugin(config: { readonly embeddings: EmbeddingsConfig }, log: Logger): Promise<EmbeddingsPlugin | undefined> {
  const choice = config.embeddings.plugin
  if (choice === undefined) {
    log.info('embeddings plugin: none (SVC_EMBEDDINGS_PLUGIN=none)')
    return undefined
  }
  try {
    const embeddings = await loadPlugin('embeddings', choice.name, choice.settings, { log: log.child({ plugin: choice.name }) }, { settingSources: EMBEDDINGS_SETTING_SOURCES })
    if (typeof embeddings.model !== 'string' || embeddings.model === '' || typeof embeddings.embed !== 'function') {
      throw new PluginError(choice.name, 'embeddings', 'create() returned no model name or no embed function. This is a bug in the plugin.')
    }
    // The model's name, never the settings: they hold the key.
    log.info('embeddings plugin loaded', { plugin: choice.name, model: embeddings.model })
    return embeddings
  } catch (error) {
    if (error instanceof PluginError) throw new PluginError(error.plugin, error.kind, `${error.detail} (SVC_EMBEDDINGS_PLUGIN selects the plugin.)`)
    throw error
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}
