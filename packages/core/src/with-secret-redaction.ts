import type { JsonValue } from "./json.js";
import type { AdapterContextV1, AdapterLoggerV1, JobAdapterV1, JobToolV1 } from "./v1/index.js";
import { createSecretRedactor, type SecretRedactor } from "./secret-redactor.js";

/**
 * The adapter as the server calls it: everything it hands back passes through a redactor built from its
 * declared `secrets` — snapshots (messages, results, errors, input requests), start results, the questions
 * it asks before a start, what it throws (causes included), and what it logs through `context.logger`,
 * also from work that goes on after the call returned. This is the one place secrets are redacted: an
 * adapter declares them and redacts nothing itself. The server applies it to every adapter; tests apply
 * it to see an adapter as the server does. Without declared secrets the adapter is used as it is, at no
 * cost. Refs are never touched: they are sealed, not shown.
 */
export function withSecretRedaction<Ref extends JsonValue>(adapter: JobAdapterV1<Ref>): JobAdapterV1<Ref> {
  const declared = adapter.secrets;
  if (declared === undefined) return adapter;
  // A getter is asked on every call, so credentials that renew are redacted in their current form.
  const redactor = (): SecretRedactor =>
    createSecretRedactor(typeof declared === "function" ? declared.call(adapter) : declared);

  async function guarded<T>(call: (redactor: SecretRedactor) => Promise<T>): Promise<T> {
    const current = redactor();
    try {
      return current.value(await call(current));
    } catch (error) {
      throw current.error(error);
    }
  }

  const wrapped: JobAdapterV1<Ref> = {
    specificationVersion: adapter.specificationVersion,
    kind: adapter.kind,
    tools: adapter.tools.map((tool) => redactingTool(tool, redactor)),
    ...(adapter.pollIntervalMs !== undefined ? { pollIntervalMs: adapter.pollIntervalMs } : {}),
    ...(adapter.retentionMs !== undefined ? { retentionMs: adapter.retentionMs } : {}),
    ...(adapter.refSchema !== undefined ? { refSchema: adapter.refSchema } : {}),
    secrets: declared,
    doGetStatus: (ref, context) => guarded((current) => adapter.doGetStatus(ref, redactingContext(context, current))),
  };
  if (adapter.doRespond) {
    const respond = adapter.doRespond.bind(adapter);
    wrapped.doRespond = (ref, responses, context) =>
      guarded((current) => respond(ref, responses, redactingContext(context, current)));
  }
  if (adapter.doCancel) {
    const cancel = adapter.doCancel.bind(adapter);
    wrapped.doCancel = (ref, context) => guarded((current) => cancel(ref, redactingContext(context, current)));
  }
  if (adapter.close) {
    const close = adapter.close.bind(adapter);
    wrapped.close = () => guarded(async () => close());
  }
  return wrapped;
}

function redactingTool<Ref extends JsonValue>(tool: JobToolV1<Ref>, redactor: () => SecretRedactor): JobToolV1<Ref> {
  const wrapped: JobToolV1<Ref> = {
    ...tool,
    doStart: async (input, context) => {
      const current = redactor();
      try {
        const started = await tool.doStart(input, redactingContext(context, current));
        // The ref goes into the sealed task id as it is; only the first snapshot is shown.
        return started.snapshot === undefined
          ? started
          : { ref: started.ref, snapshot: current.value(started.snapshot) };
      } catch (error) {
        throw current.error(error);
      }
    },
  };
  if (tool.inputBeforeStart) {
    const ask = tool.inputBeforeStart.bind(tool);
    wrapped.inputBeforeStart = (input, answers) => {
      const current = redactor();
      try {
        return current.value(ask(input, answers));
      } catch (error) {
        throw current.error(error);
      }
    };
  }
  return wrapped;
}

function redactingContext(context: AdapterContextV1, redactor: SecretRedactor): AdapterContextV1 {
  const logger = context.logger;
  const entry = (level: keyof AdapterLoggerV1) => (fields: Record<string, unknown>, message: string) =>
    logger[level](redactor.value(fields), redactor.text(message));
  return {
    ...context,
    logger: { debug: entry("debug"), info: entry("info"), warn: entry("warn"), error: entry("error") },
  };
}
