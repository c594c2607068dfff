/** Public API of po-node: the CLI is a thin layer over these functions. */
export { build, buildTime, type BuildOptions, type BuildResult, type BuildSummary, type ProgressEvent } from './build.js';
export { loadConfig, type ResolvedConfig, type ConfigOverrides } from './config/load.js';
export { type Finding, type Severity, sortFindings, countFindings } from './findings.js';
export { type HealthDoc } from './emit/health.js';
export { PoNodeError, ConfigError, InputError, OutputError } from './errors.js';
export { validateWithSchema, type SchemaName } from './schemas.js';
export { GENERATOR_VERSION as version } from './version.js';
export { validate, type ValidateOptions, type ValidateResult } from './check.js';
export { RULES, type Rule } from './rules/index.js';
