import type { ResolvedConfig } from '../config/load.js';
import type { PlannedFile } from '../emit/files.js';
import type { HostName } from '../config/hosts.js';

export interface HostContext {
  cfg: ResolvedConfig;
  /** The site plan so far (without health, which is written last). */
  site: readonly PlannedFile[];
}

export interface HostOutput {
  /** Files that go into the published tree. */
  site: PlannedFile[];
  /** Files for the operator: server configs, scripts (relative to the deploy folder). */
  deploy: PlannedFile[];
}

export interface HostEmitter {
  name: HostName;
  title: string;
  emit(ctx: HostContext): HostOutput;
}
