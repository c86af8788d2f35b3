import { terminalSafe } from "@jobtasks/core";
import type { ApplicationElicitContentValue } from "@modelcontextprotocol/ext-tasks/client";

/**
 * An elicitation form (`requestedSchema`, a flat object of primitive properties) read into fields a
 * terminal can ask for and a command line can fill: booleans, numbers, strings, and enums (one value, or
 * several for an array of enums). What it shows a person (the message, titles, descriptions, labels) is
 * made terminal-safe here: an approval question must read as the server wrote it, not as its escapes draw it.
 */

export interface FieldChoice {
  value: string;
  label: string;
}

export interface FormField {
  name: string;
  title: string;
  description?: string;
  required: boolean;
  kind: "boolean" | "number" | "integer" | "string" | "choice" | "choices";
  choices: FieldChoice[];
  default?: ApplicationElicitContentValue;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
}

export interface ElicitationForm {
  message: string;
  fields: FormField[];
}

type Schema = Record<string, unknown>;

export function readElicitationForm(params: Readonly<Record<string, unknown>>): ElicitationForm {
  const schema = (params["requestedSchema"] ?? {}) as Schema;
  const properties = (schema["properties"] ?? {}) as Record<string, Schema>;
  const required = new Set(Array.isArray(schema["required"]) ? (schema["required"] as string[]) : []);
  const fields = Object.entries(properties).map(([name, property]) => readField(name, property, required.has(name)));
  const message = typeof params["message"] === "string" ? terminalSafe(params["message"]) : "The task asks for input.";
  return { message, fields };
}

function readField(name: string, property: Schema, required: boolean): FormField {
  const field: FormField = {
    name,
    title: stringOf(property["title"]) ?? terminalSafe(name),
    required,
    kind: "string",
    choices: [],
  };
  const description = stringOf(property["description"]);
  if (description) field.description = description;
  for (const bound of ["minimum", "maximum", "minLength", "maxLength"] as const) {
    if (typeof property[bound] === "number") field[bound] = property[bound];
  }
  if (isContentValue(property["default"])) field.default = property["default"];
  const single = choicesOf(property);
  if (property["type"] === "array") {
    field.kind = "choices";
    field.choices = choicesOf((property["items"] ?? {}) as Schema);
  } else if (single.length > 0) {
    field.kind = "choice";
    field.choices = single;
  } else if (property["type"] === "boolean" || property["type"] === "number" || property["type"] === "integer") {
    field.kind = property["type"];
  }
  return field;
}

/** `enum` (with the legacy `enumNames`), or `oneOf`/`anyOf` of `{ const, title }`. */
function choicesOf(schema: Schema): FieldChoice[] {
  if (Array.isArray(schema["enum"])) {
    const names = Array.isArray(schema["enumNames"]) ? (schema["enumNames"] as unknown[]) : [];
    return (schema["enum"] as unknown[]).map((value, index) => ({
      value: String(value),
      label: stringOf(names[index]) ?? terminalSafe(String(value)),
    }));
  }
  const options = schema["oneOf"] ?? schema["anyOf"];
  if (Array.isArray(options)) {
    return (options as Schema[])
      .filter((option) => option["const"] !== undefined)
      .map((option) => ({
        value: String(option["const"]),
        label: stringOf(option["title"]) ?? terminalSafe(String(option["const"])),
      }));
  }
  return [];
}

/**
 * A value for a field, from the command line (text) or from JSON (already typed). Throws an Error whose
 * message says what the field accepts.
 */
export function coerceFieldValue(field: FormField, value: unknown): ApplicationElicitContentValue {
  switch (field.kind) {
    case "boolean": {
      if (typeof value === "boolean") return value;
      const text = String(value).trim().toLowerCase();
      if (["true", "yes", "y", "1"].includes(text)) return true;
      if (["false", "no", "n", "0"].includes(text)) return false;
      throw new Error(`${field.name}: expected true or false, got "${String(value)}"`);
    }
    case "number":
    case "integer": {
      const number = typeof value === "number" ? value : String(value).trim() === "" ? Number.NaN : Number(value);
      if (!Number.isFinite(number) || (field.kind === "integer" && !Number.isInteger(number)))
        throw new Error(
          `${field.name}: expected ${field.kind === "integer" ? "an integer" : "a number"}, got "${String(value)}"`,
        );
      if (field.minimum !== undefined && number < field.minimum)
        throw new Error(`${field.name}: must be at least ${field.minimum}`);
      if (field.maximum !== undefined && number > field.maximum)
        throw new Error(`${field.name}: must be at most ${field.maximum}`);
      return number;
    }
    case "choice": {
      const text = String(value);
      if (!field.choices.some((choice) => choice.value === text))
        throw new Error(
          `${field.name}: expected one of ${field.choices.map((choice) => choice.value).join(", ")}, got "${text}"`,
        );
      return text;
    }
    case "choices": {
      const values = Array.isArray(value)
        ? value.map(String)
        : String(value)
            .split(",")
            .map((part) => part.trim())
            .filter((part) => part !== "");
      const unknown = values.find((entry) => !field.choices.some((choice) => choice.value === entry));
      if (unknown !== undefined)
        throw new Error(
          `${field.name}: expected values among ${field.choices.map((choice) => choice.value).join(", ")}, got "${unknown}"`,
        );
      return values;
    }
    case "string": {
      const text = String(value);
      if (field.minLength !== undefined && text.length < field.minLength)
        throw new Error(`${field.name}: must be at least ${field.minLength} characters`);
      if (field.maxLength !== undefined && text.length > field.maxLength)
        throw new Error(`${field.name}: must be at most ${field.maxLength} characters`);
      return text;
    }
  }
}

/** One line per field, for a person reading what was asked (and what they may answer). */
export function describeField(field: FormField): string {
  const accepts =
    field.kind === "choice" || field.kind === "choices"
      ? `${field.kind === "choices" ? "comma-separated values among" : "one of"} ${field.choices.map((choice) => choice.value).join(", ")}`
      : field.kind === "boolean"
        ? "true or false"
        : field.kind;
  return terminalSafe(
    `${field.name} (${field.required ? "required" : "optional"}, ${accepts})${field.title !== field.name ? `: ${field.title}` : ""}${field.description ? ` — ${field.description}` : ""}`,
  );
}

/** A non-empty string, made terminal-safe (for titles, descriptions and labels). */
function stringOf(value: unknown): string | undefined {
  return typeof value === "string" && value !== "" ? terminalSafe(value) : undefined;
}

function isContentValue(value: unknown): value is ApplicationElicitContentValue {
  return (
    typeof value === "string" ||
    typeof value === "number" ||
    typeof value === "boolean" ||
    (Array.isArray(value) && value.every((entry) => typeof entry === "string"))
  );
}
