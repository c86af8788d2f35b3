import type { AnyJobAdapter, JobTool } from "@jobtasks/core";
import type { Readiness } from "./readiness.js";
import type { Telemetry } from "./telemetry.js";

/**
 * The adapter as the server calls it, seen from outside: how each call into the upstream ended goes to
 * readiness (credentials refused or not), and each call runs with its instance in the telemetry context,
 * so that the upstream requests it makes are counted under that instance. Everything else is the adapter's
 * own, read from it at each use (a proxy: an adapter's getters run on the adapter itself). Events are left
 * alone: verifying a delivery makes no upstream request.
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
  const tools = adapter.tools.map((tool) => observedTool(tool, observe));
  // The methods are looked up at each call, as the adapter's own would be.
  const methods: Partial<Record<PropertyKey, unknown>> = {
    tools,
    doGetStatus: (ref: unknown, context: never) => observe(() => adapter.doGetStatus(ref, context)),
    doRespond: (ref: unknown, responses: never, context: never) =>
      observe(() => adapter.doRespond!(ref, responses, context)),
    doCancel: (ref: unknown, context: never) => observe(() => adapter.doCancel!(ref, context)),
  };
  return new Proxy(adapter, {
    get(target, property) {
      const own = Reflect.get(target, property, target) as unknown;
      // An optional method the adapter lacks stays absent: its absence is its capability list.
      if (Object.hasOwn(methods, property) && (property === "tools" || typeof own === "function"))
        return methods[property];
      return own;
    },
  });
}

function observedTool(tool: JobTool, observe: <T>(call: () => Promise<T>) => Promise<T>): JobTool {
  return new Proxy(tool, {
    get(target, property) {
      if (property === "doStart")
        return (input: unknown, context: never) => observe(() => target.doStart(input, context));
      return Reflect.get(target, property, target) as unknown;
    },
  });
}
