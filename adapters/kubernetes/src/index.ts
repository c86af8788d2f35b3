export { kubernetes, type KubernetesAdapter, type KubernetesOptions } from "./kubernetes-adapter.js";
export { adapterDefinition } from "./adapter-definition.js";
export { kubernetesOptionsSchema, type KubernetesConfig, type ResolvedKubernetesConfig } from "./kubernetes-options.js";
export { mapKubernetesStatus, type JobPhase } from "./map-kubernetes-status.js";
export { minimumNodeVersion, nodeRunsKubernetesClient } from "./node-version.js";
export type { JobRef } from "./job-ref.js";
