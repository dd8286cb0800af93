#!/usr/bin/env node
/**
 * The `tessera` command: `start` (default) runs a node; `init` prepares the data directory,
 * master key, first instance and admin token, then exits; `migrate` applies the PostgreSQL
 * schema migrations alone; `copy-store` copies a whole store between LMDB and PostgreSQL;
 * `backup` / `restore` copy a running node's LMDB store out and back (docs/operations/backup.md).
 * Configuration errors exit 2 with
 * every problem listed; SIGTERM/SIGINT/SIGHUP stop gracefully (a repeated signal does not cut the
 * drain short). `npm start` runs this through scripts/start.mjs, which builds first when needed.
 */
import { ConfigError, loadConfig } from '../config/load.js';
import { createLogger } from '../observability/logger.js';
import { clockFromEnv } from './test-clock.js';

/**
 * The usage text. Each command's module loads only when that command runs (or for this text):
 * a node never loads the PostgreSQL driver, backup or transfer code it does not use (idle
 * memory, #13).
 */
async function usage(): Promise<string> {
  const [{ TRANSFER_USAGE }, { COPY_STORE_USAGE }, { BACKUP_USAGE }, { RESTORE_USAGE }] = await Promise.all([
    import('./transfer-command.js'),
    import('./store-transfer-command.js'),
    import('./backup-command.js'),
    import('./restore-command.js'),
  ]);
  return `usage: tessera [start|init|migrate|keys rotate|keys list|export|import|copy-store|backup|restore]   (configuration: TESSERA_* variables, see docs/configuration.md)\n${TRANSFER_USAGE}\n${COPY_STORE_USAGE}\n${BACKUP_USAGE}\n${RESTORE_USAGE}`;
}
/** Signals that stop a node gracefully (SIGHUP: its terminal or session went away). */
const STOP_SIGNALS: readonly NodeJS.Signals[] = ['SIGTERM', 'SIGINT', 'SIGHUP'];
const COMMANDS = new Set(['start', 'init', 'keys', 'migrate', 'export', 'import', 'copy-store', 'backup', 'restore']);

async function main(argv: readonly string[]): Promise<number> {
  const command = argv[0] ?? 'start';
  if (command === '--help' || command === '-h' || command === 'help') {
    process.stdout.write(`${await usage()}\n`);
    return 0;
  }
  if (!COMMANDS.has(command)) {
    process.stderr.write(`unknown command "${command}"\n${await usage()}\n`);
    return 2;
  }
  let config;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${error.message}\n`);
      return 2;
    }
    throw error;
  }
  if (command === 'export' || command === 'import') return (await import('./transfer-command.js')).runTransferCommand(command, argv.slice(1), config);
  const logger = createLogger(config.logLevel);
  if (command === 'keys') return (await import('./keys-command.js')).runKeysCommand(argv.slice(1), config, logger);
  if (command === 'migrate') return (await import('./migrate-command.js')).runMigrateCommand(config, logger);
  if (command === 'copy-store') return (await import('./store-transfer-command.js')).runCopyStoreCommand(argv.slice(1), config);
  if (command === 'backup') return (await import('./backup-command.js')).runBackupCommand(argv.slice(1), config);
  if (command === 'restore') return (await import('./restore-command.js')).runRestoreCommand(argv.slice(1), config);
  // The node's modules load only for the commands that run one: the other commands start fast.
  if (command === 'init') {
    const prepared = await (await import('./prepare-node.js')).prepareNode(config, logger);
    await prepared.close();
    logger.info({ instanceId: prepared.setup.plan.instanceId, created: prepared.setup.created }, 'initialized');
    return 0;
  }
  const { clock, testClockFile } = clockFromEnv(process.env);
  if (testClockFile !== undefined) logger.warn({ file: testClockFile }, 'test clock: TESSERA_TEST_MODE=1, time is shifted by the offset in TESSERA_TEST_CLOCK_FILE');
  const node = await (await import('./configured-node.js')).startConfiguredNode(config, logger, clock);
  await new Promise<void>((resolve) => {
    let stopping = false;
    // Handlers stay installed: Ctrl-C reaches the node both from the terminal and through
    // `npm start` (scripts/start.mjs), and a repeated signal must not cut the drain short.
    const shutdown = (signal: NodeJS.Signals) => {
      if (stopping) return;
      stopping = true;
      logger.info({ signal }, 'shutting down: draining requests and flushing writes');
      resolve();
    };
    for (const signal of STOP_SIGNALS) process.on(signal, shutdown);
  });
  await node.stop();
  logger.info({}, 'stopped');
  logger.flush();
  return 0;
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`tessera: fatal: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  },
);
