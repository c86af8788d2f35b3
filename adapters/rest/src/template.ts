import { queryFirst } from "./json-path.js";

/**
 * Templates: literal text from the trusted config with `{{ path }}` placeholders whose values come from
 * untrusted places (tool input, upstream answers). A value is never spliced into text that is parsed
 * again; it is encoded for the one place it lands in (path segment, query value, header value, JSON
 * value), so no value can add a path segment, a query parameter, a header or a JSON key.
 *
 * A placeholder holds a JSONPath into the template context (`{{input.name}}` is `$.input.name`).
 * `{{*job.id}}` in a URL path keeps the value's slashes as segment separators (Google operation names
 * such as `operations/abc`), each segment still encoded and `.`/`..` refused.
 */

export type TemplatePart = { kind: "literal"; text: string } | { kind: "value"; path: string; multiSegment: boolean };

/** A value a template needs is absent, or has a shape its place cannot hold. */
export class TemplateValueError extends Error {
  readonly path: string;
  constructor(path: string, message: string) {
    super(`${path}: ${message}`);
    this.name = "TemplateValueError";
    this.path = path;
  }
}

const placeholderPattern = /\{\{\s*(\*?)\s*(.+?)\s*\}\}/g;

export function parseTemplate(template: string): TemplatePart[] {
  const parts: TemplatePart[] = [];
  let position = 0;
  for (const match of template.matchAll(placeholderPattern)) {
    const index = match.index ?? 0;
    if (index > position) parts.push({ kind: "literal", text: template.slice(position, index) });
    parts.push({ kind: "value", path: match[2] ?? "", multiSegment: match[1] === "*" });
    position = index + match[0].length;
  }
  if (position < template.length) parts.push({ kind: "literal", text: template.slice(position) });
  return parts;
}

/** The template is one placeholder and nothing else: its value keeps its JSON type, or is a whole URL. */
export function singlePlaceholder(template: string): { path: string; multiSegment: boolean } | undefined {
  const parts = parseTemplate(template);
  const only = parts[0];
  return parts.length === 1 && only?.kind === "value"
    ? { path: only.path, multiSegment: only.multiSegment }
    : undefined;
}

export function lookup(path: string, context: object): unknown {
  const value = queryFirst(path, context);
  return value === null ? undefined : value;
}

function scalarText(path: string, value: unknown): string {
  if (typeof value === "string") return value;
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  throw new TemplateValueError(path, "expected a string, number or boolean");
}

/**
 * The one walk over a template: literal text is kept, each placeholder's value goes through `encode`.
 * A missing value makes the whole result undefined, unless `onMissing` throws.
 */
function renderParts(
  template: string,
  context: object,
  encode: (path: string, value: unknown, multiSegment: boolean) => string,
  onMissing: (path: string) => void = () => undefined,
): string | undefined {
  let text = "";
  for (const part of parseTemplate(template)) {
    if (part.kind === "literal") {
      text += part.text;
      continue;
    }
    const value = lookup(part.path, context);
    if (value === undefined) {
      onMissing(part.path);
      return undefined;
    }
    text += encode(part.path, value, part.multiSegment);
  }
  return text;
}

/** Human-readable text (status messages). Returns undefined when a placeholder has no value. */
export function renderText(template: string, context: object): string | undefined {
  return renderParts(template, context, (_path, value) =>
    Array.isArray(value)
      ? value.map(String).join(", ")
      : typeof value === "object"
        ? JSON.stringify(value)
        : String(value),
  );
}

function encodePathValue(path: string, value: unknown, multiSegment: boolean): string {
  const text = scalarText(path, value);
  const segments = multiSegment ? text.split("/") : [text];
  return segments
    .map((segment) => {
      // "." and ".." would be folded away by URL parsing (even as %2E), moving the request elsewhere.
      if (segment === "" || segment === "." || segment === "..") {
        throw new TemplateValueError(path, `"${segment}" is not allowed as a URL path segment`);
      }
      return encodeURIComponent(segment);
    })
    .join("/");
}

/** A URL path (the part after the base URL), every value percent-encoded as a path segment. */
export function renderPath(template: string, context: object): string {
  return renderParts(template, context, encodePathValue, (path) => {
    throw new TemplateValueError(path, "a value is required in the URL");
  })!;
}

/** A query or header value: undefined (left out) when a placeholder has no value. */
export function renderScalar(template: string, context: object): string | undefined {
  return renderParts(template, context, scalarText);
}

/** A header value: like renderScalar, but a value with control characters (header splitting) is refused. */
export function renderHeaderValue(template: string, context: object): string | undefined {
  return renderParts(template, context, (path, value) => {
    const text = scalarText(path, value);
    // eslint-disable-next-line no-control-regex
    if (/[\u0000-\u001f\u007f]/.test(text))
      throw new TemplateValueError(path, "a header value cannot contain control characters");
    return text;
  });
}

/**
 * A JSON body. The template is a JSON value; a string that is exactly one placeholder becomes the
 * value itself (numbers stay numbers, objects stay objects) and is left out when absent; a string
 * mixing text and placeholders becomes a string. The result is serialised with JSON.stringify, never
 * assembled as text, so no value can close a string or add a key.
 */
export function renderJson(template: unknown, context: object): unknown {
  if (typeof template === "string") {
    const single = singlePlaceholder(template);
    if (single) return lookup(single.path, context);
    return renderText(template, context);
  }
  if (Array.isArray(template)) {
    return template.map((item) => renderJson(item, context)).filter((item) => item !== undefined);
  }
  if (template !== null && typeof template === "object") {
    const rendered: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(template)) {
      const item = renderJson(value, context);
      if (item !== undefined) rendered[key] = item;
    }
    return rendered;
  }
  return template;
}
