import { createHmac } from "node:crypto";
import { sameSecret } from "@jobtasks/core/adapter-utils";
import type { DeliveryVerificationV1, EventDeliveryV1 } from "@jobtasks/core";
import type { VerificationOptions } from "./events-options-schema.js";

/** How far a delivery's timestamp may be from its arrival when toleranceSeconds is not set. */
export const defaultToleranceSeconds = 300;

type Refusal = Extract<DeliveryVerificationV1, { verified: false }>;

/**
 * Whether a delivery carries the proof its verification asks for: an HMAC-SHA256 of its exact bytes (with
 * the timestamp in front, when one is signed) or the shared secret in a header. Reasons name the header
 * and what was wrong with it, never its value or the body.
 */
export function verifySignature(
  verification: VerificationOptions,
  secret: string,
  delivery: EventDeliveryV1,
): { verified: true } | Refusal {
  const given = delivery.headers[verification.header.toLowerCase()];
  if (given === undefined || given === "") return refuse(`no ${verification.header} header`);
  if (verification.scheme === "shared-secret") {
    return sameSecret(given, secret) ? { verified: true } : refuse(`${verification.header} is not the shared secret`);
  }
  let signature = given.trim();
  const prefix = verification.prefix;
  if (prefix !== undefined) {
    if (signature.slice(0, prefix.length).toLowerCase() !== prefix.toLowerCase())
      return refuse(`${verification.header} does not start with ${prefix}`);
    signature = signature.slice(prefix.length);
  }
  const signed: Uint8Array[] = [delivery.body];
  if (verification.timestampHeader !== undefined) {
    const stamp = delivery.headers[verification.timestampHeader.toLowerCase()]?.trim();
    if (stamp === undefined || stamp === "") return refuse(`no ${verification.timestampHeader} header`);
    if (!/^\d{1,12}$/.test(stamp)) return refuse(`${verification.timestampHeader} is not a Unix time in seconds`);
    const toleranceSeconds = verification.toleranceSeconds ?? defaultToleranceSeconds;
    const offsetSeconds = Math.abs(delivery.receivedAt / 1000 - Number(stamp));
    if (offsetSeconds > toleranceSeconds)
      return refuse(`${verification.timestampHeader} is more than ${toleranceSeconds} s from the server's clock`);
    // The header's exact text is what was signed, so it is used as it came (not re-formatted).
    signed.unshift(Buffer.from(`${stamp}.`, "utf8"));
  }
  const hmac = createHmac("sha256", secret);
  for (const part of signed) hmac.update(part);
  const expected = hmac.digest(verification.encoding);
  const matches =
    verification.encoding === "hex"
      ? sameSecret(signature.toLowerCase(), expected)
      : // Padding is optional in some senders' base64; the signature's bits are the same without it.
        sameSecret(signature.replace(/=+$/, ""), expected.replace(/=+$/, ""));
  return matches ? { verified: true } : refuse(`${verification.header} does not match the secret`);
}

function refuse(reason: string): Refusal {
  return { verified: false, reason };
}
