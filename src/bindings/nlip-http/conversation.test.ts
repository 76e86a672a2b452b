import { describe, expect, it } from 'vitest';
import type { Gateway } from '../../core/gateway-types.ts';
import { conversationTokenPart } from '../../protocol/nlip/index.ts';
import { replyTokens, resolveConversation } from './conversation.ts';

/** The two core calls the token mapping makes, recorded: the peer token `mapped` names conversation `conv-1`. */
function recordingGateway(mapped?: string): { gateway: Gateway; lookups: string[]; binds: string[] } {
  const lookups: string[] = [];
  const binds: string[] = [];
  const gateway = {
    resolveConversation: async (_kind: string, handle: string) => {
      lookups.push(handle);
      return mapped !== undefined ? { conversationId: 'conv-1' } : {};
    },
    bindConversation: async (_kind: string, handle: string, id: string) => void binds.push(`${handle}->${id}`),
  } as unknown as Gateway;
  return { gateway, lookups, binds };
}

const PEER_TOKEN = conversationTokenPart('a-peer-token-long-enough-to-map');

describe('NLIP conversation tokens without a store trip when none is needed (issue 25)', () => {
  it('a message with no token, or with the gateway\'s own, is resolved at once, with no lookup', () => {
    const { gateway, lookups } = recordingGateway();
    expect(resolveConversation(gateway, [], undefined)).toEqual({});
    expect(resolveConversation(gateway, [conversationTokenPart('nlipconv_conv_rTjZ5WY-ahSR23EvoE0XCA')], undefined)).toEqual({ id: 'conv_rTjZ5WY-ahSR23EvoE0XCA' });
    expect(lookups).toEqual([]);
  });

  it('a peer token is looked up in the store, and its conversation found', async () => {
    const { gateway, lookups } = recordingGateway('mapped');
    const resolving = resolveConversation(gateway, [PEER_TOKEN], undefined);
    expect(resolving).toBeInstanceOf(Promise);
    expect((await resolving).id).toBe('conv-1');
    expect(lookups).toHaveLength(1);
  });

  it('the reply tokens come at once when nothing is to be bound, and a new conversation gets the minted token', () => {
    const { gateway, binds } = recordingGateway();
    const reply = replyTokens(gateway, [], 'conv-9', {}, undefined);
    expect(reply).toEqual([conversationTokenPart('nlipconv_conv-9')]);
    expect(replyTokens(gateway, [], undefined, {}, undefined)).toEqual([]);
    expect(binds).toEqual([]);
  });

  it('a peer token is bound to the answer\'s conversation before the reply, unless its mapping was just read', async () => {
    const { gateway, binds } = recordingGateway();
    const reply = await replyTokens(gateway, [PEER_TOKEN], 'conv-9', {}, undefined);
    expect(reply).toEqual([PEER_TOKEN, conversationTokenPart('nlipconv_conv-9')]);
    expect(binds).toHaveLength(1);
    expect(binds[0]).toMatch(/->conv-9$/);
    const handle = binds[0]!.split('->')[0];
    expect(replyTokens(gateway, [PEER_TOKEN], 'conv-9', { id: 'conv-9', via: handle }, undefined)).toEqual([PEER_TOKEN]);
    expect(binds).toHaveLength(1);
  });
});
