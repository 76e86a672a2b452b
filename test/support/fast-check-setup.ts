import fc from 'fast-check';

/**
 * Property tests run with a fixed seed by default so a CI run is reproducible; `FC_SEED=random`
 * explores new inputs (do that locally, often), `FC_SEED=<n>` replays a reported failure.
 */
const seed = process.env.FC_SEED;
if (seed !== 'random') fc.configureGlobal({ seed: seed ? Number(seed) : 20_261_122 });
