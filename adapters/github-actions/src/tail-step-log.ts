/**
 * Cut a failed step's share out of a job log and keep only its end, within a line and byte budget.
 *
 * A job log is one plain-text file for all steps, each line prefixed with an ISO timestamp. Steps carry
 * their start and end times (to the second), so the step's lines are the ones stamped inside that window.
 */

export interface LogTail {
  text: string;
  /** Lines or bytes were dropped from the start. */
  truncated: boolean;
}

const timestampedLine = /^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?Z) ?(.*)$/;
// Colour codes cost bytes and mean nothing to a model.
const ansiEscape = /\u001b\[[0-9;]*[A-Za-z]/g;

export function stepLogLines(log: string, window: { startedAt: string | null; completedAt: string | null }): string[] {
  const lines = log.replace(/\r\n/g, "\n").split("\n");
  const start = window.startedAt ? Date.parse(window.startedAt) : Number.NaN;
  // Step times are whole seconds; the log's are finer, so the step's last second is included whole.
  const end = window.completedAt ? Date.parse(window.completedAt) + 1000 : Number.NaN;
  const useWindow = !Number.isNaN(start) && !Number.isNaN(end);
  const selected: string[] = [];
  let lastTime = Number.NaN;
  for (const line of lines) {
    const match = timestampedLine.exec(line);
    if (match) lastTime = Date.parse(match[1]!);
    const text = (match ? match[2]! : line).replace(ansiEscape, "");
    if (text === "##[endgroup]" || (text === "" && !match)) continue;
    if (!useWindow || (lastTime >= start && lastTime < end)) selected.push(text);
  }
  // A log whose stamps do not fit the step (clock skew, unstamped log) is still better than nothing.
  if (selected.length === 0 && useWindow) return stepLogLines(log, { startedAt: null, completedAt: null });
  return selected;
}

export function tailLines(lines: ReadonlyArray<string>, maxLines: number, maxBytes: number): LogTail {
  let kept = lines.slice(Math.max(0, lines.length - maxLines));
  let truncated = kept.length < lines.length;
  let bytes = Buffer.byteLength(kept.join("\n"));
  while (kept.length > 0 && bytes > maxBytes) {
    if (kept.length === 1) {
      kept = [cutToLastBytes(kept[0]!, maxBytes)];
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

/** The last `maxBytes` bytes of a line, cut on a character boundary. */
function cutToLastBytes(line: string, maxBytes: number): string {
  const buffer = Buffer.from(line);
  if (buffer.length <= maxBytes) return line;
  let start = buffer.length - maxBytes;
  // Skip UTF-8 continuation bytes so no character is split.
  while (start < buffer.length && (buffer[start]! & 0xc0) === 0x80) start += 1;
  return buffer.subarray(start).toString();
}
