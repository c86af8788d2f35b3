/** The `{{name}}` marks of a Job template: where an input's value goes, and nowhere else. */

/** A fresh global pattern each time: a shared one would carry its lastIndex from one use to the next. */
export function placeholderPattern(): RegExp {
  return /\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}/g;
}

/** A whole value that is one placeholder, as a count field takes it. */
export const wholePlaceholder = /^\{\{\s*[A-Za-z_][A-Za-z0-9_]*\s*\}\}$/;

export function placeholderNames(text: string): string[] {
  return [...text.matchAll(placeholderPattern())].map((match) => match[1]!);
}

/** The text with every placeholder replaced by its input's value, written as a string. */
export function fillPlaceholders(text: string, values: Readonly<Record<string, unknown>>): string {
  return text.replace(placeholderPattern(), (_mark, name: string) => String(values[name] ?? ""));
}
