/**
 * Adds, after each gathered UDP host candidate, one candidate per announced address with the same
 * port: what a client outside a 1:1 NAT must use to reach the SFU. IPv4 candidates get IPv4
 * announcements and IPv6 ones IPv6. Pure; returns the description unchanged without addresses.
 */
export function announceAddresses(sdp: string, announced: readonly string[]): string {
  if (announced.length === 0) return sdp;
  const newline = sdp.includes('\r\n') ? '\r\n' : '\n';
  const output: string[] = [];
  for (const line of sdp.split(newline)) {
    output.push(line);
    const match = /^a=candidate:(\S+) (\d+) udp (\d+) (\S+) (\d+) typ host(.*)$/i.exec(line);
    if (match === null) continue;
    const [, foundation, component, priority, address = '', portText, rest] = match;
    const ipv6 = address.includes(':');
    announced
      .filter((candidate) => candidate.includes(':') === ipv6 && candidate !== address)
      .forEach((candidate, index) => {
        const lowerPriority = Math.max(0, Number(priority) - 1 - index);
        output.push(
          `a=candidate:${foundation}a${index} ${component} udp ${lowerPriority} ${candidate} ${portText} typ host${rest}`,
        );
      });
  }
  return output.join(newline);
}
