// What Node gets for @jobtasks/core/zod (package.json's "default" condition; a bundler takes "module",
// ./zod.js). As tsc writes it, it re-exports ./zod.js. `pnpm build` (and packing @jobtasks/core) then
// replaces it with a module that runs dist/zod.cjs, zod bundled into one CommonJS file, through
// runCachedCommonJs and exports each of zod's names (scripts/bundle-zod.mjs): zod's own ESM build is ~120
// modules, whose loading was a third of a stdio start on Node 20, which has no compile cache. The command
// line's bundle and the SDK inside it, the server and every adapter reach zod through this module, so an
// adapter installed on its own (github-actions, aws-batch, yours) shares it instead of loading zod again.
// Either form is the same zod, with every locale: a build without the bundling step is only slower.
export * from "./zod.js";
export { default } from "./zod.js";
