import { createHmac, createPrivateKey, createPublicKey, sign, type JsonWebKey } from "node:crypto";

/**
 * JWTs written by hand, for the tokens a resource server must refuse: claims a provider would never
 * issue (expired, not yet valid, another issuer), signed with the provider's own key; and the classic
 * attacks on verifiers (alg none, HS256 keyed with the public key, an unknown kid, a mutated signature).
 */

const encode = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url");

export interface ForgeOptions {
  header?: Record<string, unknown>;
  claims: Record<string, unknown>;
}

/** ES256 with the given private JWK; its kid goes in the header unless the header says otherwise. */
export function signEs256(key: JsonWebKey & { kid: string }, options: ForgeOptions): string {
  const input = `${encode({ alg: "ES256", typ: "at+jwt", kid: key.kid, ...options.header })}.${encode(options.claims)}`;
  const signature = sign("sha256", Buffer.from(input), {
    key: createPrivateKey({ key: key as never, format: "jwk" }),
    dsaEncoding: "ieee-p1363",
  });
  return `${input}.${signature.toString("base64url")}`;
}

/** `alg: none`, no signature. */
export function unsigned(options: ForgeOptions): string {
  return `${encode({ alg: "none", typ: "at+jwt", ...options.header })}.${encode(options.claims)}.`;
}

/** HS256 whose HMAC key is the provider's public key (PEM): the algorithm confusion attack. */
export function hs256WithPublicKey(key: JsonWebKey & { kid: string }, options: ForgeOptions): string {
  const { d: _private, ...publicJwk } = key;
  const pem = createPublicKey({ key: publicJwk as never, format: "jwk" }).export({ type: "spki", format: "pem" });
  const input = `${encode({ alg: "HS256", typ: "at+jwt", kid: key.kid, ...options.header })}.${encode(options.claims)}`;
  return `${input}.${createHmac("sha256", pem).update(input).digest("base64url")}`;
}

/** The same token with one character of its signature changed. */
export function withMutatedSignature(token: string, index = 0): string {
  const [header, payload, signature] = token.split(".") as [string, string, string];
  const position = index % signature.length;
  const replaced = signature[position] === "A" ? "B" : "A";
  return `${header}.${payload}.${signature.slice(0, position)}${replaced}${signature.slice(position + 1)}`;
}

/**
 * The same token with its signature's last character changed only in the bits base64url leaves spare:
 * the signature's bytes are unchanged, only its spelling differs.
 */
export function withRespelledSignature(token: string): string {
  const [header, payload, signature] = token.split(".") as [string, string, string];
  const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
  const last = alphabet.indexOf(signature.at(-1)!);
  return `${header}.${payload}.${signature.slice(0, -1)}${alphabet[last ^ 1]}`;
}
