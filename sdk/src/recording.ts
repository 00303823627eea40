/**
 * @svc/sdk/recording: records the tab's session with rrweb and sends it in numbered, gzipped chunks
 * beside the errors (docs/recordings.md). init({ recording }) loads this entry on demand; importing
 * it and calling startRecording after init does the same. Like the core, it never throws into the
 * page: a bad option is said on the console with debug on, and nothing is recorded.
 */
import { link } from './recording-link.js'
import { Recorder, type RecorderSettings } from './recording/recorder.js'
import { TabRecording } from './recording/tab-state.js'
import { Uploader } from './recording/uploader.js'
import type { RecordingOptions } from './types.js'

export type { RecordingOptions } from './types.js'

let recorder: Recorder | undefined

/** Starts recording with the client init started; called before init, it starts when init runs. */
export function startRecording(options: RecordingOptions = {}): void {
  const host = link.host
  if (!host) {
    link.pending = options
    return
  }
  try {
    if (recorder) return host.log('startRecording was called again; the first recording goes on')
    const settings = settingsFrom(options)
    if (typeof settings === 'string') return host.log(`${settings}; nothing is recorded`)
    if (typeof MutationObserver !== 'function') return host.log('this browser cannot record (no MutationObserver); nothing is recorded')
    const tab = new TabRecording(settings.sampleRate)
    // Made even when this recording is sampled out: an earlier page may have left chunks to send.
    const uploader = new Uploader(`${host.endpoint}/api/v1/recordings`, host.apiKey, host.fetch, host.log)
    if (!tab.sampled) return host.log('recording: this session was not sampled; nothing is recorded')
    recorder = new Recorder(host, settings, tab, uploader)
    recorder.start()
    link.recorder = recorder
  } catch (error) {
    recorder = undefined
    link.recorder = undefined
    host.log(`recording failed to start: ${String(error)}`)
  }
}

/** Stops recording (what was recorded is still sent); startRecording may start it again. */
export function stopRecording(): void {
  try {
    recorder?.stop()
  } catch {
    // never into the page
  }
  recorder = undefined
  link.recorder = undefined
  link.pending = undefined
}

/** The options with their defaults, or what is wrong with them. */
function settingsFrom(options: RecordingOptions): (RecorderSettings & { sampleRate: number }) | string {
  if (typeof options !== 'object' || options === null) return 'recording must be an object of options'
  const { mode = 'all', sampleRate = 1, maskAllInputs = true, blockClass = 'svc-block', ignoreClass = 'svc-ignore', maskTextClass = 'svc-mask', flushIntervalMs = 30_000 } = options
  if (mode !== 'all' && mode !== 'errors') return `recording.mode must be 'all' or 'errors'`
  if (typeof sampleRate !== 'number' || !(sampleRate >= 0 && sampleRate <= 1)) return 'recording.sampleRate must be a number from 0 to 1'
  if (typeof maskAllInputs !== 'boolean') return 'recording.maskAllInputs must be true or false'
  for (const [name, value] of Object.entries({ blockClass, ignoreClass, maskTextClass })) {
    if (typeof value !== 'string' || !/^-?[_a-zA-Z][\w-]*$/.test(value)) return `recording.${name} must be a CSS class name`
  }
  if (typeof flushIntervalMs !== 'number' || !(flushIntervalMs >= 1000)) return 'recording.flushIntervalMs must be a number of milliseconds, 1000 or more'
  return { mode, sampleRate, maskAllInputs, blockClass, ignoreClass, maskTextClass, flushIntervalMs }
}
