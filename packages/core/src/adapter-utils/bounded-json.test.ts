import { Readable } from "node:stream";
import { describe, expect, it } from "vitest";
import {
  exceedsJsonDepth,
  maxJsonDepth,
  parseBoundedJson,
  parseDeliveryJson,
  readBoundedJson,
  readBoundedText,
} from "./bounded-json.js";

const nested = (depth: number): string => "[".repeat(depth) + "]".repeat(depth);

describe("bounded JSON", () => {
  it("measures depth without recursing, at any depth", () => {
    expect(exceedsJsonDepth(JSON.parse(nested(maxJsonDepth)))).toBe(false);
    expect(exceedsJsonDepth(JSON.parse(nested(maxJsonDepth + 1)))).toBe(true);
    expect(exceedsJsonDepth(JSON.parse(nested(50_000)))).toBe(true);
    expect(exceedsJsonDepth({ a: { b: [1, "x", null] } }, 3)).toBe(false);
    expect(exceedsJsonDepth({ a: { b: [{}] } }, 3)).toBe(true);
    expect(exceedsJsonDepth("text")).toBe(false);
  });

  it("reads a body's chunks (Buffers, bytes or strings) into text within the bound", async () => {
    const body = Readable.from([Buffer.from('{"a":'), new TextEncoder().encode("1"), "}"]);
    await expect(readBoundedText(body, 7)).resolves.toBe('{"a":1}');
  });

  it("stops reading past the bound and destroys the stream instead of reading the rest", async () => {
    let produced = 0;
    const body = Readable.from(
      (function* () {
        for (;;) {
          produced++;
          yield Buffer.alloc(1024);
        }
      })(),
    );
    await expect(readBoundedText(body, 4096)).resolves.toBeUndefined();
    expect(body.destroyed).toBe(true);
    expect(produced).toBeLessThan(20);
  });

  it("passes a failure of the stream through", async () => {
    const body = new Readable({
      read() {
        this.destroy(new Error("socket hang up"));
      },
    });
    await expect(readBoundedText(body, 10)).rejects.toThrow("socket hang up");
  });

  it("names each refusal: too large, empty, not JSON (with JSON.parse's error), too deep", async () => {
    await expect(readBoundedJson(Readable.from(["[1,2,3]"]), { maxBytes: 3 })).resolves.toEqual({
      ok: false,
      problem: "too-large",
    });
    expect(parseBoundedJson("  \n")).toEqual({ ok: false, problem: "empty" });
    expect(parseBoundedJson("{not json")).toMatchObject({
      ok: false,
      problem: "not-json",
      error: expect.any(SyntaxError),
    });
    expect(parseBoundedJson(nested(11), 10)).toEqual({ ok: false, problem: "too-deep" });
    await expect(readBoundedJson(Readable.from(['{"ok":true}']), { maxBytes: 100 })).resolves.toEqual({
      ok: true,
      value: { ok: true },
    });
  });
});

describe("parseDeliveryJson", () => {
  const bytes = (text: string) => new TextEncoder().encode(text);

  it("reads a delivery's JSON", () => {
    expect(parseDeliveryJson(bytes('{"id": "evt-1"}'))).toEqual({ id: "evt-1" });
  });

  it("says what is wrong with an unreadable body, quoting none of it", () => {
    expect(() => parseDeliveryJson(bytes('{"repo": secret-repo-name'))).toThrow(/^the body is not JSON$/);
    expect(() => parseDeliveryJson(bytes("  "), "the payload")).toThrow(/^the payload is empty$/);
    const deep = "[".repeat(maxJsonDepth + 1) + "]".repeat(maxJsonDepth + 1);
    expect(() => parseDeliveryJson(bytes(deep))).toThrow(`the body nests more than ${maxJsonDepth} levels deep`);
  });
});
