// The one CIDR validator of the config: IPv4 and IPv6, the prefix in range for the family. The
// schema (kind subnets, GKE authorized networks, a NetworkPolicy's sources) and the checks of
// `kamino:karmada.authorizedNetworks` use it, so that `10.0.0.0/99` is refused everywhere.
import { isIP } from "net";

/** The family of a CIDR such as 203.0.113.0/24 (4) or 2001:db8::/32 (6); undefined when it is none. Spaces around it are ignored. */
export function cidrFamily(text: string): 4 | 6 | undefined {
    const m = /^([^/]+)\/(\d{1,3})$/.exec(text.trim());
    if (!m) return undefined;
    const family = isIP(m[1]);
    if (family !== 4 && family !== 6) return undefined;
    return Number(m[2]) <= (family === 4 ? 32 : 128) ? family : undefined;
}

/** An IPv4 or IPv6 CIDR such as 203.0.113.0/24. */
export const isCidr = (text: string): boolean => cidrFamily(text) !== undefined;

/** A CIDR that lets every address in. */
export const isAnyNetwork = (cidr: string) => /^(0\.0\.0\.0|::)\/0$/.test(cidr.trim());
