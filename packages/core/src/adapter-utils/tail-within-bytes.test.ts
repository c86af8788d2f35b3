import { describe, expect, it } from "vitest";
import { tailWithinBytes } from "./tail-within-bytes.js";

const bytesOf = (text: string) => Buffer.byteLength(text, "utf8");

describe("tailWithinBytes", () => {
  it("gives back a text that fits as it is", () => {
    expect(tailWithinBytes("step 1 ok\nstep 2 ok\n", 20)).toBe("step 1 ok\nstep 2 ok\n");
    expect(tailWithinBytes("", 0)).toBe("");
  });

  it("keeps the end, from the first line start after the cut", () => {
    expect(tailWithinBytes("step 1 ok\nstep 2 ok\nFATAL: disk full", 30)).toBe("step 2 ok\nFATAL: disk full");
  });

  it("keeps a cut line when the next line start is far past the cut", () => {
    const text = `${"a".repeat(400)}\nFATAL`;
    expect(tailWithinBytes(text, 300)).toBe(`${"a".repeat(294)}\nFATAL`);
  });

  it("keeps the end of a last line longer than the budget, even when it ends with a line break", () => {
    expect(tailWithinBytes(`step 1 ok\n${"x".repeat(100)}\n`, 40)).toBe(`${"x".repeat(39)}\n`);
    expect(tailWithinBytes("x".repeat(100), 40)).toBe("x".repeat(40));
  });

  it("never cuts inside a character, and never passes the budget", () => {
    // Two-byte, three-byte and four-byte characters: every cut point is tried.
    for (const character of ["é", "€", "🚀"]) {
      const text = character.repeat(50);
      for (let maxBytes = 0; maxBytes <= bytesOf(text); maxBytes += 1) {
        const tail = tailWithinBytes(text, maxBytes);
        expect(bytesOf(tail)).toBeLessThanOrEqual(maxBytes);
        expect(tail).toBe(character.repeat(Math.floor(maxBytes / bytesOf(character))));
      }
    }
  });

  it("keeps a replacement character that is part of the text", () => {
    expect(tailWithinBytes("ab\uFFFDcd", 5)).toBe("\uFFFDcd");
  });
});
