/**
 * Node 20 has been out of support since April 2026. jobtasks still runs on it (many machines ship it), but
 * is tested and tuned for Node 22 and 24, and starts slower on 20, which has no compile cache: one line at
 * start-up says so, on stderr, since under `--stdio` stdout carries only MCP.
 */
export function unsupportedNodeNotice(version: string = process.versions.node): string | undefined {
  const major = Number(version.split(".")[0]);
  if (major >= 22) return undefined;
  return `jobtasks: Node ${version} is out of support; jobtasks runs on it, slower to start. Use Node 22 or 24.\n`;
}

export function noteUnsupportedNode(): void {
  const notice = unsupportedNodeNotice();
  if (notice !== undefined) process.stderr.write(notice);
}
