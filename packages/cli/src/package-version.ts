import { createRequire } from "node:module";

/** This package's version, reported to clients in server/discover. */
export const packageVersion: string = (createRequire(import.meta.url)("../package.json") as { version: string })
  .version;
