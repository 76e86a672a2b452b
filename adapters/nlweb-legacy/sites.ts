import { z } from 'zod';

/** One site as listed: a plain name, or `{id|name|site, …}` (the `/mcp` `get_sites` form). */
const SiteEntrySchema = z.union([
  z.string(),
  z.looseObject({ id: z.string().optional(), site: z.string().optional(), name: z.string().optional() }),
]);

/**
 * `GET /sites` (interop.md): `{"message-type":"sites","sites":[…]}` with a hyphen; also accepted
 * with `message_type`, as a bare `{"sites":[…]}` (the `/mcp` `list_sites` text) or a bare array.
 */
export const SitesReplySchema = z.union([z.looseObject({ sites: z.array(SiteEntrySchema) }), z.array(SiteEntrySchema)]);

/** The site names in a `/sites` or `list_sites` reply, without blanks or repeats; undefined if it is not one. */
export function parseSites(value: unknown): string[] | undefined {
  const parsed = SitesReplySchema.safeParse(value);
  if (!parsed.success) return undefined;
  const entries = Array.isArray(parsed.data) ? parsed.data : parsed.data.sites;
  const names = entries
    .map((e) => (typeof e === 'string' ? e : (e.id ?? e.site ?? e.name)))
    .filter((n): n is string => typeof n === 'string' && n.trim().length > 0)
    .map((n) => n.trim());
  return [...new Set(names)];
}
