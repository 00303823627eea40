/**
 * What a recording test does in the page, as data: the same steps run in Chromium (playwright-core,
 * in the test's process) and in Firefox ESR (puppeteer-core, in a child process: see
 * sdk-recording-firefox-drive.ts), whose page objects share the few methods used here.
 */
import { patience } from '../../helpers/patience.js'

/** What the capture server has seen so far (GET /__state). */
export interface CaptureCounts {
  /** Recording chunk requests, resends included. */
  chunks: number
  /** Error events. */
  events: number
  /** svc.error custom events, in the chunks as kept (a chunk sent again counts once). */
  marked: number
  /** rrweb full snapshots (type 2), in the chunks as kept. */
  snapshots: number
  /** rrweb input events, in the chunks as kept. */
  inputs: number
  /** Chunk requests the page sent with keepalive. */
  keepalive: number
}

export type Step =
  | { goto: string }
  | { reload: true }
  /** Waits until the page has started the SDK and its recorder. */
  | { ready: true }
  | { type: [selector: string, text: string] }
  | { click: string }
  /** An expression evaluated in the page. */
  | { run: string }
  /** Waits until the capture server has seen at least this much. */
  | { wait: Partial<CaptureCounts> }
  /** Lets the page run this long (to show that nothing is sent in it). */
  | { idle: number }

/** The methods of a playwright-core or puppeteer-core page the steps use. */
export interface StepPage {
  goto(url: string): Promise<unknown>
  reload(): Promise<unknown>
  type(selector: string, text: string): Promise<void>
  click(selector: string): Promise<void>
  evaluate(expression: string): Promise<unknown>
  waitForFunction(expression: string): Promise<unknown>
}

/** Runs the steps in order; capture is the capture server's address, for wait steps. */
export async function runSteps(page: StepPage, steps: Step[], capture: string): Promise<void> {
  for (const step of steps) {
    if ('goto' in step) await page.goto(step.goto)
    else if ('reload' in step) await page.reload()
    else if ('ready' in step) await page.waitForFunction('globalThis.svcReady === true')
    else if ('type' in step) await page.type(step.type[0], step.type[1])
    else if ('click' in step) await page.click(step.click)
    else if ('run' in step) await page.evaluate(step.run)
    else if ('idle' in step) await new Promise((resolve) => setTimeout(resolve, step.idle))
    else await waitForCounts(capture, step.wait)
  }
}

async function waitForCounts(capture: string, wanted: Partial<CaptureCounts>): Promise<void> {
  const deadline = Date.now() + patience(30_000)
  for (;;) {
    const counts = (await (await fetch(`${capture}/__state`)).json()) as CaptureCounts
    if (Object.entries(wanted).every(([name, at]) => counts[name as keyof CaptureCounts] >= at!)) return
    if (Date.now() > deadline) throw new Error(`the capture server saw ${JSON.stringify(counts)}, not yet ${JSON.stringify(wanted)}`)
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}
