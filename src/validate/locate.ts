/** Position (1-based line and column) of the nth start tag with this local name, any prefix; undefined when absent. */
export function locateElement(text: string, localName: string, nth = 0): { line: number; col: number } | undefined {
  const re = new RegExp(`<(?:[A-Za-z_][\\w.-]*:)?${localName.replace(/[.-]/g, '\\$&')}(?=[\\s/>])`, 'g');
  let m: RegExpExecArray | null;
  let k = 0;
  while ((m = re.exec(text))) {
    if (k++ === nth) return positionAt(text, m.index);
  }
  return undefined;
}

export function positionAt(text: string, offset: number): { line: number; col: number } {
  let line = 1;
  let lineStart = 0;
  for (let i = text.indexOf('\n'); i >= 0 && i < offset; i = text.indexOf('\n', i + 1)) {
    line++;
    lineStart = i + 1;
  }
  return { line, col: offset - lineStart + 1 };
}
