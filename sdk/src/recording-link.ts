/**
 * What the core SDK and the lazily loaded recorder (@svc/sdk/recording) share. The core puts its
 * settings here at init and reads the running recorder from here when it captures an error; the
 * recorder never imports the core, so loading it does not pull the core in twice, and the core
 * carries no recorder code.
 */
import type { RecordingOptions, User } from './types.js'

/** The core's settings a recorder needs to send chunks beside the events. */
export interface RecordingHost {
  endpoint: string
  apiKey: string
  /** The page's fetch from before the SDK wrapped it, so the recorder's sends are no breadcrumbs. */
  fetch: typeof fetch
  log: (message: string) => void
  sessionId: string
  release: string | undefined
  environment: string | undefined
  user: () => User | undefined
}

/** The running recorder as the core sees it. */
export interface RecorderHandle {
  /** The recording an error captured now belongs to, or undefined when nothing is recorded. */
  recordingId(): string | undefined
  /** Marks a sent error event in the recording (a custom svc.error event) and sends what is buffered. */
  errorCaptured(eventId: string, message: string): void
}

export const link: { host?: RecordingHost; recorder?: RecorderHandle; pending?: RecordingOptions } = {}
