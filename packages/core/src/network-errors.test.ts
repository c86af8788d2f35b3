import { describe, expect, it } from "vitest";
import { errorCodesOf, requestNeverSent } from "./network-errors.js";

const withCode = (code: string, cause?: unknown) => Object.assign(new Error("x"), { code }, cause ? { cause } : {});

describe("network errors", () => {
  it("reads the codes along a chain of causes, outermost first, as fetch and undici nest them", () => {
    const socket = withCode("ECONNRESET");
    const fetchFailed = new TypeError("fetch failed", { cause: withCode("UND_ERR_SOCKET", socket) });
    expect(errorCodesOf(fetchFailed)).toEqual(["UND_ERR_SOCKET", "ECONNRESET"]);
    expect(errorCodesOf("not an error")).toEqual([]);
    expect(errorCodesOf(withCode(42 as unknown as string))).toEqual([]);
  });

  it("stops after five levels, so a cyclic chain ends", () => {
    const cyclic = withCode("ECONNRESET");
    (cyclic as { cause?: unknown }).cause = cyclic;
    expect(errorCodesOf(cyclic)).toEqual(Array(5).fill("ECONNRESET"));
  });

  it.each(["ECONNREFUSED", "ENOTFOUND", "EAI_AGAIN", "ENETUNREACH", "EHOSTUNREACH", "UND_ERR_CONNECT_TIMEOUT"])(
    "a request that failed with %s never left",
    (code) => {
      expect(requestNeverSent(new TypeError("fetch failed", { cause: withCode(code) }))).toBe(true);
    },
  );

  it.each(["ECONNRESET", "UND_ERR_SOCKET", "ETIMEDOUT", "UND_ERR_HEADERS_TIMEOUT", "EPIPE"])(
    "a request that failed with %s may have reached the upstream",
    (code) => {
      expect(requestNeverSent(new TypeError("fetch failed", { cause: withCode(code) }))).toBe(false);
    },
  );

  it("a failure without any code may have reached the upstream", () => {
    expect(requestNeverSent(new Error("socket hang up"))).toBe(false);
  });
});
