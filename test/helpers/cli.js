// The CLI in-process (src/cli.ts main) with captured output, for tests of what a person or CI sees.
import { main } from '../../dist/cli.js';

/**
 * A write stream stand-in: keeps what is written; isTTY as given.
 * @returns {NodeJS.WriteStream & { text: string }}
 */
export function captureStream(isTTY = false) {
  /** @type {any} */
  const s = {
    isTTY,
    text: '',
    write(c) {
      s.text += String(c);
      return true;
    },
  };
  return s;
}

/** Run `po-node ...args`: { code, out (stdout), err (stderr) }. */
export async function runCli(args, env = {}, tty = false) {
  const stdout = captureStream(tty);
  const stderr = captureStream(tty);
  const code = await main(['node', 'po-node', ...args], { stdout, stderr, env });
  return { code, out: stdout.text, err: stderr.text };
}
