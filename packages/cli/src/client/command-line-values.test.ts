import { describe, expect, it } from "vitest";
import { parseDuration } from "./parse-duration.js";
import { progressFraction, renderProgressLine } from "./progress-line.js";
import { splitCommandLine } from "./split-command-line.js";
import { readToolArguments } from "./tool-arguments.js";
import { resolveTarget } from "./client-options.js";

describe("values read from the command line", () => {
  it("splits --stdio like a shell: quotes and escapes, no expansion", () => {
    expect(splitCommandLine(`node "my dir/bin.js" serve --config 'a b.yaml' --stdio`)).toEqual([
      "node",
      "my dir/bin.js",
      "serve",
      "--config",
      "a b.yaml",
      "--stdio",
    ]);
    expect(splitCommandLine(`echo a\\ b "say \\"hi\\"" '$HOME' ""`)).toEqual(["echo", "a b", 'say "hi"', "$HOME", ""]);
    expect(() => splitCommandLine(`node "unclosed`)).toThrow('unclosed " quote');
  });

  it("reads --arg by the type the tool's schema gives, over --args", () => {
    const tool = {
      name: "t",
      inputSchema: {
        type: "object" as const,
        properties: {
          steps: { type: "integer" },
          label: { type: "string" },
          approval: { type: "boolean" },
          tags: { type: "array" },
        },
      },
    };
    expect(
      readToolArguments(["steps=4", "label=007", "approval=true", 'tags=["a"]'], '{"steps": 2, "fail": true}', tool),
    ).toEqual({ steps: 4, fail: true, label: "007", approval: true, tags: ["a"] });
    expect(() => readToolArguments(["steps=four"], undefined, tool)).toThrow(
      "--arg steps=four: the tool expects a number",
    );
    expect(readToolArguments(["n=3", "s=text"], undefined, undefined)).toEqual({ n: 3, s: "text" });
    expect(() => readToolArguments([], "[1]", tool)).toThrow("--args: expected a JSON object");
  });

  it("reads durations for --timeout", () => {
    expect([
      parseDuration("90"),
      parseDuration("30s"),
      parseDuration("5m"),
      parseDuration("1h"),
      parseDuration("250ms"),
    ]).toEqual([90_000, 30_000, 300_000, 3_600_000, 250]);
    expect([parseDuration("soon"), parseDuration("0"), parseDuration("-1s")]).toEqual([
      undefined,
      undefined,
      undefined,
    ]);
  });

  it("sends the token and headers over HTTP, and refuses them with --stdio", () => {
    const resolved = resolveTarget(
      ["http://127.0.0.1:1/mcp", "tool"],
      { header: ["X-Gateway: g1"] },
      { JOBTASKS_TOKEN: "from-env" },
    );
    expect(resolved.target).toEqual({
      kind: "http",
      url: "http://127.0.0.1:1/mcp",
      headers: { "X-Gateway": "g1", Authorization: "Bearer from-env" },
    });
    expect(resolved.display).not.toContain("from-env");
    const warnings: string[] = [];
    expect(
      resolveTarget(["http://127.0.0.1:1/mcp"], { token: "flag" }, { JOBTASKS_TOKEN: "env" }, (text) =>
        warnings.push(text),
      ).target,
    ).toMatchObject({ headers: { Authorization: "Bearer flag" } });
    expect(warnings).toEqual([expect.stringMatching(/^--token is visible to every user of this machine \(ps\)/)]);
    expect(() => resolveTarget(["tool"], { stdio: "jobtasks serve --stdio", token: "t" })).toThrow(
      /--token, --token-file and --header apply to HTTP/,
    );
    expect(resolveTarget(["tool"], { stdio: "jobtasks serve --stdio" }).target).toEqual({
      kind: "stdio",
      command: "jobtasks",
      args: ["serve", "--stdio"],
    });
    expect(() => resolveTarget(["ftp://x"], {})).toThrow(/expected an http:\/\/ or https:\/\/ URL/);
  });

  it("shows a bar only when the status message says how far along the job is", () => {
    expect(progressFraction("step 3/4: test")).toBe(0.5);
    expect(progressFraction("RUNNING (40%)")).toBe(0.4);
    expect(progressFraction("queued")).toBeUndefined();
    expect(renderProgressLine({ status: "working", statusMessage: "RUNNING (40%)", elapsedMs: 65_000, tick: 0 })).toBe(
      "⠋ working: RUNNING (40%) ████████░░░░░░░░░░░░ 40%  1m 05s",
    );
    expect(renderProgressLine({ status: "working", statusMessage: "queued", elapsedMs: 2_000, tick: 1 })).toBe(
      "⠙ working: queued  2s",
    );
  });
});
