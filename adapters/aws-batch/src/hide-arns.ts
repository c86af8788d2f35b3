/**
 * Upstream messages (status reasons, AccessDenied texts) often quote ARNs, which carry the account id.
 * The architecture keeps upstream internals away from the client, so an ARN is shortened to its resource
 * part ("job-queue/render"), which is all a reader needs to recognise the resource. This is hiding upstream
 * internals, not secret redaction: the core redacts the adapter's declared credentials.
 */
const arnPattern = /arn:aws[a-z-]*:[a-z0-9-]+:[a-z0-9-]*:\d{12}:([^\s"',;)]+)/g;

export function hideArns(text: string): string {
  return text.replace(arnPattern, (_arn, resource: string) => resource);
}

/** The last path segment of an ARN, or the value itself when it is a plain name. */
export function resourceNameOf(nameOrArn: string): string {
  if (!nameOrArn.startsWith("arn:")) return nameOrArn;
  const resource = nameOrArn.split(":").slice(5).join(":");
  return resource.slice(resource.indexOf("/") + 1);
}
