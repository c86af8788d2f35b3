import { describe, expect, it } from "vitest";
import { UpstreamError } from "./errors.js";
import { createSecretRedactor } from "./secret-redactor.js";

const token = "tok_3f9a8b7c6d5e4f3a2b1c";

describe("createSecretRedactor", () => {
  it("removes a secret as written, URL-encoded, JSON-escaped and lower-cased", () => {
    const secret = 'Pa"ss/Word+42';
    const redactor = createSecretRedactor([secret]);
    expect(redactor.text(`raw ${secret}`)).toBe("raw [redacted]");
    expect(redactor.text(`query ?key=${encodeURIComponent(secret)}`)).toBe("query ?key=[redacted]");
    expect(redactor.text(`body ${JSON.stringify({ password: secret })}`)).toBe('body {"password":"[redacted]"}');
    expect(redactor.text(`host https://${secret.toLowerCase()}.example`)).toBe("host https://[redacted].example");
  });

  it("removes each line of a multi-line secret, but not a PEM key's armour lines", () => {
    const key =
      "-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEF\nAASCBKcwggSjAgEAAoIBAQC7\n-----END PRIVATE KEY-----";
    const redactor = createSecretRedactor([key]);
    expect(redactor.text("2026-12-01T10:00:00Z MIIEvQIBADANBgkqhkiG9w0BAQEF")).toBe("2026-12-01T10:00:00Z [redacted]");
    expect(redactor.text("-----BEGIN PRIVATE KEY-----")).toBe("-----BEGIN PRIVATE KEY-----");
  });

  it("removes what is left of a secret where a text was cut inside it", () => {
    const redactor = createSecretRedactor([token]);
    // A message cut to a length after the first 12 characters of the token, then more text.
    expect(redactor.text(`GitHub said: bad ${token.slice(0, 12)} (HTTP 401)`)).toBe(
      "GitHub said: bad [redacted] (HTTP 401)",
    );
    // A log tail that begins inside the token.
    expect(redactor.text(`${token.slice(5)} was printed\nnext line`)).toBe("[redacted] was printed\nnext line");
    // Pieces shorter than 8 characters are too common to remove.
    expect(redactor.text(`ends with ${token.slice(0, 7)}`)).toBe(`ends with ${token.slice(0, 7)}`);
  });

  it("leaves values shorter than 6 characters alone", () => {
    expect(createSecretRedactor(["abc12"]).text("abc12 abc12")).toBe("abc12 abc12");
  });

  it("copies values deeply, keeping numbers, keys and non-plain objects", () => {
    const date = new Date(0);
    const value = { message: `with ${token}`, list: [token, 3], at: date, nested: { ok: true } };
    const redacted = createSecretRedactor([token]).value(value);
    expect(redacted).toEqual({ message: "with [redacted]", list: ["[redacted]", 3], at: date, nested: { ok: true } });
    expect(value.message).toBe(`with ${token}`);
  });

  it("replaces an object that writes itself out as a string holding a secret (a URL) by that string, redacted", () => {
    const url = new URL(`https://jobs.example.test/runs?access_token=${token}`);
    const plainUrl = new URL("https://jobs.example.test/runs");
    const bytes = Buffer.from("no secret here");
    const redacted = createSecretRedactor([token]).value({ url, plainUrl, bytes });
    expect(redacted).toEqual({ url: "https://jobs.example.test/runs?access_token=[redacted]", plainUrl, bytes });
    expect(redacted.plainUrl).toBe(plainUrl);
    expect(redacted.bytes).toBe(bytes);
    expect(JSON.stringify(redacted)).not.toContain(token);
    expect(url.search).toContain(token);
  });

  it("copies an error with its class, fields and cause chain redacted", () => {
    const error = new UpstreamError(`denied for ${token}`, {
      httpStatus: 403,
      cause: new Error(`inner ${token}`, { cause: new Error(`innermost ${encodeURIComponent(token)}`) }),
    });
    const redacted = createSecretRedactor([token]).error(error) as UpstreamError;
    expect(redacted).toBeInstanceOf(UpstreamError);
    expect(redacted).toMatchObject({ httpStatus: 403, isRetryable: false, message: "denied for [redacted]" });
    // The stack is kept, redacted (on Node 22 and later it is an accessor that only works on the original).
    expect(redacted.stack).toContain("denied for [redacted]");
    expect(redacted.stack).not.toContain(token);
    expect((redacted.cause as Error).message).toBe("inner [redacted]");
    expect(((redacted.cause as Error).cause as Error).message).toBe("innermost [redacted]");
  });

  it("copies an error whose message is a getter of its own class (a DOMException) so it can still be read", () => {
    const error = new Error(`timed out for ${token}`, { cause: new DOMException(`aborted ${token}`, "TimeoutError") });
    const redacted = createSecretRedactor([token]).error(error) as Error;
    const cause = redacted.cause as DOMException;
    expect(cause).toBeInstanceOf(DOMException);
    expect([cause.name, cause.message, String(cause)]).toEqual([
      "TimeoutError",
      "aborted [redacted]",
      "TimeoutError: aborted [redacted]",
    ]);
  });

  it("survives cycles and cuts values nested too deep", () => {
    const cyclic: Record<string, unknown> = { token };
    cyclic["self"] = cyclic;
    const copy = createSecretRedactor([token]).value(cyclic);
    expect(copy["token"]).toBe("[redacted]");
    expect(copy["self"]).toBe(copy);
    let deep: unknown = token;
    for (let level = 0; level < 300; level += 1) deep = [deep];
    expect(createSecretRedactor([token]).value(deep)).toEqual(
      JSON.parse(JSON.stringify(deep).replace(token, "[redacted]")),
    );
    for (let level = 0; level < 50_000; level += 1) deep = [deep];
    expect(JSON.stringify(createSecretRedactor([token]).value(deep))).toContain("[too deep]");
  });
});
