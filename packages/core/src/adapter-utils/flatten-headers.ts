/**
 * HTTP headers as one string per name, as a signature check or a template reads them: names in lower
 * case, a repeated header's values joined with ", " (the one form HTTP gives a list of values), an absent
 * one left out.
 */
export function flattenHeaders(
  headers: Readonly<Record<string, string | readonly string[] | undefined>>,
): Record<string, string> {
  const flat: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    flat[name.toLowerCase()] = typeof value === "string" ? value : value.join(", ");
  }
  return flat;
}
