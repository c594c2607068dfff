import type { Command } from 'commander';
import type { Io } from './shared.js';

/** `po-node init`: write a config and, per host, its CI workflow. */
export function registerInit(program: Command, io: Io): void {
  program
    .command('init')
    .description('Write a commented po-node.config.json and, with --host, the CI workflow for that host.')
    .option('--host <names>', 'hosts to configure, comma-separated (github-pages and s3-cloudfront get a CI workflow)')
    .option('--dir <folder>', 'where to write (default: the current folder)')
    .option('--force', 'overwrite files that exist')
    .action(async (o: { host?: string; dir?: string; force?: boolean }) => {
      const { initCommand } = await import('../hosts/init.js');
      const written = initCommand({ ...o, cwd: process.cwd() });
      for (const f of written) io.stderr.write(`wrote ${f}\n`);
    });
}
