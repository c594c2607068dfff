/** ANSI colours only on a TTY, and never when NO_COLOR is set (https://no-color.org). */
export interface Palette {
  red: (s: string) => string;
  yellow: (s: string) => string;
  green: (s: string) => string;
  dim: (s: string) => string;
  bold: (s: string) => string;
  cyan: (s: string) => string;
}

export function palette(stream: { isTTY?: boolean }, env: NodeJS.ProcessEnv = process.env): Palette {
  const on = Boolean(stream.isTTY) && !('NO_COLOR' in env) && env.TERM !== 'dumb';
  const wrap = (open: number, close: number) => (s: string) => (on ? `\x1b[${open}m${s}\x1b[${close}m` : s);
  return { red: wrap(31, 39), yellow: wrap(33, 39), green: wrap(32, 39), dim: wrap(2, 22), bold: wrap(1, 22), cyan: wrap(36, 39) };
}
