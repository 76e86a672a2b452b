export * from './request.ts';
export * from './response.ts';
export * from './actions.ts';
export * from './score.ts';
export * from './version.ts';
export * from './v054.ts';
