/** A2A 1.0 (Agent2Agent) wire schemas and parsers; the data types themselves come from `@a2a-js/sdk`. */
export * from './wire.ts';
export * from './parse.ts';
