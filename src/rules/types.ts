import type { Finding, Severity } from '../findings.js';
import type { ParamsFor, RuleCode } from '../messages/catalog.js';
import type { DatasetHeader, ProcessIndex } from '../parse/extract.js';
import type { BodyFacts } from '../parse/body.js';
import type { XNode } from '../parse/xml.js';
import type { ByteView } from '../parse/safety.js';

/** What a level-4 rule sees: one parsed EPD process dataset. */
export interface RuleContext {
  file: string;
  text: string;
  /** The document's byte view, where it was read as one: findings are located on it, and `text` is never decoded. */
  view?: ByteView;
  /** The parsed document; an index-only read holds the head and the reference exchange(s), not the LCIA results. */
  root: XNode;
  /** LCIA result facts, from a full parse or from the body scan. */
  body: BodyFacts;
  dataset: DatasetHeader;
  process: ProcessIndex;
  /** Build time, for "expired" checks (deterministic with SOURCE_DATE_EPOCH). */
  now: Date;
}

/** A finding without the parts the runner fills in (rule id, file, default severity); its text is the catalogue's. */
export interface RuleHit<C extends RuleCode = RuleCode> {
  /** The message parameters (`case` names the wording), rendered by src/messages/catalog.ts. */
  params: ParamsFor<C>;
  xpath: string;
  /** Local element name to locate for a line number (first match, or the nth). */
  element?: string;
  nth?: number;
  /** Element to point at when `element` is absent from the file (e.g. the parent of a missing field). */
  near?: string;
  severity?: Severity;
}

export interface Rule<C extends RuleCode = RuleCode> {
  /** Stable kebab-case id: the code of its findings, catalogued in src/messages/catalog.ts. */
  id: C;
  level: 4;
  /** Default severity; a hit may override it (e.g. a malformed value is worse than a missing one). */
  severity: Severity;
  description: string;
  /** Where the requirement comes from. */
  source: string;
  check(ctx: RuleContext): RuleHit<C>[];
}

export type { Finding };
