/**
 * The svc command line: one clipanion command per operation. Only the command asked for is
 * imported: each brings its own part of the service, and `svc up`, which supervises the others for
 * as long as the service runs, must not hold theirs (ARCHITECTURE.md, "Footprint"). Help, a typo
 * or no command at all loads every command, so clipanion can list them and suggest the right one.
 */
import { Builtins, Cli, type CommandClass } from 'clipanion'

const COMMANDS: Readonly<Record<string, () => Promise<CommandClass>>> = {
  up: async () => (await import('./commands/up.js')).UpCommand,
  migrate: async () => (await import('./commands/migrate.js')).MigrateCommand,
  'objectstore-setup': async () => (await import('./commands/objectstore-setup.js')).ObjectStoreSetupCommand,
  seed: async () => (await import('./commands/seed.js')).SeedCommand,
  'mint-key': async () => (await import('./commands/mint-key.js')).MintKeyCommand,
  'create-project': async () => (await import('./commands/create-project.js')).CreateProjectCommand,
  'grouping-upgrade': async () => (await import('./commands/grouping-upgrade.js')).GroupingUpgradeCommand,
  ingress: async () => (await import('./commands/ingress.js')).IngressCommand,
  worker: async () => (await import('./commands/worker.js')).WorkerCommand,
  'all-in-one': async () => (await import('./commands/all-in-one.js')).AllInOneCommand,
  'dead-letters': async () => (await import('./commands/dead-letters.js')).DeadLettersCommand,
  'check-investigations': async () => (await import('./commands/check-investigations.js')).CheckInvestigationsCommand,
  'backfill-tickets': async () => (await import('./commands/backfill-tickets.js')).BackfillTicketsCommand,
  'reset-friction-tickets': async () => (await import('./commands/reset-friction-tickets.js')).ResetFrictionTicketsCommand,
  environments: async () => (await import('./commands/environments.js')).EnvironmentsCommand,
}

const args = process.argv.slice(2)
const asked = args[0] !== undefined ? COMMANDS[args[0]] : undefined
const cli = new Cli({ binaryLabel: 'svc', binaryName: 'svc', binaryVersion: '0.1.0' })
for (const load of asked ? [asked] : Object.values(COMMANDS)) cli.register(await load())
cli.register(Builtins.HelpCommand)
cli.register(Builtins.VersionCommand)

process.exitCode = await cli.run(args)
