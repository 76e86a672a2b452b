import { describe, expect, it } from 'vitest';
import type { ServerContext } from '@modelcontextprotocol/server';
import { anonymousPrincipal } from '../../core/principal.ts';
import type { McpCall } from './call.ts';
import { TASKS_EXTENSION, declaresTasks, missingTasksExtension, tasksExtensionCapability } from './task-extension.ts';

const call = (era: McpCall['era']): McpCall => ({ agent: undefined, credentials: {}, principal: anonymousPrincipal(undefined), era });
const ctxWith = (caps: unknown) => ({ mcpReq: { envelope: { 'io.modelcontextprotocol/clientCapabilities': caps } } }) as unknown as ServerContext;

describe('tasks extension negotiation (SEP-2663)', () => {
  it('a 2026 request declares the extension only under clientCapabilities.extensions', () => {
    expect(declaresTasks(call('modern'), ctxWith({ extensions: { [TASKS_EXTENSION]: {} } }))).toBe(true);
    expect(declaresTasks(call('modern'), ctxWith({ extensions: {} }))).toBe(false);
    expect(declaresTasks(call('modern'), ctxWith({ tasks: {} }))).toBe(false);
    expect(declaresTasks(call('modern'), ctxWith(undefined))).toBe(false);
  });

  it('2025 sessions never use the extension, nor see it advertised', () => {
    expect(declaresTasks(call('legacy'), ctxWith({ extensions: { [TASKS_EXTENSION]: {} } }))).toBe(false);
    expect(tasksExtensionCapability(call('legacy'))).toEqual({});
    expect(tasksExtensionCapability(call('modern'))).toEqual({ extensions: { [TASKS_EXTENSION]: {} } });
  });

  it('-32021 names the extension in requiredCapabilities', () => {
    const err = missingTasksExtension();
    expect(err.code).toBe(-32021);
    expect(err.data).toEqual({ requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } } });
  });
});
