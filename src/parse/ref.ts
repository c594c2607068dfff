import { NS } from './ilcd.js';
import { attr, childrenOf, langOf, type XNode } from './xml.js';

/** References and language texts: the leaf of parse/ that both the header extractor and the link reader use. */
export interface LangText {
  lang: string;
  value: string;
}

/** An ILCD GlobalReferenceType: `@refObjectId`, `@version`, `@type`, `@uri`, shortDescription. */
export interface Ref {
  uuid?: string;
  version?: string;
  type?: string;
  uri?: string;
  descriptions: LangText[];
  /** Element path from the root, e.g. `/processDataSet/administrativeInformation/...`. */
  xpath: string;
}

/** Non-empty texts with their language (xml:lang). */
export function texts(nodes: XNode[] | undefined): LangText[] {
  return (nodes ?? []).map((n) => ({ lang: langOf(n), value: n.text.trim() })).filter((t) => t.value !== '');
}

export function ref(node: XNode, xpath: string): Ref {
  return refOf((name) => attr(node, name), texts(childrenOf(node, NS.common, 'shortDescription')), xpath);
}

/** A reference from its (unprefixed) attributes; also used by the body scanner (src/parse/body.ts). */
export function refOf(attrs: (name: string) => string | undefined, descriptions: LangText[], xpath: string): Ref {
  const r: Ref = { descriptions, xpath };
  const uuid = attrs('refObjectId')?.trim();
  const version = attrs('version')?.trim();
  const type = attrs('type')?.trim();
  const uri = attrs('uri')?.trim();
  if (uuid) r.uuid = uuid.toLowerCase();
  if (version) r.version = version;
  if (type) r.type = type;
  if (uri) r.uri = uri;
  return r;
}
