import type { AnyJobAdapter, JobTool } from "@jobtasks/core";
import type { Readiness } from "./readiness.js";
import type { Telemetry } from "./telemetry.js";

/**
 * The adapter as the server calls it, seen from outside: how each call into the upstream ended goes to
 * readiness (credentials refused or not), and each call runs with its instance in the telemetry context,
 * so that the upstream requests it makes are counted under that instance. Events are left alone: verifying
 * a delivery makes no upstream request.
 */
export function observedAdapter(
  adapter: AnyJobAdapter,
  instance: string,
  readiness: Readiness,
  telemetry: Telemetry,
): AnyJobAdapter {
  const observe = async <T>(call: () => Promise<T>): Promise<T> => {
    let answer: T;
    try {
      answer = await telemetry.forInstance(instance, call);
    } catch (error) {
      readiness.noteCall(instance, error);
      throw error;
    }
    readiness.noteCall(instance);
    return answer;
  };
  const observed: AnyJobAdapter = Object.create(adapter) as AnyJobAdapter;
  const overrides: Partial<Record<keyof AnyJobAdapter, unknown>> = {
    tools: adapter.tools.map((tool): JobTool =>
      Object.assign(Object.create(tool) as JobTool, {
        doStart: (input: unknown, context: never) => observe(() => tool.doStart(input, context)),
      }),
    ),
    doGetStatus: (ref: unknown, context: never) => observe(() => adapter.doGetStatus(ref, context)),
  };
  // Looked up at each call, as the adapter's own methods would be.
  if (adapter.doRespond)
    overrides.doRespond = (ref: unknown, responses: never, context: never) =>
      observe(() => adapter.doRespond!(ref, responses, context));
  if (adapter.doCancel)
    overrides.doCancel = (ref: unknown, context: never) => observe(() => adapter.doCancel!(ref, context));
  return Object.assign(observed, overrides);
}
