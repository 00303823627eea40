// The loader hooks record-imports.mjs registers; they run on Node's hooks thread.
import { appendFileSync } from 'node:fs'

let file
let pid

/** Receives the file to append to and the pid of the process being recorded. */
export function initialize(data) {
  ;({ file, pid } = data)
}

/** Notes the module, then loads it as usual. */
export async function load(url, context, nextLoad) {
  appendFileSync(file, `${pid} ${url}\n`)
  return nextLoad(url, context)
}
