import { terminalSafe } from "@jobtasks/core";
import { isCancel, log, multiselect, select, text } from "@clack/prompts";
import type { ApplicationElicitContentValue, ApplicationElicitResult } from "@modelcontextprotocol/ext-tasks/client";
import { askYesNo } from "./yes-no-prompt.js";
import { coerceFieldValue, type ElicitationForm, type FormField } from "./elicitation-form.js";

/**
 * Asks a person for an elicitation form in the terminal: accept, decline or cancel, then each field with
 * the prompt that fits its type. Prompts draw on stderr, so stdout keeps only the result. Ctrl-C (or Esc)
 * inside a prompt answers "interrupted": the caller asks whether to cancel the task or detach.
 */

export type PromptOutcome = ApplicationElicitResult | "interrupted";

const stream = process.stderr;

/** `signal` closes an open prompt (a timeout, a question answered elsewhere): it then answers "interrupted". */
export async function promptForm(
  form: ElicitationForm,
  known: Record<string, ApplicationElicitContentValue> = {},
  signal?: AbortSignal,
): Promise<PromptOutcome> {
  const where = { output: stream, ...(signal ? { signal } : {}) };
  log.step(form.message, { output: stream });
  const action = await select<ApplicationElicitResult["action"]>({
    message: "Answer",
    options: [
      { value: "accept", label: "accept", hint: "fill in the form" },
      { value: "decline", label: "decline" },
      { value: "cancel", label: "cancel", hint: "dismiss without answering" },
    ],
    ...where,
  });
  if (isCancel(action)) return "interrupted";
  if (action !== "accept") return { action };
  const content: Record<string, ApplicationElicitContentValue> = { ...known };
  for (const field of form.fields) {
    if (content[field.name] !== undefined) continue;
    const value = await promptField(field, where);
    if (value === "interrupted") return "interrupted";
    if (value !== undefined) content[field.name] = value;
  }
  return { action: "accept", content };
}

async function promptField(
  field: FormField,
  where: { output: NodeJS.WriteStream; signal?: AbortSignal },
): Promise<ApplicationElicitContentValue | undefined | "interrupted"> {
  const message = `${field.title}${field.required ? "" : " (optional)"}${field.description ? `\n${field.description}` : ""}`;
  switch (field.kind) {
    case "boolean": {
      const answer = await askYesNo({
        message,
        ...(typeof field.default === "boolean" ? { initialValue: field.default } : {}),
        ...where,
      });
      return answer;
    }
    case "choice": {
      const options = field.choices.map((choice) => ({ value: choice.value, label: choice.label }));
      const answer = await select<string>({
        message,
        options: field.required ? options : [...options, { value: "", label: "(no answer)" }],
        ...where,
      });
      if (isCancel(answer)) return "interrupted";
      return answer === "" ? undefined : answer;
    }
    case "choices": {
      const answer = await multiselect<string>({
        message,
        options: field.choices.map((choice) => ({ value: choice.value, label: choice.label })),
        required: field.required,
        ...where,
      });
      return isCancel(answer) ? "interrupted" : answer;
    }
    default: {
      const answer = await text({
        message,
        ...(field.default !== undefined
          ? { defaultValue: String(field.default), placeholder: terminalSafe(String(field.default)) }
          : {}),
        validate: (value) => {
          if (value === undefined || value === "")
            return field.required && field.default === undefined ? `${field.title} is required` : undefined;
          try {
            coerceFieldValue(field, value);
            return undefined;
          } catch (error) {
            return (error as Error).message;
          }
        },
        ...where,
      });
      if (isCancel(answer)) return "interrupted";
      return answer === "" ? undefined : coerceFieldValue(field, answer);
    }
  }
}

/**
 * Ctrl-C while following a task: leave it running, go on watching, or cancel it. "detach" comes first and
 * is highlighted: Ctrl-C then Enter must never cancel a deploy.
 */
export async function promptInterrupt(signal?: AbortSignal): Promise<"cancel" | "detach" | "continue"> {
  const answer = await select<"cancel" | "detach" | "continue">({
    message: "Stop following this task?",
    options: [
      { value: "detach", label: "detach", hint: "the task goes on; resume with jobtasks watch" },
      { value: "continue", label: "keep following" },
      { value: "cancel", label: "cancel the task", hint: "asks the server to stop the job" },
    ],
    initialValue: "detach",
    output: stream,
    ...(signal ? { signal } : {}),
  });
  // A second Ctrl-C at this question leaves the task alone: the safe way out.
  return isCancel(answer) ? "detach" : answer;
}
