import { BlockList, isIP } from 'node:net';

/** Address ranges no server-side fetch may reach: loopback, private, link-local, unique-local, ... */
const NON_PUBLIC_RANGES: ReadonlyArray<readonly [string, number, 'ipv4' | 'ipv6']> = [
  ['0.0.0.0', 8, 'ipv4'], // "this network", 0.0.0.0 reaches the local host
  ['10.0.0.0', 8, 'ipv4'],
  ['100.64.0.0', 10, 'ipv4'], // carrier-grade NAT
  ['127.0.0.0', 8, 'ipv4'],
  ['169.254.0.0', 16, 'ipv4'], // link-local, cloud metadata at 169.254.169.254
  ['172.16.0.0', 12, 'ipv4'],
  ['192.0.0.0', 24, 'ipv4'],
  ['192.0.2.0', 24, 'ipv4'],
  ['192.88.99.0', 24, 'ipv4'],
  ['192.168.0.0', 16, 'ipv4'],
  ['198.18.0.0', 15, 'ipv4'],
  ['198.51.100.0', 24, 'ipv4'],
  ['203.0.113.0', 24, 'ipv4'],
  ['224.0.0.0', 4, 'ipv4'], // multicast
  ['240.0.0.0', 4, 'ipv4'], // reserved and broadcast
  ['::', 128, 'ipv6'], // unspecified
  ['::1', 128, 'ipv6'],
  ['64:ff9b::', 96, 'ipv6'], // NAT64 can reach private IPv4
  ['64:ff9b:1::', 48, 'ipv6'],
  ['100::', 64, 'ipv6'],
  ['2001:db8::', 32, 'ipv6'],
  ['2002::', 16, 'ipv6'], // 6to4 embeds any IPv4
  ['fc00::', 7, 'ipv6'], // unique-local
  ['fe80::', 10, 'ipv6'], // link-local
  ['fec0::', 10, 'ipv6'], // site-local (deprecated)
  ['ff00::', 8, 'ipv6'], // multicast
];

const nonPublic = new BlockList();
for (const [network, prefix, family] of NON_PUBLIC_RANGES) nonPublic.addSubnet(network, prefix, family);

function family(address: string): 'ipv4' | 'ipv6' {
  return isIP(address) === 6 ? 'ipv6' : 'ipv4';
}

/** Whether `address` (an IP literal) is a public unicast address; IPv4-mapped IPv6 is judged as IPv4. */
export function isPublicAddress(address: string): boolean {
  if (isIP(address) === 0) return false;
  return !nonPublic.check(address, family(address));
}

/** Decides which resolved addresses a fetch may connect to. */
export interface AddressPolicy {
  /** Whether a connection to `address` is allowed. */
  allows(address: string): boolean;
}

/**
 * Builds the policy: public addresses always; non-public ones only when `allowPrivateAddresses` is
 * true or the address falls in `allowedAddresses` (IP literals or CIDR ranges such as `127.0.0.1/32`).
 */
export function createAddressPolicy(options: {
  allowPrivateAddresses: boolean;
  allowedAddresses: readonly string[];
}): AddressPolicy {
  const allowed = new BlockList();
  for (const entry of options.allowedAddresses) {
    const [network = '', prefix] = entry.split('/');
    const kind = family(network);
    if (prefix === undefined) allowed.addAddress(network, kind);
    else allowed.addSubnet(network, Number(prefix), kind);
  }
  return {
    allows(address) {
      if (isIP(address) === 0) return false;
      if (options.allowPrivateAddresses || isPublicAddress(address)) return true;
      return allowed.check(address, family(address));
    },
  };
}
