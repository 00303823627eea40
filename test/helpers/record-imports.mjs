// node --import <this file's URL>: appends "<pid> <url>" for every module the process loads to the
// file SVC_TEST_IMPORTS_FILE names. Through NODE_OPTIONS it reaches every node process a command
// starts, so a test can tell which process loaded what (test/integration/up/up-footprint.test.ts).
import { register } from 'node:module'

register('./record-imports-hooks.mjs', import.meta.url, { data: { file: process.env.SVC_TEST_IMPORTS_FILE, pid: process.pid } })
