import { BlockList, isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

/** `::ffff:127.0.0.1` → `127.0.0.1`: one address, one spelling (one rate-limit bucket). */
export function normalizeAddress(address: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  return (mapped ? mapped[1]! : address).toLowerCase();
}

/**
 * The key a client address is counted under (docs/security.md "Client address"): an IPv6 address
 * by its first `ipv6Prefix` bits (`2001:db8:1:2::/64`), because one client commonly holds a whole
 * /64 and could otherwise take a new rate-limit bucket, connection share and calls quota with every
 * request; an IPv4 address (and anything else) as it is. `ipv6Prefix` 128 keeps every address apart.
 */
export function clientKey(address: string, ipv6Prefix: number): string {
  if (ipv6Prefix >= 128 || isIP(address) !== 6) return address;
  // A zone (`fe80::1%eth0`) names the local interface, not the client.
  const network = ipaddr.IPv6.networkAddressFromCIDR(`${address.split('%')[0]}/${ipv6Prefix}`);
  return `${network.toRFC5952String()}/${ipv6Prefix}`;
}

/** Builds a BlockList from `server.trustedProxies` (addresses and CIDRs, validated by the config schema). */
function trustList(entries: readonly string[]): BlockList {
  const list = new BlockList();
  for (const entry of entries) {
    const [address, bits] = entry.split('/');
    const family = isIP(address!) === 6 ? 'ipv6' : 'ipv4';
    if (bits === undefined) list.addAddress(address!, family);
    else list.addSubnet(address!, Number(bits), family);
  }
  return list;
}

function isTrusted(list: BlockList, address: string): boolean {
  const family = isIP(address);
  return family !== 0 && list.check(address, family === 6 ? 'ipv6' : 'ipv4');
}

/** Whether a (normalized) peer address is one of `server.trustedProxies`. */
export function trustedPeer(trustedProxies: readonly string[]): (address: string) => boolean {
  if (trustedProxies.length === 0) return () => false;
  const list = trustList(trustedProxies);
  return (address) => isTrusted(list, address);
}

/**
 * The client's address for limits and anonymous identity (docs/security.md "Client address"): the
 * socket's peer, unless that peer is a trusted proxy — then `X-Forwarded-For` is read from the
 * right, skipping trusted hops, and the first untrusted address is the client. Nobody else's XFF
 * is believed, so a client cannot pick its own bucket by sending the header. The address comes
 * back as its `clientKey` (an IPv6 client by its `ipv6Prefix`).
 */
export function clientAddressResolver(trustedProxies: readonly string[], ipv6Prefix = 128): (peer: string | undefined, forwardedFor: string | undefined) => string | undefined {
  if (trustedProxies.length === 0) return (peer) => (peer === undefined ? undefined : clientKey(normalizeAddress(peer), ipv6Prefix));
  const list = trustList(trustedProxies);
  return (peer, forwardedFor) => {
    if (peer === undefined) return undefined;
    let client = normalizeAddress(peer);
    if (!forwardedFor || !isTrusted(list, client)) return clientKey(client, ipv6Prefix);
    const hops = forwardedFor.split(',');
    for (let i = hops.length - 1; i >= 0; i--) {
      const hop = normalizeAddress(hops[i]!.trim());
      if (isIP(hop) === 0) break; // garbage: believe no further than the last proxy that spoke
      client = hop;
      if (!isTrusted(list, hop)) break;
    }
    return clientKey(client, ipv6Prefix);
  };
}
