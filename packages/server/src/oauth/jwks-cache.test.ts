import { afterEach, describe, expect, it } from "vitest";
import { createServer, type Server } from "node:http";
import { generateKeyPairSync } from "node:crypto";
import type { AddressInfo } from "node:net";
import { JwksCache } from "./jwks-cache.js";
import { loadJose } from "./load-jose.js";
import { fetchAuthorizationServerMetadata } from "./authorization-server-metadata.js";

/**
 * The key set and the issuer's metadata as the resource server reads them, from a small HTTP server on
 * loopback that counts what it is asked: one fetch per interval however the tokens ask, failures included.
 */

let server: Server | undefined;
afterEach(async () => {
  await new Promise((resolve) => server?.close(resolve));
  server = undefined;
});

async function serve(answer: (path: string) => { status: number; body: unknown }) {
  const requests: string[] = [];
  server = createServer((request, response) => {
    requests.push(request.url ?? "");
    const { status, body } = answer(request.url ?? "");
    response.writeHead(status, { "content-type": "application/json" });
    response.end(JSON.stringify(body));
  });
  await new Promise<void>((resolve) => server!.listen(0, "127.0.0.1", resolve));
  return { origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, requests };
}

function publicJwk(kid: string) {
  const { publicKey } = generateKeyPairSync("ec", { namedCurve: "P-256" });
  return { ...publicKey.export({ format: "jwk" }), kid, alg: "ES256", use: "sig" };
}

const header = (kid: string) => ({ alg: "ES256", kid });
const token = { payload: "", signature: "" } as never;

describe("JwksCache", () => {
  it("fetches once per interval, for unknown kids and for a failing key endpoint alike", async () => {
    let failing = true;
    const { origin, requests } = await serve(() =>
      failing ? { status: 500, body: {} } : { status: 200, body: { keys: [publicJwk("known")] } },
    );
    let now = 0;
    const cache = new JwksCache({
      jose: await loadJose(),
      jwksUri: async () => `${origin}/jwks`,
      minimumRefetchIntervalMs: 60_000,
      now: () => now,
    });
    for (let index = 0; index < 20; index += 1)
      await expect(cache.getKey(header("known"), token)).rejects.toThrow(/could not be fetched/);
    expect(requests).toHaveLength(1);
    failing = false;
    now = 60_000;
    await expect(cache.getKey(header("known"), token)).resolves.toBeDefined();
    expect(requests).toHaveLength(2);
    for (let index = 0; index < 20; index += 1)
      await expect(cache.getKey(header(`unknown-${index}`), token)).rejects.toMatchObject({
        code: "ERR_JWKS_NO_MATCHING_KEY",
      });
    expect(requests).toHaveLength(2);
    // A minute on, one unknown kid may look again; the rest of the minute's do not.
    now = 120_001;
    await expect(cache.getKey(header("rotated-in"), token)).rejects.toMatchObject({ code: "ERR_JWKS_NO_MATCHING_KEY" });
    await expect(cache.getKey(header("rotated-in"), token)).rejects.toMatchObject({ code: "ERR_JWKS_NO_MATCHING_KEY" });
    expect(requests).toHaveLength(3);
    expect(cache.fetches).toBe(3);
  });

  it("shares one fetch among concurrent first requests", async () => {
    const { origin, requests } = await serve(() => ({ status: 200, body: { keys: [publicJwk("known")] } }));
    const cache = new JwksCache({ jose: await loadJose(), jwksUri: async () => `${origin}/jwks` });
    await Promise.all(Array.from({ length: 10 }, () => cache.getKey(header("known"), token)));
    expect(requests).toHaveLength(1);
  });
});

describe("fetchAuthorizationServerMetadata", () => {
  it("reads RFC 8414's path form first, then OpenID Discovery's, and refuses a document naming another issuer", async () => {
    let issuer = "";
    const { origin, requests } = await serve((path) =>
      path === "/realms/eng/.well-known/openid-configuration"
        ? { status: 200, body: { issuer, jwks_uri: `${issuer}/certs` } }
        : { status: 404, body: {} },
    );
    issuer = `${origin}/realms/eng`;
    await expect(fetchAuthorizationServerMetadata(issuer)).resolves.toMatchObject({ jwks_uri: `${issuer}/certs` });
    expect(requests).toEqual([
      "/.well-known/oauth-authorization-server/realms/eng",
      "/realms/eng/.well-known/openid-configuration",
    ]);
    const claimed = issuer;
    issuer = "https://elsewhere.example.com";
    await expect(fetchAuthorizationServerMetadata(claimed)).rejects.toThrow(/names another issuer/);
  });
});
