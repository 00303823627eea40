/**
 * Errors the HTTP kernel knows: the base of every surface's error catalogue, and the body reader's
 * refusals, which each surface answers from its own catalogue.
 */

export interface ErrorSpec {
  status: number
  message: string
}

export interface ErrorDetail {
  /** The field at fault, dotted (error.type), on a 400 about the body. */
  field?: string
  /** Replaces the catalogue's message where the situation says more. */
  message?: string
  /** Seconds to wait, on 429 and 503; also sent as Retry-After. */
  retryAfter?: number
  /** More fields of the answer body (e.g. add_repo_url). */
  extra?: Record<string, unknown>
}

/** A failed request on one surface: a catalogued code, its status, and the body it answers with. */
export class CataloguedError<C extends string = string> extends Error {
  constructor(
    readonly code: C,
    readonly spec: ErrorSpec,
    readonly detail: ErrorDetail = {},
  ) {
    super(detail.message ?? spec.message)
  }

  get status(): number {
    return this.spec.status
  }

  /** The JSON answer body. */
  toBody(): Record<string, unknown> {
    const body: Record<string, unknown> = { code: this.code, message: this.message, ...this.detail.extra }
    if (this.detail.field !== undefined) body.field = this.detail.field
    if (this.detail.retryAfter !== undefined) body.retry_after = this.detail.retryAfter
    return body
  }
}

/** Why readBodyText refused a body: over its cap (on the wire or inflated), or marked gzip and not gzip. */
export type BodyRefusal = 'too_large' | 'not_gzip'

/**
 * A body the kernel's reader refused. Not an answer by itself: each surface maps it to a code of its
 * own catalogue (ingestion and setup sessions to 413 or 400, the dashboard to an error page).
 */
export class BodyError extends Error {
  override name = 'BodyError'
  constructor(
    readonly reason: BodyRefusal,
    message: string,
  ) {
    super(message)
  }
}
