/**
 * Two anonymous principals on one machine: a gateway knows an anonymous caller by its client address
 * (`anon:<address>`), and every 127.x.y.z address is loopback on Linux. `fetchFrom('127.0.0.2')` sends
 * from a second address, so tests act as another caller without any credential machinery.
 */
import { Agent, fetch as undiciFetch } from 'undici';

export type Fetch = (url: string | URL, init?: RequestInit) => Promise<Response>;

const agents = new Map<string, Agent>();

/** A fetch whose connections leave from `localAddress` (a loopback address other than 127.0.0.1). */
export function fetchFrom(localAddress: string): Fetch {
  let agent = agents.get(localAddress);
  if (!agent) agents.set(localAddress, (agent = new Agent({ localAddress })));
  const dispatcher = agent;
  return (url, init) => undiciFetch(url, { ...(init as object), dispatcher }) as unknown as Promise<Response>;
}

/** The first caller: plain fetch, from 127.0.0.1. */
export const alice: Fetch = (url, init) => fetch(url, init);
/** The second caller: from 127.0.0.2. */
export const bob: Fetch = fetchFrom('127.0.0.2');
