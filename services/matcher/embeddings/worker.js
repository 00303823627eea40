// The pool's thread entry when svc runs from its TypeScript sources (tests, tsx): a worker thread
// has to register tsx for itself, as bin/ingress-thread.js does. In the compiled tree
// (bin/compile.js) and in dist/, worker.ts compiles to this name and replaces this file.
import { register } from 'tsx/esm/api'

register()
const { default: embed } = await import('./worker.ts')
export default embed
