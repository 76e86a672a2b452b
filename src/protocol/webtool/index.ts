export * from './semver.ts';
export * from './metadata.ts';
export * from './execution.ts';
export * from './envelope.ts';
export * from './json-schema.ts';
export * from './hash.ts';
export { formatIssues } from './issues.ts';
