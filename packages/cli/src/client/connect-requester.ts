import { Client, StreamableHTTPClientTransport, type Transport } from "@modelcontextprotocol/client";
import {
  createTaskSessionFromClient,
  type ApplicationElicitResult,
  type ApplicationInputRequest,
  type ResolvedInputExchangeContext,
  type TaskEnabledSession,
} from "@modelcontextprotocol/ext-tasks/client";
import { packageVersion } from "../package-version.js";
import { ClientError } from "./client-error.js";
import { DetachedStdioTransport } from "./detached-stdio-transport.js";
import { createRawDispatcher } from "./raw-dispatch.js";
import { redactUrl, redactUrlIn } from "./redact-url.js";

/**
 * The official requester (ext-tasks on the v2 SDK Client), connected to one server: over Streamable
 * HTTP or by spawning a stdio server. The Client is pinned to protocol 2026-07-28; ext-tasks declares the
 * tasks extension on each request it frames, so the Client's own capabilities stay without it.
 */

const protocolVersion = "2026-07-28";
const clientInfo = { name: "jobtasks-cli", version: packageVersion };

export type InputHandler = (
  request: ApplicationInputRequest,
  context: ResolvedInputExchangeContext<void>,
) => Promise<ApplicationElicitResult>;

export type ServerTarget =
  | { kind: "http"; url: string; headers: Record<string, string> }
  | { kind: "stdio"; command: string; args: string[] };

export interface ConnectOptions {
  target: ServerTarget;
  onInputRequest?: InputHandler;
  /** How long one request may wait for its answer. */
  requestTimeoutMs: number;
}

export interface ConnectedRequester {
  client: Client;
  session: TaskEnabledSession;
  close(): Promise<void>;
}

export async function connectRequester(options: ConnectOptions): Promise<ConnectedRequester> {
  const { target } = options;
  // The SDK's connect error leaves out the HTTP status of an answer it could not use (a 404 from a URL
  // that is no MCP endpoint): the last refusal is kept here to say it.
  let refusal: { status: number; statusText: string } | undefined;
  const fetchRecordingRefusals: typeof fetch = async (input, init) => {
    const response = await fetch(input, init);
    if (response.status >= 400) refusal = { status: response.status, statusText: response.statusText };
    return response;
  };
  const transport: Transport & { recentStderr?: () => string } =
    target.kind === "http"
      ? new StreamableHTTPClientTransport(new URL(target.url), {
          requestInit: { headers: target.headers },
          fetch: fetchRecordingRefusals,
        })
      : new DetachedStdioTransport(target.command, target.args, process.env);
  const raw = createRawDispatcher(transport, options.requestTimeoutMs);
  const client = new Client(clientInfo, { versionNegotiation: { mode: { pin: protocolVersion } } });
  try {
    await client.connect(transport);
  } catch (error) {
    await transport.close().catch(() => undefined);
    const where = target.kind === "http" ? redactUrl(target.url) : `the stdio server (${target.command})`;
    const serverSaid = transport.recentStderr?.();
    // 401 and 403 the SDK names itself, with what to do about them.
    if (refusal && refusal.status !== 401 && refusal.status !== 403)
      throw new ClientError(
        `cannot connect: HTTP ${refusal.status}${refusal.statusText ? ` ${refusal.statusText}` : ""} from ${where} — is this the MCP endpoint (http://host:port/mcp)?`,
        { cause: error },
      );
    // The fetch error may quote the URL as given, credentials and all.
    const reason =
      target.kind === "http" ? redactUrlIn(describeConnectError(error), target.url) : describeConnectError(error);
    throw new ClientError(
      `cannot connect to ${where}: ${reason}${serverSaid ? `\nThe server wrote:\n${serverSaid}` : ""}`,
      { cause: error },
    );
  }
  raw.install();
  const session = createTaskSessionFromClient(client, {
    // Task references only resume on the endpoint that made them: the same URL or command line.
    endpointId: target.kind === "http" ? `http:${target.url}` : `stdio:${[target.command, ...target.args].join(" ")}`,
    rawDispatch: raw.dispatch,
    v2RequestFraming: { protocolVersion, clientInfo, clientCapabilities: {} },
    ...(options.onInputRequest ? { onInputRequest: options.onInputRequest as never } : {}),
  });
  return {
    client,
    session,
    close: async () => {
      // Not session.close(): in ext-tasks 0.2.2 it sends tasks/cancel for every execution whose result
      // has not settled, detached or handed off ones included, and this client only ever cancels when
      // asked to. Closing the Client ends the connection (and a stdio server) without a word to the task.
      raw.rejectAll(new Error("the connection was closed"));
      await client.close().catch(() => undefined);
    },
  };
}

/** The SDK's message, with the system's reason from deep in the cause chain (ECONNREFUSED, ENOTFOUND). */
function describeConnectError(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  let reason: string | undefined;
  for (
    let current = (error as { cause?: unknown } | undefined)?.cause, depth = 0;
    current && depth < 6;
    current = (current as { cause?: unknown }).cause, depth++
  ) {
    const code = (current as { code?: unknown }).code;
    reason =
      typeof code === "string" || typeof code === "number"
        ? String(code)
        : ((current as { message?: string }).message ?? reason);
  }
  return reason && !message.includes(reason) ? `${message} (${reason})` : message;
}
