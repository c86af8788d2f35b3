import { terminalSafe } from "@jobtasks/core";
import { tailWithinBytes } from "@jobtasks/core/adapter-utils";

/**
 * Cut the failed steps' shares out of a job log and keep only their ends, within a line and byte budget,
 * while the log streams in: memory stays bounded by the budget whatever the log's size.
 *
 * A job log is one plain-text file for all steps, each line prefixed with an ISO timestamp. Steps carry
 * their start and end times (to the second), so a step's lines are the ones stamped inside that window.
 */

export interface LogTail {
  text: string;
  /** Lines or bytes were dropped from the start. */
  truncated: boolean;
  /** Why reading stopped before the step's end was reached, when it did. */
  stoppedEarly?: string;
}

/** Bounds on reading one log, whatever its size and however slowly it arrives. */
export interface LogReadLimits {
  /** Read no more than this many bytes of the log (exactly: the same cut on every replica). */
  maxReadBytes?: number;
  /** Stop reading when this fires (a time budget); what was read so far is kept. */
  stop?: AbortSignal;
  /** Said in `stoppedEarly` when `stop` fired. */
  stopReason?: string;
}

export interface StepWindow {
  startedAt: string | null;
  completedAt: string | null;
}

export interface StepLogBudget {
  maxLinesPerStep: number;
  /** Bytes per step. */
  maxBytes: number;
}

const timestampedLine = /^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?Z) ?(.*)$/s;
const timestampPrefix = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?Z ?/;

/**
 * The tail of each step's lines (in the order of `windows`), read from the log's text chunks. A step whose
 * window is unknown, or whose stamps do not fit the log (clock skew, an unstamped log), gets the end of the
 * whole log instead: better than nothing. Reading stops as soon as every step has its lines and the log is
 * past the last step's end. The core redacts the adapter's credentials from the tails (withSecretRedaction),
 * pieces cut by the line budget included.
 */
export async function readStepLogTails(
  chunks: AsyncIterable<string>,
  windows: ReadonlyArray<StepWindow>,
  budget: StepLogBudget,
  limits: LogReadLimits = {},
): Promise<LogTail[]> {
  // Cut over-long lines early: no step keeps more than maxBytes of one.
  const splitter = new LineSplitter(budget.maxBytes + 1024);
  const steps = windows.map((window) => {
    const start = window.startedAt ? Date.parse(window.startedAt) : Number.NaN;
    // Step times are whole seconds; the log's are finer, so the step's last second is included whole.
    const end = window.completedAt ? Date.parse(window.completedAt) + 1000 : Number.NaN;
    const useWindow = !Number.isNaN(start) && !Number.isNaN(end);
    return { start, end, useWindow, lines: new BoundedLines(budget.maxLinesPerStep, budget.maxBytes) };
  });
  const wholeLog = new BoundedLines(budget.maxLinesPerStep, budget.maxBytes);
  const canStopEarly = steps.length > 0 && steps.every((step) => step.useWindow);
  const lastEnd = Math.max(...steps.map((step) => step.end));
  let lastTime = Number.NaN;

  const take = (line: string): void => {
    const match = timestampedLine.exec(line);
    if (match) lastTime = Date.parse(match[1]!);
    // Colour codes cost bytes and mean nothing to a model; other escapes (a title, the clipboard) must not
    // reach the terminal of whoever reads the result.
    const text = terminalSafe(match ? match[2]! : line);
    if (text === "##[endgroup]" || (text === "" && !match)) return;
    wholeLog.push(text);
    for (const step of steps) {
      if (step.useWindow && lastTime >= step.start && lastTime < step.end) step.lines.push(text);
    }
  };
  const done = (): boolean => canStopEarly && lastTime >= lastEnd && steps.every((step) => step.lines.count > 0);

  let stoppedEarly: string | undefined;
  let stalled = false;
  let readBytes = 0;
  const iterator = chunks[Symbol.asyncIterator]();
  reading: for (;;) {
    const next = await nextUnlessStopped(iterator, limits.stop);
    if (next === stopped) {
      stoppedEarly = `reading stopped: ${limits.stopReason ?? "time ran out"}`;
      stalled = true;
      break;
    }
    if (next.done) break;
    let chunk = next.value;
    if (limits.maxReadBytes !== undefined) {
      const left = limits.maxReadBytes - readBytes;
      const size = Buffer.byteLength(chunk);
      if (size > left) {
        chunk = Buffer.from(chunk).subarray(0, left).toString();
        stoppedEarly = `reading stopped after the first ${limits.maxReadBytes} bytes of the log`;
      }
      readBytes += Math.min(size, left);
    }
    for (const line of splitter.push(chunk)) {
      take(line);
      if (done()) break reading;
    }
    if (stoppedEarly !== undefined) break;
  }
  if (done()) {
    // Everything the steps need was read before any limit mattered.
    stoppedEarly = undefined;
  } else {
    const last = splitter.end();
    if (last !== undefined) take(last);
  }
  // Leaving early cancels the download: the rest of the log is never transferred. A stalled read is not
  // waited for (return() would wait behind it); the caller aborts that download itself.
  if (stalled) iterator.return?.().catch(() => undefined);
  else await iterator.return?.();

  return steps.map((step) => {
    const lines = step.useWindow && step.lines.count > 0 ? step.lines : wholeLog;
    const tail = tailLines(lines.lines, budget.maxLinesPerStep, budget.maxBytes);
    const truncated = tail.truncated || lines.dropped || stoppedEarly !== undefined;
    return { text: tail.text, truncated, ...(stoppedEarly === undefined ? {} : { stoppedEarly }) };
  });
}

const stopped = Symbol("stopped");

/** The iterator's next chunk, or `stopped` as soon as the signal fires (a stalled read is not waited for). */
async function nextUnlessStopped(
  iterator: AsyncIterator<string>,
  stop: AbortSignal | undefined,
): Promise<IteratorResult<string> | typeof stopped> {
  if (!stop) return iterator.next();
  if (stop.aborted) return stopped;
  const next = iterator.next();
  // Once stopped, the read still pending may fail (an aborted download): that is expected, not an error.
  next.catch(() => undefined);
  let onAbort: () => void = () => undefined;
  const whenStopped = new Promise<typeof stopped>((resolve) => {
    onAbort = () => resolve(stopped);
    stop.addEventListener("abort", onAbort, { once: true });
  });
  try {
    return await Promise.race([next, whenStopped]);
  } finally {
    stop.removeEventListener("abort", onAbort);
  }
}

export function tailLines(lines: ReadonlyArray<string>, maxLines: number, maxBytes: number): LogTail {
  let kept = lines.slice(Math.max(0, lines.length - maxLines));
  let truncated = kept.length < lines.length;
  let bytes = Buffer.byteLength(kept.join("\n"));
  while (kept.length > 0 && bytes > maxBytes) {
    if (kept.length === 1) {
      kept = [tailWithinBytes(kept[0]!, maxBytes)];
      truncated = true;
      break;
    }
    bytes -= Buffer.byteLength(kept[0]!) + 1;
    kept = kept.slice(1);
    truncated = true;
  }
  const text = kept.join("\n");
  return { text, truncated };
}

/** The last lines seen, no more than a tail of `maxLines` lines and `maxBytes` bytes can use. */
class BoundedLines {
  readonly lines: string[] = [];
  #bytes = 0;
  /** Lines were dropped from the start. */
  dropped = false;

  constructor(
    private readonly maxLines: number,
    private readonly maxBytes: number,
  ) {}

  get count(): number {
    return this.lines.length;
  }

  push(line: string): void {
    this.lines.push(line);
    this.#bytes += Buffer.byteLength(line) + 1;
    // Drop the oldest line while the rest still fill the byte budget on their own.
    while (
      this.lines.length > this.maxLines ||
      (this.lines.length > 1 && this.#bytes - (Buffer.byteLength(this.lines[0]!) + 1) >= this.maxBytes)
    ) {
      this.#bytes -= Buffer.byteLength(this.lines.shift()!) + 1;
      this.dropped = true;
    }
  }
}

/**
 * Splits text chunks into lines, holding at most `maxLineLength` characters of an unfinished line: of an
 * over-long line only its timestamp and its end are kept, which is all a tail can use.
 */
class LineSplitter {
  #pending = "";
  #prefix: string | undefined;

  constructor(private readonly maxLineLength: number) {}

  *push(chunk: string): Iterable<string> {
    const text = this.#pending + chunk;
    let start = 0;
    for (let index = text.indexOf("\n"); index !== -1; index = text.indexOf("\n", start)) {
      yield this.#finish(text.slice(start, index));
      start = index + 1;
    }
    this.#pending = text.slice(start);
    if (this.#pending.length > this.maxLineLength) {
      this.#prefix ??= timestampPrefix.exec(this.#pending)?.[0] ?? "";
      this.#pending = this.#pending.slice(-this.maxLineLength);
    }
  }

  /** The last line, if the log does not end with a newline. */
  end(): string | undefined {
    if (this.#pending === "" && this.#prefix === undefined) return undefined;
    const line = this.#finish(this.#pending);
    this.#pending = "";
    return line;
  }

  #finish(rest: string): string {
    const line = (this.#prefix ?? "") + rest;
    this.#prefix = undefined;
    return line.endsWith("\r") ? line.slice(0, -1) : line;
  }
}
