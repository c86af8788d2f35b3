// zod, whole, as @jobtasks/core hands it on (`@jobtasks/core/zod`; `z` from the package's index): the one
// zod every jobtasks package builds its schemas with, resolved from the core's own dependency, so that a
// process holds one copy of it. The command line's bundle sends the SDK's "zod/v4" here too.
export * from "zod";
export { default } from "zod";
