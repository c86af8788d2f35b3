/**
 * Presets: the parts of a config that a well-known job API fixes, so that a user only adds what the
 * preset cannot know (baseUrl, credentials, tools). User values are merged over the preset: objects
 * key by key, everything else (lists, tools) replaced whole.
 */

export type PresetName = "azure-lro" | "google-operation" | "demo-api";

/**
 * Azure long-running operations: 202 with Operation-Location / Azure-AsyncOperation / Location, a status
 * monitor with NotStarted | Running | Succeeded | Failed | Canceled, `error` and `result`, Retry-After.
 */
const azureLongRunningOperation = {
  reference: { header: ["Operation-Location", "Azure-AsyncOperation", "Location"], kind: "url" },
  status: {
    url: "{{job.id}}",
    field: "status",
    working: ["NotStarted", "Running", "InProgress", "Accepted", "Creating", "Updating", "Deleting"],
    completed: ["Succeeded"],
    errorValues: ["Failed"],
    cancelled: ["Canceled", "Cancelled"],
    updatedAtPath: "lastUpdatedDateTime",
  },
  progress: { percentPath: "percentComplete" },
  result: { path: "result", errorPath: "error" },
  // Azure's guideline for controlling an operation: POST on the status monitor's URL with `:cancel` (its
  // api-version query kept), answered 200 with the monitor or 202. A service without it answers 404.
  cancel: { method: "POST", url: "{{job.id}}:cancel", acceptedStatus: [200, 202, 204] },
  polling: { initialIntervalMs: 2_000, multiplier: 1.5, maxIntervalMs: 30_000 },
};

/** gRPC codes 2-16: an operation done with any of them ended with an error (1 is CANCELLED). */
const grpcErrorCodes = Array.from({ length: 15 }, (_, index) => String(index + 2));

/**
 * What Google operations commonly say in `metadata` (its type varies by API): a `state`, a percentage as
 * `progressPercent` or `progress` (a number, or an object holding `progressPercent`), a `statusMessage` or
 * `stateMessage`, and the `verb` of the call. The first message template whose fields are all present wins.
 */
const operationState = "{{body.metadata.state}}";
const operationPercent = "{{body.metadata..[?((@property==='progressPercent' || @property==='progress') && @ >= 0)]}}";
const operationDetail = "{{body.metadata[statusMessage,stateMessage]}}";
const operationVerb = "{{body.metadata.verb}}";
const googleOperationMessages = {
  message: [
    `${operationState} (${operationPercent}%): ${operationDetail}`,
    `${operationState} (${operationPercent}%)`,
    `${operationState}: ${operationDetail}`,
    operationState,
    `${operationVerb} (${operationPercent}%): ${operationDetail}`,
    `${operationVerb}: ${operationDetail}`,
    `${operationVerb} (${operationPercent}%)`,
    `${operationDetail} (${operationPercent}%)`,
    operationDetail,
    `running (${operationPercent}%)`,
    `${operationVerb}: running`,
    "running",
  ],
  completedMessage: [operationState, "succeeded"],
  errorMessage: ["failed: {{body.error.message}}", "failed: error code {{body.error.code}}"],
  cancelledMessage: ["cancelled: {{body.error.message}}", "cancelled"],
};

/**
 * Google AIP-151 operations: `{name, done, error?, response?, metadata?}`. `done` is left out while false;
 * cancelled is done with error.code 1. The raw status is the error code when there is one, else `done`;
 * messages come from the metadata and the error instead.
 */
const googleOperation = {
  reference: { path: "name", kind: "id" },
  status: {
    url: "{{*job.id}}",
    field: ["error.code", "done"],
    working: ["false"],
    completed: ["true"],
    errorValues: grpcErrorCodes,
    cancelled: ["1"],
  },
  progress: googleOperationMessages,
  result: { path: "response", errorPath: "error" },
  cancel: { method: "POST", url: "{{*job.id}}:cancel", body: {}, acceptedStatus: [200, 204] },
  polling: { initialIntervalMs: 5_000, multiplier: 1.5, maxIntervalMs: 45_000 },
};

/**
 * The foundation's demo job API (examples/demo): the same `demo_pipeline` tool as the hand-written demo
 * adapter, with approval gates and cancel, through this adapter.
 */
const demoApi = {
  tools: [
    {
      name: "demo_pipeline",
      title: "Demo pipeline",
      description:
        "Run a demo CI-like pipeline of a few steps. Optionally waits for an approval after the first step, or fails on purpose.",
      inputSchema: {
        type: "object",
        properties: {
          steps: { type: "integer", minimum: 1, maximum: 50, default: 3, description: "How many steps to run." },
          stepMs: {
            type: "integer",
            minimum: 0,
            maximum: 600000,
            default: 1000,
            description: "Duration of each step in milliseconds.",
          },
          approval: { type: "boolean", default: false, description: "Wait for an approval after the first step." },
          fail: { type: "boolean", default: false, description: "Make the last step fail." },
        },
        additionalProperties: false,
      },
      outputSchema: {
        type: "object",
        properties: {
          status: { type: "string", description: "The demo API's final job status: succeeded, failed or rejected." },
          name: { type: "string", description: "The pipeline's name." },
          steps: {
            type: "array",
            items: { type: "object", properties: { name: { type: "string" }, status: { type: "string" } } },
            description: "Every step with its final status.",
          },
          durationMs: { type: "number", description: "Time from queueing to the end of the job, in milliseconds." },
          failedStep: { type: "string", description: "The step that failed, when the pipeline failed." },
          logExcerpt: { type: "array", items: { type: "string" }, description: "The last log lines." },
          approvalComment: { type: "string", description: "The reviewer's comment on the deploy approval." },
        },
        required: ["status", "name", "steps"],
      },
      submit: {
        method: "POST",
        url: "/jobs",
        body: {
          steps: "{{input.steps}}",
          stepMs: "{{input.stepMs}}",
          approval: "{{input.approval}}",
          fail: "{{input.fail}}",
        },
        acceptedStatus: [201],
        firstSnapshot: true,
      },
    },
  ],
  reference: { path: "id", kind: "id" },
  status: {
    url: "/jobs/{{job.id}}",
    field: "status",
    working: ["queued", "running"],
    inputRequired: ["waiting_for_approval"],
    completed: ["succeeded"],
    errorValues: ["failed", "rejected"],
    cancelled: ["cancelled"],
    updatedAtPath: "updatedAt",
  },
  progress: { message: "step {{body.currentStep}}/{{body.totalSteps}}: {{body.steps[?(@.status=='running')].name}}" },
  result: {
    // The same structured content as the hand-written demo adapter's demo_pipeline output.
    fields: {
      status: "status",
      name: "name",
      steps: "steps",
      durationMs: "durationMs",
      failedStep: "steps[?(@.status=='failed')].name",
      logExcerpt: { path: "logs[-20:]", all: true },
      approvalComment: "approval.comment",
    },
    summary:
      "Pipeline {{body.name}} {{body.status}} after {{body.durationMs}} ms (step {{body.currentStep}}/{{body.totalSteps}}).",
    logsPath: "logs",
    logTailLines: 20,
  },
  inputRequired: {
    keyPath: "approval.id",
    message: "{{body.approval.message}} (step {{body.currentStep}}/{{body.totalSteps}} done)",
    schema: {
      type: "object",
      properties: {
        // A default, so a form shows "reject" as the starting answer and a rejection needs no toggling.
        approve: {
          type: "boolean",
          title: "Approve",
          default: false,
          description: "Approve to continue the pipeline; reject to stop it.",
        },
        comment: { type: "string", title: "Comment", description: "Optional note recorded with the decision." },
      },
      required: ["approve"],
    },
    respond: {
      method: "POST",
      url: "/jobs/{{job.id}}/approval",
      body: { approvalId: "{{key}}", approve: "{{answer.approve}}", comment: "{{answer.comment}}" },
      declineBody: { approvalId: "{{key}}", approve: false },
      acceptedStatus: [200],
    },
  },
  cancel: { method: "POST", url: "/jobs/{{job.id}}/cancel", acceptedStatus: [200, 202] },
  // A demo is watched as it runs: every step (a second or so) should show when it happens, so no back-off.
  polling: { initialIntervalMs: 1_000, multiplier: 1, maxIntervalMs: 1_000 },
};

export const presets: Readonly<Record<PresetName, Record<string, unknown>>> = {
  "azure-lro": azureLongRunningOperation,
  "google-operation": googleOperation,
  "demo-api": demoApi,
};
