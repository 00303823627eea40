/** The frame of every project page (its crumbs and tabs), and the dated yes/no its facts are told in. */
import { html, type SafeHtml } from '../html.js'
import type { Viewer } from '../viewer.js'
import { layout, when } from './layout.js'

type Tab = 'overview' | 'issues' | 'recordings' | 'known-problems' | 'digests' | 'alerts' | 'members' | 'settings'

/** A project page: crumbs, the project's tabs (Settings only for an owner: a member cannot open it, and gets Storage, the settings page's panel, instead), then body. */
export function projectFrame(viewer: Viewer, project: { id: string; name: string; role?: string }, tab: Tab, title: string, body: SafeHtml): SafeHtml {
  const base = `/projects/${project.id}`
  const link = (target: Tab, href: string, label: string) => html`<a href="${href}"${tab === target ? html` aria-current="page"` : ''}>${label}</a>`
  return layout(
    viewer,
    `${title} · ${project.name}`,
    html`<p class="crumbs"><a href="/">Projects</a> / <span>${project.name}</span></p>
<nav class="tabs" aria-label="Project">${link('overview', base, 'Overview')}${link('issues', `${base}/issues`, 'Issues')}${link('recordings', `${base}/recordings`, 'Recordings')}${link('known-problems', `${base}/known-problems`, 'Known problems')}${link('digests', `${base}/digests`, 'Digests')}${link('alerts', `${base}/alerts`, 'Alerts')}${link('members', `${base}/members`, 'Members')}${project.role === 'member' ? link('settings', `${base}/settings/storage`, 'Storage') : link('settings', `${base}/settings/codehost`, 'Settings')}</nav>
${body}`,
  )
}

/** A fact with its date ("attached since ..."), or what it is without one. */
export function yesNo(date: Date | null, yes: string, no: string): SafeHtml {
  return date ? html`<span class="ok">${yes}</span> <span class="muted">since ${when(date)}</span>` : html`<span class="muted">${no}</span>`
}
