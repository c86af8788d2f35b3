// What adapters share around their transport, as `@jobtasks/core/adapter-utils`: a subpath, so that
// importing the contract loads none of it (nor lru-cache). No network client: an adapter brings its own.
export { sleep, sleepUntil, untilAborted } from "./abortable-sleep.js";
export { retryWithBackoff } from "./retry-with-backoff.js";
export type { RetryOptions } from "./retry-with-backoff.js";
export {
  exceedsJsonDepth,
  maxJsonDepth,
  parseBoundedJson,
  parseDeliveryJson,
  readBoundedJson,
  readBoundedText,
} from "./bounded-json.js";
export type { JsonRead } from "./bounded-json.js";
export { boundedCache } from "./bounded-cache.js";
export { EtagMemory } from "./etag-memory.js";
export type { EtagMemoryOptions, RememberedAnswer } from "./etag-memory.js";
export { isPlainObject } from "./is-plain-object.js";
export { flattenHeaders } from "./flatten-headers.js";
export { sameSecret } from "./same-secret.js";
export { tailWithinBytes } from "./tail-within-bytes.js";
export { connectionErrorCode, mayHaveActed, withoutConnectionDetails } from "./connection-errors.js";
export { setUpstreamRequestObserver, upstreamRequestStarted, urlTemplateOf } from "./upstream-requests.js";
export type {
  UpstreamRequestDescription,
  UpstreamRequestObserver,
  UpstreamRequestOutcome,
  UpstreamRequestRecord,
} from "./upstream-requests.js";
