import type { Command } from 'commander';
import type { Io } from './shared.js';

/** `po-node serve`: preview a built site until stopped (Ctrl+C). */
export function registerServe(program: Command, io: Io): void {
  program
    .command('serve')
    .description('Preview a built site on 127.0.0.1, answering every API URL like a configured host, plus soda4LCA paging and search.')
    .argument('[site]', 'built site folder (default: "out" from the config, else site)')
    .option('-c, --config <file>', 'po-node.config.json (for its output folder; default: ./po-node.config.json when present)')
    .option('-p, --port <port>', 'port (default 8080, the example baseUrl; 0 picks a free one)')
    .option('--host <address>', 'interface to bind (default 127.0.0.1)')
    .addHelpText(
      'after',
      `
List parameters on /resource/processes (as soda4LCA): format=xml|json, startIndex, pageSize (default 500),
search=true with name=<terms> (every term, any case); version=<NN.NN.NNN> on /resource/<type>/<uuid>.`,
    )
    .action(async (site: string | undefined, o: { config?: string; port?: string; host?: string }) => {
      const stopped = new Promise<void>((ok) => {
        process.once('SIGINT', ok);
        process.once('SIGTERM', ok);
      });
      const { serveCommand } = await import('../serve/command.js');
      await serveCommand({ ...o, ...(site ? { site } : {}) }, (l) => io.stderr.write(`${l}\n`), stopped);
    });
}
