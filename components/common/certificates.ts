// When a certificate Kamino issues (a Pull agent's, etcd's) is renewed by an `up`.

/**
 * An `up` replaces the certificate once less than this fraction of its life remains (four months
 * of a year), so that a stack brought up at least every few months never runs on an expired one.
 */
export const CERT_RENEW_FRACTION = 1 / 3;

/** True when a certificate that is valid until `notAfter` should be renewed at `now` (CERT_RENEW_FRACTION). */
export function certificateNeedsRenewal(notBefore: Date, notAfter: Date, now: Date): boolean {
    const life = notAfter.getTime() - notBefore.getTime();
    return notAfter.getTime() - now.getTime() < life * CERT_RENEW_FRACTION;
}
