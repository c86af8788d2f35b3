/** The parts of jose the resource server uses. */
export type JoseModule = Pick<typeof import("jose"), "jwtVerify" | "createLocalJWKSet" | "decodeProtectedHeader">;

/**
 * jose is loaded only when a server verifies OAuth tokens, so that the stdio start and a server with
 * static tokens load none of it. A bundle may hand a lazily imported package over as `default` only (see
 * adapters/rest's undici import): both forms are read.
 */
export async function loadJose(): Promise<JoseModule> {
  const imported = (await import("jose")) as JoseModule & { default?: JoseModule };
  return typeof imported.jwtVerify === "function" ? imported : imported.default!;
}
