import { afterEach, describe, expect, it } from "vitest";
import { randomBytes } from "node:crypto";
import { Client, ClientCredentialsProvider, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { AccessPolicy, type HttpServerOptions } from "@jobtasks/server";
import type { AdapterContext } from "@jobtasks/core";
import { rawCall, rawResult, type RawCallOptions } from "./support/raw-rpc.js";
import { Cleanup, startInProcessServer } from "./support/in-process-server.js";
import { approvalRequest, createScriptedAdapter, inputRequiredSnapshot } from "./support/scripted-adapter.js";
import { startOidcTestProvider } from "./support/oidc-test-provider.js";
import { openListenStream } from "./support/listen-stream.js";
import { signInAtProvider } from "./support/sign-in-browser.js";
import type { OAuthClientProvider } from "@modelcontextprotocol/client";
import {
  hs256WithPublicKey,
  signEs256,
  unsigned,
  withMutatedSignature,
  withRespelledSignature,
} from "./support/forge-jwt.js";

/**
 * jobtasks as an OAuth 2.1 resource server, against a real authorization server (oidc-provider) on
 * loopback: discovery, the tokens it must refuse, key rotation, principals, and scopes per tool and for
 * approvals.
 */

const cleanup = new Cleanup();
afterEach(() => cleanup.run());

async function setup(
  options: {
    oauth?: Partial<NonNullable<HttpServerOptions["oauth"]>>;
    access?: ConstructorParameters<typeof AccessPolicy>[0];
  } = {},
) {
  const provider = cleanup.add(await startOidcTestProvider());
  const jobs = createScriptedAdapter({ toolName: "run_job" });
  // What the adapter is told about its caller, on every call: the token must never be part of it.
  const contexts: AdapterContext[] = [];
  const tool = jobs.adapter.tools[0]!;
  const start = tool.doStart.bind(tool);
  tool.doStart = (input, context) => {
    contexts.push(context);
    return start(input, context);
  };
  const getStatus = jobs.adapter.doGetStatus.bind(jobs.adapter);
  jobs.adapter.doGetStatus = (ref, context) => {
    contexts.push(context);
    return getStatus(ref, context);
  };
  const deploys = createScriptedAdapter({ toolName: "deploy_prod" });
  const server = cleanup.add(
    await startInProcessServer({
      adapters: [
        { name: "jobs", adapter: jobs.adapter },
        { name: "deploys", adapter: deploys.adapter },
      ],
      service: { access: new AccessPolicy(options.access ?? {}) },
      http: { oauth: { issuer: provider.issuer, ...options.oauth } },
    }),
  );
  const token = (scope = "jobs:run") => provider.token(provider.agent, { resource: server.url, scope });
  const call = (method: string, params: Record<string, unknown>, callOptions: RawCallOptions = {}) =>
    rawCall(server.url, method, params, callOptions);
  const now = Math.floor(Date.now() / 1000);
  const claims = { iss: provider.issuer, aud: server.url, sub: "agent", iat: now, exp: now + 300, scope: "jobs:run" };
  return { provider, jobs, deploys, server, token, call, claims, contexts };
}

const startJob = { name: "run_job", arguments: {} };

describe("discovery", () => {
  it("serves the protected resource metadata at the root and at the endpoint's path form", async () => {
    const { server, provider } = await setup({ access: { toolScopes: { deploy_prod: ["other:run"] } } });
    const origin = new URL(server.url).origin;
    for (const path of ["/.well-known/oauth-protected-resource", "/.well-known/oauth-protected-resource/mcp"]) {
      const response = await fetch(`${origin}${path}`);
      expect(response.status, path).toBe(200);
      expect(await response.json()).toEqual({
        resource: server.url,
        authorization_servers: [provider.issuer],
        scopes_supported: ["other:run"],
        bearer_methods_supported: ["header"],
        resource_name: "jobtasks",
      });
    }
  });

  it("answers 401 with resource_metadata, and error=invalid_token when a token was sent", async () => {
    const { server, call } = await setup();
    const metadata = `${new URL(server.url).origin}/.well-known/oauth-protected-resource/mcp`;
    const without = await call("tools/call", startJob);
    expect(without.httpStatus).toBe(401);
    expect(without.headers.get("www-authenticate")).toBe(`Bearer resource_metadata="${metadata}"`);
    const refused = await call("tools/call", startJob, { token: "not-a-token-at-all" });
    expect(refused.httpStatus).toBe(401);
    expect(refused.headers.get("www-authenticate")).toMatch(
      new RegExp(`^Bearer resource_metadata="${metadata}", error="invalid_token"`),
    );
  });

  it("the SDK client goes from the 401 to the authorization server, gets a token with client credentials and calls", async () => {
    const { server, provider, jobs } = await setup();
    const authProvider = new ClientCredentialsProvider({
      clientId: provider.agent.clientId,
      clientSecret: provider.agent.clientSecret,
      scope: "jobs:run",
      expectedIssuer: provider.issuer,
    });
    const client = new Client(
      { name: "oauth-agent", version: "1.0.0" },
      { versionNegotiation: { mode: { pin: "2026-07-28" } } },
    );
    cleanup.defer(() => client.close());
    await client.connect(new StreamableHTTPClientTransport(new URL(server.url), { authProvider }));
    // Only the tool its scopes allow (deploy_prod needs none here, so both are listed).
    expect((await client.listTools()).tools.map((tool) => tool.name).sort()).toEqual([
      "deploy_prod",
      "run_job",
      "task_answer",
      "task_cancel",
      "task_status",
    ]);
    const result = await client.callTool({ name: "run_job", arguments: {} });
    expect((result.structuredContent as { taskId?: string }).taskId).toMatch(/^jt1\./);
    expect(jobs.calls.start).toBe(1);
    expect(authProvider.tokens()?.access_token).toBeTruthy();
  });

  it("a host signs a person in with the authorization code and PKCE, from the 401 to the call", async () => {
    const { server, provider, jobs } = await setup({ oauth: { requiredScopes: ["jobs:run"] } });
    // What an MCP host keeps for one server: its client id at the provider, the PKCE verifier, the tokens.
    let verifier = "";
    let tokens: Awaited<ReturnType<OAuthClientProvider["tokens"]>>;
    let authorizationUrl: URL | undefined;
    const host: OAuthClientProvider = {
      redirectUrl: provider.hostRedirectUri,
      clientMetadata: {
        redirect_uris: [provider.hostRedirectUri],
        client_name: "test host",
        token_endpoint_auth_method: "none",
      },
      clientInformation: () => ({ client_id: provider.hostClientId }),
      tokens: () => tokens,
      saveTokens: (saved) => {
        tokens = saved;
      },
      redirectToAuthorization: (url) => {
        authorizationUrl = url;
      },
      saveCodeVerifier: (saved) => {
        verifier = saved;
      },
      codeVerifier: () => verifier,
    };
    const options = { versionNegotiation: { mode: { pin: "2026-07-28" as const } } };
    const first = new Client({ name: "oauth-host", version: "1.0.0" }, options);
    const transport = new StreamableHTTPClientTransport(new URL(server.url), { authProvider: host });
    await expect(first.connect(transport)).rejects.toThrow();
    expect(authorizationUrl?.origin).toBe(provider.issuer);
    // The host asked for what the 401 named, for this server's resource, with an S256 challenge.
    expect(authorizationUrl?.searchParams.get("scope")).toContain("jobs:run");
    expect(authorizationUrl?.searchParams.get("resource")).toBe(server.url);
    expect(authorizationUrl?.searchParams.get("code_challenge_method")).toBe("S256");
    const callback = await signInAtProvider(authorizationUrl!, "alice", provider.hostRedirectUri);
    await transport.finishAuth(callback.searchParams);
    const client = new Client({ name: "oauth-host", version: "1.0.0" }, options);
    cleanup.defer(() => client.close());
    await client.connect(new StreamableHTTPClientTransport(new URL(server.url), { authProvider: host }));
    const result = await client.callTool({ name: "run_job", arguments: {} });
    expect((result.structuredContent as { taskId?: string }).taskId).toMatch(/^jt1\./);
    expect(jobs.calls.start).toBe(1);
    // The person is the principal: the provider's subject for alice.
    const payload = JSON.parse(Buffer.from(tokens!.access_token.split(".")[1]!, "base64url").toString());
    expect(payload).toMatchObject({ sub: "alice", aud: server.url, iss: provider.issuer });
  });
});

describe("what a host asks for", () => {
  it("a host's first sign-in asks for the tools' scopes, never the approval scope", async () => {
    // No requiredScopes: without a scope in the 401, a host asks for every scope_supported, and the
    // person's token would let the agent in that host approve its own deployment.
    const { server, provider } = await setup({
      access: { defaultToolScopes: ["jobs:run"], approvalScope: "jobs:approve" },
    });
    const challenge = (await rawCall(server.url, "tools/list", {})).headers.get("www-authenticate");
    expect(challenge).toContain('scope="jobs:run"');
    expect(challenge).not.toContain("jobs:approve");
    let authorizationUrl: URL | undefined;
    const host: OAuthClientProvider = {
      redirectUrl: provider.hostRedirectUri,
      clientMetadata: { redirect_uris: [provider.hostRedirectUri], token_endpoint_auth_method: "none" },
      clientInformation: () => ({ client_id: provider.hostClientId }),
      tokens: () => undefined,
      saveTokens: () => undefined,
      redirectToAuthorization: (url) => {
        authorizationUrl = url;
      },
      saveCodeVerifier: () => undefined,
      codeVerifier: () => "",
    };
    const client = new Client(
      { name: "oauth-host", version: "1.0.0" },
      { versionNegotiation: { mode: { pin: "2026-07-28" } } },
    );
    await expect(
      client.connect(new StreamableHTTPClientTransport(new URL(server.url), { authProvider: host })),
    ).rejects.toThrow();
    expect(authorizationUrl?.searchParams.get("scope")?.split(" ")).toContain("jobs:run");
    expect(authorizationUrl?.searchParams.get("scope")?.split(" ")).not.toContain("jobs:approve");
  });
});

describe("refused tokens", () => {
  it("refuses expired, not yet valid, another audience, another issuer, alg none, HS256 with the public key, unknown kid and a mutated signature", async () => {
    const { provider, server, call, claims, jobs, token } = await setup({ oauth: { clockSkewSeconds: 5 } });
    const key = provider.signingKey;
    const now = claims.iat;
    const good = await token();
    const otherResource = `${new URL(server.url).origin}/other`;
    const refused: Record<string, string> = {
      expired: signEs256(key, { claims: { ...claims, iat: now - 600, exp: now - 60 } }),
      "not yet valid": signEs256(key, { claims: { ...claims, nbf: now + 120 } }),
      "another audience": await provider.token(provider.agent, { resource: otherResource }),
      "another issuer": signEs256(key, { claims: { ...claims, iss: "http://127.0.0.1:1" } }),
      "alg none": unsigned({ claims }),
      "HS256 keyed with the public key": hs256WithPublicKey(key, { claims }),
      "unknown kid": signEs256({ ...key, kid: "not-a-key-of-the-issuer" }, { claims }),
      "mutated signature": withMutatedSignature(good),
      "signature re-spelled in its spare bits": withRespelledSignature(good),
      "no exp": signEs256(key, { claims: { ...claims, exp: undefined } }),
      // RFC 7519 §4.1.2: sub is a string; an object, a number or an empty one would make principals that
      // collide ("[object Object]", 42 and "42", the issuer alone).
      "sub an object": signEs256(key, { claims: { ...claims, sub: { id: "agent" } } }),
      "sub a number": signEs256(key, { claims: { ...claims, sub: 42 } }),
      "empty sub": signEs256(key, { claims: { ...claims, sub: "" } }),
    };
    for (const [kind, forged] of Object.entries(refused)) {
      const response = await call("tools/call", startJob, { token: forged });
      expect(response.httpStatus, kind).toBe(401);
      expect(response.headers.get("www-authenticate"), kind).toContain('error="invalid_token"');
    }
    expect(jobs.calls.start).toBe(0);
    // The same claims, properly signed, are accepted: each refusal above is for its one defect.
    expect((await call("tools/call", startJob, { token: signEs256(key, { claims }) })).httpStatus).toBe(200);
    expect((await call("tools/call", startJob, { token: good })).httpStatus).toBe(200);
  });

  it("with tokenType at+jwt, refuses a JWT of the issuer that is not typed as an access token", async () => {
    const { provider, call, claims, token } = await setup({ oauth: { tokenType: "at+jwt" } });
    // The provider types its access tokens at+jwt (RFC 9068): accepted.
    expect((await call("tools/call", startJob, { token: await token() })).httpStatus).toBe(200);
    for (const typ of ["JWT", undefined]) {
      const other = signEs256(provider.signingKey, { header: { typ }, claims });
      expect((await call("tools/call", startJob, { token: other })).httpStatus, String(typ)).toBe(401);
    }
  });

  it("fetches the key set once however many unknown kids arrive within a minute", async () => {
    const { provider, call, claims } = await setup();
    for (let index = 0; index < 200; index += 1) {
      const forged = signEs256({ ...provider.signingKey, kid: randomBytes(8).toString("hex") }, { claims });
      expect((await call("tools/list", {}, { token: forged })).httpStatus).toBe(401);
    }
    expect(provider.jwksRequests).toBe(1);
  });

  it("picks up the provider's new signing key without a restart", async () => {
    const { provider, call, token } = await setup({ oauth: { jwksRefetchIntervalMs: 200 } });
    expect((await call("tools/call", startJob, { token: await token() })).httpStatus).toBe(200);
    const before = provider.signingKey.kid;
    await provider.rotate();
    expect(provider.signingKey.kid).not.toBe(before);
    await new Promise((resolve) => setTimeout(resolve, 250));
    const rotated = await token();
    expect(JSON.parse(Buffer.from(rotated.split(".")[0]!, "base64url").toString()).kid).toBe(provider.signingKey.kid);
    expect((await call("tools/call", startJob, { token: rotated })).httpStatus).toBe(200);
    expect(provider.jwksRequests).toBe(2);
  });

  it("answers 503 with Retry-After, not 401, when the authorization server cannot be reached to check a token", async () => {
    // An issuer nobody answers for: its metadata, and so its keys, cannot be read.
    const { call, claims, provider, jobs } = await setup({ oauth: { issuer: "http://127.0.0.1:1" } });
    const token = signEs256(provider.signingKey, { claims: { ...claims, iss: "http://127.0.0.1:1" } });
    const response = await call("tools/call", startJob, { token });
    expect(response.httpStatus).toBe(503);
    expect(response.headers.get("retry-after")).toBe("60");
    expect(jobs.calls.start).toBe(0);
    // Without a token there is nothing to check: still the 401 challenge.
    expect((await call("tools/call", startJob)).httpStatus).toBe(401);
  });

  it("asks the provider about a refused opaque token once, however often it is sent again", async () => {
    const { provider, server, call } = await setup({
      oauth: { introspection: { clientId: "jobtasks", clientSecret: "", cacheSeconds: 0 } },
    });
    server.http.oauth!.options.introspection!.clientSecret = provider.resourceServer.clientSecret;
    const before = server.http.oauth!.requests.introspection;
    const madeUp = Array.from({ length: 10 }, (_, index) => `made-up-opaque-token-${index}-0123456789`);
    for (const round of [1, 2, 3])
      for (const token of madeUp)
        expect((await call("tools/list", {}, { token })).httpStatus, `round ${round}`).toBe(401);
    expect(server.http.oauth!.requests.introspection - before).toBe(madeUp.length);
  });

  it("introspects opaque tokens, and refuses one the provider revoked", async () => {
    const { provider, server, call } = await setup({
      oauth: { introspection: { clientId: "jobtasks", clientSecret: "", cacheSeconds: 0 } },
    });
    // The introspection credentials are jobtasks' own at the provider, known once it started.
    server.http.oauth!.options.introspection!.clientSecret = provider.resourceServer.clientSecret;
    const opaque = await provider.token(provider.opaqueClient, { resource: server.url });
    expect(opaque.split(".")).toHaveLength(1);
    expect((await call("tools/call", startJob, { token: opaque })).httpStatus).toBe(200);
    await provider.revoke(provider.opaqueClient, opaque);
    const after = await call("tools/call", startJob, { token: opaque });
    expect(after.httpStatus).toBe(401);
    expect(after.headers.get("www-authenticate")).toContain('error="invalid_token"');
  });
});

describe("principals and scopes", () => {
  it("binds a task to the token's issuer and subject: another subject's token gets Task not found", async () => {
    const { provider, call, claims, token, contexts } = await setup();
    const first = await token();
    const started = await call("tools/call", startJob, { token: first });
    const taskId = started.body?.result?.["taskId"] as string;
    expect(taskId).toMatch(/^jt1\./);
    const second = await token();
    const own = await call("tasks/get", { taskId }, { token: second });
    expect(own.body?.result?.["status"]).toBe("working");
    // The adapter acts with its own credentials: it learns who asks, never the caller's token.
    expect(contexts.length).toBeGreaterThanOrEqual(2);
    for (const context of contexts) {
      expect(context.principal).toBe(`${provider.issuer}#agent`);
      const seen = JSON.stringify({ ...context, signal: undefined, logger: undefined });
      for (const sent of [first, second]) expect(seen).not.toContain(sent.split(".")[2]);
    }
    const intruder = signEs256(provider.signingKey, { claims: { ...claims, sub: "someone-else" } });
    const foreign = await call("tasks/get", { taskId }, { token: intruder });
    expect(foreign.httpStatus).toBe(200);
    expect(foreign.body?.error).toEqual({ code: -32602, message: "Failed to retrieve task: Task not found" });
  });

  it("requiredScopes: a token without them gets 403 insufficient_scope naming them", async () => {
    const { call, token } = await setup({ oauth: { requiredScopes: ["jobs:run"] } });
    const without = await call("tools/list", {});
    expect(without.headers.get("www-authenticate")).toMatch(/^Bearer resource_metadata="[^"]+", scope="jobs:run"$/);
    const response = await call("tools/list", {}, { token: await token("other:run") });
    expect(response.httpStatus).toBe(403);
    expect(response.headers.get("www-authenticate")).toMatch(
      /^Bearer error="insufficient_scope", scope="jobs:run", resource_metadata="/,
    );
    expect((await call("tools/list", {}, { token: await token("jobs:run") })).httpStatus).toBe(200);
  });

  it("lists only the tools a token may call; calling another is 403 with its scope", async () => {
    const { call, token, deploys, server } = await setup({
      access: { defaultToolScopes: ["jobs:run"], toolScopes: { deploy_prod: ["other:run"] } },
    });
    const listed = await rawResult(server.url, "tools/list", {}, { token: await token("jobs:run") });
    expect(listed["tools"].map((tool: { name: string }) => tool.name)).toEqual(["run_job"]);
    const refused = await call(
      "tools/call",
      { name: "deploy_prod", arguments: {} },
      { token: await token("jobs:run") },
    );
    expect(refused.httpStatus).toBe(403);
    expect(refused.headers.get("www-authenticate")).toContain('scope="other:run"');
    expect(deploys.calls.start).toBe(0);
    const both = await token("jobs:run other:run");
    expect((await call("tools/call", { name: "deploy_prod", arguments: {} }, { token: both })).httpStatus).toBe(200);
  });

  it("tasks/get, tasks/cancel, tasks/update and task_status need the scope of the tool that started the task", async () => {
    const { call, token, deploys } = await setup({ access: { toolScopes: { deploy_prod: ["other:run"] } } });
    const both = await token("jobs:run other:run");
    const started = await call("tools/call", { name: "deploy_prod", arguments: {} }, { token: both });
    const taskId = started.body?.result?.["taskId"] as string;
    const narrow = await token("jobs:run");
    for (const [method, params] of [
      ["tasks/get", { taskId }],
      ["tasks/cancel", { taskId }],
      // The scope is checked before the answers are: a well-formed and a malformed answer are both refused.
      ["tasks/update", { taskId, inputResponses: { approve: { action: "accept", content: { approve: true } } } }],
      ["tasks/update", { taskId, inputResponses: "not an object" }],
      ["tools/call", { name: "task_status", arguments: { taskId, waitSeconds: 0 } }],
    ] as const) {
      const response = await call(method, params, { token: narrow, tasks: method !== "tools/call" });
      expect(response.httpStatus, method).toBe(403);
      expect(response.headers.get("www-authenticate"), method).toContain('scope="other:run"');
    }
    expect(deploys.calls.cancel).toBe(0);
    expect((await call("tasks/get", { taskId }, { token: both })).body?.result?.["status"]).toBe("working");
  });

  it("a task subscription follows only the tasks whose tool's scopes the token holds", async () => {
    const { call, token, server } = await setup({ access: { toolScopes: { deploy_prod: ["other:run"] } } });
    const both = await token("jobs:run other:run");
    const taskIdOf = async (name: string) =>
      (await call("tools/call", { name, arguments: {} }, { token: both })).body?.result?.["taskId"] as string;
    const run = await taskIdOf("run_job");
    const deploy = await taskIdOf("deploy_prod");
    // The same subject, with a token that no longer grants other:run.
    const stream = cleanup.add(await openListenStream(server.url, [run, deploy], { token: await token("jobs:run") }));
    const acknowledged = await stream.waitFor(
      (message) => message.method === "notifications/subscriptions/acknowledged",
    );
    expect(acknowledged.params?.["notifications"]["taskIds"]).toEqual([run]);
  });

  it("an approval needs the approval scope: tasks/update is -32602 and task_answer a tool error, both naming it and where to approve", async () => {
    const { call, token, jobs } = await setup({ access: { approvalScope: "jobs:approve" } });
    const agent = await token("jobs:run");
    const started = await call("tools/call", startJob, { token: agent });
    const taskId = started.body?.result?.["taskId"] as string;
    const job = jobs.onlyJob();
    jobs.update(job, {
      ...inputRequiredSnapshot({
        "review-1": approvalRequest(
          "Approve the deployment to production? Review: https://ci.example.com/runs/7/review",
        ),
        "note-1": approvalRequest("Anything to add to the release notes?"),
      }),
      approvalKeys: ["review-1"],
    });
    const update = await call(
      "tasks/update",
      { taskId, inputResponses: { "review-1": { action: "accept", content: { approve: true } } } },
      { token: agent },
    );
    expect(update.body?.error?.code).toBe(-32602);
    expect(update.body?.error?.message).toContain('needs the scope "jobs:approve"');
    expect(update.body?.error?.message).toContain("https://ci.example.com/runs/7/review");
    const answer = await call(
      "tools/call",
      { name: "task_answer", arguments: { taskId, key: "review-1", action: "accept", content: { approve: true } } },
      { token: agent, tasks: false },
    );
    expect(answer.body?.result?.["isError"]).toBe(true);
    expect(answer.body?.result?.["content"][0].text).toContain('needs the scope "jobs:approve"');
    expect(job.responses).toEqual([]);
    // A question that is not an approval needs only the task's own scope.
    await call(
      "tasks/update",
      { taskId, inputResponses: { "note-1": { action: "accept", content: { approve: true } } } },
      { token: agent },
    );
    expect(job.responses).toEqual([{ "note-1": { action: "accept", content: { approve: true } } }]);
    // A person signed in with the approval scope approves.
    const person = await token("jobs:run jobs:approve");
    await call(
      "tasks/update",
      { taskId, inputResponses: { "review-1": { action: "accept", content: { approve: true } } } },
      { token: person },
    );
    expect(job.responses.at(-1)).toEqual({ "review-1": { action: "accept", content: { approve: true } } });
  });
});
