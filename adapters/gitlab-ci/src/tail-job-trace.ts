import { terminalSafe } from "@jobtasks/core";
import { tailWithinBytes } from "@jobtasks/core/adapter-utils";
import type { GitlabCiApi } from "./gitlab-ci-api.js";
import type { ResolvedGitlabCiConfig } from "./gitlab-ci-options.js";

/**
 * The end of failed jobs' traces, small enough for a model's context: bounded in lines per job, in bytes
 * per result, in bytes read per trace and in time for the whole pipeline; terminal colours and GitLab's
 * section markers removed. The core redacts the token from it, as from all the adapter hands back.
 */

export type LogSettings = ResolvedGitlabCiConfig["logs"];

export interface TraceTail {
  jobId: number;
  text: string;
  /** Why the text may not be the whole end of the trace, when it may not. */
  note?: string;
}

/** While reading, only this much of the end is kept: many times what any line budget shows. */
const keptBytes = 64 * 1024;

export async function tailJobTraces(
  api: GitlabCiApi,
  project: string,
  jobIds: readonly number[],
  settings: LogSettings,
  signal: AbortSignal,
): Promise<TraceTail[]> {
  const deadline = AbortSignal.timeout(settings.maxReadMs);
  const readSignal = AbortSignal.any([signal, deadline]);
  let budget = settings.maxBytes;
  const tails: TraceTail[] = [];
  for (const jobId of jobIds.slice(0, settings.maxFailedJobs)) {
    if (budget <= 0) break;
    if (deadline.aborted) {
      tails.push({ jobId, text: "", note: `not read: the ${settings.maxReadMs} ms budget for traces ran out` });
      continue;
    }
    const read = await readTraceEnd(api, project, jobId, settings.maxReadBytes, readSignal);
    if (signal.aborted) throw signal.reason;
    const text = tailWithinBytes(lastLines(cleanTrace(read.text), settings.maxLinesPerJob), budget);
    budget -= Buffer.byteLength(text);
    const note =
      read.stoppedBy === "bytes"
        ? `the trace is longer than ${settings.maxReadBytes} bytes; this is the end of what was read`
        : read.stoppedBy === "time"
          ? `reading stopped after ${settings.maxReadMs} ms; this is the end of what was read`
          : read.stoppedBy === "refused"
            ? "GitLab did not serve the trace"
            : undefined;
    tails.push(note ? { jobId, text, note } : { jobId, text });
  }
  return tails;
}

async function readTraceEnd(
  api: GitlabCiApi,
  project: string,
  jobId: number,
  maxReadBytes: number,
  signal: AbortSignal,
): Promise<{ text: string; stoppedBy?: "bytes" | "time" | "refused" }> {
  let tail = Buffer.alloc(0);
  let read = 0;
  let stoppedBy: "bytes" | "time" | "refused" | undefined;
  try {
    await api.streamTrace(
      project,
      jobId,
      (chunk) => {
        const room = maxReadBytes - read;
        const accepted = chunk.length > room ? chunk.subarray(0, room) : chunk;
        read += accepted.length;
        tail = Buffer.concat([tail, accepted]);
        if (tail.length > keptBytes) tail = tail.subarray(tail.length - keptBytes);
        if (read >= maxReadBytes) {
          stoppedBy = "bytes";
          return false;
        }
        return true;
      },
      { signal },
    );
  } catch {
    // A missing trace (erased, expired) or the time bound: the result is still worth having without it.
    stoppedBy = signal.aborted ? "time" : "refused";
  }
  return stoppedBy ? { text: tail.toString("utf8"), stoppedBy } : { text: tail.toString("utf8") };
}

/**
 * Remove colours and `section_start:…` markers; keep what a line finally showed after carriage returns;
 * then make it terminal-safe, as a job's output may set a title or write the clipboard of whoever reads it.
 */
export function cleanTrace(raw: string): string {
  return terminalSafe(
    raw
      .replace(/\x1b\[[0-9;?]*[A-Za-z]/g, "")
      .replace(/section_(start|end):\d+:[A-Za-z0-9_.-]+(\[[^\]\r\n]*\])?\r?/g, "")
      .replace(/\r\n/g, "\n")
      .split("\n")
      .map((line) => line.slice(line.lastIndexOf("\r") + 1))
      .join("\n"),
  );
}

function lastLines(text: string, count: number): string {
  if (count === 0) return "";
  const lines = text.replace(/\n+$/, "").split("\n");
  return lines.slice(-count).join("\n");
}
