/**
 * Semantic versions (semver.org 2.0.0) as the webtools draft uses them: metadata `version`,
 * `GET {webtoolUrl}/{version}` and the execution request's `version`.
 */

/** The official semver.org 2.0.0 pattern (numeric identifiers without leading zeros). */
export const SEMVER_PATTERN =
  /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-((?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)(?:\.(?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*))?(?:\+([0-9a-zA-Z-]+(?:\.[0-9a-zA-Z-]+)*))?$/;

/** Longest version string accepted (a path segment and a store key: keep it bounded). */
export const MAX_VERSION_LENGTH = 128;

/** True when `value` is a semantic version (webtools "GET {webtoolUrl}/{version}"). */
export function isSemver(value: string): boolean {
  return value.length <= MAX_VERSION_LENGTH && SEMVER_PATTERN.test(value);
}

function compareIdentifiers(a: string, b: string): number {
  const an = /^\d+$/.test(a);
  const bn = /^\d+$/.test(b);
  if (an && bn) return Math.sign(Number(a) - Number(b));
  if (an !== bn) return an ? -1 : 1; // numeric identifiers sort below alphanumeric ones
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * Orders two semantic versions by precedence (semver.org 11): negative, zero or positive.
 * Build metadata is ignored, as the standard says; invalid versions sort below valid ones.
 */
export function compareSemver(a: string, b: string): number {
  const ma = SEMVER_PATTERN.exec(a);
  const mb = SEMVER_PATTERN.exec(b);
  if (!ma || !mb) return ma ? 1 : mb ? -1 : 0;
  for (let i = 1; i <= 3; i++) {
    const d = Math.sign(Number(ma[i]) - Number(mb[i]));
    if (d !== 0) return d;
  }
  const pa = ma[4];
  const pb = mb[4];
  if (pa === undefined || pb === undefined) return pa === pb ? 0 : pa === undefined ? 1 : -1;
  const ia = pa.split('.');
  const ib = pb.split('.');
  for (let i = 0; i < Math.max(ia.length, ib.length); i++) {
    if (ia[i] === undefined) return -1;
    if (ib[i] === undefined) return 1;
    const d = compareIdentifiers(ia[i]!, ib[i]!);
    if (d !== 0) return d;
  }
  return 0;
}

/** The highest version of a list by semver precedence (the draft's "latest"), or undefined. */
export function latestVersion(versions: readonly string[]): string | undefined {
  return [...versions].sort(compareSemver).at(-1);
}
