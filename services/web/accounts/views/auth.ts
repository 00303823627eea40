/** Sign-in and sign-up pages. */
import { PASSWORD_MIN_LENGTH } from '../password.js'
import { html, type SafeHtml } from '../../http/html.js'
import type { Viewer } from '../../http/viewer.js'
import { csrfField, layout } from '../../http/views/layout.js'

export interface AuthFormState {
  next: string
  email: string
  error?: string
  /** Shown above the form, e.g. why the person was sent here. */
  notice?: string
}

function errorBox(error: string | undefined): SafeHtml | string {
  return error ? html`<p class="error" role="alert" id="form-error">${error}</p>` : ''
}

function withNext(path: string, next: string): string {
  return next === '/' ? path : `${path}?next=${encodeURIComponent(next)}`
}

/** The sign-in page; with a code host configured it also offers code-host sign-in. */
export function signinPage(viewer: Viewer, state: AuthFormState, codehost: boolean): SafeHtml {
  const described = state.error ? 'form-error' : undefined
  return layout(
    viewer,
    'Sign in',
    html`<section class="panel narrow">
  <h1>Sign in</h1>
  ${state.notice ? html`<p class="notice">${state.notice}</p>` : ''}
  ${errorBox(state.error)}
  <form method="post" action="/signin" class="stack">
    ${csrfField(viewer)}
    <input type="hidden" name="next" value="${state.next}">
    <label for="email">Email</label>
    <input id="email" name="email" type="email" autocomplete="username" required value="${state.email}"${described ? html` aria-describedby="${described}"` : ''}>
    <label for="password">Password</label>
    <input id="password" name="password" type="password" autocomplete="current-password" required>
    <button type="submit" class="primary">Sign in</button>
  </form>
  ${codehost ? html`<p class="alt"><a class="button secondary" href="${withNext('/auth/codehost/start', state.next)}">Sign in with the code host</a></p>` : ''}
  <p class="alt">No account yet? <a href="${withNext('/signup', state.next)}">Create an account</a></p>
</section>`,
  )
}

/** The create-account page. */
export function signupPage(viewer: Viewer, state: AuthFormState & { displayName: string }): SafeHtml {
  return layout(
    viewer,
    'Create an account',
    html`<section class="panel narrow">
  <h1>Create an account</h1>
  ${state.notice ? html`<p class="notice">${state.notice}</p>` : ''}
  ${errorBox(state.error)}
  <form method="post" action="/signup" class="stack">
    ${csrfField(viewer)}
    <input type="hidden" name="next" value="${state.next}">
    <label for="display_name">Your name <span class="muted">(optional)</span></label>
    <input id="display_name" name="display_name" type="text" autocomplete="name" maxlength="100" value="${state.displayName}">
    <label for="email">Email</label>
    <input id="email" name="email" type="email" autocomplete="email" required value="${state.email}">
    <label for="password">Password</label>
    <input id="password" name="password" type="password" autocomplete="new-password" required minlength="${PASSWORD_MIN_LENGTH}" aria-describedby="password-hint">
    <p class="hint" id="password-hint">At least ${PASSWORD_MIN_LENGTH} characters.</p>
    <button type="submit" class="primary">Create account</button>
  </form>
  <p class="alt">Already have an account? <a href="${withNext('/signin', state.next)}">Sign in</a></p>
</section>`,
  )
}
