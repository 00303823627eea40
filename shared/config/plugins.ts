/**
 * Which plugin serves each kind and the settings its factory gets, read from the environment
 * (part of the configuration; shared/config/index.ts calls it and re-exports its types).
 */
import { readFileSync } from 'node:fs'
import { resolve } from 'node:path'
import { ROUTED_CHAT_PLUGINS } from './chat-routes.js'
import { webhookSecretProblem, MAKE_WEBHOOK_SECRET } from './webhook-secret.js'
import { ConfigError, int, text, url, type Env } from './values.js'

/** A plugin chosen by configuration and the settings handed to its factory. */
export interface PluginChoice {
  /** A built-in name (plugins/<name>/) or an installed npm package. */
  readonly name: string
  readonly settings: Readonly<Record<string, unknown>>
}

/** The plugins each process loads (loadConfiguredPlugins in shared/plugins/loader.ts). */
export interface PluginsConfig {
  /**
   * Undefined when neither CODEHOST_APP_ID nor CODEHOST_TOKEN is set. With CODEHOST_TOKEN alone the
   * plugin reads repositories with it, but has no app: no install link and no code-host sign-in.
   */
  readonly codehost: PluginChoice | undefined
  /** The chat plugin for webhook URLs no built-in route claims (SVC_CHAT_PLUGIN, chat-slack by default). */
  readonly chat: PluginChoice
  /** The built-in chat plugins Slack's and Discord's webhook URLs go to whatever chat says (shared/config/chat-routes.ts). */
  readonly chatRouted: readonly PluginChoice[]
  /** Undefined when MODEL_API_KEY is unset: no model, so no investigations (loadModelPlugin). */
  readonly model: PluginChoice | undefined
  /** Where fixes are built and tested: always one, sandbox-local unless SVC_SANDBOX_PLUGIN says otherwise (loadSandboxPlugin). */
  readonly sandbox: PluginChoice
}

/** sandbox-local's settings and the variables that set them; other sandbox plugins take SANDBOX_API_KEY instead. */
const SANDBOX_LOCAL_VARIABLES = Object.freeze({
  requireIsolation: 'SVC_SANDBOX_REQUIRE_ISOLATION',
  cpuSeconds: 'SVC_SANDBOX_CPU_SECONDS',
  memoryMb: 'SVC_SANDBOX_MEMORY_MB',
  maxProcesses: 'SVC_SANDBOX_MAX_PROCESSES',
})

/** The variable behind each plugin setting, so the loader's messages name what to fix. */
export const PLUGIN_SETTING_SOURCES: Readonly<Record<'codehost' | 'chat' | 'model' | 'sandbox', Readonly<Record<string, string>>>> = Object.freeze({
  codehost: Object.freeze({
    appId: 'CODEHOST_APP_ID',
    privateKey: 'CODEHOST_APP_PRIVATE_KEY or CODEHOST_APP_PRIVATE_KEY_FILE',
    appSlug: 'CODEHOST_APP_SLUG',
    apiUrl: 'CODEHOST_API_URL',
    webUrl: 'CODEHOST_WEB_URL',
    clientId: 'CODEHOST_APP_CLIENT_ID',
    clientSecret: 'CODEHOST_APP_CLIENT_SECRET',
    token: 'CODEHOST_TOKEN',
  }),
  chat: Object.freeze({ allowPrivateAddresses: 'SVC_ALLOW_PRIVATE_WEBHOOKS', secret: 'SVC_CHAT_WEBHOOK_SECRET' }),
  model: Object.freeze({ apiKey: 'MODEL_API_KEY', model: 'SVC_MODEL_NAME', baseUrl: 'SVC_MODEL_BASE_URL', timeoutMs: 'SVC_MODEL_TIMEOUT_MS' }),
  sandbox: Object.freeze({ ...SANDBOX_LOCAL_VARIABLES, apiKey: 'SANDBOX_API_KEY' }),
})

/** A bare npm specifier (optionally scoped, with a subpath): plugins are never loaded by path. */
export const PLUGIN_NAME = /^(?:@[a-z0-9][a-z0-9._~-]*\/)?[a-z0-9][a-z0-9._~-]*(?:\/[A-Za-z0-9._~-]+)*$/

/** The plugins the environment chooses, with their settings. */
export function pluginsConfig(env: Env): PluginsConfig {
  return { codehost: codehost(env), ...chatChoices(env), model: modelChoice(env), sandbox: sandboxChoice(env) }
}

/**
 * The chat plugins: Slack's and Discord's built-ins, which their webhook URLs are routed to, and
 * the one SVC_CHAT_PLUGIN names for every other URL. chat-webhook signs with SVC_CHAT_WEBHOOK_SECRET,
 * which must be set, well-formed, and not set for any other plugin (a secret nothing uses is a mistake).
 */
function chatChoices(env: Env): Pick<PluginsConfig, 'chat' | 'chatRouted'> {
  // Off by default: a pasted webhook URL must not reach the service's own network.
  const allowPrivateAddresses = pluginFlag(env, 'SVC_ALLOW_PRIVATE_WEBHOOKS')
  const name = pluginNameVar(env, 'SVC_CHAT_PLUGIN', 'chat-slack')
  const secret = text(env, 'SVC_CHAT_WEBHOOK_SECRET')
  const chatRouted = ROUTED_CHAT_PLUGINS.map((routed) => ({ name: routed, settings: { allowPrivateAddresses } }))
  if (name !== 'chat-webhook') {
    if (secret !== undefined) throw new ConfigError('SVC_CHAT_WEBHOOK_SECRET', `is read by chat-webhook only, but SVC_CHAT_PLUGIN is ${name}. Set SVC_CHAT_PLUGIN=chat-webhook to send signed webhooks to URLs other than Slack's and Discord's, or unset it.`)
    return { chat: { name, settings: { allowPrivateAddresses } }, chatRouted }
  }
  if (secret === undefined) {
    throw new ConfigError('SVC_CHAT_WEBHOOK_SECRET', `is required when SVC_CHAT_PLUGIN is chat-webhook: the secret receivers verify each message's signature with. ${MAKE_WEBHOOK_SECRET}`)
  }
  // The value is never shown: it is the key receivers trust.
  const problem = webhookSecretProblem(secret)
  if (problem !== undefined) throw new ConfigError('SVC_CHAT_WEBHOOK_SECRET', problem)
  return { chat: { name, settings: { allowPrivateAddresses, secret } }, chatRouted }
}

/**
 * The sandbox plugin: sandbox-local with its limits, or another (a remote sandbox service) with
 * SANDBOX_API_KEY as its apiKey. The template (SVC_SANDBOX_JAVASCRIPT_TEMPLATE) is not a setting:
 * it is read per sandbox, so a missing one fails fix jobs rather than start-up.
 */
function sandboxChoice(env: Env): PluginChoice {
  const name = pluginNameVar(env, 'SVC_SANDBOX_PLUGIN', 'sandbox-local')
  if (name !== 'sandbox-local') {
    const stray = Object.values(SANDBOX_LOCAL_VARIABLES).find((v) => text(env, v) !== undefined)
    if (stray) throw new ConfigError(stray, `is read by sandbox-local only, but SVC_SANDBOX_PLUGIN is ${name}. Unset it, or configure ${name} its own way.`)
    const apiKey = text(env, 'SANDBOX_API_KEY')
    return { name, settings: apiKey === undefined ? {} : { apiKey } }
  }
  const limits = {
    // Unset ones are left out, so the plugin's own defaults (its schema's) apply; ranges are the plugin's.
    cpuSeconds: text(env, 'SVC_SANDBOX_CPU_SECONDS') === undefined ? undefined : int(env, 'SVC_SANDBOX_CPU_SECONDS', 600, 1, 86_400),
    memoryMb: text(env, 'SVC_SANDBOX_MEMORY_MB') === undefined ? undefined : int(env, 'SVC_SANDBOX_MEMORY_MB', 2048, 64, 1_048_576),
    maxProcesses: text(env, 'SVC_SANDBOX_MAX_PROCESSES') === undefined ? undefined : int(env, 'SVC_SANDBOX_MAX_PROCESSES', 256, 16, 100_000),
  }
  return { name, settings: { requireIsolation: pluginFlag(env, 'SVC_SANDBOX_REQUIRE_ISOLATION'), ...Object.fromEntries(Object.entries(limits).filter(([, v]) => v !== undefined)) } }
}

/** The model plugin and its settings, or undefined without MODEL_API_KEY. */
function modelChoice(env: Env): PluginChoice | undefined {
  const apiKey = text(env, 'MODEL_API_KEY')
  if (apiKey === undefined) {
    // A model half-configured is a model someone expects to run: say so rather than run without it.
    const stray = ['SVC_MODEL_PLUGIN', 'SVC_MODEL_NAME', 'SVC_MODEL_BASE_URL', 'SVC_MODEL_TIMEOUT_MS'].find((v) => text(env, v) !== undefined)
    if (stray) throw new ConfigError(stray, 'is set but MODEL_API_KEY is not. Set MODEL_API_KEY (any value for a local server that needs no key), or unset it.')
    return undefined
  }
  const optional = {
    model: text(env, 'SVC_MODEL_NAME'),
    baseUrl: url(env, 'SVC_MODEL_BASE_URL'),
    // At least 1 s (no real model answers sooner), at most the plugins' own 1 h; unset leaves their default.
    timeoutMs: text(env, 'SVC_MODEL_TIMEOUT_MS') === undefined ? undefined : int(env, 'SVC_MODEL_TIMEOUT_MS', 120_000, 1000, 3_600_000),
  }
  // Unset ones are left out, so the plugin's own defaults (its schema's) apply.
  const settings = { apiKey, ...Object.fromEntries(Object.entries(optional).filter(([, v]) => v !== undefined)) }
  return { name: pluginNameVar(env, 'SVC_MODEL_PLUGIN', 'model-anthropic'), settings }
}

/** The code-host plugin the environment chooses. */
function codehost(env: Env): PluginChoice | undefined {
  const name = pluginNameVar(env, 'SVC_CODEHOST_PLUGIN', 'codehost-github')
  const appId = text(env, 'CODEHOST_APP_ID')
  if (appId === undefined) {
    const stray = ['CODEHOST_APP_PRIVATE_KEY', 'CODEHOST_APP_PRIVATE_KEY_FILE', 'CODEHOST_APP_SLUG'].find((v) => text(env, v) !== undefined)
    if (stray) throw new ConfigError(stray, 'is set but CODEHOST_APP_ID is not. Set CODEHOST_APP_ID to the app\'s id (its settings page shows it), or unset it.')
    const token = text(env, 'CODEHOST_TOKEN')
    if (token === undefined) return undefined
    // A token alone: repositories are read with it; the addresses say which host (GitHub Enterprise).
    const addresses = { apiUrl: url(env, 'CODEHOST_API_URL'), webUrl: url(env, 'CODEHOST_WEB_URL') }
    return { name, settings: { token, ...Object.fromEntries(Object.entries(addresses).filter(([, v]) => v !== undefined)) } }
  }
  const appSlug = text(env, 'CODEHOST_APP_SLUG')
  if (appSlug === undefined) throw new ConfigError('CODEHOST_APP_SLUG', 'is required when CODEHOST_APP_ID is set: the app\'s URL name (github.com/apps/<slug>), used for its install link.')
  const optional = {
    apiUrl: url(env, 'CODEHOST_API_URL'),
    webUrl: url(env, 'CODEHOST_WEB_URL'),
    clientId: text(env, 'CODEHOST_APP_CLIENT_ID'),
    clientSecret: text(env, 'CODEHOST_APP_CLIENT_SECRET'),
    // Preferred over the app's installation tokens for reading repositories when both are set.
    token: text(env, 'CODEHOST_TOKEN'),
  }
  // Unset ones are left out, so the plugin's own defaults (its schema's) apply.
  const settings = { appId, privateKey: codehostPrivateKey(env), appSlug, ...Object.fromEntries(Object.entries(optional).filter(([, v]) => v !== undefined)) }
  return { name, settings }
}

function pluginNameVar(env: Env, name: string, fallback: string): string {
  const raw = text(env, name) ?? fallback
  if (PLUGIN_NAME.test(raw) && !raw.split('/').includes('..')) return raw
  throw new ConfigError(name, `must be a built-in plugin name or an installed npm package name (plugins are never loaded by path), got "${raw}". Unset it for ${fallback}.`)
}

function pluginFlag(env: Env, name: string): boolean {
  const raw = text(env, name) ?? '0'
  if (raw !== '0' && raw !== '1') throw new ConfigError(name, `must be 0 or 1, got "${raw}". Unset it for 0.`)
  return raw === '1'
}

function codehostPrivateKey(env: Env): string {
  const inline = text(env, 'CODEHOST_APP_PRIVATE_KEY')
  const file = text(env, 'CODEHOST_APP_PRIVATE_KEY_FILE')
  // Messages never show the value: it is the app's signing key.
  if (inline !== undefined && file !== undefined) throw new ConfigError('CODEHOST_APP_PRIVATE_KEY_FILE', 'is set together with CODEHOST_APP_PRIVATE_KEY. Keep one of them.')
  let pem: string
  let source = 'CODEHOST_APP_PRIVATE_KEY'
  if (file !== undefined) {
    source = 'CODEHOST_APP_PRIVATE_KEY_FILE'
    try {
      pem = readFileSync(resolve(file), 'utf8')
    } catch (error) {
      throw new ConfigError(source, `cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'}). Point it at the .pem file downloaded from the app's settings.`)
    }
  } else if (inline !== undefined) {
    // One-line environments (.env, container settings) carry a PEM with \n escapes.
    pem = inline.replaceAll('\\n', '\n')
  } else {
    throw new ConfigError(source, 'is required when CODEHOST_APP_ID is set: the app\'s private key (PEM text), or CODEHOST_APP_PRIVATE_KEY_FILE with the path of the .pem file.')
  }
  if (!/-----BEGIN [A-Z ]*PRIVATE KEY-----/.test(pem)) {
    throw new ConfigError(source, 'does not hold a PEM private key (-----BEGIN RSA PRIVATE KEY----- …); the value is not shown. Use the .pem file downloaded from the app\'s settings.')
  }
  return pem.trim() + '\n'
}
