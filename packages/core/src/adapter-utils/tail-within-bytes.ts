/**
 * The end of a log or trace within a byte budget, for a result a model reads: the end is where a failure
 * explains itself. The budget counts UTF-8 bytes, the cut never falls inside a character, and the text
 * starts at a line start when one is near the cut (within `nearLineStart` characters, with text after it),
 * so a first line is whole unless a long one would lose most of the budget to the cut.
 */

/** How far past the cut a line start may be and still be where the text begins. */
const nearLineStart = 200;

/** The end of `text` within `maxBytes` bytes of UTF-8, whole characters only; `text` itself when it fits. */
export function tailWithinBytes(text: string, maxBytes: number): string {
  const bytes = Buffer.from(text, "utf8");
  if (bytes.length <= maxBytes) return text;
  let start = bytes.length - Math.max(0, maxBytes);
  // A UTF-8 continuation byte (10xxxxxx) is the middle of a character: begin at the next character.
  while (start < bytes.length && (bytes[start]! & 0xc0) === 0x80) start += 1;
  const end = bytes.subarray(start).toString("utf8");
  const lineBreak = end.indexOf("\n");
  if (lineBreak < 0 || lineBreak >= nearLineStart) return end;
  const fromLineStart = end.slice(lineBreak + 1);
  return /[^\n]/.test(fromLineStart) ? fromLineStart : end;
}
