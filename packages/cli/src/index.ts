export { serve, type ServeOptions, type RunningServer } from "./serve.js";
export { loadConfig, buildConfig, ConfigFileError, type LoadedConfig } from "./load-config.js";
export { configFileSchema, type ConfigFile, type ServerSettings } from "./config-schema.js";
export { resolveSecret, secretFilePath } from "./secret.js";
export { builtInAdapterPackages } from "./adapter-registry.js";
export { runDemo, demoConfigFile } from "./demo.js";
