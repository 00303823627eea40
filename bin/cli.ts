/** The svc command line: one clipanion command per operation. */
import { Builtins, Cli } from 'clipanion'
import { AllInOneCommand } from './commands/all-in-one.js'
import { CheckInvestigationsCommand } from './commands/check-investigations.js'
import { DeadLettersCommand } from './commands/dead-letters.js'
import { IngressCommand } from './commands/ingress.js'
import { MigrateCommand } from './commands/migrate.js'
import { GroupingUpgradeCommand } from './commands/grouping-upgrade.js'
import { MintKeyCommand } from './commands/mint-key.js'
import { SeedCommand } from './commands/seed.js'
import { UpCommand } from './commands/up.js'
import { WorkerCommand } from './commands/worker.js'

const cli = new Cli({ binaryLabel: 'svc', binaryName: 'svc', binaryVersion: '0.1.0' })
for (const command of [UpCommand, MigrateCommand, SeedCommand, MintKeyCommand, GroupingUpgradeCommand, IngressCommand, WorkerCommand, AllInOneCommand, DeadLettersCommand, CheckInvestigationsCommand]) cli.register(command)
cli.register(Builtins.HelpCommand)
cli.register(Builtins.VersionCommand)

process.exitCode = await cli.run(process.argv.slice(2))
