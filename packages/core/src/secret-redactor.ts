/** Removes an adapter's declared secrets from anything it hands back. */
export interface SecretRedactor {
  text(text: string): string;
  /** A copy with every string inside redacted (objects, arrays, errors); other values as they are. */
  value<T>(value: T): T;
  /** A copy of a thrown value with its message, stack and string fields redacted, class and fields kept. */
  error(error: unknown): unknown;
}

const marker = "[redacted]";
// Very short values would blank out ordinary words; no real credential is that short.
const shortestSecret = 6;
// A piece of a secret this long is still removed where a text was cut inside it (see redactPieces).
const shortestPiece = 8;
// Deeper than any result or log entry an adapter builds (adapters refuse upstream bodies nested past 256
// levels); deeper values are cut rather than walked until the stack overflows, and cycles are kept.
const maxDepth = 512;
// The armour lines of a PEM key are the same in every key: not secret, and common in logs.
const pemArmour = /^-----(?:BEGIN|END) [A-Z0-9 ]+-----$/;

/**
 * The forms a secret takes in what an adapter hands back: as written, URL-encoded (a query string, a form
 * body), JSON-escaped (a body quoted in a message) and lower-cased (a URL's host name). A multi-line secret
 * (a PEM key, printed line by line in a job log) also by each of its lines but the armour.
 */
function formsOf(secret: string): string[] {
  return [secret, encodeURIComponent(secret), JSON.stringify(secret).slice(1, -1), secret.toLowerCase()];
}

function linesOf(secret: string): string[] {
  return secret
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => !pemArmour.test(line));
}

/**
 * A redactor for the secrets as they are now. Every form of each secret is replaced by "[redacted]", and so
 * is what is left of one where the adapter cut a text inside it (a message cut to 300 characters, the tail
 * of a log): a start of a form at least 8 characters long, or an end of one. Pieces shorter than that stay.
 */
export function createSecretRedactor(secrets: readonly string[]): SecretRedactor {
  const whole = new Set<string>();
  // Pieces are looked for in single-line forms; a multi-line secret's first and last lines are armour.
  const pieced = new Set<string>();
  for (const secret of secrets) {
    if (typeof secret !== "string") continue;
    const multiLine = /[\r\n]/.test(secret);
    for (const form of formsOf(secret)) {
      whole.add(form);
      if (!multiLine) pieced.add(form);
    }
    if (!multiLine) continue;
    for (const form of linesOf(secret).flatMap(formsOf)) {
      whole.add(form);
      pieced.add(form);
    }
  }
  // Longer forms first, so that a secret containing another is removed whole.
  const forms = [...whole]
    .filter((form) => form.length >= shortestSecret)
    .sort((left, right) => right.length - left.length);
  const pieceForms = [...pieced].filter((form) => form.length > shortestPiece);
  const text = (value: string): string => {
    if (forms.length === 0) return value;
    let redacted = value;
    for (const form of forms) if (redacted.includes(form)) redacted = redacted.split(form).join(marker);
    for (const form of pieceForms) redacted = redactPieces(redacted, form);
    return redacted;
  };

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
    const prototype = Object.getPrototypeOf(value);
    if (prototype !== Object.prototype && prototype !== null) return otherObject(value);
    const copy: Record<string, unknown> = {};
    seen.set(value, copy);
    for (const [key, item] of Object.entries(value)) copy[key] = walk(item, depth + 1, seen);
    return copy;
  };

  // Anything but plain data (a Date, a Buffer, a class instance) is left as it is, with one exception: an
  // object that writes itself out as a string (a URL with a token in its query logs as its href) is
  // replaced by that string, redacted, when it holds a secret. Other instances are not walked: their
  // graphs (sockets, agents, clients) are large and cyclic, and none of them is what an adapter hands back.
  const otherObject = (value: object): unknown => {
    const toJson = (value as { toJSON?: unknown }).toJSON;
    if (typeof toJson !== "function" || ArrayBuffer.isView(value)) return value;
    const written: unknown = toJson.call(value);
    if (typeof written !== "string") return value;
    const redacted = text(written);
    return redacted === written ? value : redacted;
  };

  // The copy keeps the class (so `instanceof UpstreamError` and its fields still steer the server) and
  // every own property, including the non-enumerable message and stack, and `cause`, with strings redacted.
  const copyError = (error: Error, depth: number, seen: WeakMap<object, unknown>): Error => {
    const copy = Object.create(Object.getPrototypeOf(error)) as Error;
    seen.set(error, copy);
    for (const key of Reflect.ownKeys(error)) {
      const descriptor = Object.getOwnPropertyDescriptor(error, key)!;
      if ("value" in descriptor) {
        descriptor.value = walk(descriptor.value, depth + 1, seen);
        Object.defineProperty(copy, key, descriptor);
        continue;
      }
      // An accessor (on Node 22 and later, `stack` is one) reads the original's internal state, which the
      // copy lacks: the copy gets what it reads on the original, redacted, as its own value.
      let read: unknown;
      try {
        read = Reflect.get(error, key);
      } catch {
        continue;
      }
      Object.defineProperty(copy, key, {
        value: walk(read, depth + 1, seen),
        writable: true,
        configurable: true,
        enumerable: descriptor.enumerable ?? false,
      });
    }
    // Some errors keep these behind getters that only work on the original (a DOMException's message, name
    // and code): the copy gets them as own values, or reading them from it would throw.
    for (const key of ["name", "message", "code"]) {
      if (Object.prototype.hasOwnProperty.call(copy, key) || !(key in error) || readsOn(copy, key)) continue;
      const value = walk((error as unknown as Record<string, unknown>)[key], depth + 1, seen);
      Object.defineProperty(copy, key, { value, writable: true, configurable: true });
    }
    return copy;
  };

  return {
    text,
    value: <T>(value: T) => walk(value, 0, new WeakMap()) as T,
    error: (error: unknown) => walk(error, 0, new WeakMap()),
  };
}

function readsOn(target: object, key: string): boolean {
  try {
    void (target as Record<string, unknown>)[key];
    return true;
  } catch {
    return false;
  }
}

/**
 * Replace what is left of `form` where a text was cut inside it: a run that is a start of the form (the
 * text was cut after it) or an end of it (a tail began inside it), at least `shortestPiece` long. Adapters
 * cut upstream text to fit a budget before the core redacts it, so the cut can fall inside a secret.
 */
function redactPieces(text: string, form: string): string {
  const cuts: Array<[start: number, end: number]> = [];
  const head = form.slice(0, shortestPiece);
  for (let at = text.indexOf(head); at !== -1; at = text.indexOf(head, at + 1)) {
    let end = at + shortestPiece;
    while (end < text.length && end - at < form.length && text[end] === form[end - at]) end += 1;
    cuts.push([at, end]);
  }
  const tail = form.slice(-shortestPiece);
  for (let at = text.indexOf(tail); at !== -1; at = text.indexOf(tail, at + 1)) {
    const end = at + shortestPiece;
    let start = at;
    while (start > 0 && end - start < form.length && text[start - 1] === form[form.length - (end - start) - 1]) {
      start -= 1;
    }
    cuts.push([start, end]);
  }
  if (cuts.length === 0) return text;
  cuts.sort((left, right) => left[0] - right[0]);
  let redacted = "";
  let position = 0;
  for (const [start, end] of cuts) {
    if (end <= position) continue;
    redacted += text.slice(position, Math.max(position, start)) + (start >= position ? marker : "");
    position = end;
  }
  return redacted + text.slice(position);
}
