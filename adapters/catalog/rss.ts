/**
 * A small RSS 2.0 reader for catalog files. RSS is flat (channel → item → a few text elements), so
 * plain string scanning is enough and no XML dependency is needed. Every scan is linear (indexOf,
 * no backtracking regular expressions over the document).
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

const NAMED_ENTITIES: Record<string, string> = {
  amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ',
  mdash: '—', ndash: '–', hellip: '…', lsquo: '‘', rsquo: '’', ldquo: '“', rdquo: '”',
};

/** Decodes XML character references; an invalid code point becomes U+FFFD instead of throwing. */
function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]{1,8}|#[0-9]{1,10}|[a-z]{2,8});/gi, (whole, ref: string) => {
    if (ref.startsWith('#')) {
      const code = ref[1] === 'x' || ref[1] === 'X' ? parseInt(ref.slice(2), 16) : parseInt(ref.slice(1), 10);
      const valid = code > 0 && code <= 0x10ffff && !(code >= 0xd800 && code <= 0xdfff);
      return valid ? String.fromCodePoint(code) : '\uFFFD';
    }
    return NAMED_ENTITIES[ref.toLowerCase()] ?? whole;
  });
}

/** Element content as text: CDATA sections taken verbatim, the rest entity-decoded. */
function contentText(raw: string): string {
  let out = '';
  let at = 0;
  while (at < raw.length) {
    const open = raw.indexOf('<![CDATA[', at);
    if (open < 0) break;
    const close = raw.indexOf(']]>', open + 9);
    if (close < 0) break;
    out += decodeEntities(raw.slice(at, open)) + raw.slice(open + 9, close);
    at = close + 3;
  }
  return out + decodeEntities(raw.slice(at));
}

/** Plain text from (possibly escaped) HTML: tags dropped, whitespace collapsed. */
function plainText(html: string): string {
  return html
    .replace(/<[^>]*>/g, ' ')
    .replace(/\s+/g, ' ')
    .replace(/ ([,.;:!?])/g, '$1')
    .trim();
}

/** Offset of the next `<tag` start that is really that tag (followed by `>`, `/` or whitespace). */
function findOpen(xml: string, tag: string, from: number): number {
  let at = xml.indexOf(`<${tag}`, from);
  while (at >= 0) {
    const next = xml[at + tag.length + 1];
    if (next === '>' || next === '/' || next === undefined || /\s/.test(next)) return at;
    at = xml.indexOf(`<${tag}`, at + 1);
  }
  return -1;
}

/** The text content of every `<tag>` child in `xml`, in order. */
function childTexts(xml: string, tag: string): string[] {
  const out: string[] = [];
  let at = findOpen(xml, tag, 0);
  while (at >= 0) {
    const headEnd = xml.indexOf('>', at);
    if (headEnd < 0) break;
    if (xml[headEnd - 1] === '/') {
      at = findOpen(xml, tag, headEnd + 1); // <tag/>: empty
      continue;
    }
    const close = xml.indexOf(`</${tag}>`, headEnd + 1);
    if (close < 0) break;
    const text = contentText(xml.slice(headEnd + 1, close)).trim();
    if (text.length > 0) out.push(text);
    at = findOpen(xml, tag, close + tag.length + 3);
  }
  return out;
}

function childText(xml: string, tag: string): string | undefined {
  return childTexts(xml, tag)[0];
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

/** One `<item>` as a schema.org Article; undefined when it carries no title, link or description. */
function toArticle(xml: string): Record<string, unknown> | undefined {
  const title = childText(xml, 'title');
  const link = childText(xml, 'link');
  const guid = childText(xml, 'guid');
  const descriptionHtml = childText(xml, 'description');
  const description = descriptionHtml === undefined ? undefined : plainText(descriptionHtml);
  if (title === undefined && link === undefined && !description) return undefined;
  const categories = childTexts(xml, 'category');
  const author = childText(xml, 'dc:creator') ?? childText(xml, 'author');
  const id = guid !== undefined && /^https?:\/\//i.test(guid) ? guid : (link ?? guid);
  const article: Record<string, unknown> = { '@type': 'Article' };
  if (id !== undefined) article['@id'] = id;
  if (link !== undefined) article.url = link;
  if (title !== undefined) Object.assign(article, { name: title, headline: title });
  if (description) article.description = description;
  const published = isoDate(childText(xml, 'pubDate'));
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
 * RSS or has an unclosed `<item>`.
 */
export function parseRss(xml: string): RssFeed {
  const channel = findOpen(xml, 'channel', 0);
  if (channel < 0) {
    const atom = findOpen(xml, 'feed', 0);
    if (atom >= 0) throw new RssSyntaxError('an Atom feed; only RSS 2.0 is supported', atom);
    throw new RssSyntaxError('not an RSS 2.0 document (no <channel> element)', 0);
  }
  const firstItem = findOpen(xml, 'item', channel);
  const header = xml.slice(channel, firstItem < 0 ? xml.length : firstItem);
  const site = hostOf(childText(header, 'link'));
  const items: Array<Record<string, unknown>> = [];
  let at = firstItem;
  while (at >= 0) {
    const close = xml.indexOf('</item>', at);
    if (close < 0) throw new RssSyntaxError('an <item> element is never closed', at);
    const article = toArticle(xml.slice(at, close));
    if (article !== undefined) items.push(article);
    at = findOpen(xml, 'item', close + 7);
  }
  return site === undefined ? { items } : { site, items };
}
