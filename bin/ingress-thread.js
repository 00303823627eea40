// Entry of one ingress thread (`svc ingress` with SVC_INGRESS_THREADS above 1). Like bin/svc.js,
// tsx loads the TypeScript sources; a worker thread has to register it for itself.
import { register } from 'tsx/esm/api'

register()
await import('./ingress-thread.ts')
