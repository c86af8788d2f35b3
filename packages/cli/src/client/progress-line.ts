/**
 * The one line that shows a running task: a spinner, the status message, a bar from the task's progress
 * (steps done of a total, when the adapter reports it) or else from the message's wording ("45%", or
 * "step 2/5"), and the time since the task was created.
 */

const frames = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];
const barWidth = 20;

/** How far along a job is, 0..1, when its status message says so; undefined otherwise. */
export function progressFraction(statusMessage: string | undefined): number | undefined {
  if (!statusMessage) return undefined;
  const percent = /(\d+(?:\.\d+)?)\s*%/.exec(statusMessage);
  if (percent) return clamp(Number(percent[1]) / 100);
  // "step 2/5" is the second of five steps running: one finished.
  const steps = /\bstep (\d+)\s*\/\s*(\d+)/i.exec(statusMessage);
  if (steps && Number(steps[2]) > 0) return clamp((Number(steps[1]) - 1) / Number(steps[2]));
  return undefined;
}

export function formatElapsed(milliseconds: number): string {
  const seconds = Math.max(0, Math.floor(milliseconds / 1000));
  if (seconds < 60) return `${seconds}s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes}m ${String(seconds % 60).padStart(2, "0")}s`;
  return `${Math.floor(minutes / 60)}h ${String(minutes % 60).padStart(2, "0")}m`;
}

export interface TaskProgress {
  progress: number;
  total?: number | undefined;
}

export interface ProgressLineInput {
  status: string;
  statusMessage?: string | undefined;
  /** How far the job is, as the server's task carries it; a bar needs its total. */
  progress?: TaskProgress | undefined;
  elapsedMs: number;
  /** Advances the spinner. */
  tick: number;
}

export function renderProgressLine(input: ProgressLineInput): string {
  const { progress } = input;
  const fraction =
    progress?.total !== undefined && progress.total > 0
      ? clamp(progress.progress / progress.total)
      : progressFraction(input.statusMessage);
  const bar =
    fraction === undefined
      ? ""
      : ` ${"█".repeat(Math.round(fraction * barWidth)).padEnd(barWidth, "░")} ${Math.round(fraction * 100)}%`;
  const spinner = input.status === "input_required" ? "?" : frames[input.tick % frames.length];
  const message = input.statusMessage ? `${input.status}: ${input.statusMessage}` : input.status;
  return `${spinner} ${message}${bar}  ${formatElapsed(input.elapsedMs)}`;
}

function clamp(value: number): number {
  return Math.min(1, Math.max(0, value));
}
