import { BlockList, isIP } from "node:net";

/** 127.0.0.0/8 and ::1, with IPv4-mapped forms (::ffff:127.0.0.2) read as the IPv4 address they carry. */
const loopbackRanges = new BlockList();
loopbackRanges.addSubnet("127.0.0.0", 8, "ipv4");
loopbackRanges.addAddress("::1", "ipv6");
loopbackRanges.addSubnet("::ffff:127.0.0.0", 104, "ipv6");

/**
 * Whether a bind address or a host name (as a Host or Origin header carries it, IPv6 in brackets or not)
 * names this machine's loopback interface: `localhost`, any of 127.0.0.0/8, or ::1.
 */
export function isLoopbackHost(host: string): boolean {
  const name = host.startsWith("[") && host.endsWith("]") ? host.slice(1, -1) : host;
  if (name.toLowerCase() === "localhost") return true;
  const family = isIP(name);
  if (family === 0) return false;
  return loopbackRanges.check(name, family === 4 ? "ipv4" : "ipv6");
}
