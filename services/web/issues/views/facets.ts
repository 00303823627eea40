/**
 * Where and when an issue happens: its events per day as an inline SVG bar chart (attributes only,
 * since the page's CSP allows no inline style and no script), and the browsers, releases and
 * environments of its latest events with their counts.
 */
import { html, type SafeHtml } from '../../http/html.js'
import type { DayCount, FacetCount, Facets } from '../../../grouper/read/issues.js'

const BAR = 20
const GAP = 4
const HEIGHT = 100
const LABELS = 16

/** Events per day, oldest day left. */
export function dailyChart(days: readonly DayCount[]): SafeHtml {
  const total = days.reduce((sum, day) => sum + day.count, 0)
  const peak = days.reduce((best, day) => (day.count > best.count ? day : best), days[0] ?? { day: '', count: 0 })
  const width = days.length * BAR
  const summary = `${total} event${total === 1 ? '' : 's'} in the last ${days.length} days${peak.count > 0 ? `, at most ${peak.count} on ${peak.day}` : ''} (UTC days).`
  const bars = days.map((day, i) => {
    if (day.count === 0) return html`<rect class="bar-empty" x="${i * BAR + GAP / 2}" y="${HEIGHT - 1}" width="${BAR - GAP}" height="1"><title>${day.day}: no events</title></rect>`
    const height = Math.max(2, Math.round((day.count / peak.count) * HEIGHT))
    return html`<rect class="bar" x="${i * BAR + GAP / 2}" y="${HEIGHT - height}" width="${BAR - GAP}" height="${height}"><title>${day.day}: ${day.count} event${day.count === 1 ? '' : 's'}</title></rect>`
  })
  return html`<figure class="chart">
<svg viewBox="0 0 ${width} ${HEIGHT + LABELS}" role="img" aria-label="Events per day. ${summary}">
${bars}
<line class="axis" x1="0" y1="${HEIGHT}" x2="${width}" y2="${HEIGHT}"/>
${days.length > 0 ? html`<text x="0" y="${HEIGHT + LABELS - 3}">${days[0]!.day}</text><text x="${width}" y="${HEIGHT + LABELS - 3}" text-anchor="end">${days[days.length - 1]!.day}</text>` : ''}
</svg>
<figcaption class="muted small">${summary}</figcaption>
</figure>`
}

/** The three facet tables side by side. */
export function facetsSection(facets: Facets, eventCount: number): SafeHtml {
  if (facets.sampled === 0) return html`<p class="empty">No stored events to count.</p>`
  const partial = eventCount > facets.browsersSampled
  return html`${
    partial
      ? html`<p class="hint small">Browsers counted over the latest ${facets.browsersSampled} events${eventCount > facets.sampled ? html`, releases and environments over the latest ${facets.sampled}` : ''}, of ${eventCount}.</p>`
      : ''
  }
<div class="facets">
${facetTable('Browsers', 'Browser', facets.browsers, facets.browsersSampled, 'Unknown')}
${facetTable('Releases', 'Release', facets.releases, facets.sampled, 'no release')}
${facetTable('Environments', 'Environment', facets.environments, facets.sampled, 'no environment')}
</div>`
}

function facetTable(caption: string, column: string, counts: readonly FacetCount[], sampled: number, missing: string): SafeHtml {
  return html`<table class="facet"><caption>${caption}</caption>
<thead><tr><th scope="col">${column}</th><th scope="col" class="num">Events</th></tr></thead><tbody>
${counts.map(
  (item) => html`<tr><td>${item.other ? html`<span class="muted">all others</span>` : item.value === null ? html`<span class="muted">${missing}</span>` : html`<code>${item.value}</code>`}
<meter min="0" max="${sampled}" value="${item.count}">${Math.round((item.count / sampled) * 100)}%</meter></td><td class="num">${item.count}</td></tr>`,
)}
</tbody></table>`
}
