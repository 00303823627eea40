/** Session recordings' settings (docs/recordings.md, "Closing and retention"), read by loadConfig (index.ts). */
export interface RecordingSettings {
  /** How long a recording is kept after its last activity (SVC_RECORDING_RETENTION_DAYS). */
  readonly retentionMs: number
  /** A recording no chunk reached for this long is closed (SVC_RECORDING_IDLE_MINUTES); a later chunk reopens it. */
  readonly idleMs: number
}
