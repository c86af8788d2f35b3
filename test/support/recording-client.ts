import { rawCall, type JsonRpcMessage, type RawCallOptions } from "./raw-rpc.js";

/**
 * An agent's view of a jobtasks server over raw JSON-RPC: tools/call and tasks/*, every answer kept
 * verbatim so that a test can check that no credential ever reached the client.
 */
export interface RecordingClient {
  /** Every answer's raw body, in order. */
  readonly answers: string[];
  callTool(name: string, args: Record<string, unknown>): Promise<Record<string, any>>;
  get(taskId: string): Promise<Record<string, any>>;
  update(taskId: string, inputResponses: Record<string, unknown>): Promise<Record<string, any>>;
  cancel(taskId: string): Promise<Record<string, any>>;
  /** The raw message of any call, success or error. */
  call(method: string, params: Record<string, unknown>): Promise<JsonRpcMessage | undefined>;
  /** Fails the test when any recorded answer contains one of the values. */
  expectNoneContains(values: string[]): void;
}

export function recordingClient(url: string, options: RawCallOptions = {}): RecordingClient {
  const answers: string[] = [];
  const call = async (method: string, params: Record<string, unknown>) => {
    const response = await rawCall(url, method, params, options);
    answers.push(response.text);
    return response.body;
  };
  const result = async (method: string, params: Record<string, unknown>) => {
    const body = await call(method, params);
    if (!body?.result) throw new Error(`${method} did not succeed: ${JSON.stringify(body).slice(0, 800)}`);
    return body.result;
  };
  return {
    answers,
    call,
    callTool: (name, args) => result("tools/call", { name, arguments: args }),
    get: (taskId) => result("tasks/get", { taskId }),
    update: (taskId, inputResponses) => result("tasks/update", { taskId, inputResponses }),
    cancel: (taskId) => result("tasks/cancel", { taskId }),
    expectNoneContains(values) {
      for (const value of values) {
        const leaking = answers.find((answer) => answer.includes(value));
        if (leaking !== undefined)
          throw new Error(`an answer contains a secret (${value.slice(0, 4)}...): ${leaking.slice(0, 400)}`);
      }
    },
  };
}
