/**
 * @kubernetes/client-node 2.x brings undici 8, which fails at import on Node older than 22.19: the adapter
 * says so in words instead of letting the import's TypeError through.
 */
export const minimumNodeVersion = "22.19.0";

export function nodeRunsKubernetesClient(version: string = process.versions.node): boolean {
  const [major = 0, minor = 0] = version.split(".").map(Number);
  const [needMajor = 0, needMinor = 0] = minimumNodeVersion.split(".").map(Number);
  return major > needMajor || (major === needMajor && minor >= needMinor);
}

export function nodeTooOldMessage(version: string = process.versions.node): string {
  return `the Kubernetes adapter needs Node ${minimumNodeVersion} or newer (its client, @kubernetes/client-node 2.x, does not load on Node ${version})`;
}
