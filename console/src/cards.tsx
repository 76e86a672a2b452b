import type { Item } from './model.ts';

const typeOf = (item: Item): string => (Array.isArray(item['@type']) ? String(item['@type'][0]) : String(item['@type'] ?? 'Thing'));
const str = (v: unknown): string | undefined => (typeof v === 'string' && v.length > 0 ? v : undefined);

/** The first image URL of an item (schema.org `image`: a URL, an ImageObject, or a list of them). */
function imageOf(item: Item): string | undefined {
  const img = Array.isArray(item.image) ? item.image[0] : item.image;
  const url = typeof img === 'string' ? img : str((img as { url?: unknown } | undefined)?.url);
  return url && /^(https?:|data:image\/)/.test(url) ? url : undefined;
}

/** Only http(s) links are rendered as links (a `javascript:` URL in a result stays text). */
const safeUrl = (u: unknown) => (typeof u === 'string' && /^https?:\/\//.test(u) ? u : undefined);

/** ISO 8601 durations (PT1H20M) as readable text. */
function duration(v: unknown): string | undefined {
  const m = typeof v === 'string' ? /^PT(?:(\d+)H)?(?:(\d+)M)?/.exec(v) : null;
  if (!m || (!m[1] && !m[2])) return str(v);
  return [m[1] ? `${m[1]} h` : '', m[2] ? `${m[2]} min` : ''].filter(Boolean).join(' ');
}

/** The facts shown for each common schema.org type. */
function facts(item: Item): Array<[string, string | undefined]> {
  const offers = (Array.isArray(item.offers) ? item.offers[0] : item.offers) as Record<string, unknown> | undefined;
  const location = item.location as Record<string, unknown> | string | undefined;
  const address = item.address as Record<string, unknown> | string | undefined;
  const place = (p: Record<string, unknown> | string | undefined) => (typeof p === 'string' ? p : str(p?.name) ?? str(p?.streetAddress) ?? str(p?.addressLocality));
  const rating = (item.aggregateRating as Record<string, unknown> | undefined)?.ratingValue;
  switch (typeOf(item)) {
    case 'Recipe':
      return [['Cuisine', str(item.recipeCuisine)], ['Total time', duration(item.totalTime)], ['Serves', str(item.recipeYield) ?? (typeof item.recipeYield === 'number' ? String(item.recipeYield) : undefined)]];
    case 'Product':
      return [['Brand', str((item.brand as Record<string, unknown> | undefined)?.name) ?? str(item.brand)], ['Price', offers ? `${offers.price ?? ''} ${offers.priceCurrency ?? ''}`.trim() : undefined], ['Rating', rating !== undefined ? String(rating) : undefined]];
    case 'Movie':
      return [['Released', str(item.datePublished) ?? str(item.dateCreated)], ['Director', str((item.director as Record<string, unknown> | undefined)?.name) ?? str(item.director)], ['Running time', duration(item.duration)], ['Rating', rating !== undefined ? String(rating) : undefined]];
    case 'Event':
      return [['Starts', str(item.startDate)], ['Ends', str(item.endDate)], ['Where', place(location)]];
    case 'Place':
    case 'Restaurant':
    case 'LocalBusiness':
      return [['Address', place(address)], ['Phone', str(item.telephone)], ['Rating', rating !== undefined ? String(rating) : undefined]];
    default:
      return [];
  }
}

/** One result as a card: type, image, name (linked), description, type-specific facts, score, site. */
export function ResultCard({ item, index }: { item: Item; index: number }) {
  const name = str(item.name) ?? str(item.headline) ?? str(item.title) ?? str(item['@id']) ?? `Result ${index + 1}`;
  const link = safeUrl(item.url);
  const image = imageOf(item);
  const shown = facts(item).filter((f): f is [string, string] => f[1] !== undefined);
  return (
    <article class={`card card-${typeOf(item).toLowerCase()}`} aria-label={`${typeOf(item)}: ${name}`}>
      {image && <img src={image} alt="" loading="lazy" referrerpolicy="no-referrer" />}
      <div class="card-body">
        <p class="card-type">{typeOf(item)}</p>
        <h3 class="card-name">{link ? <a href={link} target="_blank" rel="noopener noreferrer">{name}</a> : name}</h3>
        {str(item.description) && <p class="card-desc">{String(item.description)}</p>}
        {shown.length > 0 && (
          <dl class="card-facts">
            {shown.map(([k, v]) => (
              <div key={k}>
                <dt>{k}</dt>
                <dd>{v}</dd>
              </div>
            ))}
          </dl>
        )}
        <p class="card-meta">
          {typeof item.score === 'number' && <span class="score">score {item.score.toFixed(2)}</span>}
          {str(item.site) && <span class="site">{String(item.site)}</span>}
        </p>
      </div>
    </article>
  );
}
