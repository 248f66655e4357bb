/**
 * The unit a per-address limit counts (docs/decisions.md#rate-limits): an IPv4 address as it is,
 * an IPv6 address by its /64 network. One IPv6 subscriber is usually given a whole /64 (RFC 6177),
 * and picking a new address inside it costs nothing, so counting IPv6 addresses one by one would
 * give one attacker 2^64 budgets. An IPv4-mapped IPv6 address (::ffff:192.0.2.1, how a dual-stack
 * socket reports an IPv4 peer) is the IPv4 address it maps. Anything ipaddr.js cannot read is
 * counted as given.
 */
import ipaddr from 'ipaddr.js';

const IPV6_GROUP_BITS = 64;

export function addressGroup(ip: string): string {
  if (!ipaddr.isValid(ip)) return ip;
  const address = ipaddr.process(ip);
  if (address.kind() === 'ipv4') return address.toString();
  const bytes = address.toByteArray().slice(0, IPV6_GROUP_BITS / 8);
  const network = ipaddr.fromByteArray([...bytes, ...new Array<number>(16 - bytes.length).fill(0)]);
  return `${network.toString()}/${IPV6_GROUP_BITS}`;
}
