import { createHash, timingSafeEqual } from "node:crypto";

/**
 * Whether a secret a delivery presents equals the configured one, in constant time: their SHA-256 digests
 * are compared, so neither the time taken nor a length check says how much of the secret a guess got right
 * (timingSafeEqual itself needs equal lengths).
 */
export function sameSecret(given: string, expected: string): boolean {
  return timingSafeEqual(digestOf(given), digestOf(expected));
}

function digestOf(text: string): Buffer {
  return createHash("sha256").update(text, "utf8").digest();
}
