/**
 * What can go wrong with an account, each with the status the dashboard answers and a message that
 * says what to do next. Messages never say whether an email has an account on sign-in.
 */

const CATALOGUE = {
  invalid_email: { status: 400, message: 'Enter an email address like name@example.com.' },
  weak_password: { status: 400, message: 'Choose a longer password.' },
  email_taken: { status: 409, message: 'An account with this email already exists. Sign in instead.' },
  wrong_credentials: { status: 401, message: 'That email and password do not match an account. Check both and try again.' },
  password_not_set: { status: 401, message: 'That email and password do not match an account. Check both and try again.' },
  throttled: { status: 429, message: 'Too many attempts. Wait a few minutes and try again.' },
  codehost_linked_elsewhere: { status: 409, message: 'This code host account already signs in to another account here. Sign out and sign in with the code host instead.' },
  codehost_email_taken: {
    status: 409,
    message: 'An account with the email of your code host account already exists. Sign in with its password first, then use the code host button to link the two.',
  },
} as const

export type AccountErrorCode = keyof typeof CATALOGUE

/** A catalogued account failure; message is safe to show on a page. */
export class AccountError extends Error {
  override name = 'AccountError'
  readonly status: number
  /** Seconds until a throttled request may be tried again. */
  readonly retryAfter: number | undefined

  constructor(
    readonly code: AccountErrorCode,
    detail: { message?: string; retryAfter?: number } = {},
  ) {
    super(detail.message ?? CATALOGUE[code].message)
    this.status = CATALOGUE[code].status
    this.retryAfter = detail.retryAfter
  }
}
