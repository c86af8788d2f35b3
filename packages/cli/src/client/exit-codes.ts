/** What `jobtasks call`, `watch` and `task` exit with, so a script can branch on the task's ending. */
export const exitCodes = {
  completed: 0,
  /** The tool ran and reported a failure (`isError: true`): a red pipeline, a rejected approval. */
  toolError: 1,
  /** The task failed at the protocol level (the job vanished, the upstream stayed unreachable). */
  failed: 2,
  cancelled: 3,
  /** Usage, connection, a refused request, an input request nobody answered, a timeout. */
  clientError: 4,
  /** Ctrl-C, then "detach": the task goes on without us (the shell's convention for an interrupt). */
  detached: 130,
} as const;
