import { randomBytes } from "node:crypto";
import { MemoizedTaskIdOpener, TaskIdSealer, type TaskReference } from "@jobtasks/server";
import { describeMachine, formatNumber, heading, markdownTable, measureInterleaved } from "./support/measure.js";

/**
 * What does a task id cost? Every tasks/get opens one, every tools/call seals one, and the id travels in
 * every request (body and Mcp-Name header), so its length matters too. Also: does rejecting a forged id
 * take measurably less time than opening a valid one (a timing oracle)?
 *
 * Run: node --import tsx bench/task-id-cost.ts
 */

const principal = "alice";
const createdAt = Date.UTC(2026, 0, 15, 9, 30);

/** Job references shaped like the real adapters' (GitHub Actions RunRef, AWS Batch BatchJobRef, REST path). */
const typicalReferences: Array<{ name: string; reference: TaskReference }> = [
  {
    name: "GitHub run {owner, repo, runId, attempt}",
    reference: {
      instance: "github",
      tool: "deploy_production",
      createdAt,
      ref: { owner: "acme-platform", repo: "payments-service", runId: 14_839_204_117, attempt: 1 },
    },
  },
  {
    name: "AWS Batch {jobId, submittedAt}",
    reference: {
      instance: "batch",
      tool: "nightly_etl",
      createdAt,
      ref: { jobId: "5f0a7c4e-2b1d-4c6e-9a8f-3e2d1c0b9a87", submittedAt: createdAt },
    },
  },
  {
    name: "REST status path (~200 chars)",
    reference: {
      instance: "rest",
      tool: "render_report",
      createdAt,
      ref: {
        statusPath:
          "/v2/projects/acme-platform-production-eu-west-1/locations/europe-west1/operations/" +
          "render-report-2026-01-15T09-30-00Z-7b3f9c2e-4d1a-4e8b-b6c5-0f9e8d7c6b5a?view=FULL&include=progress",
      },
    },
  },
];

function flipOneCharacter(taskId: string, position: number): string {
  const original = taskId[position]!;
  const replacement = original === "A" ? "B" : "A";
  return taskId.slice(0, position) + replacement + taskId.slice(position + 1);
}

function interleaved(operations: ReadonlyArray<(index: number) => void>) {
  // A short discarded pass first, so JIT warm-up is not charged to whichever case runs first.
  measureInterleaved(operations, { batchSize: 200, maxRounds: 10, maxMilliseconds: 200 });
  return measureInterleaved(operations, { batchSize: 200, maxRounds: 2_000, maxMilliseconds: 2_500 });
}

export function runTaskIdCost(): void {
  const sealer = new TaskIdSealer({ secret: randomBytes(32).toString("base64url") });
  heading("Task ids: seal/open cost and length");
  const taskIds = typicalReferences.map(({ reference }) => sealer.seal(reference, principal));
  const operations = typicalReferences.flatMap(({ reference }, which) => [
    () => {
      sealer.seal(reference, principal);
    },
    () => {
      if (!sealer.open(taskIds[which]!, principal)) throw new Error("a valid id did not open");
    },
  ]);
  const rates = interleaved(operations);
  console.log(
    markdownTable(
      ["reference", "ref JSON chars", "task id chars", "seal/s", "seal µs", "open/s", "open µs"],
      typicalReferences.map(({ name, reference }, which) => {
        const sealed = rates[which * 2]!;
        const opened = rates[which * 2 + 1]!;
        return [
          name,
          JSON.stringify(reference.ref).length,
          taskIds[which]!.length,
          formatNumber(sealed.perSecond),
          formatNumber(sealed.microsecondsEach, 1),
          formatNumber(opened.perSecond),
          formatNumber(opened.microsecondsEach, 1),
        ];
      }),
    ),
  );

  heading("Task ids: opening a valid id vs rejecting a forged one (GitHub ref)");
  const reference = typicalReferences[0]!.reference;
  const taskId = taskIds[0]!;
  const otherServer = new TaskIdSealer({ secret: randomBytes(32).toString("base64url") });
  // Each forgery reaches a different depth of open(); the ones that reach AES-GCM are the interesting ones.
  const cases: Array<{ name: string; taskId: string; principal: string; opens: boolean; memoized?: boolean }> = [
    { name: "valid id", taskId, principal, opens: true },
    {
      name: "valid id, again, through the server's memo (MemoizedTaskIdOpener)",
      taskId,
      principal,
      opens: true,
      memoized: true,
    },
    {
      name: "one ciphertext char flipped",
      taskId: flipOneCharacter(taskId, taskId.length - 30),
      principal,
      opens: false,
    },
    { name: "auth tag char flipped", taskId: flipOneCharacter(taskId, taskId.length - 3), principal, opens: false },
    { name: "another principal's id", taskId, principal: "mallory", opens: false },
    { name: "unknown key id (other server)", taskId: otherServer.seal(reference, principal), principal, opens: false },
    { name: "garbage string", taskId: "not-a-task-id", principal, opens: false },
  ];
  const memo = new MemoizedTaskIdOpener(sealer);
  const results = interleaved(
    cases.map((forgery) => () => {
      const opened = (forgery.memoized ? memo : sealer).open(forgery.taskId, forgery.principal) !== undefined;
      if (opened !== forgery.opens) throw new Error(`${forgery.name}: expected opens=${forgery.opens}`);
    }),
  );
  const validMicroseconds = results[0]!.microsecondsEach;
  console.log(
    markdownTable(
      ["case", "µs per open", "ops/s", "vs valid"],
      cases.map((forgery, which) => {
        const result = results[which]!;
        return [
          forgery.name,
          formatNumber(result.microsecondsEach, 2),
          formatNumber(result.perSecond),
          `${formatNumber(result.microsecondsEach / validMicroseconds, 2)}×`,
        ];
      }),
    ),
  );
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(describeMachine());
  runTaskIdCost();
}
