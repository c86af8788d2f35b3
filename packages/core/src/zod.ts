// zod, whole, as @jobtasks/core hands it on (`@jobtasks/core/zod`; `z` from the package's index): the one
// zod every jobtasks package builds its schemas with, so that a process holds one copy of it. A plain
// re-export of the zod the core depends on; the command line's bundle sends the SDK's "zod/v4" here too.
export * from "zod";
export { default } from "zod";
