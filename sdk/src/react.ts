/**
 * @svc/sdk/react: an error boundary that reports what it catches and shows a fallback. In a
 * production React build, errors a boundary catches never reach the window error path, so without
 * it they would go unreported.
 */
import { Component, type ErrorInfo, type ReactNode } from 'react'
import { captureException } from './index.js'

export interface SvcErrorBoundaryProps {
  children?: ReactNode
  /** Shown instead of the children after an error: a node, or a function of the error and a reset. */
  fallback?: ReactNode | ((error: unknown, reset: () => void) => ReactNode)
  /** Called after the error was reported. */
  onError?: (error: unknown, info: ErrorInfo) => void
}

interface State {
  failed: boolean
  error: unknown
}

export class SvcErrorBoundary extends Component<SvcErrorBoundaryProps, State> {
  override state: State = { failed: false, error: undefined }

  static getDerivedStateFromError(error: unknown): State {
    return { failed: true, error }
  }

  override componentDidCatch(error: unknown, info: ErrorInfo): void {
    captureException(error)
    try {
      this.props.onError?.(error, info)
    } catch {
      // the page's own callback failing must not take the fallback down with it
    }
  }

  /** Clears the error and renders the children again. */
  reset = (): void => this.setState({ failed: false, error: undefined })

  override render(): ReactNode {
    if (!this.state.failed) return this.props.children
    const { fallback } = this.props
    return typeof fallback === 'function' ? fallback(this.state.error, this.reset) : (fallback ?? null)
  }
}
