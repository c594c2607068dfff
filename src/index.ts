/** Public API of po-node: the CLI is a thin layer over these functions. */
export { build, buildTime, type BuildOptions, type BuildResult, type BuildSummary, type ProgressEvent } from './build.js';
export { loadConfig, type ResolvedConfig, type ConfigOverrides } from './config/load.js';
export { type Finding, type Severity, type Params, sortFindings, countFindings } from './findings.js';
export { MESSAGES, type Code, type CodeEntry } from './messages/catalog.js';
export { renderMessage } from './messages/finding.js';
export { type HealthDoc } from './emit/health.js';
export { PoNodeError, ConfigError, InputError, OutputError } from './errors.js';
export { validateWithSchema, type SchemaName } from './schemas.js';
export { GENERATOR_VERSION as version } from './version.js';
export { createSiteServer, type SiteServer, type SiteServerOptions } from './serve/server.js';
export { HOSTS, HOST_NAMES, parseHosts, type HostName } from './hosts/index.js';
export { type ReferenceReport, type DeclaredUnit } from './catalog/references.js';
export { type ZipLimits, DEFAULT_ZIP_LIMITS } from './read/zip.js';
export { runCheck, CHECK_ITEMS, type CheckReport, type CheckRunOptions, type CheckItem, type CheckItemId } from './check/run.js';
export { validate, type ValidateOptions, type ValidateResult } from './pipeline/validate.js';
export { readStage, type ReadStageOptions, type ReadStageResult, type ReadSummary } from './pipeline/read.js';
export { RULES, type Rule } from './rules/index.js';
export { deploy, type DeployOptions, type DeployResult, type DeployProgress } from './deploy/run.js';
