import { LRUCache } from "lru-cache";
import type { TaskReference } from "./task-id.js";

/** What the memo needs of a sealer: opening an id for a principal, undefined when it does not open. */
export interface TaskIdOpener {
  open(taskId: string, principal: string): TaskReference | undefined;
}

/** Ids remembered at once. An entry is the id, its principal and the parsed reference: well under 1 KB. */
export const defaultMemoizedOpens = 1024;

/**
 * A sealer's open() with the last answers remembered. A polling client sends the same id every few
 * seconds, and each open costs a decipher, a base64url decode and a canonical re-encode; the memo answers
 * a repeat from memory. It is keyed by principal and id together, so an id opened for one caller never
 * opens for another, and it remembers only ids that opened: forgeries and garbage always reach the
 * sealer, so a flood of them cannot push the real ids out or fill memory. References are frozen, as
 * every caller now shares the one object.
 */
export class MemoizedTaskIdOpener implements TaskIdOpener {
  readonly #sealer: TaskIdOpener;
  readonly #opened: LRUCache<string, TaskReference>;

  constructor(sealer: TaskIdOpener, maxEntries = defaultMemoizedOpens) {
    this.#sealer = sealer;
    this.#opened = new LRUCache({ max: maxEntries });
  }

  open(taskId: string, principal: string): TaskReference | undefined {
    // A principal never contains a line feed (token names and the local principal are single words), so the
    // key cannot be confused between (principal, id) pairs.
    const key = `${principal}\n${taskId}`;
    const remembered = this.#opened.get(key);
    if (remembered) return remembered;
    const reference = this.#sealer.open(taskId, principal);
    if (reference) this.#opened.set(key, deepFreeze(reference));
    return reference;
  }
}

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === "object" && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const inner of Object.values(value)) deepFreeze(inner);
  }
  return value;
}
