import type { Command } from "commander";
import { readFileSync } from "node:fs";
import { UsageError } from "../usage-error.js";
import type { ServerTarget } from "./connect-requester.js";
import { parseDuration } from "./parse-duration.js";
import { parsePreparedAnswers, type PreparedAnswers } from "./prepared-answers.js";
import { redactUrl } from "./redact-url.js";
import { splitCommandLine } from "./split-command-line.js";

/** The options every client command shares: where the server is, how to authenticate, how to print. */

export interface ClientFlags {
  stdio?: string;
  token?: string;
  tokenFile?: string;
  header?: string[];
  json?: boolean;
  answer?: string[];
  answers?: string;
  timeout?: string;
}

// No default value: commander would print "(default: [])" in the help.
const collect = (value: string, previous: string[] | undefined) => [...(previous ?? []), value];

export function addConnectionOptions(command: Command): Command {
  return command
    .option(
      "--stdio <command>",
      'spawn this MCP server and talk to it over stdio instead of a URL (e.g. "jobtasks serve --config c.yaml --stdio")',
    )
    .option(
      "--token-file <path>",
      "read the bearer token from this file (default: $JOBTASKS_TOKEN); keeps it out of ps, unlike --token",
    )
    .option(
      "--token <token>",
      "bearer token on the command line: visible in ps; prefer $JOBTASKS_TOKEN or --token-file",
    )
    .option("-H, --header <name:value>", "extra HTTP header, repeatable (e.g. a gateway's)", collect)
    .option("--json", "print one JSON line per change, the final result last");
}

export function addAnswerOptions(command: Command): Command {
  return command
    .option("--answer <[key.]field=value>", "answer an input request's form field without asking; repeatable", collect)
    .option(
      "--answers <json>",
      `answers as JSON: {"<input key>" or "*": {"field": value}} or {"*": {"action": "decline"}}`,
    );
}

export function addTimeoutOption(command: Command): Command {
  return command.option(
    "--timeout <duration>",
    "stop following after this long (30s, 5m, 1h); the task goes on, exit code 4",
  );
}

export interface ResolvedTarget {
  target: ServerTarget;
  /** The positionals after the URL (all of them with --stdio). */
  rest: string[];
  /** How to name this server in a printed command line (never with the token, the URL's credentials or query values). */
  display: string;
}

/** The server from `<url>` or `--stdio "<command>"`, with the token and headers for HTTP. */
export function resolveTarget(
  positionals: string[],
  flags: ClientFlags,
  environment: NodeJS.ProcessEnv = process.env,
  warn: (text: string) => void = (text) => process.stderr.write(`warning: ${text}\n`),
): ResolvedTarget {
  if (flags.stdio !== undefined) {
    if (flags.token !== undefined || flags.tokenFile !== undefined || (flags.header ?? []).length > 0)
      throw new UsageError(
        "--token, --token-file and --header apply to HTTP; a stdio server takes its settings from its own environment",
      );
    let words: string[];
    try {
      words = splitCommandLine(flags.stdio);
    } catch (error) {
      throw new UsageError(`--stdio: ${(error as Error).message}`);
    }
    const [command, ...args] = words;
    if (!command)
      throw new UsageError(
        '--stdio needs a command, e.g. --stdio "jobtasks serve --config jobtasks.config.yaml --stdio"',
      );
    return {
      target: { kind: "stdio", command, args },
      rest: positionals,
      display: `--stdio ${shellQuote(flags.stdio)}`,
    };
  }
  const [url, ...rest] = positionals;
  if (url === undefined)
    throw new UsageError('expected the server\'s URL (http://host:port/mcp) or --stdio "<command>"');
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new UsageError(`"${url}" is not a URL; expected http://host:port/mcp or --stdio "<command>"`);
  }
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:")
    throw new UsageError(`"${redactUrl(url)}": expected an http:// or https:// URL`);
  const headers: Record<string, string> = {};
  for (const header of flags.header ?? []) {
    const colon = header.indexOf(":");
    if (colon <= 0) throw new UsageError(`--header ${header}: expected name:value`);
    headers[header.slice(0, colon).trim()] = header.slice(colon + 1).trim();
  }
  const token = readToken(flags, environment, warn);
  if (token !== undefined) headers["Authorization"] = `Bearer ${token}`;
  // Any process on the machine can read another's command line (ps, /proc/<pid>/cmdline) while it runs.
  const secretQuery = [...parsed.searchParams.keys()].find((key) => /token|key|secret|password|auth/i.test(key));
  if (secretQuery !== undefined)
    warn(
      `the URL's ${secretQuery}= query value is visible to every user of this machine (ps) while this runs; send the token as JOBTASKS_TOKEN or --token-file instead if the server takes a bearer token`,
    );
  let endpoint = url;
  if (parsed.username !== "" || parsed.password !== "") {
    // fetch refuses a URL with credentials: they go as Basic credentials (a gateway's), the URL without them.
    if (token !== undefined || Object.keys(headers).some((name) => name.toLowerCase() === "authorization"))
      throw new UsageError(
        `"${redactUrl(url)}": the URL's user:password@ and a token (or an Authorization header) both set Authorization; give one`,
      );
    const user = decodeCredential(parsed.username, "user name", url);
    const password = decodeCredential(parsed.password, "password", url);
    headers["Authorization"] = `Basic ${Buffer.from(`${user}:${password}`).toString("base64")}`;
    parsed.username = "";
    parsed.password = "";
    endpoint = parsed.toString();
  }
  return { target: { kind: "http", url: endpoint, headers }, rest, display: shellQuote(redactUrl(endpoint)) };
}

/**
 * One part of the URL's `user:password@`, %-decoded. A bad escape (`%ZZ`) is the person's typo: it is named
 * by the part it is in, never quoted, as either part may be the secret.
 */
function decodeCredential(encoded: string, part: "user name" | "password", url: string): string {
  try {
    return decodeURIComponent(encoded);
  } catch {
    throw new UsageError(
      `"${redactUrl(url)}": the ${part} in the URL's user:password@ has a bad %-escape (a % must be followed by two hex digits: %40 for @, %25 for %)`,
    );
  }
}

/** The bearer token: --token (with a warning), --token-file, or JOBTASKS_TOKEN. */
function readToken(
  flags: ClientFlags,
  environment: NodeJS.ProcessEnv,
  warn: (text: string) => void,
): string | undefined {
  if (flags.token !== undefined && flags.tokenFile !== undefined)
    throw new UsageError("--token and --token-file both give the token; give one");
  if (flags.token !== undefined) {
    warn(
      "--token is visible to every user of this machine (ps) while this runs; set JOBTASKS_TOKEN or use --token-file <path> instead",
    );
    return flags.token;
  }
  if (flags.tokenFile !== undefined) {
    let text: string;
    try {
      text = readFileSync(flags.tokenFile, "utf8");
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      throw new UsageError(`--token-file ${flags.tokenFile}: cannot read it${code ? ` (${code})` : ""}`);
    }
    const token = text.trim();
    if (token === "") throw new UsageError(`--token-file ${flags.tokenFile}: the file is empty`);
    return token;
  }
  return environment["JOBTASKS_TOKEN"] || undefined;
}

export function readPreparedAnswers(flags: ClientFlags): PreparedAnswers {
  try {
    return parsePreparedAnswers(flags.answer ?? [], flags.answers);
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

export function readTimeout(flags: ClientFlags): number | undefined {
  if (flags.timeout === undefined) return undefined;
  const milliseconds = parseDuration(flags.timeout);
  if (milliseconds === undefined)
    throw new UsageError(`--timeout ${flags.timeout}: expected a duration such as 90, 30s, 5m or 1h`);
  return milliseconds;
}

/** Whether a person can be asked: prompts read stdin and draw on stderr. */
export function isInteractive(): boolean {
  return process.stdin.isTTY === true && process.stderr.isTTY === true;
}

/** Quotes a word for a POSIX shell when it needs it. */
export function shellQuote(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}
