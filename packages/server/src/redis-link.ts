import { randomUUID } from "node:crypto";
import type { RedisClientType } from "@redis/client";
import type { Logger } from "./logger.js";

export interface RedisLinkOptions {
  /** redis:// or rediss:// (TLS), with an optional user and password; never logged. */
  url: string;
  /** A password given apart from the URL (a secret variable); never logged. */
  password?: string;
  /** Keys are `jobtasks:<keyPrefix>:…`, so deployments can share one Redis. */
  keyPrefix: string;
  /** A command slower than this counts as Redis being unavailable: the request goes on without it. Default 50 ms. */
  commandTimeoutMs?: number;
  /** How long the start waits for a first connection before serving without sharing. Default 2 s. */
  connectWithinMs?: number;
  logger: Logger;
}

/** What `run` answers when Redis did not: the caller falls back to what this process knows. */
export const unavailable: unique symbol = Symbol("redis unavailable");

type Client = RedisClientType;

/**
 * A command answered late is not waited for (its request goes on without Redis); this many in a row stop
 * the link from sending until Redis answers in time again (one garbage-collection pause is not an outage).
 */
const lateAnswersToDegrade = 3;

/**
 * The one connection a replica keeps to Redis (and a second one for pub/sub, which a subscribed
 * connection needs), and the rule that makes Redis optional at run time: a command that fails, or takes
 * longer than commandTimeoutMs, is answered `unavailable` and the request goes on without it. A failed
 * command, or a few late ones in a row, log one warning; from then on no command is sent (each would fail
 * or wait), a probe pings every half second, and when Redis answers again in time sharing resumes, with
 * one info line.
 */
export class RedisLink {
  /** Tells this replica's own pub/sub messages apart from the others'. */
  readonly replicaId = randomUUID();
  readonly #client: Client;
  readonly #subscriber: Client;
  readonly #prefix: string;
  readonly #timeoutMs: number;
  readonly #logger: Logger;
  #degraded = true;
  #probe: NodeJS.Timeout | undefined;
  #warned = false;
  /** Commands that Redis answered too late, one after the other: a few mean Redis is slow, one may be a pause. */
  #lateInARow = 0;
  /** When sharing last resumed: an outage within a minute of it is the same outage, not a new warning. */
  #resumedAt = Number.NEGATIVE_INFINITY;
  #closed = false;

  private constructor(client: Client, subscriber: Client, options: RedisLinkOptions) {
    this.#client = client;
    this.#subscriber = subscriber;
    this.#prefix = `jobtasks:${options.keyPrefix}:`;
    this.#timeoutMs = options.commandTimeoutMs ?? 50;
    this.#logger = options.logger;
  }

  /**
   * Connect, waiting at most connectWithinMs: a Redis that is not there yet does not stop the start (the
   * replica serves on its own and begins sharing once Redis answers).
   */
  static async connect(options: RedisLinkOptions): Promise<RedisLink> {
    // Loaded only when Redis is configured, so a server without it never pays for the client. A bundle
    // that splits chunks hands a CommonJS package over as `default` only: take either form.
    // An optional peer dependency of this package (the command line's bundle carries it): a library user
    // who configures Redis installs it.
    const loaded = (await import("@redis/client").catch((error: unknown) => {
      throw new Error("sharing state through Redis needs the package @redis/client: npm install @redis/client", {
        cause: error,
      });
    })) as typeof import("@redis/client") & { default?: typeof import("@redis/client") };
    const createClient = loaded.createClient ?? loaded.default?.createClient;
    if (typeof createClient !== "function") throw new Error("the Redis client library has no createClient");
    const client = createClient({
      url: options.url,
      ...(options.password !== undefined ? { password: options.password } : {}),
      // A command sent while disconnected fails at once instead of queueing: the request must not wait.
      disableOfflineQueue: true,
      socket: {
        connectTimeout: 1000,
        // Reconnect for ever, quickly: sharing resumes within about a second of Redis coming back.
        reconnectStrategy: (retries: number) => Math.min(50 * 2 ** retries, 1000),
      },
    }) as unknown as Client;
    // The subscribing connection queues its SUBSCRIBE until it is connected (and the client subscribes
    // again after each reconnect): a replica started before Redis still hears the others' events later.
    const subscriber = client.duplicate({ disableOfflineQueue: false });
    const link = new RedisLink(client, subscriber, options);
    for (const connection of [client, subscriber]) {
      // Every failed reconnect emits an error; the link reports an outage once, on its own terms.
      connection.on("error", (error: unknown) =>
        options.logger.debug({ reason: reasonOf(error) }, "shared state: Redis connection error"),
      );
      connection.connect().catch(() => undefined);
    }
    await link.#ready(options.connectWithinMs ?? 2000);
    return link;
  }

  /** The key of `parts` under this deployment's prefix. */
  key(...parts: string[]): string {
    return this.#prefix + parts.join(":");
  }

  /** Whether commands are sent now (Redis answered the last of them in time). */
  get active(): boolean {
    return !this.#degraded && this.#client.isReady;
  }

  /**
   * Run a command (or several, pipelined by the client), or answer `unavailable` without waiting longer.
   * `guard`: the command guards an action that must not happen twice (an answer going upstream): it is
   * tried while the link is degraded too, as long as the connection is up, and given 20 times the bound.
   */
  async run<T>(
    command: (client: Client) => Promise<T>,
    options: { guard?: boolean } = {},
  ): Promise<T | typeof unavailable> {
    const usable = options.guard ? this.#client.isReady : this.active;
    if (!usable) {
      if (!this.#degraded) this.#degrade("not connected");
      return unavailable;
    }
    const timeoutMs = options.guard ? this.#timeoutMs * 20 : this.#timeoutMs;
    let timer: NodeJS.Timeout | undefined;
    let timedOut = false;
    const late = new Promise<typeof unavailable>((resolve) => {
      const armedAt = performance.now();
      let extended = false;
      const expire = () => {
        // A timer that fires far past its time means this process was busy, not that Redis was slow:
        // the command gets its time again, once. And timers run before the loop reads its sockets, so a
        // reply that came in meanwhile is read first (setImmediate) and wins the race below.
        if (!extended && performance.now() - armedAt > 2 * timeoutMs) {
          extended = true;
          timer = setTimeout(expire, timeoutMs);
          return;
        }
        setImmediate(() => {
          timedOut = true;
          resolve(unavailable);
        });
      };
      timer = setTimeout(expire, timeoutMs);
    });
    const answer = command(this.#client).catch((error: unknown): typeof unavailable => {
      this.#degrade(reasonOf(error));
      return unavailable;
    });
    try {
      const result = await Promise.race([answer, late]);
      if (result !== unavailable) this.#lateInARow = 0;
      else if (timedOut)
        this.#logger.debug(
          { timeoutMs },
          "shared state: a Redis answer came too late; this request went on without it",
        );
      if (result === unavailable && timedOut && ++this.#lateInARow >= lateAnswersToDegrade)
        this.#degrade(`no answer within ${timeoutMs} ms, ${lateAnswersToDegrade} times in a row`);
      return result;
    } finally {
      clearTimeout(timer);
    }
  }

  /** Run a command whose answer nobody waits for (a write that only saves others a read). */
  send(command: (client: Client) => Promise<unknown>, options: { guard?: boolean } = {}): void {
    void this.run(command, options);
  }

  /** Publish on a channel of this deployment (not when Redis is unavailable: polling is the safety net). */
  publish(channel: string, message: string): void {
    this.send((client) => client.publish(this.key(channel), message));
  }

  /** Hear a channel of this deployment; the client subscribes again by itself after a reconnect. */
  subscribe(channel: string, listener: (message: string) => void): void {
    this.#subscriber.subscribe(this.key(channel), listener).catch((error: unknown) => {
      this.#logger.warn({ reason: reasonOf(error) }, "shared state: could not subscribe to events of other replicas");
    });
  }

  async close(): Promise<void> {
    this.#closed = true;
    clearInterval(this.#probe);
    await Promise.allSettled([this.#client, this.#subscriber].map((connection) => connection.close()));
  }

  async #ready(withinMs: number): Promise<void> {
    const deadline = Date.now() + withinMs;
    while (!this.#closed && Date.now() < deadline) {
      if (this.#client.isReady && this.#subscriber.isReady && (await this.#ping())) {
        this.#degraded = false;
        this.#logger.info(
          { keyPrefix: this.#prefix },
          "shared state: replicas share snapshots, answers and events through Redis",
        );
        return;
      }
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    this.#degrade("not reachable at start");
  }

  async #ping(): Promise<boolean> {
    let timer: NodeJS.Timeout | undefined;
    try {
      return await Promise.race([
        this.#client.ping().then(() => true),
        new Promise<boolean>((resolve) => {
          timer = setTimeout(() => resolve(false), this.#timeoutMs);
        }),
      ]);
    } catch {
      return false;
    } finally {
      clearTimeout(timer);
    }
  }

  #degrade(reason: string): void {
    if (this.#degraded && this.#probe) return;
    this.#degraded = true;
    // One warning per outage, however many requests meet it; Redis answering late again and again
    // (a flapping link) is one outage while it stays within a minute of the last recovery.
    if (Date.now() - this.#resumedAt > 60_000) this.#warned = false;
    if (!this.#warned) {
      this.#warned = true;
      this.#logger.warn(
        { reason },
        "shared state: Redis is unavailable; this replica answers from its own caches and ledger until it is back",
      );
    }
    if (this.#closed || this.#probe) return;
    this.#probe = setInterval(() => void this.#tryResume(), 500);
    this.#probe.unref();
  }

  async #tryResume(): Promise<void> {
    if (this.#closed || !this.#client.isReady || !(await this.#ping())) return;
    clearInterval(this.#probe);
    this.#probe = undefined;
    this.#degraded = false;
    this.#lateInARow = 0;
    if (Date.now() - this.#resumedAt > 60_000)
      this.#logger.info({}, "shared state: Redis answers again; replicas share again");
    this.#resumedAt = Date.now();
  }
}

/** What a failure was, without anything the error's message may carry (an address, a URL). */
function reasonOf(error: unknown): string {
  if (error && typeof error === "object") {
    const { code, name } = error as { code?: unknown; name?: unknown };
    if (typeof code === "string") return code;
    if (typeof name === "string") return name;
  }
  return "unknown error";
}
