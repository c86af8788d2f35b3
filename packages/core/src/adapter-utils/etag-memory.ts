import { LRUCache } from "lru-cache";

/**
 * What conditional GETs need: per URL, the last answer's ETag and what was read from it, so that a 304
 * (which upstreams such as GitHub do not count against the rate limit) can be answered with the
 * remembered answer. Bounded in entries and, when sizes are given, in bytes; the least recently used go
 * first. Only an optimisation: losing an entry costs one full answer.
 */

export interface EtagMemoryOptions {
  /** Most answers kept. */
  maxEntries: number;
  /** Most bytes kept in all; every `remember` then gives its answer's size. */
  maxTotalBytes?: number;
  /** Larger answers are not kept (and forget the URL's older one). Defaults to maxTotalBytes. */
  maxEntryBytes?: number;
}

export interface RememberedAnswer<Answer> {
  etag: string;
  answer: Answer;
}

export class EtagMemory<Answer> {
  readonly #answers: LRUCache<string, RememberedAnswer<Answer>>;
  readonly #sized: boolean;

  constructor(options: EtagMemoryOptions) {
    this.#sized = options.maxTotalBytes !== undefined || options.maxEntryBytes !== undefined;
    this.#answers = new LRUCache({
      max: options.maxEntries,
      ...(options.maxTotalBytes !== undefined ? { maxSize: options.maxTotalBytes } : {}),
      ...(options.maxEntryBytes !== undefined ? { maxEntrySize: options.maxEntryBytes } : {}),
    });
  }

  /** The answer remembered for `url`, to send its ETag as If-None-Match. Does not count as a use. */
  recall(url: string): RememberedAnswer<Answer> | undefined {
    return this.#answers.peek(url);
  }

  /** The upstream confirmed `url`'s remembered answer (a 304): it becomes the most recently used. */
  confirmed(url: string): RememberedAnswer<Answer> | undefined {
    return this.#answers.get(url);
  }

  /** Remember `url`'s new answer, `bytes` long (needed when the memory is bounded in bytes). */
  remember(url: string, etag: string, answer: Answer, bytes?: number): void {
    if (this.#sized && bytes === undefined) throw new TypeError("EtagMemory bounded in bytes: give the answer's size");
    // lru-cache refuses a size of 0; an empty body weighs one byte here.
    this.#answers.set(url, { etag, answer }, this.#sized ? { size: Math.max(1, bytes!) } : {});
  }

  forget(url: string): void {
    this.#answers.delete(url);
  }

  get size(): number {
    return this.#answers.size;
  }
}
