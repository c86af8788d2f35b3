// zod, whole, as @jobtasks/core hands it on: the one zod every jobtasks package builds its schemas with,
// so that a process holds one copy of it. This plain re-export is what a bundler takes (package.json's
// "module" condition); Node takes ./zod-node.ts, which the build turns into zod in one cached file.
export * from "zod";
export { default } from "zod";
