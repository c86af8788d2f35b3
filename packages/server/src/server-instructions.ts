import type { ClientsWithoutTasks } from "./clients-without-tasks.js";
import { defaultStatusWaitSeconds } from "./handle-tool-definitions.js";

/**
 * The instructions a client gets in initialize and server/discover: the configured text (what the tools
 * do), then how to follow a job in the calls this client can make. A client without the tasks extension
 * cannot call tasks/get, tasks/update or tasks/cancel, and hosts such as Codex show the instructions to
 * the model as the tools' description, so each kind of client reads only the calls it has.
 */
export function serverInstructions(
  configured: string | undefined,
  client: { tasksDeclared: boolean; clientsWithoutTasks: ClientsWithoutTasks },
): string {
  const following = client.tasksDeclared
    ? "A job tool answers with a task: follow it with tasks/get, answer a question it asks (input_required) " +
      "with tasks/update, and stop it with tasks/cancel."
    : withoutTheExtension[client.clientsWithoutTasks];
  return configured ? `${configured.trim()}\n\n${following}` : following;
}

const withoutTheExtension: Record<ClientsWithoutTasks, string> = {
  handles:
    "A job tool answers with the job's result when it finished at once, otherwise with a taskId: follow the job " +
    `with task_status and that taskId (each call waits up to ${defaultStatusWaitSeconds} s; call it again while ` +
    'the status is "working"), answer a question it asks with task_answer, and stop it with task_cancel.',
  wait: "A job tool that answers this client waits for its job and answers with the job's result.",
  refuse: "Job tools answer only clients that declare the tasks extension (io.modelcontextprotocol/tasks).",
};
