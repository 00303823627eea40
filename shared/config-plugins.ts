/**
 * Which plugin serves each kind and the settings its factory gets, read from the environment
 * (part of the configuration; shared/config.ts calls it and re-exports its types).
 */
import { readFileSync } from 'node:fs'
import { resolve } from 'node:path'
import { ConfigError, text, url, type Env } from './config-values.js'

/** A plugin chosen by configuration and the settings handed to its factory. */
export interface PluginChoice {
  /** A built-in name (plugins/<name>/) or an installed npm package. */
  readonly name: string
  readonly settings: Readonly<Record<string, unknown>>
}

/** The plugins each process loads (loadConfiguredPlugins in shared/plugins/loader.ts). */
export interface PluginsConfig {
  /** Undefined when CODEHOST_APP_ID is unset: no app, so no repository attach and no code-host sign-in. */
  readonly codehost: PluginChoice | undefined
  readonly chat: PluginChoice
}

/** The variable behind each plugin setting, so the loader's messages name what to fix. */
export const PLUGIN_SETTING_SOURCES: Readonly<Record<'codehost' | 'chat', Readonly<Record<string, string>>>> = Object.freeze({
  codehost: Object.freeze({
    appId: 'CODEHOST_APP_ID',
    privateKey: 'CODEHOST_APP_PRIVATE_KEY or CODEHOST_APP_PRIVATE_KEY_FILE',
    appSlug: 'CODEHOST_APP_SLUG',
    apiUrl: 'CODEHOST_API_URL',
    webUrl: 'CODEHOST_WEB_URL',
    clientId: 'CODEHOST_APP_CLIENT_ID',
    clientSecret: 'CODEHOST_APP_CLIENT_SECRET',
  }),
  chat: Object.freeze({ allowPrivateAddresses: 'SVC_ALLOW_PRIVATE_WEBHOOKS' }),
})

/** A bare npm specifier (optionally scoped, with a subpath): plugins are never loaded by path. */
export const PLUGIN_NAME = /^(?:@[a-z0-9][a-z0-9._~-]*\/)?[a-z0-9][a-z0-9._~-]*(?:\/[A-Za-z0-9._~-]+)*$/

/** The plugins the environment chooses, with their settings. */
export function pluginsConfig(env: Env): PluginsConfig {
  const chat: PluginChoice = {
    name: pluginNameVar(env, 'SVC_CHAT_PLUGIN', 'chat-slack'),
    // Off by default: a pasted webhook URL must not reach the service's own network.
    settings: { allowPrivateAddresses: pluginFlag(env, 'SVC_ALLOW_PRIVATE_WEBHOOKS') },
  }
  const name = pluginNameVar(env, 'SVC_CODEHOST_PLUGIN', 'codehost-github')
  const appId = text(env, 'CODEHOST_APP_ID')
  if (appId === undefined) {
    const stray = ['CODEHOST_APP_PRIVATE_KEY', 'CODEHOST_APP_PRIVATE_KEY_FILE', 'CODEHOST_APP_SLUG'].find((v) => text(env, v) !== undefined)
    if (stray) throw new ConfigError(stray, 'is set but CODEHOST_APP_ID is not. Set CODEHOST_APP_ID to the app\'s id (its settings page shows it), or unset it.')
    return { codehost: undefined, chat }
  }
  const appSlug = text(env, 'CODEHOST_APP_SLUG')
  if (appSlug === undefined) throw new ConfigError('CODEHOST_APP_SLUG', 'is required when CODEHOST_APP_ID is set: the app\'s URL name (github.com/apps/<slug>), used for its install link.')
  const optional = {
    apiUrl: url(env, 'CODEHOST_API_URL'),
    webUrl: url(env, 'CODEHOST_WEB_URL'),
    clientId: text(env, 'CODEHOST_APP_CLIENT_ID'),
    clientSecret: text(env, 'CODEHOST_APP_CLIENT_SECRET'),
  }
  // Unset ones are left out, so the plugin's own defaults (its schema's) apply.
  const settings = { appId, privateKey: codehostPrivateKey(env), appSlug, ...Object.fromEntries(Object.entries(optional).filter(([, v]) => v !== undefined)) }
  return { codehost: { name, settings }, chat }
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
