// The zod that every jobtasks package builds its schemas with, so that a process holds one copy of it.
//
// As tsc writes it, this module re-exports the zod package. `pnpm build` (and packing @jobtasks/core) then
// replaces dist/zod.js with zod bundled into that one file (scripts/bundle-zod.mjs): zod's own ESM build
// is ~120 modules, whose loading was a third of a stdio start on Node 20, which has no compile cache. The
// command line's bundle and the SDK inside it, the server and every adapter reach zod through this module,
// so an adapter installed on its own (github-actions, aws-batch, yours) shares it instead of loading zod
// again. Either form of this file is the same zod, with every locale: a build without the bundling step is
// only slower to start.
export * from "zod";
export { default } from "zod";
