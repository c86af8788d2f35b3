#!/usr/bin/env node
import { enableCompileCache } from "./enable-compile-cache.js";
import { startCommandLine } from "./start-bundle.js";

// First, before the modules it would save compiling are loaded; both imports above are tiny on purpose.
enableCompileCache();
await startCommandLine(new URL("./", import.meta.url));
