/** A job that decided to stop: thrown inside its work, turned into its end (with the reason) by the runner. */
export class JobStop extends Error {
  override name = 'JobStop'
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message)
  }
}
