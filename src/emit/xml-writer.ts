/** Escaping for the XML documents po-node writes itself (lists, nodeinfo). */
export function escText(s: string): string {
  return stripInvalid(s).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

export function escAttr(s: string): string {
  return escText(s).replace(/"/g, '&quot;').replace(/\r/g, '&#13;').replace(/\n/g, '&#10;').replace(/\t/g, '&#9;');
}

// XML 1.0 forbids most C0 controls even as character references; drop them rather than emit broken XML.
function stripInvalid(s: string): string {
  // eslint-disable-next-line no-control-regex
  return s.replace(/[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/g, '');
}

/** `<name attrs>text</name>`, or nothing when the text is undefined. */
export function el(name: string, text: string | number | undefined, attrs: Record<string, string | number | undefined> = {}): string {
  if (text === undefined || text === '') return '';
  return `<${name}${attrString(attrs)}>${escText(String(text))}</${name}>`;
}

export function attrString(attrs: Record<string, string | number | undefined>): string {
  let out = '';
  for (const [k, v] of Object.entries(attrs)) if (v !== undefined && v !== '') out += ` ${k}="${escAttr(String(v))}"`;
  return out;
}
