import { readFileSync } from 'node:fs';

// Read once from package.json so the version has a single source of truth.
const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { name: string; version: string };

export const GENERATOR_NAME: string = pkg.name;
export const GENERATOR_VERSION: string = pkg.version;
