import { redactSecrets } from "@jobtasks/core";

/** Removes an adapter's declared secrets from anything it hands back. */
export interface SecretRedactor {
  text(text: string): string;
  /** A copy with every string inside redacted (objects, arrays, errors); other values as they are. */
  value<T>(value: T): T;
  /** A copy of a thrown value with its message, stack and string fields redacted, class and fields kept. */
  error(error: unknown): unknown;
}

// Deep enough for any result or log entry; deeper values (or cycles) are cut rather than walked forever.
const maxDepth = 32;

/**
 * A redactor for the secrets as they are now. Each secret is removed as written and URL-encoded (the form
 * it takes in a query string or a form body), so a token echoed in an upstream URL goes too.
 */
export function createSecretRedactor(secrets: readonly string[]): SecretRedactor {
  const forms = new Set<string>();
  for (const secret of secrets) {
    if (typeof secret !== "string") continue;
    forms.add(secret);
    forms.add(encodeURIComponent(secret));
  }
  // Longer forms first, so that a secret containing another is removed whole.
  const ordered = [...forms].sort((left, right) => right.length - left.length);
  const text = (value: string) => redactSecrets(value, ordered);

  const walk = (value: unknown, depth: number, seen: WeakMap<object, unknown>): unknown => {
    if (typeof value === "string") return text(value);
    if (typeof value !== "object" || value === null) return value;
    if (seen.has(value)) return seen.get(value);
    if (depth >= maxDepth) return "[too deep]";
    if (value instanceof Error) return copyError(value, depth, seen);
    if (Array.isArray(value)) {
      const copy: unknown[] = [];
      seen.set(value, copy);
      for (const item of value) copy.push(walk(item, depth + 1, seen));
      return copy;
    }
    // Only plain data is rebuilt; anything else (a Date, a Buffer, a class instance) is left as it is.
    const prototype = Object.getPrototypeOf(value);
    if (prototype !== Object.prototype && prototype !== null) return value;
    const copy: Record<string, unknown> = {};
    seen.set(value, copy);
    for (const [key, item] of Object.entries(value)) copy[key] = walk(item, depth + 1, seen);
    return copy;
  };

  // The copy keeps the class (so `instanceof UpstreamError` and its fields still steer the server) and
  // every own property, including the non-enumerable message and stack, with strings redacted.
  const copyError = (error: Error, depth: number, seen: WeakMap<object, unknown>): Error => {
    const copy = Object.create(Object.getPrototypeOf(error)) as Error;
    seen.set(error, copy);
    for (const key of Reflect.ownKeys(error)) {
      const descriptor = Object.getOwnPropertyDescriptor(error, key)!;
      if ("value" in descriptor) descriptor.value = walk(descriptor.value, depth + 1, seen);
      Object.defineProperty(copy, key, descriptor);
    }
    return copy;
  };

  return {
    text,
    value: <T>(value: T) => walk(value, 0, new WeakMap()) as T,
    error: (error: unknown) => walk(error, 0, new WeakMap()),
  };
}
