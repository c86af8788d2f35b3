import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { repositoryRoot } from "./installed-package.js";
import { envelope } from "./raw-rpc.js";

/**
 * The agent-host snippets of docs/connect-a-client.md, read from the document itself (each fenced block
 * after a `<!-- snippet: NAME -->` line), and turned into what the host does with them: spawn a command
 * (stdio) or connect to a URL (HTTP).
 */

export const connectDocument = join(repositoryRoot, "docs/connect-a-client.md");

export interface Snippet {
  name: string;
  language: string;
  text: string;
}

export type HostLaunch =
  | { transport: "stdio"; command: string; args: string[]; env: Record<string, string> }
  | { transport: "http"; url: string };

export function readSnippets(markdown = readFileSync(connectDocument, "utf8")): Snippet[] {
  return [...markdown.matchAll(/<!-- snippet: ([\w-]+) -->\n```(\w+)\n([\s\S]*?)```/g)].map((match) => ({
    name: match[1]!,
    language: match[2]!,
    text: match[3]!,
  }));
}

/** Fenced blocks that look like host configuration (JSON, `claude mcp add`), marked or not. */
export function hostConfigBlocks(markdown = readFileSync(connectDocument, "utf8")): string[] {
  return [...markdown.matchAll(/```(\w*)\n([\s\S]*?)```/g)]
    .filter((match) => match[1] === "json" || match[1] === "toml" || /claude mcp add/.test(match[2]!))
    .map((match) => match[2]!);
}

/** What a host launches for one snippet. */
export function hostLaunch(snippet: Snippet): HostLaunch {
  if (snippet.language === "json") return launchFromJson(JSON.parse(snippet.text) as Record<string, unknown>);
  if (snippet.language === "sh") return launchFromClaudeMcpAdd(snippet.text.trim());
  if (snippet.language === "toml") return launchFromCodexToml(snippet.text);
  throw new Error(`snippet ${snippet.name}: no host reads ${snippet.language}`);
}

function launchFromJson(file: Record<string, unknown>): HostLaunch {
  // Claude Desktop and Cursor name the list mcpServers; VS Code names it servers.
  const servers = (file["mcpServers"] ?? file["servers"]) as Record<string, Record<string, unknown>> | undefined;
  const entries = Object.values(servers ?? {});
  if (entries.length !== 1) throw new Error(`expected one server in ${JSON.stringify(file)}`);
  const server = entries[0]!;
  if (typeof server["url"] === "string") return { transport: "http", url: server["url"] };
  return {
    transport: "stdio",
    command: server["command"] as string,
    args: (server["args"] as string[] | undefined) ?? [],
    env: (server["env"] as Record<string, string> | undefined) ?? {},
  };
}

/**
 * Codex's config.toml, the part its snippets use: one `[mcp_servers.NAME]` table of `key = value` lines,
 * values being strings, arrays of strings or inline tables of strings.
 */
function launchFromCodexToml(text: string): HostLaunch {
  const tables = [...text.matchAll(/^\[mcp_servers\.([\w-]+)\]$/gm)];
  if (tables.length !== 1) throw new Error(`expected one [mcp_servers.NAME] table in:\n${text}`);
  const server: Record<string, unknown> = {};
  for (const line of text.split("\n").slice(text.split("\n").indexOf(tables[0]![0]) + 1)) {
    const entry = /^([\w-]+)\s*=\s*(.+)$/.exec(line.trim());
    if (!entry) continue;
    const [, key, value] = entry;
    // An inline table's `K = "v"` pairs read as JSON once quoted keys and colons replace them.
    server[key!] = JSON.parse(value!.startsWith("{") ? value!.replace(/([\w-]+)\s*=/g, '"$1":') : value!);
  }
  if (server["default_tools_approval_mode"] !== "approve")
    throw new Error(`codex exec refuses every tool call without default_tools_approval_mode = "approve":\n${text}`);
  if (typeof server["url"] === "string") return { transport: "http", url: server["url"] };
  return {
    transport: "stdio",
    command: server["command"] as string,
    args: (server["args"] as string[] | undefined) ?? [],
    env: (server["env"] as Record<string, string> | undefined) ?? {},
  };
}

/** `claude mcp add [--transport T] [--env K=V]... [--scope S] NAME URL`, or `... NAME -- COMMAND ARGS...`. */
function launchFromClaudeMcpAdd(line: string): HostLaunch {
  const words = line.split(/\s+/);
  if (words.slice(0, 3).join(" ") !== "claude mcp add") throw new Error(`not a claude mcp add line: ${line}`);
  const env: Record<string, string> = {};
  let transport = "stdio";
  const positionals: string[] = [];
  let index = 3;
  for (; index < words.length && words[index] !== "--"; index++) {
    const word = words[index]!;
    if (word === "--transport" || word === "-t") transport = words[++index]!;
    else if (word === "--env" || word === "-e") {
      const [key, ...value] = words[++index]!.split("=");
      env[key!] = value.join("=");
    } else if (word === "--scope" || word === "-s") index++;
    else if (word.startsWith("-")) throw new Error(`claude mcp add option ${word} is not known to this test`);
    else positionals.push(word);
  }
  if (transport === "http") return { transport: "http", url: positionals[1]! };
  const [command, ...args] = words.slice(index + 1);
  return { transport: "stdio", command: command!, args, env };
}

export interface StdioDiscovery {
  /** The answer to server/discover. */
  answer: Record<string, any>;
  /** Every line the server wrote on stdout while it ran. */
  stdoutLines: string[];
  /** How the process ended once stdin was closed, as a host closes a session. */
  exit: { code: number | null; signal: NodeJS.Signals | null };
  stderr: string;
}

/**
 * Start a stdio server as a host does (no shell), send one server/discover, then close stdin and wait for
 * the process to end by itself.
 */
export function discoverOverStdio(
  launch: { command: string; args: string[]; cwd: string; env: Record<string, string> },
  timeoutMs = 30_000,
): Promise<StdioDiscovery> {
  return new Promise((resolve, reject) => {
    const child = spawn(launch.command, launch.args, {
      cwd: launch.cwd,
      env: launch.env,
      stdio: ["pipe", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    let answer: Record<string, any> | undefined;
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(
        new Error(
          `${launch.command} ${launch.args.join(" ")}: no answer and exit within ${timeoutMs} ms\nstdout: ${stdout}\nstderr: ${stderr}`,
        ),
      );
    }, timeoutMs);
    child.once("error", (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString();
      if (answer) return;
      for (const line of stdout.split("\n").slice(0, -1)) {
        const message = parseJson(line);
        if (message?.["id"] === "discover-1") {
          answer = message;
          child.stdin.end();
        }
      }
    });
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    child.once("close", (code, signal) => {
      clearTimeout(timer);
      if (!answer)
        return reject(
          new Error(
            `${launch.command} ended (${code ?? signal}) without answering:\nstdout: ${stdout}\nstderr: ${stderr}`,
          ),
        );
      resolve({
        answer,
        stdoutLines: stdout.split("\n").filter((line) => line !== ""),
        exit: { code, signal },
        stderr,
      });
    });
    child.stdin.write(
      `${JSON.stringify({ jsonrpc: "2.0", id: "discover-1", method: "server/discover", params: { _meta: envelope(false) } })}\n`,
    );
  });
}

/** A line of stdout that is not JSON is the test's to report (stdout must carry MCP messages only). */
function parseJson(line: string): Record<string, any> | undefined {
  try {
    return JSON.parse(line) as Record<string, any>;
  } catch {
    return undefined;
  }
}
