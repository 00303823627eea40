/**
 * The latest event's stack on the issue page: symbolicated frames in source terms with their source
 * lines, the application's frames emphasised and runs of library or engine frames folded away,
 * each frame a map could not place with the reason in words, and the stack note when the event has
 * no frames of the application's own. Every string here came from an event or a source map.
 */
import { normalizeSourcePath } from '../../../../shared/domain/source-path.js'
import { html, type SafeHtml } from '../../http/html.js'
import type { LatestEvent } from '../../../grouper/read/issues.js'
import type { ShownFrame, SourceLines } from '../../../grouper/read/stored-event.js'
import { stackNoteExplanation, unresolvedExplanation } from './explanations.js'

/** The stack section: note, frames, and the stack text as sent. */
export function stackSection(event: LatestEvent): SafeHtml {
  const { frames, stackNote } = event.grouping
  const noFrames = frames.length === 0
  return html`${stackNote ? stackNoteBox(stackNote, event.thrown) : ''}
${noFrames ? (stackNote ? '' : html`<p class="empty">This event has no stored frames.</p>`) : framesList(frames)}
${
  event.stack
    ? html`<details class="raw-stack"${noFrames ? html` open` : ''}><summary>Stack as the browser reported it</summary>
<pre class="stack" tabindex="0" aria-label="Stack trace as reported">${event.stack}</pre></details>`
    : ''
}`
}

function stackNoteBox(note: string, thrown: string): SafeHtml {
  const { label, text } = stackNoteExplanation(note)
  return html`<div class="notice stack-note" role="note"><strong>${label}.</strong> ${text}${thrown ? html` <span class="muted">(thrown value: ${thrown})</span>` : ''}</div>`
}

/**
 * Frames innermost first. Consecutive frames outside the application fold into one closed
 * <details> (open when the stack has no frame of the application at all, since then they are
 * all there is to read). The throw site's source lines are shown; other frames' fold away.
 */
function framesList(frames: readonly ShownFrame[]): SafeHtml {
  const anyInApp = frames.some((frame) => frame.inApp)
  const parts: SafeHtml[] = []
  let run: ShownFrame[] = []
  let sourceShown = false
  const item = (frame: ShownFrame): SafeHtml => {
    const open = !sourceShown && frame.original?.context !== undefined && (frame.inApp || !anyInApp)
    if (open) sourceShown = true
    return frameItem(frame, open, frame === frames[0])
  }
  const flush = (): void => {
    if (run.length === 0) return
    const count = run.length
    parts.push(html`<li class="frame-run"><details${anyInApp ? '' : html` open`}><summary>${count} library or browser frame${count === 1 ? '' : 's'}</summary>
<ol class="frames">${run.map(item)}</ol></details></li>`)
    run = []
  }
  for (const frame of frames) {
    if (frame.inApp) {
      flush()
      parts.push(item(frame))
    } else run.push(frame)
  }
  flush()
  return html`<ol class="frames" aria-label="Stack frames, innermost first">${parts}</ol>`
}

function frameItem(frame: ShownFrame, sourceOpen: boolean, innermost: boolean): SafeHtml {
  const boundary = frame.asyncCause ? html`<li class="async-boundary" role="separator"><span>async boundary: ${frame.asyncCause}</span></li>` : ''
  const kind = frame.inApp ? 'app' : 'lib'
  const tags = [frame.inApp ? '' : frame.native ? 'browser' : 'library', frame.original ? '' : frame.unresolved ? 'minified' : ''].filter(Boolean)
  const original = frame.original
  const head = original
    ? html`<code class="fn">${original.function || '<anonymous>'}</code> <span class="loc">(<code>${position(normalizeSourcePath(original.file) || original.file, original.line, original.column)}</code>)</span>`
    : html`<code class="fn">${frame.function || '<anonymous>'}</code>${frame.file ? html` <span class="loc">(<code>${position(frame.file, frame.line, frame.column)}</code>)</span>` : ''}`
  const reason = original ? undefined : unresolvedExplanation(frame.unresolved)
  const source = original?.context ? sourceTable(original.context, original.line, innermost ? 'Line that threw: ' : 'Line of the call: ') : undefined
  return html`${boundary}<li class="frame ${kind}">
<div class="frame-head">${head}${tags.map((tag) => html` <span class="tag">${tag}</span>`)}</div>
${original ? html`<div class="bundle muted small">Bundle: <code>${frame.function ? `${frame.function} at ` : ''}${position(frame.file, frame.line, frame.column)}</code></div>` : ''}
${source ? (sourceOpen ? source : html`<details class="frame-source"><summary>Source</summary>${source}</details>`) : ''}
${reason ? html`<p class="unresolved small">${reason}</p>` : ''}
</li>`
}

function position(file: string, line: number | undefined, column: number | undefined): string {
  if (line === undefined) return file
  return column === undefined ? `${file}:${line}` : `${file}:${line}:${column}`
}

/** The frame's source lines, numbered, the frame's own line marked (and named for screen readers by mark). */
function sourceTable(context: SourceLines, line: number, mark: string): SafeHtml {
  const first = line - context.pre.length
  const row = (text: string, number: number, hit: boolean): SafeHtml =>
    html`<tr${hit ? html` class="hit"` : ''}><td class="ln">${number}</td><td class="code"><code>${hit ? html`<span class="sr-only">${mark}</span>` : ''}${text}</code></td></tr>`
  return html`<div class="source"><table>
<tbody>${context.pre.map((text, i) => row(text, first + i, false))}${row(context.line, line, true)}${context.post.map((text, i) => row(text, line + 1 + i, false))}</tbody>
</table></div>`
}
