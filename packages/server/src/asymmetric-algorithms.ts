/**
 * Signature algorithms with a public verification key, the only ones accepted: HMAC (HS256...) would need
 * a secret shared with the issuer, and accepting it beside public keys is how a token "signed" with a
 * public key gets through.
 */
export const asymmetricAlgorithms = [
  "RS256",
  "RS384",
  "RS512",
  "PS256",
  "PS384",
  "PS512",
  "ES256",
  "ES384",
  "ES512",
  "EdDSA",
  "Ed25519",
] as const;

export type AsymmetricAlgorithm = (typeof asymmetricAlgorithms)[number];
