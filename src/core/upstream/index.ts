/** The one upstream HTTP policy every adapter uses (docs/upstream-policy.md). */
export { UpstreamClient, DEFAULT_UPSTREAM_LIMITS, MAX_REDIRECTS, poolSettings, type UpstreamClientOptions, type UpstreamLimits, type UpstreamRequest } from './client.ts';
export { assertUpstreamOk, cancelledError, isTooLarge } from './errors.ts';
export { UpstreamPools, DEFAULT_POOL_SETTINGS, type PoolSettings } from './pools.ts';
export { UpstreamHeaders, UpstreamResponse } from './response.ts';
export { displayUrl, parseUpstreamUrl, redactUrlCredentials } from './url.ts';
