import { describe, expect, it } from 'vitest';
import { sseFrames } from './reply.ts';

async function frames(text: string): Promise<unknown[]> {
  const out: unknown[] = [];
  for await (const f of sseFrames(new Response(text).body!, new AbortController().signal, 'old')) out.push(f);
  return out;
}

describe('legacy SSE frames', () => {
  it('skips garbage between frames (accept loosely)', async () => {
    expect(await frames('data: {"message_type":"result"}\n\ndata: not json\n\ndata: {"message_type":"end"}\n\n')).toEqual([
      { message_type: 'result' },
      { message_type: 'end' },
    ]);
  });

  it('regression: a stream cut in the middle of a frame fails instead of answering with what came before', async () => {
    await expect(frames('data: {"message_type":"result"}\n\ndata: {"message_type":"res')).rejects.toMatchObject({
      code: 'UPSTREAM_ERROR',
      message: expect.stringContaining('in the middle of a frame'),
    });
  });

  it('a final complete frame without its blank line is still a frame', async () => {
    expect(await frames('data: {"message_type":"end-nlweb-response"}')).toEqual([{ message_type: 'end-nlweb-response' }]);
  });
});
