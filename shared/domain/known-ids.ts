/**
 * Row ids a consumer (the grouper, the recorder) found or created lately, by their natural key: issues by
 * `${projectId}|${fingerprint}`, environments by `${projectId}|${name}`. The same ones come back
 * batch after batch, and finding them again (an INSERT … ON CONFLICT DO NOTHING and a SELECT per
 * batch) made each batch wait for the other consumer loop's transaction, which holds those rows
 * until it commits. A row's id never changes for its key while the row exists; a batch that fails
 * forgets its keys, so a row deleted meanwhile (its project removed) is looked up afresh when the
 * batch is retried.
 */
export class KnownIds {
  readonly #ids = new Map<string, string>()

  constructor(private readonly max = 50_000) {}

  /** The id of key, if known. */
  get(key: string): string | undefined {
    return this.#ids.get(key)
  }

  /** Remembers the ids a committed batch found. */
  remember(ids: ReadonlyMap<string, string>): void {
    if (this.#ids.size + ids.size > this.max) this.#ids.clear()
    for (const [key, id] of ids) this.#ids.set(key, id)
  }

  /** Forgets keys (a batch that failed). */
  forget(keys: Iterable<string>): void {
    for (const key of keys) this.#ids.delete(key)
  }
}
