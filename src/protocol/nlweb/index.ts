export * from './request.ts';
export * from './response.ts';
export * from './actions.ts';
