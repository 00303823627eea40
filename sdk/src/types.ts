/** Shapes shared across the SDK: options, the event sent to the service, breadcrumbs. */

export interface User {
  id?: string
  email?: string
  username?: string
}

export interface Breadcrumb {
  type: 'click' | 'navigation' | 'console' | 'http'
  timestamp: number
  message: string
  data?: Record<string, string | number | undefined>
}

/** The error event as POST /api/v1/events takes it (schemas/error-event.json in the service). */
export interface SvcEvent {
  timestamp: string
  /** thrown: what was thrown when it was not an Error ("string", "object", "number", "null", ...). */
  error: { type: string; message: string; stack: string; thrown?: string }
  breadcrumbs: Breadcrumb[]
  context: { url: string; user_agent: string }
  sdk_version: string
  platform: 'javascript'
  environment?: string
  release?: string
  session_id: string
  /** A UUID per event: the service stores it once however often it is sent. */
  event_id: string
  user?: User
  /** File URL → debug id of the stamped chunks in the stack (the Vite plugin stamps them). */
  debug_ids?: Record<string, string>
  /** The session recording running when the error was captured (a UUID): links the error to its replay. */
  recording_id?: string
}

/** Session recording (docs/recordings.md): what is recorded, masked and how often it is sent. */
export interface RecordingOptions {
  /** 'all' records from the start; 'errors' keeps the last 30 to 60 s in memory and sends only once an error is captured. Default 'all'. */
  mode?: 'all' | 'errors'
  /** Share of recordings made, 0 to 1, decided once per recording. Default 1. */
  sampleRate?: number
  /** Replaces every input's value by `*`. Default true. Password fields are masked whatever this says. */
  maskAllInputs?: boolean
  /** Elements with this class are recorded as an empty box of their size. Default 'svc-block'. */
  blockClass?: string
  /** Input in elements with this class is not recorded. Default 'svc-ignore'. */
  ignoreClass?: string
  /** Text in elements with this class is replaced by `*`. Default 'svc-mask'. */
  maskTextClass?: string
  /** How often a chunk is sent, in ms. Default 30000. */
  flushIntervalMs?: number
}

export interface Options {
  /** The ingest key (svc_pk_…): public by design, safe in a bundle. */
  apiKey: string
  /** Service address, or a same-origin path prefix such as /svc for a tunnel. Default http://localhost:8082. */
  endpoint?: string
  /** development or production. */
  environment?: string
  release?: string
  /** Share of errors sent, 0 to 1. Default 1. */
  sampleRate?: number
  /** Last look at an event: return it (changed or not) to send it, or null to drop it. */
  beforeSend?: (event: SvcEvent) => SvcEvent | null
  /** Errors with one signature sent per minute at most; the rest are dropped. Default 10. */
  maxPerErrorPerMinute?: number
  /** Logs configuration problems and dropped events to the console. Default false. */
  debug?: boolean
  /** Turns session recording on; the recorder (@svc/sdk/recording) is loaded only then. */
  recording?: RecordingOptions
}
