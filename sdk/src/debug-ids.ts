/**
 * Debug ids of the chunks an error passed through. The Vite plugin (@svc/sdk/vite-plugin) stamps
 * each chunk with a snippet that stores `new Error().stack` → debug id in globalThis.__svcDebugIds;
 * the stack names the chunk's own URL, whatever host or path serves it. Turning those stacks into
 * URLs waits until an error is captured, so a page that never fails pays nothing for it.
 */

/** The service accepts at most this many (schemas/error-event.json). */
const MAX_IDS = 50
/** First "<url>:<line>:<column>" of a frame, in V8 ("at url:1:2", "at f (url:1:2)"), SpiderMonkey and JavaScriptCore ("f@url:1:2") stacks. */
const FRAME_FILE = /([a-z][\w+.-]*:\/\/[^\s()]+?):\d+:\d+\)?$/im

const fileOfStack = new Map<string, string | null>()

/** File URL → debug id, for the stamped files that appear in stack; undefined when none does. */
export function debugIdsFor(stack: string): Record<string, string> | undefined {
  const registry = (globalThis as { __svcDebugIds?: Record<string, string> }).__svcDebugIds
  if (!registry || !stack) return undefined
  let found: Record<string, string> | undefined
  let count = 0
  for (const registered in registry) {
    let file = fileOfStack.get(registered)
    if (file === undefined) {
      file = FRAME_FILE.exec(registered)?.[1] ?? null
      fileOfStack.set(registered, file)
    }
    // The colon keeps index.js from matching index.js2's frames.
    if (file && stack.indexOf(`${file}:`) >= 0) {
      found ??= {}
      found[file] = String(registry[registered])
      if (++count >= MAX_IDS) break
    }
  }
  return found
}
