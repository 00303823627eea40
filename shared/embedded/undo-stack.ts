/** Start-up steps that must be undone in reverse order, whether start-up failed or the service stops. */
export interface UndoStack {
  push(step: () => unknown): void
  /** Runs every step last-first, once; all run even if one fails, and the first failure is rethrown. */
  unwind(): Promise<void>
}

/** Creates an empty stack. */
export function createUndoStack(): UndoStack {
  const steps: Array<() => unknown> = []
  let unwinding: Promise<void> | undefined
  const run = async (): Promise<void> => {
    let failure: unknown
    while (steps.length > 0) {
      try {
        await steps.pop()!()
      } catch (error) {
        failure ??= error
      }
    }
    if (failure !== undefined) throw failure
  }
  return {
    push: (step) => void steps.push(step),
    unwind: () => (unwinding ??= run()),
  }
}
