import type { JsonValue } from "./json.js";
import type { AdapterContextV1, AdapterLoggerV1, JobAdapterV1, JobEventsV1, JobToolV1 } from "./v1/index.js";
import { createSecretRedactor, type SecretRedactor } from "./secret-redactor.js";

/**
 * The adapter as the server calls it: everything it hands back passes through a redactor built from its
 * declared `secrets` — snapshots (messages, results, errors, input requests), start results, the questions
 * it asks before a start, what it throws (causes included), what `close` throws, and what it logs through
 * `context.logger`, also from work that goes on after the call returned. This is the one place secrets are
 * redacted: an adapter declares them and redacts nothing itself. The server applies it to every adapter;
 * tests apply it to see an adapter as the server does. Without declared secrets the adapter is used as it
 * is, at no cost. Refs are never touched: they are sealed, not shown.
 */
export function withSecretRedaction<Ref extends JsonValue>(adapter: JobAdapterV1<Ref>): JobAdapterV1<Ref> {
  const declared = adapter.secrets;
  if (declared === undefined) return adapter;
  const redactor = currentRedactor(typeof declared === "function" ? () => declared.call(adapter) : () => declared);

  async function guarded<T>(call: () => Promise<T>): Promise<T> {
    let answer: T;
    try {
      answer = await call();
    } catch (error) {
      throw redactor().error(error);
    }
    return redactor().value(answer);
  }

  const wrapped: JobAdapterV1<Ref> = {
    specificationVersion: adapter.specificationVersion,
    kind: adapter.kind,
    tools: adapter.tools.map((tool) => redactingTool(tool, redactor)),
    ...(adapter.pollIntervalMs !== undefined ? { pollIntervalMs: adapter.pollIntervalMs } : {}),
    ...(adapter.retentionMs !== undefined ? { retentionMs: adapter.retentionMs } : {}),
    ...(adapter.refSchema !== undefined ? { refSchema: adapter.refSchema } : {}),
    ...(adapter.events !== undefined ? { events: redactingEvents(adapter.events, redactor) } : {}),
    secrets: declared,
    doGetStatus: (ref, context) => guarded(() => adapter.doGetStatus(ref, redactingContext(context, redactor))),
  };
  if (adapter.doRespond) {
    const respond = adapter.doRespond.bind(adapter);
    wrapped.doRespond = (ref, responses, context) =>
      guarded(() => respond(ref, responses, redactingContext(context, redactor)));
  }
  if (adapter.doCancel) {
    const cancel = adapter.doCancel.bind(adapter);
    wrapped.doCancel = (ref, context) => guarded(() => cancel(ref, redactingContext(context, redactor)));
  }
  if (adapter.watchJobChanges) {
    const watch = adapter.watchJobChanges.bind(adapter);
    // A change's snapshot is shown to clients like any other; the ref is sealed, never shown.
    wrapped.watchJobChanges = (report) =>
      watch((change) =>
        report(change.snapshot === undefined ? change : { ...change, snapshot: redactor().value(change.snapshot) }),
      );
  }
  if (adapter.close) {
    const close = adapter.close.bind(adapter);
    wrapped.close = () => guarded(close);
  }
  return wrapped;
}

/**
 * Events through the same redactor: the snapshots an event carries are shown to clients like any other, and
 * a refusal's reason is logged. Refs and identities are left alone (sealed and compared, never shown).
 */
function redactingEvents<Ref extends JsonValue>(
  events: JobEventsV1<Ref>,
  redactor: () => SecretRedactor,
): JobEventsV1<Ref> {
  async function withRedactedErrors<T>(call: () => Promise<T>): Promise<T> {
    try {
      return await call();
    } catch (error) {
      throw redactor().error(error);
    }
  }
  const wrapped: JobEventsV1<Ref> = {
    doVerifyDelivery: async (delivery) =>
      redactor().value(await withRedactedErrors(() => events.doVerifyDelivery(delivery))),
    doReadDelivery: async (delivery) => {
      const read = await withRedactedErrors(() => events.doReadDelivery(delivery));
      return {
        ...read,
        jobs: read.jobs.map((job) =>
          job.snapshot === undefined ? job : { ...job, snapshot: redactor().value(job.snapshot) },
        ),
      };
    },
  };
  if (events.jobIdentity) wrapped.jobIdentity = events.jobIdentity.bind(events);
  // A number of the adapter's own reckoning, holding nothing the upstream said: nothing to redact.
  if (events.safetyReadIntervalMs) wrapped.safetyReadIntervalMs = events.safetyReadIntervalMs.bind(events);
  return wrapped;
}

/**
 * The redactor for the secrets as they are when something is handed back, not when the call began: a
 * credential that renews during a call (the first request fetches it) is redacted from that call's answer
 * too. A getter is asked each time; the redactor is rebuilt only when its answer changed.
 */
function currentRedactor(secrets: () => readonly string[]): () => SecretRedactor {
  let built: { secrets: string[]; redactor: SecretRedactor } | undefined;
  return () => {
    const now = secrets();
    if (
      built === undefined ||
      built.secrets.length !== now.length ||
      built.secrets.some((old, at) => old !== now[at])
    ) {
      built = { secrets: [...now], redactor: createSecretRedactor(now) };
    }
    return built.redactor;
  };
}

function redactingTool<Ref extends JsonValue>(tool: JobToolV1<Ref>, redactor: () => SecretRedactor): JobToolV1<Ref> {
  const wrapped: JobToolV1<Ref> = {
    ...tool,
    doStart: async (input, context) => {
      let started: Awaited<ReturnType<JobToolV1<Ref>["doStart"]>>;
      try {
        started = await tool.doStart(input, redactingContext(context, redactor));
      } catch (error) {
        throw redactor().error(error);
      }
      // The ref goes into the sealed task id as it is; only the first snapshot is shown.
      return started.snapshot === undefined
        ? started
        : { ref: started.ref, snapshot: redactor().value(started.snapshot) };
    },
  };
  if (tool.inputBeforeStart) {
    const ask = tool.inputBeforeStart.bind(tool);
    wrapped.inputBeforeStart = (input, answers) => {
      try {
        return redactor().value(ask(input, answers));
      } catch (error) {
        throw redactor().error(error);
      }
    };
  }
  return wrapped;
}

function redactingContext(context: AdapterContextV1, redactor: () => SecretRedactor): AdapterContextV1 {
  const logger = context.logger;
  const entry = (level: keyof AdapterLoggerV1) => (fields: Record<string, unknown>, message: string) => {
    const current = redactor();
    logger[level](current.value(fields), current.text(message));
  };
  return {
    ...context,
    logger: { debug: entry("debug"), info: entry("info"), warn: entry("warn"), error: entry("error") },
  };
}
