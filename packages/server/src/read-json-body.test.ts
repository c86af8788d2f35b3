import { Readable } from "node:stream";
import type { IncomingMessage } from "node:http";
import { describe, expect, it } from "vitest";
import { readRequestText } from "./read-json-body.js";

/** A request body as a stream of the chunks given (readRequestText reads only the stream side). */
function body(chunks: Buffer[]): IncomingMessage {
  return Readable.from(chunks, { objectMode: false }) as unknown as IncomingMessage;
}

describe("readRequestText", () => {
  it("joins the chunks before decoding: a character split between two chunks arrives whole", async () => {
    const text = Buffer.from('{"name":"déploiement ✓"}', "utf8");
    const split = text.indexOf(Buffer.from("✓")) + 1;
    expect(await readRequestText(body([text.subarray(0, split), text.subarray(split)]), 1024)).toBe(
      '{"name":"déploiement ✓"}',
    );
  });

  it("stops at the bound and answers undefined, the rest unread", async () => {
    const request = body([Buffer.alloc(600, "x"), Buffer.alloc(600, "x"), Buffer.alloc(600, "x")]);
    expect(await readRequestText(request, 1000)).toBeUndefined();
    expect(request.readableEnded).toBe(false);
  });

  it("fails as ECONNRESET, rather than waiting forever, for a request closed before or during its body", async () => {
    const gone = body([Buffer.from("{}")]);
    gone.destroy();
    await expect(readRequestText(gone, 1024)).rejects.toMatchObject({ code: "ECONNRESET" });

    const leaving = new Readable({ read() {} }) as unknown as IncomingMessage;
    const reading = readRequestText(leaving, 1024);
    leaving.push(Buffer.from('{"partial":'));
    leaving.destroy();
    await expect(reading).rejects.toMatchObject({ code: "ECONNRESET" });
  });

  it("answers a body someone already read to its end as empty, rather than waiting for an end that came", async () => {
    const read = body([Buffer.from("{}")]);
    read.resume();
    await new Promise((resolve) => read.once("end", resolve));
    expect(await readRequestText(read, 1024)).toBe("");
  });

  it("throws a stream's own error as it is", async () => {
    const failing = new Readable({ read() {} }) as unknown as IncomingMessage;
    const reading = readRequestText(failing, 1024);
    failing.destroy(Object.assign(new Error("socket hang up"), { code: "EPIPE" }));
    await expect(reading).rejects.toMatchObject({ code: "EPIPE" });
  });
});
