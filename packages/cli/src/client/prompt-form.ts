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
  log.step(form.message, { output: stream });
  const action = await closedBy(signal, (where) =>
    select<ApplicationElicitResult["action"]>({
      message: "Answer",
      options: [
        { value: "accept", label: "accept", hint: "fill in the form" },
        { value: "decline", label: "decline" },
        { value: "cancel", label: "cancel", hint: "dismiss without answering" },
      ],
      ...where,
    }),
  );
  if (isCancel(action)) return "interrupted";
  if (action !== "accept") return { action };
  const content: Record<string, ApplicationElicitContentValue> = { ...known };
  for (const field of form.fields) {
    if (content[field.name] !== undefined) continue;
    const value = await closedBy(signal, (where) => promptField(field, where));
    if (value === "interrupted") return "interrupted";
    if (value !== undefined) content[field.name] = value;
  }
  return { action: "accept", content };
}

interface PromptPlace {
  output: NodeJS.WriteStream;
  signal: AbortSignal;
}

/**
 * Runs one prompt that `signal` may close. The prompts library closes a prompt on its signal without
 * drawing it closed, and keeps listening after the prompt ended: a signal shared by several prompts made
 * each finished one write a newline when it fired, under the redrawn progress line, which then stayed on
 * the screen. So each prompt gets a signal of its own, let go of when the prompt ends, and is closed as
 * Esc closes it (drawn cancelled), the signal only if the key did not reach it.
 */
async function closedBy<T>(signal: AbortSignal | undefined, prompt: (where: PromptPlace) => Promise<T>): Promise<T> {
  const own = new AbortController();
  let open = true;
  const close = () => {
    process.stdin.emit("keypress", "\u001b", { name: "escape", sequence: "\u001b" });
    setTimeout(() => {
      if (open) own.abort(signal?.reason);
    }, 100).unref();
  };
  if (signal?.aborted) own.abort(signal.reason);
  else signal?.addEventListener("abort", close, { once: true });
  try {
    return await prompt({ output: stream, signal: own.signal });
  } finally {
    open = false;
    signal?.removeEventListener("abort", close);
  }
}

async function promptField(
  field: FormField,
  where: PromptPlace,
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
            // The message names the field, as the server spelled it.
            return terminalSafe((error as Error).message);
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
  const answer = await closedBy(signal, (where) =>
    select<"cancel" | "detach" | "continue">({
      message: "Stop following this task?",
      options: [
        { value: "detach", label: "detach", hint: "the task goes on; resume with jobtasks watch" },
        { value: "continue", label: "keep following" },
        { value: "cancel", label: "cancel the task", hint: "asks the server to stop the job" },
      ],
      initialValue: "detach",
      ...where,
    }),
  );
  // A second Ctrl-C at this question leaves the task alone: the safe way out.
  return isCancel(answer) ? "detach" : answer;
}
