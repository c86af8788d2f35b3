import { createHmac } from "node:crypto";
import type { EventDeliveryV1 } from "@jobtasks/core";
import { describe, expect, it } from "vitest";
import { verificationOptionsSchema, type VerificationOptions } from "./events-options-schema.js";
import { verifySignature } from "./verify-delivery.js";

/** Each scheme against right and wrong proofs: only the exact signature (or secret) verifies. */

const secret = "callback-secret-0123456789abcdef";
const body = '{"job":{"id":"r-42","state":"done"}}';
const arrivedAt = Date.parse("2026-12-01T12:00:00Z");
const arrivedSeconds = String(arrivedAt / 1000);

function options(input: Record<string, unknown>): VerificationOptions {
  return verificationOptionsSchema.parse({ secret, ...input });
}

function delivery(headers: Record<string, string>, text = body, receivedAt = arrivedAt): EventDeliveryV1 {
  return { headers, body: new TextEncoder().encode(text), receivedAt };
}

function hmac(content: string, encoding: "hex" | "base64" = "hex", key = secret): string {
  return createHmac("sha256", key).update(content).digest(encoding);
}

const verify = (verification: VerificationOptions, given: EventDeliveryV1) =>
  verifySignature(verification, secret, given);

describe("hmac-sha256", () => {
  const hex = options({ scheme: "hmac-sha256", header: "X-Signature" });

  it("verifies the body's HMAC in hex, in either case", () => {
    expect(verify(hex, delivery({ "x-signature": hmac(body) }))).toEqual({ verified: true });
    expect(verify(hex, delivery({ "x-signature": hmac(body).toUpperCase() }))).toEqual({ verified: true });
  });

  it("refuses another secret's signature, another body's, and a truncated one", () => {
    const wrong = { verified: false, reason: "X-Signature does not match the secret" };
    expect(verify(hex, delivery({ "x-signature": hmac(body, "hex", "another-secret-0123456789") }))).toEqual(wrong);
    expect(verify(hex, delivery({ "x-signature": hmac(body) }, body.replace("done", "running")))).toEqual(wrong);
    expect(verify(hex, delivery({ "x-signature": hmac(body).slice(0, 40) }))).toEqual(wrong);
    expect(verify(hex, delivery({ "x-signature": hmac(body, "base64") }))).toEqual(wrong);
  });

  it("refuses a delivery without the header, naming the header and never the body", () => {
    const refused = verify(hex, delivery({ "x-other": hmac(body) }));
    expect(refused).toEqual({ verified: false, reason: "no X-Signature header" });
    expect(verify(hex, delivery({ "x-signature": "" }))).toEqual({ verified: false, reason: "no X-Signature header" });
  });

  it("reads base64, with or without padding", () => {
    const base64 = options({ scheme: "hmac-sha256", header: "X-Signature", encoding: "base64" });
    const signature = hmac(body, "base64");
    expect(signature.endsWith("=")).toBe(true);
    expect(verify(base64, delivery({ "x-signature": signature }))).toEqual({ verified: true });
    expect(verify(base64, delivery({ "x-signature": signature.replace(/=+$/, "") }))).toEqual({ verified: true });
    expect(verify(base64, delivery({ "x-signature": hmac(body) }))).toMatchObject({ verified: false });
  });

  it("takes a prefix such as sha256= and refuses a signature without it", () => {
    const prefixed = options({ scheme: "hmac-sha256", header: "X-Hub-Signature-256", prefix: "sha256=" });
    expect(verify(prefixed, delivery({ "x-hub-signature-256": `sha256=${hmac(body)}` }))).toEqual({ verified: true });
    expect(verify(prefixed, delivery({ "x-hub-signature-256": `SHA256=${hmac(body)}` }))).toEqual({ verified: true });
    expect(verify(prefixed, delivery({ "x-hub-signature-256": hmac(body) }))).toEqual({
      verified: false,
      reason: "X-Hub-Signature-256 does not start with sha256=",
    });
    expect(verify(prefixed, delivery({ "x-hub-signature-256": `sha1=${hmac(body)}` }))).toMatchObject({
      verified: false,
    });
  });

  describe("with a timestamp header", () => {
    const stamped = options({ scheme: "hmac-sha256", header: "X-Signature", timestampHeader: "X-Timestamp" });
    const signedAt = (seconds: string) => ({ "x-timestamp": seconds, "x-signature": hmac(`${seconds}.${body}`) });

    it("verifies the HMAC of timestamp, a dot and the body, and not the body's alone", () => {
      expect(verify(stamped, delivery(signedAt(arrivedSeconds)))).toEqual({ verified: true });
      expect(verify(stamped, delivery({ "x-timestamp": arrivedSeconds, "x-signature": hmac(body) }))).toMatchObject({
        verified: false,
        reason: "X-Signature does not match the secret",
      });
      // The same signature under another timestamp: the time is part of what was signed.
      const moved = { ...signedAt(arrivedSeconds), "x-timestamp": String(Number(arrivedSeconds) + 1) };
      expect(verify(stamped, delivery(moved))).toMatchObject({ verified: false });
    });

    it("refuses a delivery older or newer than the default 300 s, and takes one just inside", () => {
      const at = (offset: number) => String(Number(arrivedSeconds) + offset);
      const stale = { verified: false, reason: "X-Timestamp is more than 300 s from the server's clock" };
      expect(verify(stamped, delivery(signedAt(at(-301))))).toEqual(stale);
      expect(verify(stamped, delivery(signedAt(at(301))))).toEqual(stale);
      expect(verify(stamped, delivery(signedAt(at(-300))))).toEqual({ verified: true });
      expect(verify(stamped, delivery(signedAt(at(299))))).toEqual({ verified: true });
    });

    it("holds to toleranceSeconds when it is set", () => {
      const strict = options({
        scheme: "hmac-sha256",
        header: "X-Signature",
        timestampHeader: "X-Timestamp",
        toleranceSeconds: 30,
      });
      const thirtyOneAgo = String(Number(arrivedSeconds) - 31);
      expect(verify(strict, delivery(signedAt(thirtyOneAgo)))).toEqual({
        verified: false,
        reason: "X-Timestamp is more than 30 s from the server's clock",
      });
      expect(verify(strict, delivery(signedAt(String(Number(arrivedSeconds) - 29))))).toEqual({ verified: true });
    });

    it("refuses a missing or malformed timestamp", () => {
      expect(verify(stamped, delivery({ "x-signature": hmac(`${arrivedSeconds}.${body}`) }))).toEqual({
        verified: false,
        reason: "no X-Timestamp header",
      });
      const iso = "2026-12-01T12:00:00Z";
      expect(verify(stamped, delivery(signedAt(iso)))).toEqual({
        verified: false,
        reason: "X-Timestamp is not a Unix time in seconds",
      });
    });
  });
});

describe("shared-secret", () => {
  const shared = options({ scheme: "shared-secret", header: "X-Callback-Token" });

  it("verifies the secret itself in the header", () => {
    expect(verify(shared, delivery({ "x-callback-token": secret }))).toEqual({ verified: true });
  });

  it("refuses another value, a prefix of the secret and a missing header", () => {
    const wrong = { verified: false, reason: "X-Callback-Token is not the shared secret" };
    expect(verify(shared, delivery({ "x-callback-token": "callback-secret-0123456789abcdeX" }))).toEqual(wrong);
    expect(verify(shared, delivery({ "x-callback-token": secret.slice(0, -1) }))).toEqual(wrong);
    expect(verify(shared, delivery({ "x-callback-token": `${secret} ` }))).toEqual(wrong);
    expect(verify(shared, delivery({ authorization: secret }))).toEqual({
      verified: false,
      reason: "no X-Callback-Token header",
    });
  });
});
