import { z } from 'zod';

/** The five standard error codes of the webtools draft ("Error Handling"). Custom codes are allowed too. */
export const WEBTOOL_ERROR_CODES = ['WEBTOOL_NOT_FOUND', 'SCHEMA_ERROR', 'CONFIG_ERROR', 'RATE_LIMIT', 'INTERNAL_ERROR'] as const;
export type WebtoolErrorCode = (typeof WEBTOOL_ERROR_CODES)[number];

/** HTTP status of each standard code: the draft is silent, interop.md decides. */
export const WEBTOOL_ERROR_STATUS: Readonly<Record<WebtoolErrorCode, number>> = Object.freeze({
  WEBTOOL_NOT_FOUND: 404,
  SCHEMA_ERROR: 400,
  CONFIG_ERROR: 400,
  RATE_LIMIT: 429,
  INTERNAL_ERROR: 500,
});

/** HTTP status for a domain-specific (custom) error code: the request was understood but failed. */
export const CUSTOM_ERROR_STATUS = 422;

/** Custom error codes the gateway passes through: UPPER_SNAKE, bounded. */
export const CUSTOM_ERROR_CODE = /^[A-Z][A-Z0-9_]{0,63}$/;

/** True when `code` is one of the five standard codes. */
export function isWebtoolErrorCode(code: string): code is WebtoolErrorCode {
  return (WEBTOOL_ERROR_CODES as readonly string[]).includes(code);
}

/** "Successful Response": `{ status: "ok", data }`. */
export const OkEnvelopeSchema = z.object({ status: z.literal('ok'), data: z.unknown() });
/** "Error Response": `{ status: "error", error: { code, message } }`. */
export const ErrorEnvelopeSchema = z.object({
  status: z.literal('error'),
  error: z.object({ code: z.string().min(1), message: z.string() }),
});
export type OkEnvelope = z.infer<typeof OkEnvelopeSchema>;
export type ErrorEnvelope = z.infer<typeof ErrorEnvelopeSchema>;
export type Envelope = OkEnvelope | ErrorEnvelope;

/** Builds a success envelope ("Successful Response"). */
export function okEnvelope(data: unknown): OkEnvelope {
  return { status: 'ok', data: data === undefined ? null : data };
}

/** Builds an error envelope ("Error Response"). */
export function errorEnvelope(code: string, message: string): ErrorEnvelope {
  return { status: 'error', error: { code, message } };
}

/** Accept loosely: any case of `status`, a missing `data` (null) or `message` (""), extra keys. */
const LooseEnvelopeSchema = z.union([
  z.looseObject({ status: z.string().regex(/^ok$/i), data: z.unknown().optional() }).transform((e) => okEnvelope(e.data)),
  z
    .looseObject({
      status: z.string().regex(/^error$/i),
      error: z.looseObject({ code: z.string().min(1).max(128), message: z.string().nullish() }),
    })
    .transform((e) => errorEnvelope(e.error.code, e.error.message ?? '')),
]);

/** Parses an upstream's response envelope ("Response Examples"); null when it is not one. Never throws. */
export function parseEnvelope(raw: unknown): Envelope | null {
  const parsed = LooseEnvelopeSchema.safeParse(raw);
  return parsed.success ? parsed.data : null;
}
