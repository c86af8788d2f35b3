import { fork } from "node:child_process";
import { once } from "node:events";
import { randomBytes } from "node:crypto";
import { fileURLToPath } from "node:url";
import { BearerTokens, createSilentLogger, startHttpServer, type OAuthAuthenticator } from "@jobtasks/server";
import { describeMachine, formatNumber, heading, markdownTable } from "./support/measure.js";
import { createBenchService, createStatelessAdapter } from "./support/bench-service.js";
import { createRpcClient, resultOf } from "./support/rpc-client.js";
import { startOidcTestProvider } from "../test/support/oidc-test-provider.js";
import {
  hs256WithPublicKey,
  signEs256,
  unsigned,
  withMutatedSignature,
  withRespelledSignature,
} from "../test/support/forge-jwt.js";

/**
 * What OAuth costs a poller, and what a flood of bad tokens costs the authorization server (issue 21).
 * 1. tasks/get CPU in the server with a verified JWT access token against the same with a static token:
 *    the verified token is remembered by its hash until it expires, so a poller's token is checked once.
 *    Both servers run in their own processes; their turns alternate so load from elsewhere hits both.
 * 2. 10,000 requests with tokens that must fail (mutated signatures, a signature re-spelled in its spare
 *    bits, unknown kids, expired, another audience or issuer, alg none, HS256 keyed with the public key): none may be accepted, and the
 *    authorization server may see at most one key set fetch a minute (the process's refetch limit).
 * The authorization server is a real oidc-provider on loopback.
 *
 * Run: node --import tsx bench/token-verification.ts
 */

const rounds = 6;
const requestsPerRound = 500;
const concurrency = 8;
const badTokens = 10_000;
const protocolVersion = "2026-07-28";

type ChildMessage =
  | { type: "listening"; url: string }
  | { type: "cpu"; micros: number; requests?: OAuthAuthenticator["requests"] };

function envelope() {
  return {
    "io.modelcontextprotocol/protocolVersion": protocolVersion,
    "io.modelcontextprotocol/clientInfo": { name: "jobtasks-bench", version: "0.0.0" },
    "io.modelcontextprotocol/clientCapabilities": { extensions: { "io.modelcontextprotocol/tasks": {} } },
  };
}

async function serveChild(mode: string, secondArgument: string): Promise<void> {
  const { adapter } = createStatelessAdapter();
  const service = createBenchService([{ name: "bench", adapter }], { snapshotCacheMs: 1000 });
  const server = await startHttpServer({
    service,
    logger: createSilentLogger(),
    name: "jobtasks-bench",
    version: "0.0.0",
    host: "127.0.0.1",
    port: 0,
    ...(mode === "static" ? { tokens: BearerTokens.parse(`bench-agent:${secondArgument}`) } : {}),
    ...(mode === "oauth" ? { oauth: { issuer: secondArgument } } : {}),
  });
  setTimeout(() => process.exit(0), 150_000).unref();
  process.on("disconnect", () => process.exit(0));
  process.on("message", (message: { type: string }) => {
    if (message.type === "stop") void server.close().then(() => process.exit(0));
    if (message.type === "cpu") {
      const usage = process.cpuUsage();
      const reply: ChildMessage = {
        type: "cpu",
        micros: usage.user + usage.system,
        ...(server.oauth ? { requests: server.oauth.requests } : {}),
      };
      process.send?.(reply);
    }
  });
  process.send?.({ type: "listening", url: server.url } satisfies ChildMessage);
}

/** A server process: "static" with its token, or "oauth" with its issuer. */
async function startChild(mode: "static" | "oauth", secondArgument: string) {
  const child = fork(fileURLToPath(import.meta.url), ["--serve", mode, secondArgument], { execArgv: process.execArgv });
  const [message] = (await once(child, "message")) as [ChildMessage];
  if (message.type !== "listening") throw new Error("the benchmark server did not start");
  const ask = async () => {
    child.send({ type: "cpu" });
    const [reply] = (await once(child, "message")) as [ChildMessage];
    if (reply.type !== "cpu") throw new Error("unexpected message from the benchmark server");
    return reply;
  };
  const stop = async () => {
    const exited = once(child, "exit");
    child.send({ type: "stop" });
    await exited;
  };
  return { url: message.url, ask, stop };
}

function caller(url: string, token: string) {
  const client = createRpcClient(url, concurrency);
  let nextId = 1;
  const call = (method: string, params: Record<string, unknown>, name: string, bearer = token) =>
    client.post(JSON.stringify({ jsonrpc: "2.0", id: nextId++, method, params: { ...params, _meta: envelope() } }), {
      "mcp-protocol-version": protocolVersion,
      "mcp-method": method,
      "mcp-name": name,
      authorization: `Bearer ${bearer}`,
    });
  return { call, close: () => client.close() };
}

async function inParallel(count: number, operation: (index: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) await operation(next++);
    }),
  );
}

async function main(): Promise<void> {
  console.log(describeMachine());
  const provider = await startOidcTestProvider({ accessTokenTtlSeconds: 3600 });
  const staticToken = `bench-${randomBytes(16).toString("hex")}`;
  const staticServer = await startChild("static", staticToken);
  const oauthServer = await startChild("oauth", provider.issuer);
  try {
    const jwt = await provider.token(provider.agent, { resource: oauthServer.url, scope: "jobs:run" });
    const servers = [
      { name: "static token", server: staticServer, client: caller(staticServer.url, staticToken), cpu: 0, count: 0 },
      { name: "verified JWT", server: oauthServer, client: caller(oauthServer.url, jwt), cpu: 0, count: 0 },
    ];
    for (const entry of servers) {
      const created = await entry.client.call("tools/call", { name: "bench_job", arguments: {} }, "bench_job");
      const taskId = resultOf(created.body)?.["taskId"];
      if (typeof taskId !== "string") throw new Error(`${entry.name}: no task (HTTP ${created.status})`);
      Object.assign(entry, { taskId });
    }
    let failures = 0;
    const poll = (entry: (typeof servers)[number] & { taskId?: string }) => async () => {
      const answer = await entry.client.call("tasks/get", { taskId: entry.taskId }, entry.taskId!);
      if (answer.status !== 200 || resultOf(answer.body)?.["status"] !== "working") failures += 1;
    };
    // Warm-up (JIT, sockets, the token cache), not counted; then alternating measured turns.
    for (const entry of servers) await inParallel(300, poll(entry));
    for (let round = 0; round < rounds; round += 1) {
      for (const entry of servers) {
        const before = await entry.server.ask();
        await inParallel(requestsPerRound, poll(entry));
        const after = await entry.server.ask();
        entry.cpu += after.micros - before.micros;
        entry.count += requestsPerRound;
      }
    }
    const staticEntry = servers[0]!;
    const each = (entry: typeof staticEntry) => entry.cpu / entry.count;
    heading(
      `tasks/get server CPU with each kind of token (${rounds} alternating rounds of ${requestsPerRound}, concurrency ${concurrency})`,
    );
    console.log(
      markdownTable(
        ["token", "requests", "server CPU µs/request", "ratio to static"],
        servers.map((entry) => [
          entry.name,
          entry.count,
          formatNumber(each(entry)),
          formatNumber(each(entry) / each(staticEntry), 2),
        ]),
      ),
    );
    if (failures > 0) console.log(`\n**${failures} polls did not answer working**`);

    // The flood: every kind of bad token, each one different (a cache of verdicts would not help).
    const key = provider.signingKey;
    const now = Math.floor(Date.now() / 1000);
    const claims = {
      iss: provider.issuer,
      aud: oauthServer.url,
      sub: "agent",
      iat: now,
      exp: now + 600,
      scope: "jobs:run",
    };
    const kinds: Array<[string, (index: number) => string]> = [
      ["mutated signature", (index) => withMutatedSignature(jwt, index)],
      ["signature re-spelled in its spare bits", () => withRespelledSignature(jwt)],
      ["unknown kid", () => signEs256({ ...key, kid: randomBytes(8).toString("hex") }, { claims })],
      [
        "expired",
        (index) => signEs256(key, { claims: { ...claims, jti: String(index), iat: now - 900, exp: now - 120 } }),
      ],
      [
        "another audience",
        (index) => signEs256(key, { claims: { ...claims, jti: String(index), aud: "http://127.0.0.1:1/mcp" } }),
      ],
      [
        "another issuer",
        (index) => signEs256(key, { claims: { ...claims, jti: String(index), iss: "http://127.0.0.1:1" } }),
      ],
      ["alg none", (index) => unsigned({ claims: { ...claims, jti: String(index) } })],
      [
        "HS256 keyed with the public key",
        (index) => hs256WithPublicKey(key, { claims: { ...claims, jti: String(index) } }),
      ],
    ];
    const flood = caller(oauthServer.url, jwt);
    const before = await oauthServer.ask();
    const jwksBefore = provider.jwksRequests;
    const accepted = new Map(kinds.map(([name]) => [name, 0]));
    const refused = new Map(kinds.map(([name]) => [name, 0]));
    const started = Date.now();
    await inParallel(badTokens, async (index) => {
      const [name, forge] = kinds[index % kinds.length]!;
      const answer = await flood.call("tools/list", {}, "tools/list", forge(index));
      const tally = answer.status === 401 ? refused : accepted;
      tally.set(name, tally.get(name)! + 1);
    });
    const seconds = (Date.now() - started) / 1000;
    const after = await oauthServer.ask();
    flood.close();
    heading(`${formatNumber(badTokens)} requests with tokens that must fail (${formatNumber(seconds, 1)} s)`);
    console.log(
      markdownTable(
        ["kind", "refused (401)", "accepted"],
        kinds.map(([name]) => [name, refused.get(name)!, accepted.get(name)!]),
      ),
    );
    const jwksFetches = (after.requests?.jwks ?? 0) - (before.requests?.jwks ?? 0);
    console.log(
      `\nRequests to the authorization server during the flood: ${provider.jwksRequests - jwksBefore} to its key set as it counted them ` +
        `(the server's own count: ${jwksFetches} key set, ${(after.requests?.metadata ?? 0) - (before.requests?.metadata ?? 0)} metadata, ` +
        `${(after.requests?.introspection ?? 0) - (before.requests?.introspection ?? 0)} introspection); ` +
        `at most one key set fetch a minute allows ${Math.ceil(seconds / 60)}. ` +
        `Server CPU: ${formatNumber((after.micros - before.micros) / badTokens)} µs per refused request.`,
    );
    for (const entry of servers) entry.client.close();
  } finally {
    await staticServer.stop();
    await oauthServer.stop();
    await provider.close();
  }
}

if (process.argv[2] === "--serve") {
  await serveChild(process.argv[3]!, process.argv[4]!);
} else if (import.meta.url === `file://${process.argv[1]}`) {
  await main();
}
