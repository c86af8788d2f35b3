import { z } from "@jobtasks/core";
import type { JobSnapshot } from "@jobtasks/core";
import { acceptedField, askFor, textResult, type FixtureTool } from "./fixture-tool.js";
import { contentTools, jsonSchema2020Tool } from "./content-tools.js";
import { askFirstTools } from "./ask-first-tools.js";

/** Clients without the tasks extension may call the quick tools; the server waits this long at most. */
const synchronousWaitMs = 30_000;

const greet: FixtureTool<{ name: string }> = {
  name: "greet",
  description: "Greets someone. Finished the moment it starts, so it is answered with its result, never a task.",
  inputSchema: z.object({ name: z.string().describe("Who to greet.") }),
  synchronousWaitMs,
  observe: (job) => completed(textResult(`Hello, ${job.input.name}!`)),
};

const regionEcho: FixtureTool<{ region: string }> = {
  name: "region_echo",
  description: "Echoes its region, which clients also send as the Mcp-Param-Region header (SEP-2243).",
  inputSchema: z.object({ region: z.string().describe("Where to run.").meta({ "x-mcp-header": "Region" }) }),
  synchronousWaitMs,
  observe: (job) => completed(textResult(`Region: ${job.input.region}`)),
};

const slowCompute: FixtureTool<{ seconds: number; label?: string | undefined }> = {
  name: "slow_compute",
  description: "Computes for `seconds` seconds, then answers. seconds: 0 is answered at once, without a task.",
  inputSchema: z.object({
    seconds: z.number().int().min(0).max(600).describe("How long the computation takes."),
    label: z.string().max(200).optional().describe("A name for this computation, echoed in the result."),
  }),
  synchronousWaitMs,
  observe(job, now) {
    const { seconds, label = "computation" } = job.input;
    const leftMs = job.startedAt + seconds * 1000 - now;
    if (leftMs > 0) return working(`${label}: ${Math.ceil(leftMs / 1000)} s left`);
    return completed(textResult(`${label} finished after ${seconds} s`));
  },
};

const failingJob: FixtureTool<Record<string, never>> = {
  name: "failing_job",
  description: "Runs for about a second, then fails as a job does: a result with isError. Needs the tasks extension.",
  inputSchema: z.object({}),
  observe(job, now) {
    if (now - job.startedAt < 1000) return working("running");
    return completed(textResult("failing_job failed: the job reported an error (simulated)", true));
  },
};

const protocolErrorJob: FixtureTool<Record<string, never>> = {
  name: "protocol_error_job",
  description: "Runs briefly, then ends as a protocol-level failure (status failed with a JSON-RPC error).",
  inputSchema: z.object({}),
  observe(job, now) {
    if (now - job.startedAt < 500) return working("running");
    return {
      status: "failed",
      rawStatus: "crashed",
      message: "protocol_error_job crashed (simulated internal failure)",
      error: { code: -32603, message: "Internal error: protocol_error_job crashed (simulated)" },
    };
  },
};

const confirmDelete: FixtureTool<{ filename: string }> = {
  name: "confirm_delete",
  description: "Asks for confirmation (one form), then deletes the file, or keeps it when the answer is no.",
  inputSchema: z.object({ filename: z.string().min(1).max(500).describe("The file to delete.") }),
  observe(job) {
    const answer = job.answers["confirm"];
    if (!answer) {
      return {
        status: "input_required",
        rawStatus: "awaiting_confirmation",
        message: `waiting for confirmation to delete ${job.input.filename}`,
        inputRequests: {
          confirm: askFor(`Delete ${job.input.filename}?`, "confirm", { type: "boolean", title: "Delete" }),
        },
      };
    }
    return completed(
      textResult(
        acceptedField(answer, "confirm") === true ? `Deleted ${job.input.filename}` : `Kept ${job.input.filename}`,
      ),
    );
  },
};

const multiInput: FixtureTool<Record<string, never>> = {
  name: "multi_input",
  description: "Asks two questions at once (a name and a confirmation); answer them together or one at a time.",
  inputSchema: z.object({}),
  observe(job) {
    const questions = {
      name: askFor("Which name?", "name", { type: "string", title: "Name" }),
      confirm: askFor("Proceed?", "confirm", { type: "boolean", title: "Proceed" }),
    };
    const outstanding = Object.fromEntries(Object.entries(questions).filter(([key]) => !job.answers[key]));
    if (Object.keys(outstanding).length > 0) {
      return {
        status: "input_required",
        rawStatus: "awaiting_input",
        message: `waiting for ${Object.keys(outstanding).join(" and ")}`,
        inputRequests: outstanding,
      };
    }
    const name = acceptedField(job.answers["name"], "name");
    const confirm = acceptedField(job.answers["confirm"], "confirm");
    return completed(textResult(`name: ${String(name ?? "(none)")}, confirmed: ${String(confirm === true)}`));
  },
};

const toolWithProgress: FixtureTool<Record<string, never>> = {
  name: "test_tool_with_progress",
  description: "Runs three half-second steps, reporting each as progress (notifications/progress to a waiting client).",
  inputSchema: z.object({}),
  synchronousWaitMs,
  observe(job, now) {
    const done = Math.min(3, Math.floor((now - job.startedAt) / 500));
    const progress = { progress: done, total: 3 };
    if (done < 3) return { ...working(`step ${done + 1}/3`), progress };
    return { ...completed(textResult("Three steps done.")), progress };
  },
};

const toolWithTask: FixtureTool<Record<string, never>> = {
  name: "test_tool_with_task",
  description: "Asks for your name before it starts (input-required result), then greets you from a task.",
  inputSchema: z.object({}),
  inputBeforeStart(_input, answers) {
    if (answers["user_name"]) return undefined;
    return { user_name: askFor("What is your name?", "name", { type: "string", title: "Name" }) };
  },
  observe(job, now) {
    if (now - job.startedAt < 500) return working("preparing the greeting");
    const name = acceptedField(job.startAnswers["user_name"], "name");
    return completed(
      textResult(typeof name === "string" && name !== "" ? `Hello, ${name}!` : "Hello, whoever you are!"),
    );
  },
};

/**
 * Every fixture the suite's tasks and tools scenarios name. A no-argument tool comes first: the suite's
 * header checks call the first listed tool with empty arguments.
 */
export const fixtureTools: readonly FixtureTool[] = [
  ...contentTools,
  ...askFirstTools,
  greet,
  slowCompute,
  failingJob,
  protocolErrorJob,
  confirmDelete,
  multiInput,
  toolWithTask,
  toolWithProgress,
  jsonSchema2020Tool,
  regionEcho,
];

function working(message: string): JobSnapshot {
  return { status: "working", rawStatus: "running", message };
}

function completed(result: NonNullable<JobSnapshot["result"]>): JobSnapshot {
  return { status: "completed", rawStatus: result.isError ? "failed" : "succeeded", result };
}
