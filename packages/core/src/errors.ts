/**
 * Typed errors shared by the core and the adapters. Messages are written for the person or agent who reads
 * them, and never contain a credential: build them from option names and upstream status codes, not from
 * request objects.
 */

/**
 * Marks an error with the brands of its classes, so checks work across copies of this package (an adapter
 * package that brings its own, an application that bundles one). Each class of the core names its brand,
 * which is also the error's `name`, as a string: a minifier renames classes, so `constructor.name` would
 * not do.
 */
const errorBrands = Symbol.for("@jobtasks/core/error-brands");

/** The brand a class declares itself (static `brand`), not one it inherits. */
function ownBrand(type: Function): string | undefined {
  return Object.hasOwn(type, "brand") ? ((type as { brand?: unknown }).brand as string) : undefined;
}

export class JobtasksError extends Error {
  static readonly brand: string = "JobtasksError";
  readonly [errorBrands]: readonly string[];

  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    // A subclass of someone else's declares no brand: its own class name, as any error would have.
    this.name = ownBrand(new.target) ?? new.target.name;
    const brands: string[] = [];
    for (
      let type: Function = new.target;
      type !== Error && type !== Function.prototype;
      type = Object.getPrototypeOf(type) as Function
    ) {
      const brand = ownBrand(type);
      if (brand !== undefined) brands.push(brand);
    }
    this[errorBrands] = brands;
  }

  /**
   * `error instanceof UpstreamError` also holds for an error made by another copy of @jobtasks/core, which
   * a prototype check would miss. A class without a brand of its own is checked by prototype.
   */
  static override [Symbol.hasInstance](value: unknown): boolean {
    const brand = ownBrand(this);
    if (brand === undefined || typeof value !== "object" || value === null)
      return Function.prototype[Symbol.hasInstance].call(this, value);
    const brands = (value as { [errorBrands]?: unknown })[errorBrands];
    return Array.isArray(brands) ? brands.includes(brand) : Function.prototype[Symbol.hasInstance].call(this, value);
  }
}

/** A configuration problem found at start-up. Names the option (or environment variable) at fault. */
export class ConfigError extends JobtasksError {
  static override readonly brand: string = "ConfigError";
  readonly option: string;
  constructor(option: string, message: string, options?: { cause?: unknown }) {
    super(`Invalid configuration at ${option}: ${message}`, options);
    this.option = option;
  }
}

/** A configuration problem found when an adapter is built. */
export class AdapterConfigError extends ConfigError {
  static override readonly brand: string = "AdapterConfigError";
}

/** Tool arguments that a schema or an adapter's own check refused. Becomes JSON-RPC -32602. */
export class InvalidToolInputError extends JobtasksError {
  static override readonly brand: string = "InvalidToolInputError";
  readonly field: string;
  /** What is wrong with the field, without the field's name. */
  readonly problem: string;
  constructor(field: string, problem: string, options?: { cause?: unknown }) {
    super(`Invalid arguments: ${field}: ${problem}`, options);
    this.field = field;
    this.problem = problem;
  }
}

/** The upstream no longer knows the job (deleted, expired, or never existed). The task ends failed. */
export class JobNotFoundError extends JobtasksError {
  static override readonly brand: string = "JobNotFoundError";
}

/**
 * httpStatus and retryAfterMs may be given as undefined, which means the same as leaving them out: they are
 * read from an answer that may not carry them (`parseRetryAfter` gives undefined for no header).
 */
export interface UpstreamErrorOptions {
  /** HTTP status of the failed upstream call, if there was one. */
  httpStatus?: number | undefined;
  /** Whether trying again later may succeed. Defaults from httpStatus (see isRetryableHttpStatus). */
  isRetryable?: boolean;
  /** How long the upstream asked us to wait before the next call (Retry-After, rate-limit reset). */
  retryAfterMs?: number | undefined;
  /**
   * The upstream is up but refuses to answer this often (a rate limit, throttling). Such waits do not
   * count as an outage. Defaults to true for HTTP 429, and for 403 with a retryAfterMs (GitHub's limits).
   */
  isThrottled?: boolean;
  cause?: unknown;
}

/**
 * An upstream call failed. Retryable failures keep a task working (with a message saying so) until the
 * retry budget runs out; the others end it failed.
 */
export class UpstreamError extends JobtasksError {
  static override readonly brand: string = "UpstreamError";
  readonly httpStatus: number | undefined;
  readonly isRetryable: boolean;
  readonly retryAfterMs: number | undefined;
  readonly isThrottled: boolean;
  constructor(message: string, options: UpstreamErrorOptions = {}) {
    super(message, { cause: options.cause });
    this.httpStatus = options.httpStatus;
    this.isRetryable =
      options.isRetryable ?? (options.httpStatus === undefined ? true : isRetryableHttpStatus(options.httpStatus));
    this.retryAfterMs = options.retryAfterMs;
    this.isThrottled =
      options.isThrottled ??
      (options.httpStatus === 429 || (options.httpStatus === 403 && options.retryAfterMs !== undefined));
  }
}

/**
 * An upstream call that may have been acted on although no usable answer came back: it timed out after
 * the request was sent, the connection broke after sending, or a success answer could not be read. For a
 * status read it is an UpstreamError like any other; for a call that changes something (a submit) it means
 * the change may have happened, so a blind retry could make it twice: look before sending again.
 */
export class OutcomeUnknownError extends UpstreamError {
  static override readonly brand: string = "OutcomeUnknownError";
  /** The same failure, marked as one the upstream may have acted on. */
  static from(error: UpstreamError): OutcomeUnknownError {
    if (error instanceof OutcomeUnknownError) return error;
    return new OutcomeUnknownError(error.message, {
      ...(error.httpStatus !== undefined ? { httpStatus: error.httpStatus } : {}),
      isRetryable: error.isRetryable,
      ...(error.retryAfterMs !== undefined ? { retryAfterMs: error.retryAfterMs } : {}),
      isThrottled: error.isThrottled,
      cause: error.cause,
    });
  }
}

/**
 * doRespond delivered some answers of a batch, then failed on another: `settledKeys` names the answers the
 * upstream took (and settled) before the failure, `cause` is the failure to report. The core counts those
 * keys as answered, so they are sent once, and answers the caller as it would `cause` alone; the other keys
 * stay open. An adapter that sends one answer per upstream call throws this only past the first call.
 */
export class AnswersPartlySettledError extends JobtasksError {
  static override readonly brand: string = "AnswersPartlySettledError";
  readonly settledKeys: readonly string[];
  constructor(settledKeys: readonly string[], cause: unknown) {
    super(cause instanceof Error ? cause.message : "an answer could not be delivered", { cause });
    this.settledKeys = [...settledKeys];
  }
}

/** Timeouts, throttling and server-side faults may pass; client errors will not. */
export function isRetryableHttpStatus(status: number): boolean {
  return status === 408 || status === 425 || status === 429 || status >= 500;
}

/**
 * Parse an HTTP Retry-After value (seconds or an HTTP date) into milliseconds from `now`.
 * Returns undefined for a missing or unreadable value.
 */
export function parseRetryAfter(value: string | null | undefined, now: number = Date.now()): number | undefined {
  if (value === null || value === undefined || value.trim() === "") return undefined;
  const trimmed = value.trim();
  if (/^\d+(\.\d+)?$/.test(trimmed)) return Math.round(Number(trimmed) * 1000);
  // An HTTP date names a weekday and a month; anything else (a negative number) is not one.
  if (!/[A-Za-z]/.test(trimmed)) return undefined;
  const date = Date.parse(trimmed);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, date - now);
}
