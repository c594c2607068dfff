import { Command, CommanderError } from 'commander';
import { registerBuild } from './commands/build.js';
import { registerCheck } from './commands/check.js';
import { registerDeploy } from './commands/deploy.js';
import { registerInit } from './commands/init.js';
import { registerServe } from './commands/serve.js';
import type { Io, SetExit } from './commands/shared.js';
import { registerValidate } from './commands/validate.js';
import { PoNodeError } from './errors.js';
import { palette } from './util/color.js';
import { GENERATOR_VERSION } from './version.js';

export type { Io } from './commands/shared.js';

/** Exit codes: 0 success, 1 problems in the data (with --strict) or nothing publishable, 2 usage, config or I/O. */
export async function main(argv: string[], io: Io = { stdout: process.stdout, stderr: process.stderr, env: process.env }): Promise<number> {
  let exitCode = 0;
  const program = createProgram(io, (code) => {
    exitCode = code;
  });
  try {
    await program.parseAsync(argv);
  } catch (e) {
    if (e instanceof CommanderError) return e.exitCode === 0 ? 0 : 2;
    if (e instanceof PoNodeError) {
      const c = palette(io.stderr, io.env);
      io.stderr.write(`${c.red('po-node:')} ${e.message}\n`);
      if (e.hint) io.stderr.write(`${c.dim('hint:')} ${e.hint}\n`);
      if (io.env.DEBUG?.includes('po-node')) {
        // The stack of the error behind it (an EROFS from mkdtemp, ...) says where it happened.
        io.stderr.write(`${e.stack}\n${e.cause instanceof Error ? `caused by: ${e.cause.stack}\n` : ''}`);
      }
      return 2;
    }
    throw e;
  }
  return exitCode;
}

/** The command line: each command registers its options here; its code is loaded only when it runs (src/commands/). */
function createProgram(io: Io, setExit: SetExit): Command {
  const program = new Command('po-node')
    .description('Turn a folder of ILCD+EPD XML files into a static ECO Portal PO Node (soda4LCA-compatible API).')
    .version(GENERATOR_VERSION, '-v, --version')
    .exitOverride()
    .configureOutput({ writeOut: (s) => io.stdout.write(s), writeErr: (s) => io.stderr.write(s) })
    .showHelpAfterError('(run with --help for usage)')
    .addHelpText(
      'after',
      `
Examples:
  $ po-node build data/ --out site --base-url https://epd.example.org/node
  $ po-node build --config po-node.config.json --strict

Docs: README.md (output tree, publishing), docs/rules.md (every finding), schemas/ (JSON Schemas).`,
    );

  registerBuild(program, io, setExit);
  registerValidate(program, io, setExit);
  registerServe(program, io);
  registerInit(program, io);
  registerCheck(program, io, setExit);
  registerDeploy(program, io, setExit);
  return program;
}
