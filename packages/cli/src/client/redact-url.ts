/**
 * A server URL as it may be printed (errors, the `watch` hint): without the user and password and with
 * each query value replaced, as either can carry a credential (`https://user:pass@host/mcp`, `?token=`).
 */
export function redactUrl(url: string): string {
  return redactUrlIn(url, url);
}

/** `text` (an error message) with each occurrence of `url` redacted. */
export function redactUrlIn(text: string, url: string): string {
  return text.split(url).join(redacted(url));
}

function redacted(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return "<the server URL>";
  }
  if (parsed.username === "" && parsed.password === "" && parsed.search === "") return url;
  parsed.username = "";
  parsed.password = "";
  const keys = [...parsed.searchParams.keys()];
  const query = keys.map((key) => `${encodeURIComponent(key)}=***`).join("&");
  parsed.search = "";
  return `${parsed.toString()}${query ? `?${query}` : ""}`;
}
