#!/usr/bin/env node
import { enableCompileCache } from "./enable-compile-cache.js";
import { noteUnsupportedNode } from "./unsupported-node-notice.js";

// First, before the modules it saves compiling are loaded; both imports above are tiny on purpose.
enableCompileCache();
noteUnsupportedNode();
// The command line as `pnpm build` bundled it from run-command-line.ts: scripts/bundle-command-line.mjs.
await import(new URL("./command-line.mjs", import.meta.url).href);
