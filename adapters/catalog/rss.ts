import { XMLParser, XMLValidator } from 'fast-xml-parser';

/**
 * RSS 2.0 catalog files, read with fast-xml-parser (validated first, so a broken feed is a clear
 * start-up error naming its line, never a crash). RSS is flat (channel → item → a few text
 * elements); each item becomes a schema.org Article.
 */

/** A problem in the feed at a character offset (the loader turns the offset into a line number). */
export class RssSyntaxError extends Error {
  override readonly name = 'RssSyntaxError';
  constructor(
    message: string,
    readonly offset: number,
  ) {
    super(message);
  }
}

/** What a feed yields: schema.org `Article` items and the channel's host name, used as their `site`. */
export interface RssFeed {
  site?: string;
  items: Array<Record<string, unknown>>;
}

const parser = new XMLParser({
  ignoreAttributes: true,
  parseTagValue: false, // "2026" stays a string
  processEntities: true,
  htmlEntities: true, // &mdash;, &#8212; and kin, common in feeds
  isArray: (name) => name === 'item' || name === 'category',
});

/**
 * Character references that name no character (`&#0;`, `&#x110000;`) become U+FFFD, as an XML reader
 * should not fail a whole feed over one of them. One linear pass.
 */
function sanitizeReferences(xml: string): string {
  return xml.replace(/&#(x[0-9a-f]{1,12}|[0-9]{1,14});/gi, (whole, ref: string) => {
    const code = ref[0] === 'x' || ref[0] === 'X' ? parseInt(ref.slice(1), 16) : parseInt(ref, 10);
    const valid = code > 0 && code <= 0x10ffff && !(code >= 0xd800 && code <= 0xdfff);
    return valid ? whole : '&#xFFFD;';
  });
}

/** The offset where 1-based `line` starts (validator errors give a line, the loader wants an offset). */
function offsetOfLine(text: string, line: number): number {
  let at = 0;
  for (let n = 1; n < line && at >= 0; n++) at = text.indexOf('\n', at) + 1 || -1;
  return Math.max(0, at);
}

/** Throws RssSyntaxError for a document that is not well-formed XML, naming an unclosed `<item>` plainly. */
function validate(xml: string): void {
  const result = XMLValidator.validate(xml);
  if (result === true) return;
  const { msg, line } = result.err;
  const unclosed = /^Invalid '\[(.*)\]' found\.?$/s.exec(msg)?.[1];
  if (unclosed !== undefined && /"item"/.test(unclosed)) {
    throw new RssSyntaxError('an <item> element is never closed', Math.max(0, xml.lastIndexOf('<item')));
  }
  throw new RssSyntaxError(`not well-formed XML: ${msg}`, offsetOfLine(xml, line));
}

/** An element's text: a string as is, nested elements' text joined (tags dropped), else undefined. */
function textOf(value: unknown): string | undefined {
  if (typeof value === 'string') return value.trim() || undefined;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (Array.isArray(value)) return textOf(value[0]);
  if (value !== null && typeof value === 'object') {
    const parts = Object.values(value).map(textOf).filter((t): t is string => t !== undefined);
    return parts.length > 0 ? parts.join(' ') : undefined;
  }
  return undefined;
}

/** Plain text from (possibly escaped) HTML: tags dropped, whitespace collapsed. */
function plainText(html: string): string {
  return html
    .replace(/<[^>]*>/g, ' ')
    .replace(/\s+/g, ' ')
    .replace(/ ([,.;:!?])/g, '$1')
    .trim();
}

/** RSS dates are RFC 822; emit ISO 8601 when the date parses, the original text otherwise. */
function isoDate(text: string | undefined): string | undefined {
  if (text === undefined) return undefined;
  const ms = Date.parse(text);
  return Number.isNaN(ms) ? text : new Date(ms).toISOString();
}

function hostOf(url: string | undefined): string | undefined {
  if (url === undefined) return undefined;
  try {
    const host = new URL(url).hostname;
    return host.length > 0 ? host : undefined;
  } catch {
    return undefined;
  }
}

const isRecord = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/** One `<item>` as a schema.org Article; undefined when it carries no title, link or description. */
function toArticle(item: unknown): Record<string, unknown> | undefined {
  if (!isRecord(item)) return undefined;
  const title = textOf(item.title);
  const link = textOf(item.link);
  const guid = textOf(item.guid);
  const descriptionHtml = textOf(item.description);
  const description = descriptionHtml === undefined ? undefined : plainText(descriptionHtml);
  if (title === undefined && link === undefined && !description) return undefined;
  const categories = (Array.isArray(item.category) ? item.category : []).map(textOf).filter((c): c is string => c !== undefined);
  const author = textOf(item['dc:creator']) ?? textOf(item.author);
  const id = guid !== undefined && /^https?:\/\//i.test(guid) ? guid : (link ?? guid);
  const article: Record<string, unknown> = { '@type': 'Article' };
  if (id !== undefined) article['@id'] = id;
  if (link !== undefined) article.url = link;
  if (title !== undefined) Object.assign(article, { name: title, headline: title });
  if (description) article.description = description;
  const published = isoDate(textOf(item.pubDate));
  if (published !== undefined) article.datePublished = published;
  if (categories.length > 0) article.keywords = categories.join(', ');
  if (author !== undefined) article.author = { '@type': 'Person', name: author };
  return article;
}

/** True when the text looks like XML rather than JSON (format sniffing). */
export function looksLikeXml(text: string): boolean {
  return text.trimStart().startsWith('<');
}

/**
 * Parses an RSS 2.0 document into Article items (RSS 2.0 spec: channel/item with title, link,
 * description, guid, pubDate, category, author). Throws RssSyntaxError for a document that is not
 * well-formed XML or not RSS.
 */
export function parseRss(xml: string): RssFeed {
  const text = sanitizeReferences(xml);
  validate(text);
  let doc: unknown;
  try {
    doc = parser.parse(text);
  } catch (err) {
    throw new RssSyntaxError(`not well-formed XML: ${err instanceof Error ? err.message : String(err)}`, 0);
  }
  const root = isRecord(doc) ? doc : {};
  const channel = isRecord(root.rss) ? root.rss.channel : root.channel;
  if (!isRecord(channel)) {
    if ('feed' in root) throw new RssSyntaxError('an Atom feed; only RSS 2.0 is supported', Math.max(0, xml.indexOf('<feed')));
    throw new RssSyntaxError('not an RSS 2.0 document (no <channel> element)', 0);
  }
  const items = (Array.isArray(channel.item) ? channel.item : []).map(toArticle).filter((a): a is Record<string, unknown> => a !== undefined);
  const site = hostOf(textOf(channel.link));
  return site === undefined ? { items } : { site, items };
}
