// The helper process of src/util/spawner.ts: starts the commands po-node asks for over IPC and reports their stderr
// and exit. A Node process with a small heap, so its fork() for each command is cheap (see spawner.ts).
import { spawn, type ChildProcess } from 'node:child_process';
import type { HelperReply, HelperRequest } from './spawner.js';

const children = new Map<number, ChildProcess>();
/** Commands that finish their work should po-node end first (deleting a replaced tree). */
const lasting = new Set<number>();
const reply = (m: HelperReply) => {
  if (process.connected) process.send!(m);
};

process.on('message', (m: HelperRequest) => {
  if (m.op === 'kill') {
    children.get(m.id)?.kill('SIGKILL');
    return;
  }
  const { id } = m;
  let p: ChildProcess;
  try {
    p = spawn(m.cmd, m.args, { cwd: m.cwd, env: m.env, stdio: ['ignore', 'ignore', m.stderr ? 'pipe' : 'ignore'] });
  } catch (e) {
    reply({ id, error: { message: (e as Error).message, code: (e as NodeJS.ErrnoException).code } });
    return;
  }
  children.set(id, p);
  if (m.outlive) lasting.add(id);
  p.stderr?.setEncoding('utf8');
  p.stderr?.on('data', (chunk: string) => reply({ id, stderr: chunk }));
  p.on('error', (e: NodeJS.ErrnoException) => {
    children.delete(id);
    lasting.delete(id);
    reply({ id, error: { message: e.message, code: e.code } });
  });
  p.on('close', (code, signal) => {
    lasting.delete(id);
    if (!children.delete(id)) return; // 'error' answered already
    reply({ id, close: [code, signal] });
  });
});

// po-node is gone (ended or killed): so are the commands it started, but for those meant to outlive it; this process
// ends with the last of them.
process.on('disconnect', () => {
  for (const [id, p] of children) if (!lasting.has(id)) p.kill('SIGKILL');
});
