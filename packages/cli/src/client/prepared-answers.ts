import type { ApplicationElicitContentValue, ApplicationElicitResult } from "@modelcontextprotocol/ext-tasks/client";
import { coerceFieldValue, type ElicitationForm, type FormField } from "./elicitation-form.js";

/**
 * Answers given on the command line before anything is asked: `--answer [key.]field=value` (repeatable)
 * and `--answers JSON` (`{"<key>|*": {"field": value, …}}`, or `{"<key>|*": {"action": "decline"}}`). A
 * `key` is an input request's key (what `jobtasks task get` lists); without one, or with `*`, the answer
 * fills that field in whichever form has it.
 */

type Action = ApplicationElicitResult["action"];

interface PreparedEntry {
  action?: Action;
  content: Record<string, unknown>;
}

export interface PreparedAnswers {
  /** Answers for one input request key; "*" holds those for any request. */
  entries: Map<string, PreparedEntry>;
}

const anyKey = "*";

export function parsePreparedAnswers(answerFlags: readonly string[], answersJson: string | undefined): PreparedAnswers {
  const entries = new Map<string, PreparedEntry>();
  const entryFor = (key: string) => entries.get(key) ?? entries.set(key, { content: {} }).get(key)!;
  if (answersJson !== undefined) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(answersJson);
    } catch (error) {
      throw new Error(`--answers: not JSON (${(error as Error).message})`);
    }
    if (!isObject(parsed)) throw new Error(`--answers: expected an object of {"<input key>" or "*": {field: value}}`);
    for (const [key, value] of Object.entries(parsed)) {
      if (!isObject(value))
        throw new Error(`--answers.${key}: expected an object of field values, or {"action": "decline"}`);
      const entry = entryFor(key);
      const { action, ...content } = value;
      if (action === "accept" || action === "decline" || action === "cancel") entry.action = action;
      else if (action !== undefined) content["action"] = action;
      Object.assign(
        entry.content,
        isObject(content["content"]) && Object.keys(content).length === 1 ? content["content"] : content,
      );
    }
  }
  for (const flag of answerFlags) {
    const equals = flag.indexOf("=");
    if (equals <= 0) throw new Error(`--answer ${flag}: expected [key.]field=value`);
    const path = flag.slice(0, equals);
    const dot = path.lastIndexOf(".");
    const [key, field] = dot > 0 ? [path.slice(0, dot), path.slice(dot + 1)] : [anyKey, path];
    if (field === "") throw new Error(`--answer ${flag}: expected [key.]field=value`);
    entryFor(key).content[field] = flag.slice(equals + 1);
  }
  return { entries };
}

export function hasPreparedAnswers(answers: PreparedAnswers): boolean {
  return answers.entries.size > 0;
}

export type PreparedResolution =
  | { kind: "answered"; result: ApplicationElicitResult }
  /** Nothing was prepared for this request, or required fields are missing: ask, or give up. */
  | {
      kind: "incomplete";
      content: Record<string, ApplicationElicitContentValue>;
      missing: FormField[];
      prepared: boolean;
    };

/** What the prepared answers say to one form. Throws on a value the form's schema refuses. */
export function resolvePreparedAnswer(
  answers: PreparedAnswers,
  inputKey: string,
  form: ElicitationForm,
): PreparedResolution {
  const general = answers.entries.get(anyKey);
  const specific = answers.entries.get(inputKey);
  const prepared = general !== undefined || specific !== undefined;
  const action = specific?.action ?? general?.action;
  if (action === "decline" || action === "cancel") return { kind: "answered", result: { action } };
  const content: Record<string, ApplicationElicitContentValue> = {};
  // A keyed answer names this form, so a field it does not have is a mistake; "*" answers may aim elsewhere.
  for (const name of Object.keys(specific?.content ?? {})) {
    if (!form.fields.some((field) => field.name === name))
      throw new Error(
        `--answer ${inputKey}.${name}: this input request has no field "${name}" (fields: ${form.fields.map((field) => field.name).join(", ") || "none"})`,
      );
  }
  for (const field of form.fields) {
    const value = specific?.content[field.name] ?? general?.content[field.name];
    if (value !== undefined) content[field.name] = coerceFieldValue(field, value);
  }
  const missing = form.fields.filter((field) => field.required && content[field.name] === undefined);
  if (prepared && missing.length === 0) return { kind: "answered", result: { action: "accept", content } };
  return { kind: "incomplete", content, missing, prepared };
}

/** The fields `*` answers name that this form lacks: worth a warning, as a typo there is silently lost. */
export function unknownGeneralFields(answers: PreparedAnswers, form: ElicitationForm): string[] {
  return Object.keys(answers.entries.get(anyKey)?.content ?? {}).filter(
    (name) => !form.fields.some((field) => field.name === name),
  );
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}
