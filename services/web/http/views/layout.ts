/** The page frame every dashboard page shares: header, navigation, the signed-in person, sign out. */
import { DateTime } from 'luxon'
import { zoneOrUtc } from '../../../digester/read.js'
import { ICON_PATH, STYLESHEET_PATH } from '../assets.js'
import { html, type SafeHtml } from '../html.js'
import type { PageError } from '../respond.js'
import type { Viewer } from '../viewer.js'

export const PRODUCT_NAME = 'svc'

/** The hidden field every form carries. */
export function csrfField(viewer: Viewer): SafeHtml {
  return html`<input type="hidden" name="csrf" value="${viewer.formToken}">`
}

/** Who is signed in, as shown in the header. */
export function personLabel(viewer: Viewer): string {
  const user = viewer.session?.user
  if (!user) return ''
  return user.displayName || user.email || user.codehostLogin || 'Signed in'
}

function header(viewer: Viewer): SafeHtml {
  const signedIn = viewer.session !== undefined
  return html`<header class="top">
  <a class="brand" href="/">${PRODUCT_NAME}</a>
  <nav aria-label="Main">${signedIn ? html`<a href="/">Projects</a>` : ''}</nav>
  <div class="account">${
    signedIn
      ? html`<span class="who">${personLabel(viewer)}</span>
    <form method="post" action="/signout" class="inline">${csrfField(viewer)}<button type="submit" class="link">Sign out</button></form>`
      : html`<a href="/signin">Sign in</a>`
  }</div>
</header>`
}

/** A whole page with the shared frame. */
export function layout(viewer: Viewer, title: string, body: SafeHtml): SafeHtml {
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title} · ${PRODUCT_NAME}</title>
<link rel="stylesheet" href="${STYLESHEET_PATH}">
<link rel="icon" href="${ICON_PATH}" type="image/svg+xml">
</head>
<body>
<a class="skip" href="#main">Skip to content</a>
${header(viewer)}
<main id="main">
${body}
</main>
</body>
</html>`
}

/** A page with a heading, a message and optional links; for errors and dead ends. */
export function messagePage(viewer: Viewer, title: string, message: string, links: ReadonlyArray<{ href: string; label: string }> = []): SafeHtml {
  return layout(
    viewer,
    title,
    html`<section class="panel narrow">
  <h1>${title}</h1>
  <p class="message">${message}</p>
  ${links.length > 0 ? html`<p class="actions">${links.map((link) => html`<a class="button secondary" href="${link.href}">${link.label}</a> `)}</p>` : ''}
</section>`,
  )
}

/** The page a PageError becomes. */
export function errorPage(viewer: Viewer, error: PageError): SafeHtml {
  return messagePage(viewer, error.title, error.message, [{ href: '/', label: viewer.session ? 'Your projects' : 'Sign in' }])
}

/**
 * A timestamp on the project's wall clock, its zone named: what the digest (due at 09:00 in that
 * zone) did and when reads in the zone the digest keeps, not in UTC beside it.
 */
export function whenIn(date: Date | null | undefined, zone: string): SafeHtml {
  if (!date) return html`<span class="muted">never</span>`
  const name = zoneOrUtc(zone)
  return html`<time datetime="${date.toISOString()}">${DateTime.fromJSDate(date, { zone: name }).toFormat('yyyy-MM-dd HH:mm')} ${name}</time>`
}

/** A timestamp shown in UTC, readable and exact. */
export function when(date: Date | null | undefined): SafeHtml {
  if (!date) return html`<span class="muted">never</span>`
  const iso = date.toISOString()
  return html`<time datetime="${iso}">${iso.slice(0, 16).replace('T', ' ')} UTC</time>`
}
