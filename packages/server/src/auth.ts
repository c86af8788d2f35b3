import { createHash, timingSafeEqual } from "node:crypto";
import { ConfigError } from "@jobtasks/core";

/** The principal every request gets when no tokens are configured, and stdio always. */
export const localPrincipal = "local";

const principalNamePattern = /^[A-Za-z0-9_.@+-]{1,128}$/;
const minimumTokenLength = 16;

/**
 * Static bearer tokens, one per principal: `JOBTASKS_AUTH_TOKENS="alice:tokenA,bob:tokenB"`. Tokens are
 * kept as SHA-256 digests and compared in constant time; errors name the entry, never its token.
 */
export class BearerTokens {
  readonly #entries: Array<{ digest: Buffer; principal: string }>;

  private constructor(entries: Array<{ digest: Buffer; principal: string }>) {
    this.#entries = entries;
  }

  static parse(value: string, source = "JOBTASKS_AUTH_TOKENS"): BearerTokens {
    const entries: Array<{ digest: Buffer; principal: string }> = [];
    const items = value
      .split(",")
      .map((item) => item.trim())
      .filter((item) => item !== "");
    if (items.length === 0) throw new ConfigError(source, 'expected "name:token" entries separated by commas');
    items.forEach((item, index) => {
      const separator = item.indexOf(":");
      const where = `${source} (entry ${index + 1})`;
      if (separator <= 0) throw new ConfigError(where, 'expected "name:token"');
      const principal = item.slice(0, separator);
      const token = item.slice(separator + 1);
      if (principal === localPrincipal) {
        throw new ConfigError(
          where,
          `"${localPrincipal}" is reserved for stdio and servers without tokens; choose another name`,
        );
      }
      if (!principalNamePattern.test(principal)) {
        throw new ConfigError(where, "the name may use letters, digits and _ . @ + - (at most 128 characters)");
      }
      if (token.length < minimumTokenLength) {
        throw new ConfigError(
          where,
          `the token of "${principal}" must be at least ${minimumTokenLength} characters long`,
        );
      }
      const digest = sha256(token);
      if (entries.some((entry) => entry.digest.equals(digest))) {
        throw new ConfigError(where, `the token of "${principal}" is also given to another name`);
      }
      if (entries.some((entry) => entry.principal === principal)) {
        throw new ConfigError(where, `"${principal}" appears twice`);
      }
      entries.push({ digest, principal });
    });
    return new BearerTokens(entries);
  }

  get principals(): string[] {
    return this.#entries.map((entry) => entry.principal);
  }

  /** The principal an Authorization header authenticates, or undefined. */
  authenticate(authorization: string | undefined): string | undefined {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? "");
    if (!match) return undefined;
    const digest = sha256(match[1]!);
    let found: string | undefined;
    // Compare against every entry so the time taken does not tell which one matched.
    for (const entry of this.#entries) {
      if (timingSafeEqual(entry.digest, digest)) found = entry.principal;
    }
    return found;
  }
}

function sha256(value: string): Buffer {
  return createHash("sha256").update(value, "utf8").digest();
}
