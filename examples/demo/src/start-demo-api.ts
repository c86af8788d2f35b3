import { startDemoApi } from "./demo-api/demo-api-server.js";

/**
 * `pnpm demo:api`: run the demo job API until interrupted. Configured by DEMO_API_PORT (default 4010) and
 * DEMO_API_HOST (default 127.0.0.1). Logs go to stderr so that stdout stays free for whoever pipes it.
 */

function readPort(value: string | undefined): number {
  if (value === undefined || value.trim() === "") return 4010;
  const port = Number(value);
  if (!Number.isInteger(port) || port < 0 || port > 65_535) {
    throw new Error(`DEMO_API_PORT must be a port number (0-65535), got ${JSON.stringify(value)}`);
  }
  return port;
}

let api: Awaited<ReturnType<typeof startDemoApi>>;
try {
  api = await startDemoApi({
    port: readPort(process.env.DEMO_API_PORT),
    host: process.env.DEMO_API_HOST?.trim() || "127.0.0.1",
  });
} catch (error) {
  // A person reads this in a terminal: the message, not a stack trace.
  process.stderr.write(`${(error as Error).message}\n`);
  process.exit(1);
}
process.stderr.write(`demo job API listening on ${api.url}\n`);

for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.once(signal, () => {
    void api.close().then(() => process.exit(0));
  });
}
