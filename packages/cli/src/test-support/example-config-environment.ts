/**
 * What the shipped example configs read from the environment, as placeholders a real deployment would set:
 * enough for every example to load. None of these reach any network in the tests.
 */
export const exampleConfigEnvironment: Readonly<Record<string, string>> = {
  GITHUB_TOKEN: "ghp_exampleexampleexampleexample0000",
  GITLAB_TOKEN: "glpat-exampleexampleexample0000",
  AWS_REGION: "eu-west-1",
  AWS_ACCESS_KEY_ID: "AKIAEXAMPLE",
  AWS_SECRET_ACCESS_KEY: "example-secret",
  AZURE_DOCUMENT_ENDPOINT: "https://example.cognitiveservices.azure.com",
  AZURE_DOCUMENT_KEY: "example-azure-key",
  GOOGLE_PROJECT: "example-project",
  GOOGLE_REGION: "europe-west1",
  GOOGLE_ACCESS_TOKEN: "example-google-token",
  RENDER_FARM_TOKEN: "example-render-token",
  RENDER_FARM_CALLBACK_SECRET: "example-render-callback-secret",
  METRICS_TOKEN: "example-metrics-token-0123456789",
};

/**
 * The example configs this Node cannot load, with why: a kind whose client needs a newer Node (Kubernetes'
 * on Node 20) is refused at start, and that refusal is what the example-config tests check there instead.
 */
export const examplesNeedingNewerNode: Readonly<Record<string, string>> = {
  "examples/kubernetes/jobtasks.config.yaml": "kubernetes",
};
