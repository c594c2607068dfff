/** Line (1-based) of the nth start tag with this local name, any prefix; undefined when not found. */
export function lineOfElement(text: string, localName: string, nth = 0): number | undefined {
  const re = new RegExp(`<(?:[A-Za-z_][\\w.-]*:)?${localName.replace(/[.-]/g, '\\$&')}(?=[\\s/>])`, 'g');
  let m: RegExpExecArray | null;
  let k = 0;
  while ((m = re.exec(text))) {
    if (k++ === nth) return lineAt(text, m.index);
  }
  return undefined;
}

export function lineAt(text: string, offset: number): number {
  let line = 1;
  for (let i = text.indexOf('\n'); i >= 0 && i < offset; i = text.indexOf('\n', i + 1)) line++;
  return line;
}
