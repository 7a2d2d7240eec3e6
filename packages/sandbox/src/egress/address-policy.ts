import { AppError } from '@tributary/contracts';
import ipaddr from 'ipaddr.js';

/**
 * True for every address that is not plain global unicast: loopback, unspecified, private
 * (RFC 1918, ULA), link-local (cloud metadata at 169.254.169.254 included), CGNAT, multicast,
 * broadcast, reserved and documentation ranges. IPv6 forms that embed an IPv4 address
 * (IPv4-mapped `::ffff:a.b.c.d`, NAT64 `64:ff9b::/96`, IPv4-translated, 6to4) are judged by the
 * address they embed. Classification comes from ipaddr.js (the parser Fastify's proxy-addr uses)
 * rather than prefix matching on text. Anything that does not parse as an address is private.
 */
export function isPrivateAddress(address: string): boolean {
  let parsed: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    parsed = ipaddr.parse(address.replace(/^\[|\]$/g, '').replace(/%.*$/, ''));
  } catch {
    return true;
  }
  if (parsed.kind() === 'ipv4') return parsed.range() !== 'unicast';
  const v6 = parsed as ipaddr.IPv6;
  const parts = v6.parts;
  const embedded = (high: number, low: number): boolean =>
    isPrivateAddress(`${high >> 8}.${high & 0xff}.${low >> 8}.${low & 0xff}`);
  switch (v6.range()) {
    case 'unicast':
      return false;
    case 'ipv4Mapped':
    case 'rfc6145':
      return embedded(parts[6] ?? 0, parts[7] ?? 0);
    case 'rfc6052':
      // 64:ff9b::/96 embeds the IPv4 address in its last 32 bits; 64:ff9b:1::/48 is local use.
      return parts[1] === 0xff9b && parts[2] === 0 ? embedded(parts[6] ?? 0, parts[7] ?? 0) : true;
    case '6to4':
      return embedded(parts[1] ?? 0, parts[2] ?? 0);
    default:
      return true;
  }
}

/** Which addresses sandboxed components may connect to. */
export interface EgressPolicy {
  /** `policy`: the rules below, enforced by a network namespace; `open`: the host's network. */
  readonly mode: 'policy' | 'open';
  /** Ranges allowed although they are not public (an operator's own API on the LAN, tests). */
  readonly allow: readonly string[];
}

export const DEFAULT_EGRESS: EgressPolicy = { mode: 'policy', allow: [] };

/**
 * The policy from `TRIBUTARY_EGRESS` (`policy`, the default, or `open`) and
 * `TRIBUTARY_EGRESS_ALLOW` (comma-separated CIDR ranges or single addresses). A malformed value
 * is refused at startup rather than read as "allow nothing" or "allow everything".
 */
export function egressFromEnv(env: Readonly<Record<string, string | undefined>>): EgressPolicy {
  const modeText = (env['TRIBUTARY_EGRESS'] ?? '').trim().toLowerCase();
  if (modeText !== '' && modeText !== 'policy' && modeText !== 'open') {
    throw new AppError('VALIDATION_FAILED', `TRIBUTARY_EGRESS must be "policy" or "open", got "${modeText}"`, {
      field: 'TRIBUTARY_EGRESS',
    });
  }
  const allow = (env['TRIBUTARY_EGRESS_ALLOW'] ?? '')
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');
  for (const range of allow) parseRange(range);
  return { mode: modeText === 'open' ? 'open' : 'policy', allow };
}

/**
 * Decides one address: an allowed range wins, otherwise only public unicast passes. An
 * IPv4-mapped IPv6 address is matched against IPv4 ranges as the IPv4 address it is.
 */
export function addressChecker(policy: EgressPolicy): (address: string) => boolean {
  const ranges = policy.allow.map(parseRange);
  return (address) => {
    let parsed: ipaddr.IPv4 | ipaddr.IPv6;
    try {
      parsed = ipaddr.process(address.replace(/^\[|\]$/g, '').replace(/%.*$/, ''));
    } catch {
      return false;
    }
    for (const [network, bits] of ranges) {
      if (network.kind() === parsed.kind() && parsed.match(network as never, bits)) return true;
    }
    return !isPrivateAddress(parsed.toString());
  };
}

function parseRange(range: string): [ipaddr.IPv4 | ipaddr.IPv6, number] {
  try {
    if (range.includes('/')) return ipaddr.parseCIDR(range);
    const address = ipaddr.parse(range);
    return [address, address.kind() === 'ipv4' ? 32 : 128];
  } catch {
    throw new AppError(
      'VALIDATION_FAILED',
      `TRIBUTARY_EGRESS_ALLOW has "${range}", which is not an address or a CIDR range (10.0.0.0/8, 127.0.0.1)`,
      { field: 'TRIBUTARY_EGRESS_ALLOW' },
    );
  }
}
