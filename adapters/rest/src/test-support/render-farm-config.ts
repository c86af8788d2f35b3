import type { RestOptions } from "../rest-options.js";

/** A made-up render farm API that exercises every part of the config; the tests mock it with MockAgent. */
export const renderFarmOrigin = "https://render.example.test";
export const renderFarmToken = "rf-token-0123456789abcdef";

export function renderFarmConfig(overrides: Partial<RestOptions> = {}): RestOptions {
  return {
    baseUrl: `${renderFarmOrigin}/api`,
    auth: { type: "bearer", tokenEnv: "RENDER_TOKEN" },
    tools: [
      {
        name: "render_scene",
        description: "Render frames of a scene on the render farm.",
        input: {
          scene: { type: "string", description: "Scene name." },
          frames: { type: "integer", default: 10, minimum: 1, maximum: 1000 },
          priority: "string?",
        },
        submit: {
          url: "/scenes/{{input.scene}}/renders",
          headers: { "X-Priority": "{{input.priority}}" },
          body: { frames: "{{input.frames}}", priority: "{{input.priority}}", label: "scene {{input.scene}}" },
          idempotencyHeader: "Idempotency-Key",
          retries: 2,
        },
      },
    ],
    reference: { path: "render.id" },
    status: {
      url: "/renders/{{job.id}}",
      field: "state",
      working: ["queued", "rendering"],
      inputRequired: ["needs_review"],
      completed: ["done"],
      errorValues: ["crashed"],
      cancelled: ["aborted"],
      updatedAtPath: "updated",
    },
    progress: { message: "frame {{body.progress.frame}}/{{body.progress.total}}" },
    result: { path: "output", errorPath: "failure.reason", logsPath: "log", logTailLines: 2 },
    inputRequired: {
      keyPath: "review.id",
      message: "{{body.review.question}}",
      schema: {
        type: "object",
        properties: { verdict: { type: "string", enum: ["ship", "redo"] } },
        required: ["verdict"],
      },
      respond: {
        url: "/renders/{{job.id}}/reviews/{{key}}",
        body: { verdict: "{{answer.verdict}}" },
        declineBody: { verdict: "redo" },
      },
    },
    cancel: { url: "/renders/{{job.id}}/abort", recognizedBy: { path: "abortedByUser", values: ["true"] } },
    polling: { initialIntervalMs: 1_000, multiplier: 2, maxIntervalMs: 8_000 },
    ...overrides,
  };
}
