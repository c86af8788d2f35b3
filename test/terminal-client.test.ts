import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { createServer, request, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { RunningDemoApi } from "@jobtasks/demo";
import { Cleanup, randomSecret } from "./support/in-process-server.js";
import { startDemoApiForTests, startDemoStack, type DemoStack } from "./support/demo-stack.js";
import { cliEnvironment, startCliHttpServer } from "./support/cli-process.js";
import { jsonLines, runCli, runInPty, runInTmux, startCli, stdioServerCommand } from "./support/terminal-client.js";

/**
 * `jobtasks call`, `watch` and `task` against the demo, over Streamable HTTP (an in-process server) and
 * over stdio (the CLI spawning `jobtasks serve --stdio`), judged by exit codes and what is printed.
 */

// Each test starts several CLI processes (over stdio, a server for every command too): on a loaded
// 2-core machine one test can take longer than the suite's 20 s default, with nothing wrong.
vi.setConfig({ testTimeout: 60_000 });

const cleanup = new Cleanup();
afterEach(() => cleanup.run());

let home: string;
beforeAll(async () => {
  // Never the real home: a stdio server keeps a generated secret under XDG_CONFIG_HOME.
  home = await mkdtemp(join(tmpdir(), "jobtasks-terminal-"));
});
afterAll(async () => {
  if (home) await rm(home, { recursive: true, force: true });
});

interface Target {
  /** What names the server on the command line: the URL, or --stdio "<command>". */
  args: string[];
  env: Record<string, string>;
  close(): Promise<void>;
}

async function httpTarget(): Promise<Target> {
  // The REST adapter's demo-api preset, as the shipped demo config serves it (its results carry the log).
  const stack: DemoStack = await startDemoStack({ adapter: "rest" });
  return { args: [stack.server.url], env: {}, close: () => stack.close() };
}

async function stdioTarget(): Promise<Target> {
  const api: RunningDemoApi = await startDemoApiForTests();
  // Every stdio server these tests spawn shares the secret, as restarted replicas would.
  const env = {
    DEMO_API_URL: api.url,
    JOBTASKS_SECRET: randomSecret(),
    XDG_CONFIG_HOME: home,
    HOME: home,
    JOBTASKS_LOG_LEVEL: "warn",
  };
  return { args: ["--stdio", stdioServerCommand()], env, close: () => api.close() };
}

describe.each([
  ["Streamable HTTP", httpTarget],
  ["stdio", stdioTarget],
] as const)("jobtasks call over %s", (_label, makeTarget) => {
  let target: Target;
  beforeAll(async () => {
    target = await makeTarget();
  });
  afterAll(() => target?.close());

  const call = (...args: string[]) => ["call", ...target.args, "demo_pipeline", ...args];

  it("runs a pipeline to completion: exit 0, the task id, the result text and its structured content", async () => {
    const result = await runCli(call("--arg", "steps=2", "--arg", "stepMs=20"), target.env);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toMatch(/^task jt1\.[\w-]+\.[\w-]+$/m);
    expect(result.stderr).toMatch(/✔ completed in \d+s/);
    expect(result.stdout).toMatch(/^Pipeline demo-pipeline succeeded/);
    expect(result.stdout).toContain('"status": "succeeded"');
  });

  it("a failing pipeline exits 1; --json prints one line per change and the result last", async () => {
    const result = await runCli(call("--args", '{"steps": 2, "stepMs": 20, "fail": true}', "--json"), target.env);
    expect(result.code, result.stderr).toBe(1);
    const lines = jsonLines(result.stdout);
    const last = lines.at(-1)!;
    expect(last).toMatchObject({
      type: "result",
      status: "completed",
      exitCode: 1,
      result: { isError: true, structuredContent: { status: "failed" } },
    });
    expect(lines[0]).toMatchObject({ type: "task", status: "working", taskId: expect.stringMatching(/^jt1\./) });
    expect(new Set(lines.map((line) => line["taskId"]))).toEqual(new Set([lines[0]!["taskId"]]));
    expect(lines.slice(0, -1).every((line) => line["type"] === "task")).toBe(true);
  });

  it("cancelled from another process with task cancel: exit 3", async () => {
    // 20 × 5 s: the job cannot end before the cancel, however slow the machine; the cancel ends it.
    const running = startCli(call("--arg", "steps=20", "--arg", "stepMs=5000", "--json"), target.env);
    const taskId = JSON.parse(await running.waitForLine(/"type":"task"/))["taskId"] as string;
    const cancel = await runCli(["task", "cancel", ...target.args, taskId], target.env);
    expect(cancel.code, cancel.stderr).toBe(0);
    const result = await running.done;
    expect(result.code, result.stderr).toBe(3);
    expect(jsonLines(result.stdout).at(-1)).toMatchObject({ type: "result", status: "cancelled", exitCode: 3, taskId });
  });

  it("--timeout stops following with exit 4 and leaves the task running, with the watch command", async () => {
    const result = await runCli(
      call("--arg", "steps=20", "--arg", "stepMs=5000", "--timeout", "1s", "--json"),
      target.env,
    );
    expect(result.code, result.stderr).toBe(4);
    const last = jsonLines(result.stdout).at(-1)!;
    expect(last).toMatchObject({
      type: "timeout",
      message: "timed out after 1s; the task goes on",
      resume: [expect.stringContaining(`jobtasks watch `)],
      exitCode: 4,
    });
    const got = await runCli(["task", "get", ...target.args, last["taskId"] as string, "--json"], target.env);
    expect(jsonLines(got.stdout)[0]!["status"]).toBe("working");
    await runCli(["task", "cancel", ...target.args, last["taskId"] as string], target.env);
  });

  it("answers the approval from --answer flags, and declines it from --answers", async () => {
    const approved = await runCli(
      call(
        "--arg",
        "steps=2",
        "--arg",
        "stepMs=20",
        "--arg",
        "approval=true",
        "--answer",
        "approve=true",
        "--answer",
        "comment=approved by flags",
      ),
      target.env,
    );
    expect(approved.code, approved.stderr).toBe(0);
    expect(approved.stdout).toContain("Approved: approved by flags");
    const declined = await runCli(
      call(
        "--arg",
        "steps=2",
        "--arg",
        "stepMs=20",
        "--arg",
        "approval=true",
        "--answers",
        '{"*": {"action": "decline"}}',
      ),
      target.env,
    );
    expect(declined.code, declined.stderr).toBe(1);
    expect(declined.stdout).toMatch(/rejected/);
  });

  it("without a terminal an unanswered approval exits 4 and says what was asked; task answer and watch finish it", async () => {
    const asked = await runCli(
      call("--arg", "steps=2", "--arg", "stepMs=20", "--arg", "approval=true", "--json"),
      target.env,
    );
    expect(asked.code, asked.stderr).toBe(4);
    const last = jsonLines(asked.stdout).at(-1)!;
    expect(last).toMatchObject({ type: "unanswered", taskId: expect.stringMatching(/^jt1\./) });
    const [request] = last["unanswered"] as Array<{
      inputKey: string;
      fields: Array<{ name: string; kind: string; required: boolean }>;
    }>;
    expect(request!.fields).toContainEqual(
      expect.objectContaining({ name: "approve", kind: "boolean", required: true }),
    );
    const taskId = last["taskId"] as string;

    const got = await runCli(["task", "get", ...target.args, taskId, "--json"], target.env);
    expect(got.code, got.stderr).toBe(0);
    expect(jsonLines(got.stdout)[0]).toMatchObject({
      status: "input_required",
      inputRequests: { [request!.inputKey]: { method: "elicitation/create" } },
    });

    const wrong = await runCli(
      ["task", "answer", ...target.args, taskId, "--answer", `${request!.inputKey}.approve=perhaps`],
      target.env,
    );
    expect(wrong.code).toBe(4);
    expect(wrong.stderr).toContain('approve: expected true or false, got "perhaps"');
    const answered = await runCli(
      ["task", "answer", ...target.args, taskId, "--answer", `${request!.inputKey}.approve=yes`],
      target.env,
    );
    expect(answered.code, answered.stderr).toBe(0);
    const watched = await runCli(["watch", ...target.args, taskId], target.env);
    expect(watched.code, watched.stderr).toBe(0);
    expect(watched.stdout).toMatch(/succeeded/);
  });

  it("asks for the approval at a prompt in a terminal, and the answer typed there reaches the job", async () => {
    const run = await runInPty(call("--arg", "steps=2", "--arg", "stepMs=20", "--arg", "approval=true"), target.env, [
      { waitFor: /fill in the form/, send: "\r" },
      { waitFor: /Yes \/ . No/, send: "y" },
      { waitFor: /Comment \(optional\)/, send: "typed at the prompt\r" },
    ]);
    expect(run.code, run.screen).toBe(0);
    expect(run.screen).toContain("Approved: typed at the prompt");
    expect(run.screen).toMatch(/✔ completed/);
  });

  it("task answer asks at a prompt in a terminal for a task that waits for input", async () => {
    const asked = await runCli(
      call("--arg", "steps=2", "--arg", "stepMs=20", "--arg", "approval=true", "--json"),
      target.env,
    );
    expect(asked.code, asked.stderr).toBe(4);
    const taskId = jsonLines(asked.stdout).at(-1)!["taskId"] as string;
    const answered = await runInPty(["task", "answer", ...target.args, taskId], target.env, [
      { waitFor: /fill in the form/, send: "\r" },
      { waitFor: /Yes \/ . No/, send: "n" },
      { waitFor: /Comment \(optional\)/, send: "not now\r" },
    ]);
    expect(answered.code, answered.screen).toBe(0);
    expect(answered.screen).toMatch(/answered appr_/);
    const watched = await runCli(["watch", ...target.args, taskId, "--json"], target.env);
    expect(watched.code, watched.stderr).toBe(1);
    expect(jsonLines(watched.stdout).at(-1)).toMatchObject({
      type: "result",
      result: { isError: true, structuredContent: { status: "rejected", approvalComment: "not now" } },
    });
  });

  it("Ctrl-C asks whether to cancel or detach; cancel ends the task cancelled (exit 3)", async () => {
    const run = await runInPty(call("--arg", "steps=20", "--arg", "stepMs=5000"), target.env, [
      { waitFor: /working: step \d+\/20/, send: "\x03" },
      // "detach" is the highlighted default; "cancel the task" is two down.
      { waitFor: /Stop following this task\?[\s\S]*● detach[\s\S]*cancel the task/, send: "\x1b[B\x1b[B\r" },
    ]);
    expect(run.code, run.screen).toBe(3);
    expect(run.screen).toMatch(/■ cancelled after/);
  });
});

describe("jobtasks call when the task moves on without the terminal", () => {
  let stack: DemoStack;
  beforeAll(async () => {
    stack = await startDemoStack({ adapter: "rest" });
  });
  afterAll(() => stack?.close());
  const approval = () => [
    "call",
    stack.server.url,
    "demo_pipeline",
    "--arg",
    "steps=2",
    "--arg",
    "stepMs=20",
    "--arg",
    "approval=true",
  ];
  const taskIdOn = (screen: string) => /^task (jt1\.\S+)$/m.exec(screen)?.[1];

  it("--timeout while the approval prompt is open closes the prompt and exits 4 at once", async () => {
    const run = await runInPty([...approval(), "--timeout", "4s"], {}, [{ waitFor: /fill in the form/, send: "" }]);
    expect(run.code, run.screen).toBe(4);
    expect(run.screen).toContain("timed out after 4s; the task goes on");
    const taskId = taskIdOn(run.screen);
    expect(run.screen).toContain(`jobtasks watch ${stack.server.url} ${taskId}`);
    await runCli(["task", "cancel", stack.server.url, taskId!], {});
  });

  it("the approval's Yes/No moves with the arrows and never toggles; it starts at No and needs an explicit Yes", async () => {
    const answer = (keys: string) =>
      runInPty(approval(), {}, [
        { waitFor: /fill in the form/, send: "\r" },
        { waitFor: /Yes \/ . No/, send: keys },
        { waitFor: /Comment \(optional\)/, send: "\r" },
      ]);
    // → on No (to be sure of No) stays on No; Enter alone answers No; ← moves to Yes.
    for (const keys of ["\x1b[C\r", "\x1b[C\x1b[C\r", "\r", "\x1b[D\x1b[B\r"]) {
      const run = await answer(keys);
      expect(run.code, `${JSON.stringify(keys)}\n${run.screen}`).toBe(1);
      expect(run.screen).toMatch(/rejected/);
    }
    const approved = await answer("\x1b[D\x1b[D\r");
    expect(approved.code, approved.screen).toBe(0);
    expect(approved.screen).toMatch(/✔ completed/);
  });

  it("after the approval form, the screen keeps no stale progress line and no blank lines from the closed prompts", async () => {
    const run = await runInTmux(
      ["call", stack.server.url, "demo_pipeline", "--arg", "steps=2", "--arg", "stepMs=1500", "--arg", "approval=true"],
      {},
      [
        { waitFor: /fill in the form/, send: "\r" },
        { waitFor: /Yes \/ . No/, send: "y" },
        { waitFor: /Comment \(optional\)/, send: "fine\r" },
      ],
    );
    expect(run.code, run.screen).toBe(0);
    expect(run.screen).toMatch(/✔ completed/);
    // The progress line drawn while the question was open is gone once the job went on.
    expect(run.screen, run.screen).not.toMatch(/input_required/);
    expect(run.screen, run.screen).not.toMatch(/\n\s*\n\s*\n[\s\S]*✔ completed/);
  });

  it("a question answered elsewhere: the form is drawn closed, and the message saying so stays on the screen", async () => {
    const run = await runInTmux(approval(), {}, [
      {
        waitFor: /fill in the form/,
        send: async (screen) => {
          const answered = await runCli(
            [
              "task",
              "answer",
              stack.server.url,
              taskIdOn(screen)!,
              "--answer",
              "approve=true",
              "--answer",
              "comment=there",
            ],
            {},
          );
          expect(answered.code, answered.stderr).toBe(0);
          return "";
        },
      },
    ]);
    expect(run.code, run.screen).toBe(0);
    expect(run.screen).toMatch(/input appr_\S+ is no longer asked/);
    // ◆ marks an open prompt: none is left drawn as if it still waited for keys.
    expect(run.screen, run.screen).not.toContain("◆");
    expect(run.screen).toMatch(/✔ completed/);
  });

  it("a question answered from another terminal closes the prompt, and call follows the task to its end", async () => {
    const run = await runInPty(approval(), {}, [
      {
        waitFor: /fill in the form/,
        send: async (screen) => {
          const answered = await runCli(
            [
              "task",
              "answer",
              stack.server.url,
              taskIdOn(screen)!,
              "--answer",
              "approve=true",
              "--answer",
              "comment=from elsewhere",
            ],
            {},
          );
          expect(answered.code, answered.stderr).toBe(0);
          return "";
        },
      },
    ]);
    expect(run.code, run.screen).toBe(0);
    expect(run.screen).toMatch(/input appr_\S+ is no longer asked/);
    expect(run.screen).toContain("Approved: from elsewhere");
    expect(run.screen).toMatch(/✔ completed/);
  });

  it("an --answer the form refuses exits 4 with the commands that answer and resume; an unknown field is named", async () => {
    const result = await runCli([...approval(), "--answer", "approve=maybe", "--answer", "nosuch=1", "--json"], {});
    expect(result.code, result.stderr).toBe(4);
    expect(result.stderr).toMatch(
      /warning: --answer nosuch: input appr_\S+ has no field "nosuch" \(fields: approve, comment\)/,
    );
    const last = jsonLines(result.stdout).at(-1)!;
    expect(last).toMatchObject({
      type: "unanswered",
      exitCode: 4,
      message: expect.stringContaining('approve: expected true or false, got "maybe"'),
    });
    expect(last["resume"]).toEqual([
      expect.stringContaining(`jobtasks task answer ${stack.server.url} ${last["taskId"]} --answer appr_`),
      `jobtasks watch ${stack.server.url} ${last["taskId"]}`,
    ]);
    await runCli(["task", "cancel", stack.server.url, last["taskId"] as string], {});
  });

  it("says --json is why nothing was asked", async () => {
    const result = await runCli([...approval(), "--json"], {});
    expect(result.code, result.stderr).toBe(4);
    expect(jsonLines(result.stdout).at(-1)).toMatchObject({
      type: "unanswered",
      exitCode: 4,
      message: expect.stringContaining("(--json never asks)"),
    });
  });

  it("task cancel on a task that has already ended says how it ended and exits with that ending", async () => {
    const done = await runCli(
      ["call", stack.server.url, "demo_pipeline", "--args", '{"steps": 1, "stepMs": 10, "fail": true}', "--json"],
      {},
    );
    expect(done.code, done.stderr).toBe(1);
    const taskId = jsonLines(done.stdout).at(-1)!["taskId"] as string;
    const cancel = await runCli(["task", "cancel", stack.server.url, taskId], {});
    expect(cancel.code).toBe(1);
    expect(cancel.stderr).toContain(`task ${taskId} had already ended: completed; nothing to cancel`);
  });

  it("a tool it does not have is named, with the server's tools but not the handle tools", async () => {
    const result = await runCli(["call", stack.server.url, "no_such_tool"], {});
    expect(result.code).toBe(4);
    expect(result.stderr).toMatch(/this server has no tool "no_such_tool"; it has: .*demo_pipeline/);
    expect(result.stderr).not.toMatch(/task_status|task_answer|task_cancel/);
  });

  it("prints a URL's credentials and query values nowhere, not in the watch hint", async () => {
    const url = new URL(stack.server.url);
    url.search = "?token=s3cr3t-query";
    const result = await runCli(
      [
        "call",
        url.toString(),
        "demo_pipeline",
        "--arg",
        "steps=20",
        "--arg",
        "stepMs=5000",
        "--timeout",
        "1s",
        "--json",
      ],
      {},
    );
    expect(result.code, result.stderr).toBe(4);
    const last = jsonLines(result.stdout).at(-1)!;
    expect(last["resume"]).toEqual([`jobtasks watch '${stack.server.url}?token=***' ${last["taskId"]}`]);
    expect(result.stdout + result.stderr).not.toContain("s3cr3t-query");
    await runCli(["task", "cancel", stack.server.url, last["taskId"] as string], {});
  });
});

describe("jobtasks call with bearer tokens", () => {
  const aliceToken = "alice-terminal-token-0123456789";
  let stack: DemoStack;
  beforeAll(async () => {
    stack = await startDemoStack({ tokens: `alice:${aliceToken}`, adapter: "rest" });
  });
  afterAll(() => stack?.close());

  it("sends --token or JOBTASKS_TOKEN as the bearer token; without one it cannot connect (exit 4)", async () => {
    const call = ["call", stack.server.url, "demo_pipeline", "--arg", "steps=1", "--arg", "stepMs=10"];
    const refused = await runCli(call, {});
    expect(refused.code).toBe(4);
    expect(refused.stderr).toMatch(
      new RegExp(`^cannot connect to ${stack.server.url.replace(/[.]/g, "\\.")}: .*401`, "m"),
    );
    const byFlag = await runCli([...call, "--token", aliceToken], {});
    expect(byFlag.code, byFlag.stderr).toBe(0);
    const byEnvironment = await runCli(call, { JOBTASKS_TOKEN: aliceToken });
    expect(byEnvironment.code, byEnvironment.stderr).toBe(0);
    for (const output of [refused, byFlag, byEnvironment])
      expect(output.stdout + output.stderr).not.toContain(aliceToken);
  });

  it("warns that --token and ?token= show in ps; --token-file and JOBTASKS_TOKEN keep the token off the command line", async () => {
    const call = ["call", stack.server.url, "demo_pipeline", "--arg", "steps=1", "--arg", "stepMs=10"];
    const byFlag = await runCli([...call, "--token", aliceToken], {});
    expect(byFlag.code, byFlag.stderr).toBe(0);
    expect(byFlag.stderr).toMatch(
      /^warning: --token is visible to every user of this machine \(ps\).*JOBTASKS_TOKEN.*--token-file/m,
    );
    const inQuery = await runCli(
      ["call", `${stack.server.url}?token=${aliceToken}`, "demo_pipeline", "--timeout", "1s"],
      {},
    );
    expect(inQuery.stderr).toMatch(
      /^warning: the URL's token= query value is visible to every user of this machine \(ps\)/m,
    );
    expect(inQuery.stderr).not.toContain(aliceToken);
    const file = join(home, "alice-token");
    await writeFile(file, `${aliceToken}\n`, { mode: 0o600 });
    const byFile = await runCli([...call, "--token-file", file], {});
    expect(byFile.code, byFile.stderr).toBe(0);
    const byEnvironment = await runCli(call, { JOBTASKS_TOKEN: aliceToken });
    for (const quiet of [byFile, byEnvironment]) expect(quiet.stderr).not.toMatch(/warning/);
    const missing = await runCli([...call, "--token-file", join(home, "no-such-file")], {});
    expect(missing.code).toBe(4);
    expect(missing.stderr).toMatch(/--token-file .*no-such-file: cannot read it \(ENOENT\)/);
  });
});

describe("jobtasks call at a URL that is not an MCP endpoint", () => {
  it("names the HTTP status it got; user:password@ in the URL goes as Basic credentials and is printed nowhere", async () => {
    const seen: IncomingHttpHeaders[] = [];
    const notFound = createServer((incoming, outgoing) => {
      seen.push(incoming.headers);
      incoming.resume();
      outgoing.writeHead(404, { "content-type": "text/plain" }).end("no such page");
    });
    await new Promise<void>((resolve) => notFound.listen(0, "127.0.0.1", resolve));
    cleanup.add({ close: () => new Promise<void>((resolve) => notFound.close(() => resolve())) });
    const origin = `http://127.0.0.1:${(notFound.address() as AddressInfo).port}`;
    const result = await runCli(["call", `http://someone:pa55word@${origin.slice(7)}/nope`, "demo_pipeline"], {});
    expect(result.code).toBe(4);
    expect(result.stderr).toContain(
      `HTTP 404 Not Found from ${origin}/nope — is this the MCP endpoint (http://host:port/mcp)?`,
    );
    expect(result.stdout + result.stderr).not.toMatch(/pa55word|someone/);
    expect(seen[0]?.["authorization"]).toBe(`Basic ${Buffer.from("someone:pa55word").toString("base64")}`);
  });

  it("a bad %-escape in user:password@ is a usage error naming the part, with neither printed", async () => {
    for (const [credentials, part] of [
      ["us%ZZer:pa55word", "user name"],
      ["someone:pa%ZZss", "password"],
    ] as const) {
      const result = await runCli(["call", `http://${credentials}@127.0.0.1:1/mcp`, "demo_pipeline"], {});
      expect(result.code, result.stderr).toBe(4);
      expect(result.stderr).toContain(
        `"http://127.0.0.1:1/mcp": the ${part} in the URL's user:password@ has a bad %-escape`,
      );
      expect(result.stderr).toMatch(/Usage: jobtasks call/);
      expect(result.stdout + result.stderr).not.toMatch(
        /URIError|at decodeURIComponent|pa55word|pa%ZZss|someone|us%ZZer/,
      );
    }
  });
});

/** A gateway in front of the server that only lets through requests carrying its key, and records headers. */
async function startGateway(upstreamUrl: string, key: string) {
  const upstream = new URL(upstreamUrl);
  const seen: IncomingHttpHeaders[] = [];
  const gateway = createServer((incoming, outgoing) => {
    seen.push(incoming.headers);
    if (incoming.headers["x-gateway-key"] !== key) {
      outgoing.writeHead(403).end("gateway key required");
      return;
    }
    const forwarded = request(
      {
        host: upstream.hostname,
        port: upstream.port,
        path: incoming.url,
        method: incoming.method,
        headers: { ...incoming.headers, host: upstream.host },
      },
      (answer) => {
        outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(outgoing);
      },
    );
    forwarded.on("error", () => outgoing.destroy());
    incoming.pipe(forwarded);
  });
  await new Promise<void>((resolve) => gateway.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(gateway.address() as AddressInfo).port}${upstream.pathname}`;
  return { url, seen, close: () => new Promise<void>((resolve) => gateway.close(() => resolve())) };
}

describe("jobtasks call through a gateway that needs its own header", () => {
  it("sends every --header on every request, the tasks/* ones included", async () => {
    const stack = await startDemoStack({ adapter: "rest" });
    const gateway = await startGateway(stack.server.url, "open-sesame");
    try {
      const refused = await runCli(["call", gateway.url, "demo_pipeline", "--arg", "steps=1"], {});
      expect(refused.code).toBe(4);
      const passed = await runCli(
        [
          "call",
          gateway.url,
          "demo_pipeline",
          "--arg",
          "steps=1",
          "--arg",
          "stepMs=10",
          "-H",
          "X-Gateway-Key: open-sesame",
          "--header",
          "X-Team:ci",
        ],
        {},
      );
      expect(passed.code, passed.stderr).toBe(0);
      const withKey = gateway.seen.filter((headers) => headers["x-gateway-key"] === "open-sesame");
      expect(withKey.length).toBeGreaterThan(2);
      expect(withKey.every((headers) => headers["x-team"] === "ci")).toBe(true);
      expect(withKey.some((headers) => headers["mcp-method"] === "tasks/get")).toBe(true);
    } finally {
      await gateway.close();
      await stack.close();
    }
  });
});

describe("detach, restart the server, watch", () => {
  let api: RunningDemoApi;
  beforeAll(async () => {
    api = await startDemoApiForTests();
  });
  afterAll(() => api?.close());

  it("over HTTP: Ctrl-C at the approval, detach, SIGKILL the server, start it again, watch finishes the task", async () => {
    const env = cliEnvironment({
      DEMO_API_URL: api.url,
      JOBTASKS_SECRET: randomSecret(),
      XDG_CONFIG_HOME: home,
      HOME: home,
    });
    const first = cleanup.add(await startCliHttpServer({ env }));
    const detached = await runInPty(
      ["call", first.url, "demo_pipeline", "--arg", "steps=2", "--arg", "stepMs=20", "--arg", "approval=true"],
      {},
      [
        { waitFor: /fill in the form/, send: "\x03" },
        // Enter takes the highlighted default, which leaves the task alone.
        { waitFor: /Stop following this task\?[\s\S]*cancel the task/, send: "\r" },
      ],
    );
    expect(detached.code, detached.screen).toBe(130);
    expect(detached.screen).toContain("detached: the task goes on");
    const taskId = /^task (jt1\.\S+)$/m.exec(detached.screen)?.[1];
    expect(taskId, detached.screen).toBeDefined();
    expect(detached.screen).toContain(`jobtasks watch ${first.url} ${taskId}`);

    await first.kill();
    const second = cleanup.add(await startCliHttpServer({ env, port: Number(new URL(first.url).port) }));
    expect(second.url).toBe(first.url);
    const watched = await runCli(["watch", second.url, taskId!, "--answer", "approve=true", "--json"], {});
    expect(watched.code, watched.stderr).toBe(0);
    expect(jsonLines(watched.stdout).at(-1)).toMatchObject({
      type: "result",
      taskId,
      status: "completed",
      result: { structuredContent: { status: "succeeded" } },
    });
  });

  it("over HTTP: losing the server mid-follow exits 4 with the watch command, not as a failed task", async () => {
    const env = cliEnvironment({
      DEMO_API_URL: api.url,
      JOBTASKS_SECRET: randomSecret(),
      XDG_CONFIG_HOME: home,
      HOME: home,
    });
    const first = cleanup.add(await startCliHttpServer({ env }));
    const running = startCli(
      ["call", first.url, "demo_pipeline", "--arg", "steps=3", "--arg", "stepMs=10000", "--json"],
      {},
    );
    const taskId = JSON.parse(await running.waitForLine(/"type":"task"/))["taskId"] as string;
    await first.kill();
    const lost = await running.done;
    expect(lost.code, lost.stderr).toBe(4);
    expect(jsonLines(lost.stdout).at(-1)).toMatchObject({
      type: "disconnected",
      taskId,
      exitCode: 4,
      message: expect.stringMatching(/^lost the server \(.+\); the task goes on there$/),
      resume: [`jobtasks watch ${first.url} ${taskId}`],
    });

    // The job went on upstream: a server started again still has it working, and cancels it.
    const second = cleanup.add(await startCliHttpServer({ env, port: Number(new URL(first.url).port) }));
    const got = await runCli(["task", "get", second.url, taskId, "--json"], {});
    expect(jsonLines(got.stdout)[0]!["status"]).toBe("working");
    await runCli(["task", "cancel", second.url, taskId], {});
  });

  it("over stdio: SIGINT without a terminal detaches (exit 130); watch starts a new server process and finishes the task", async () => {
    const env = {
      DEMO_API_URL: api.url,
      JOBTASKS_SECRET: randomSecret(),
      XDG_CONFIG_HOME: home,
      HOME: home,
      JOBTASKS_LOG_LEVEL: "warn",
    };
    const target = ["--stdio", stdioServerCommand()];
    // 8 × 1 s: still running when the SIGINT lands on a loaded machine, short enough for watch to finish.
    const running = startCli(
      ["call", ...target, "demo_pipeline", "--arg", "steps=8", "--arg", "stepMs=1000", "--json"],
      env,
    );
    const taskId = JSON.parse(await running.waitForLine(/"type":"task"/))["taskId"] as string;
    running.signal("SIGINT");
    const detached = await running.done;
    expect(detached.code, `${detached.signal} ${detached.stderr}`).toBe(130);
    expect(jsonLines(detached.stdout).at(-1)).toMatchObject({
      type: "detached",
      taskId,
      resume: [expect.stringContaining(`jobtasks watch --stdio '`)],
    });

    // The first server process ended with its client; this one only shares the secret.
    const watched = await runCli(["watch", ...target, taskId, "--json"], env);
    expect(watched.code, watched.stderr).toBe(0);
    expect(jsonLines(watched.stdout).at(-1)).toMatchObject({
      type: "result",
      taskId,
      status: "completed",
      exitCode: 0,
    });
  });
});
