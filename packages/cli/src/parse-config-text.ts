import { parseDocument, type YAMLError } from "yaml";

/** At most this many syntax errors are listed: after the first few, most are echoes of the first. */
const maxListedErrors = 3;

export type ParsedConfigText = { ok: true; value: unknown } | { ok: false; problems: string[] };

/**
 * Parse a config file's text (YAML, of which JSON is a subset). A syntax error is reported with its
 * line and column and the offending line itself, so it can be found without counting lines.
 */
export function parseConfigText(text: string): ParsedConfigText {
  const document = parseDocument(text);
  if (document.errors.length > 0) {
    const listed = document.errors.slice(0, maxListedErrors).map((error) => describeSyntaxError(error, text));
    const more = document.errors.length - listed.length;
    return { ok: false, problems: more > 0 ? [...listed, `(${more} more syntax errors after these)`] : listed };
  }
  try {
    return { ok: true, value: document.toJS() };
  } catch (error) {
    // Problems found only when building values, such as an alias to an anchor that does not exist.
    return { ok: false, problems: [`not valid YAML or JSON: ${(error as Error).message}`] };
  }
}

function describeSyntaxError(error: YAMLError, text: string): string {
  // yaml's message ends with its own position and a code frame; the position is said below instead.
  const reason = error.message.split("\n")[0]!.replace(/ at line \d+, column \d+:?$/, "");
  const position = error.linePos?.[0];
  if (!position) return `not valid YAML or JSON: ${reason}`;
  const { line, col } = position;
  const source = (text.split(/\r?\n/)[line - 1] ?? "").replaceAll("\t", " ");
  const gutter = String(line);
  return [
    `not valid YAML or JSON at line ${line}, column ${col}: ${reason}`,
    `      ${gutter} | ${source}`,
    `      ${" ".repeat(gutter.length)} | ${" ".repeat(Math.max(0, col - 1))}^`,
  ].join("\n");
}
