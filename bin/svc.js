#!/usr/bin/env node
// Entry point of every svc command. tsx runs the TypeScript sources directly, so a clone needs
// no build step; clipanion parses the command line in bin/cli.ts.
import { register } from 'tsx/esm/api'

register()
await import('./cli.ts')
