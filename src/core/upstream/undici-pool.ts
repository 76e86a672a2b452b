/**
 * undici's `Pool`, behind a module of our own that pools.ts imports on first use. Why not
 * `import('undici')` there: undici is CommonJS, and in the production bundle a dynamic import of
 * a CommonJS package gives only its `default` export (esbuild cannot see its names), so `Pool` was
 * undefined and every upstream call failed as "could not be reached". A static import here gets
 * esbuild's interop, as under tsx.
 */
export { Pool } from 'undici';
