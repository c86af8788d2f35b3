import type { LRUCache } from "lru-cache";
import { boundedCache } from "@jobtasks/core/adapter-utils";
import type { TaskReference } from "./task-id.js";

/** Opening an id for a principal: undefined when it does not open. A sealer is one; TaskService's whole open is another. */
export interface TaskIdOpener<Opened = TaskReference> {
  open(taskId: string, principal: string): Opened | undefined;
}

/** Ids remembered at once. An entry is the id, its principal and what it opened to: well under 1 KB. */
export const defaultMemoizedOpens = 1024;

/**
 * An opener with the last answers remembered. A polling client sends the same id every few seconds, and
 * each open costs a decipher, a base64url decode, a canonical re-encode and (in TaskService) the adapter's
 * refSchema; the memo answers a repeat from memory. It is keyed by principal and id together, so an id
 * opened for one caller never opens for another, and it remembers only ids that opened: forgeries and
 * garbage always reach the opener, so a flood of them cannot push the real ids out or fill memory.
 * Every caller shares the one object remembered, so the opener hands out objects nobody changes
 * (`deepFreeze` them).
 */
export class MemoizedTaskIdOpener<Opened extends object = TaskReference> implements TaskIdOpener<Opened> {
  readonly #opener: TaskIdOpener<Opened>;
  readonly #opened: LRUCache<string, Opened>;

  constructor(opener: TaskIdOpener<Opened>, maxEntries = defaultMemoizedOpens) {
    this.#opener = opener;
    this.#opened = boundedCache(maxEntries);
  }

  open(taskId: string, principal: string): Opened | undefined {
    // A principal never contains a line feed (token names and the local principal are single words), so the
    // key cannot be confused between (principal, id) pairs.
    const key = `${principal}\n${taskId}`;
    const remembered = this.#opened.get(key);
    if (remembered) return remembered;
    const opened = this.#opener.open(taskId, principal);
    if (opened) this.#opened.set(key, opened);
    return opened;
  }
}

/** The value, and everything inside it, made read-only. */
export function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === "object" && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const inner of Object.values(value)) deepFreeze(inner);
  }
  return value;
}
