import { z } from "@jobtasks/core";
import type { SamplingRequest, StartInputRequest, StartInputResponse } from "@jobtasks/core";
import { acceptedField, askFor, rootsListed, sampledText, textResult, type FixtureTool } from "./fixture-tool.js";

/**
 * Tools that ask before their job starts (the protocol's input-required result, multi round trip), then
 * run a job that is finished at once: the answer to the last round is the plain result. The questions are
 * the ones the conformance suite's input-required scenarios expect, by key.
 */

const nameQuestion = askFor("What is your name?", "name", { type: "string" });
const rootsQuestion: StartInputRequest = { method: "roots/list", params: {} };

function askModel(text: string, maxTokens: number): SamplingRequest {
  return {
    method: "sampling/createMessage",
    params: { messages: [{ role: "user", content: { type: "text", text } }], maxTokens },
  };
}

/** The questions not answered yet. */
function unanswered(
  questions: Record<string, StartInputRequest>,
  answers: Readonly<Record<string, StartInputResponse>>,
) {
  const left = Object.entries(questions).filter(([key]) => !Object.hasOwn(answers, key));
  return left.length > 0 ? Object.fromEntries(left) : undefined;
}

function askFirstTool(
  name: string,
  description: string,
  questions: (answers: Readonly<Record<string, StartInputResponse>>) => Record<string, StartInputRequest> | undefined,
  answer: (answers: Readonly<Record<string, StartInputResponse>>) => string,
): FixtureTool<Record<string, never>> {
  return {
    name,
    description,
    inputSchema: z.object({}),
    synchronousWaitMs: 30_000,
    inputBeforeStart: (_input, answers) => questions(answers),
    observe: (job) => ({ status: "completed", rawStatus: "succeeded", result: textResult(answer(job.startAnswers)) }),
  };
}

const greeting = (answers: Readonly<Record<string, StartInputResponse>>, key: string) =>
  `Hello, ${String(acceptedField(answers[key], "name") ?? "whoever you are")}!`;

export const askFirstTools: readonly FixtureTool[] = [
  askFirstTool(
    "test_input_required_result_elicitation",
    "Asks your name (a form), then greets you.",
    (answers) => unanswered({ user_name: nameQuestion }, answers),
    (answers) => greeting(answers, "user_name"),
  ),
  askFirstTool(
    "test_input_required_result_sampling",
    "Asks the client's model a question, then reports its answer.",
    (answers) => unanswered({ capital_question: askModel("What is the capital of France?", 100) }, answers),
    (answers) => `The model answered: ${sampledText(answers["capital_question"]) ?? "(no text)"}`,
  ),
  askFirstTool(
    "test_input_required_result_list_roots",
    "Asks for the client's roots, then lists them.",
    (answers) => unanswered({ client_roots: rootsQuestion }, answers),
    (answers) => `Client roots: ${rootsListed(answers["client_roots"]) || "(none)"}`,
  ),
  askFirstTool(
    "test_input_required_result_request_state",
    "Asks for a confirmation; the server checks the sealed requestState it gave with the question.",
    (answers) => unanswered({ confirm: askFor("Please confirm", "ok", { type: "boolean" }) }, answers),
    (answers) => `state-ok: the confirmation arrived (ok: ${String(acceptedField(answers["confirm"], "ok") === true)})`,
  ),
  askFirstTool(
    "test_input_required_result_multiple_inputs",
    "Asks three things at once: your name (a form), a greeting (the client's model), the client's roots.",
    (answers) =>
      unanswered(
        { user_name: nameQuestion, greeting: askModel("Generate a greeting", 50), client_roots: rootsQuestion },
        answers,
      ),
    (answers) =>
      `${greeting(answers, "user_name")} The model says: ${sampledText(answers["greeting"]) ?? "(no text)"}. Roots: ${rootsListed(answers["client_roots"]) || "(none)"}`,
  ),
  askFirstTool(
    "test_input_required_result_multi_round",
    "Asks your name, then (a second round) your favourite colour.",
    (answers) =>
      answers["step1"]
        ? unanswered({ step2: askFor("Step 2: What is your favorite color?", "color", { type: "string" }) }, answers)
        : { step1: askFor("Step 1: What is your name?", "name", { type: "string" }) },
    (answers) =>
      `${String(acceptedField(answers["step1"], "name"))} likes ${String(acceptedField(answers["step2"], "color"))}`,
  ),
  askFirstTool(
    "test_input_required_result_tampered_state",
    "Asks your name; an edited requestState is refused.",
    (answers) => unanswered({ user_name: nameQuestion }, answers),
    (answers) => greeting(answers, "user_name"),
  ),
  askFirstTool(
    "test_input_required_result_capabilities",
    "Asks your name by form or through the client's model, whichever the client can answer.",
    (answers) =>
      answers["user_name"] || answers["user_name_by_model"]
        ? undefined
        : { user_name: nameQuestion, user_name_by_model: askModel("What is the user's name?", 20) },
    (answers) =>
      answers["user_name"]
        ? greeting(answers, "user_name")
        : `Hello, ${sampledText(answers["user_name_by_model"]) ?? "whoever you are"}!`,
  ),
  askFirstTool(
    "test_missing_capability",
    "Needs the client's model (sampling): refused with -32021 to a client that did not declare it.",
    (answers) => unanswered({ summary: askModel("Summarise the job in one line.", 50) }, answers),
    (answers) => `The model summarised: ${sampledText(answers["summary"]) ?? "(no text)"}`,
  ),
  askFirstTool(
    "test_streaming_elicitation",
    "Asks your name in its answer (an input-required result), never as a request of its own.",
    (answers) => unanswered({ user_name: nameQuestion }, answers),
    (answers) => greeting(answers, "user_name"),
  ),
];
