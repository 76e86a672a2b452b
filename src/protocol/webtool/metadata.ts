import { z } from 'zod';
import { isSemver, MAX_VERSION_LENGTH } from './semver.ts';
import { formatIssues } from './issues.ts';

/** A JSON Schema object as published in metadata (`requestSchema`, `responseSchema`, `configSchema`). */
export const JsonSchemaObjectSchema = z.record(z.string(), z.unknown());
export type JsonSchemaObject = z.infer<typeof JsonSchemaObjectSchema>;

/** "GET {webtoolUrl}/": one action with its request and response schemas. */
export const WebtoolActionSchema = z.looseObject({
  name: z.string().min(1).max(128),
  description: z.string(),
  requestSchema: JsonSchemaObjectSchema,
  responseSchema: JsonSchemaObjectSchema,
});
export type WebtoolAction = z.infer<typeof WebtoolActionSchema>;

/** "GET {webtoolUrl}/": webtool metadata exactly as the gateway emits it (semantic `version`, every field). */
export const WebtoolMetadataSchema = z.looseObject({
  name: z.string().min(1).max(128),
  description: z.string(),
  version: z.string().refine(isSemver, 'version must be a semantic version (e.g. 1.0.0)'),
  actions: z.array(WebtoolActionSchema),
  configSchema: JsonSchemaObjectSchema,
  defaultConfig: z.record(z.string(), z.unknown()),
});
export type WebtoolMetadata = z.infer<typeof WebtoolMetadataSchema>;

/**
 * JSON Schema 2020-12 allows boolean schemas (`true` = anything, `false` = nothing); upstreams may
 * send them. Normalised to the equivalent object so the rest of the gateway sees objects only.
 */
const LooseJsonSchema = z
  .union([JsonSchemaObjectSchema, z.boolean()])
  .transform((s): JsonSchemaObject => (typeof s === 'boolean' ? (s ? {} : { not: {} }) : s));

/**
 * Accept loosely (interop.md): what an upstream webtool may send. Missing `responseSchema`,
 * `configSchema`, `defaultConfig` or `description` get permissive defaults; `null` counts as
 * missing; `version` may be any short path-safe string (pinned as given, compared exactly).
 */
const UpstreamActionSchema = z.looseObject({
  name: z.string().min(1).max(128),
  description: z.string().nullish().transform((d) => d ?? ''),
  requestSchema: LooseJsonSchema.nullish().transform((s) => s ?? {}),
  responseSchema: LooseJsonSchema.nullish().transform((s) => s ?? {}),
});

const UpstreamMetadataSchema = z.looseObject({
  name: z.string().min(1).max(128),
  description: z.string().nullish().transform((d) => d ?? ''),
  version: z
    .string()
    .min(1)
    .max(MAX_VERSION_LENGTH)
    .regex(/^[^/?#\s]+$/, 'version must be usable as a path segment'),
  actions: z.array(UpstreamActionSchema),
  configSchema: LooseJsonSchema.nullish().transform((s) => s ?? {}),
  defaultConfig: z
    .record(z.string(), z.unknown())
    .nullish()
    .transform((c) => c ?? {}),
});

export type ParseResult<T> = { ok: true; value: T } | { ok: false; message: string };

/**
 * Parses webtool metadata ("GET {webtoolUrl}/") from an upstream, loosely, into the emitted shape.
 * Action names must be unique (they are the `action` of an execution request). Never throws.
 */
export function parseMetadata(raw: unknown): ParseResult<WebtoolMetadata> {
  const parsed = UpstreamMetadataSchema.safeParse(raw);
  if (!parsed.success) return { ok: false, message: formatIssues(parsed.error.issues) };
  const seen = new Set<string>();
  for (const action of parsed.data.actions) {
    if (seen.has(action.name)) return { ok: false, message: `actions: duplicate action name "${action.name}"` };
    seen.add(action.name);
  }
  return { ok: true, value: parsed.data as WebtoolMetadata };
}

/** The action of `metadata` named `name`, if any. */
export function findAction(metadata: WebtoolMetadata, name: string): WebtoolAction | undefined {
  return metadata.actions.find((a) => a.name === name);
}
