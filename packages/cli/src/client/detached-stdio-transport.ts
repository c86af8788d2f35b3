import { setTimeout as sleep } from "node:timers/promises";
import { spawn, type ChildProcess } from "node:child_process";
import { ReadBuffer, serializeMessage, type JSONRPCMessage, type Transport } from "@modelcontextprotocol/client";

const stderrTailChars = 4_000;

/**
 * A stdio client transport whose server runs in its own process group. Ctrl-C in a terminal signals the
 * whole foreground group: with the SDK's StdioClientTransport the server would stop at the very moment the
 * person is asked whether to cancel the task, and the cancel would have nowhere to go. Here the server
 * only stops when we close its stdin (or, failing that, signal it).
 */
export class DetachedStdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: Transport["onmessage"];
  private child: ChildProcess | undefined;
  private readonly buffer = new ReadBuffer();
  private stderrTail = "";

  constructor(
    private readonly command: string,
    private readonly args: readonly string[],
    private readonly environment: NodeJS.ProcessEnv,
  ) {}

  /** The last lines the server wrote to stderr, to explain a connection that failed. */
  recentStderr(): string {
    return this.stderrTail.trim();
  }

  start(): Promise<void> {
    return new Promise((resolve, reject) => {
      const child = spawn(this.command, [...this.args], {
        env: this.environment,
        stdio: ["pipe", "pipe", "pipe"],
        detached: process.platform !== "win32",
        windowsHide: true,
      });
      this.child = child;
      child.once("error", (error) => {
        reject(error);
        this.onerror?.(error);
      });
      child.once("spawn", () => resolve());
      child.once("close", () => {
        this.child = undefined;
        this.onclose?.();
      });
      child.stdin!.on("error", (error) => this.onerror?.(error));
      child.stdout!.on("data", (chunk: Buffer) => {
        this.buffer.append(chunk);
        for (;;) {
          let message: JSONRPCMessage | null;
          try {
            message = this.buffer.readMessage();
          } catch (error) {
            this.onerror?.(error as Error);
            continue;
          }
          if (message === null) break;
          this.onmessage?.(message);
        }
      });
      child.stderr!.setEncoding("utf8");
      child.stderr!.on("data", (chunk: string) => {
        // Bounded in lines and in characters: one endless line (a dumped blob) must not grow without end.
        this.stderrTail = (this.stderrTail + chunk).split("\n").slice(-20).join("\n").slice(-stderrTailChars);
      });
    });
  }

  async send(message: JSONRPCMessage): Promise<void> {
    const stdin = this.child?.stdin;
    if (!stdin) throw new Error("the stdio server is not running");
    await new Promise<void>((resolve, reject) =>
      stdin.write(serializeMessage(message), (error) => (error ? reject(error) : resolve())),
    );
  }

  async close(): Promise<void> {
    const child = this.child;
    if (!child) return;
    const closed = new Promise<void>((resolve) => child.once("close", () => resolve()));
    child.stdin?.end();
    const gone = await Promise.race([closed.then(() => true), delay(2_000).then(() => false)]);
    if (!gone) {
      child.kill("SIGTERM");
      await Promise.race([closed, delay(2_000)]);
    }
  }
}

/** A grace period that does not keep the process alive by itself. */
function delay(ms: number): Promise<void> {
  return sleep(ms, undefined, { ref: false });
}
