export * from './message.ts';
export * from './formats.ts';
export * from './parse.ts';
export * from './read.ts';
export * from './build.ts';
export * from './attachments.ts';
