import { Transform, type TransformCallback } from "node:stream";

/**
 * Splits a stdio byte stream into newline-terminated messages of at most `maxBytes` each (newline
 * included), handing each message on as its own chunk. A longer message is dropped as it streams by,
 * never buffered, and reported through `onOversized`, so the reader behind this one (the SDK's stdio
 * transport, which closes the connection for good when its buffer overflows) never sees it.
 */
export class BoundedLineInput extends Transform {
  readonly #maxBytes: number;
  readonly #onOversized: () => void;
  #pieces: Buffer[] = [];
  #size = 0;
  /** True while the rest of an oversized message is being skipped, up to its newline. */
  #skipping = false;

  constructor(maxBytes: number, onOversized: () => void) {
    super({ readableObjectMode: true });
    this.#maxBytes = maxBytes;
    this.#onOversized = onOversized;
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    let rest = chunk;
    while (rest.length > 0) {
      const newline = rest.indexOf(0x0a);
      const piece = newline === -1 ? rest : rest.subarray(0, newline + 1);
      rest = newline === -1 ? Buffer.alloc(0) : rest.subarray(newline + 1);
      if (!this.#skipping) {
        this.#size += piece.length;
        if (this.#size > this.#maxBytes) {
          this.#pieces = [];
          this.#skipping = true;
        } else {
          this.#pieces.push(piece);
        }
      }
      if (newline === -1) continue;
      if (this.#skipping) this.#onOversized();
      else this.push(Buffer.concat(this.#pieces));
      this.#pieces = [];
      this.#size = 0;
      this.#skipping = false;
    }
    done();
  }
}
