import { type Command, InvalidArgumentError } from 'commander';
import { ConfigError } from '../errors.js';
import { palette } from '../util/color.js';
import type { Io, SetExit } from './shared.js';

interface DeployFlags {
  to: string;
  distributionId?: string;
  region?: string;
  endpointUrl?: string;
  forcePathStyle?: boolean;
  maxDeletes: number;
  dryRun?: boolean;
  force?: boolean;
  cacheControl?: string;
  concurrency: number;
  retries: number;
  requestTimeout: number;
  json?: boolean;
  quiet?: boolean;
}

/** `po-node deploy`: exit 0 deployed (or planned), 1 refused (--max-deletes), 2 usage, credentials or I/O. */
export function registerDeploy(program: Command, io: Io, setExit: SetExit): void {
  program
    .command('deploy')
    .description('Publish a built site to S3 (or an S3-compatible store): only what changed, in an order safe for readers.')
    .argument('<site>', 'built site folder (the output of po-node build)')
    .requiredOption('--to <s3-url>', 's3://<bucket>[/<prefix>]; the prefix is the CloudFront origin path')
    .option('--distribution-id <id>', 'CloudFront distribution: invalidate exactly the changed URLs afterwards')
    .option('--region <region>', 'bucket region (default: AWS_REGION or the profile)')
    .option('--endpoint-url <url>', 'S3-compatible endpoint: MinIO, Cloudflare R2, Ceph (default: AWS_ENDPOINT_URL_S3 or AWS_ENDPOINT_URL)')
    .option('--force-path-style', 'address the bucket as <endpoint>/<bucket>/key (MinIO, Ceph, local servers)')
    .option('--max-deletes <n>', 'refuse the whole deploy when it would delete more objects (-1: no limit)', int, 256)
    .option('--dry-run', 'print the plan (uploads, deletions, invalidations) and change nothing')
    .option('--force', 'upload every file, changed or not (e.g. after changing --cache-control)')
    .option('--cache-control <value>', 'Cache-Control of every object (default "public, max-age=300", as the nginx and Apache configs)')
    .option('--concurrency <n>', 'requests in flight at most (1-64)', int, 8)
    .option('--retries <n>', 'retries of a failed request (throttling, 5xx, network), with exponential backoff (0-10)', int, 4)
    .option('--request-timeout <seconds>', 'a request with no byte sent or received for this long fails and is retried (1-3600)', int, 120)
    .option('--json', 'print the deploy report as JSON on stdout')
    .option('-q, --quiet', 'no progress output')
    .addHelpText(
      'after',
      `
What it does:
  1. lists the bucket under the prefix and compares each file by MD5 (the ETag of a single-part upload, else the
     po-node-md5 metadata that every upload carries); hidden files (.po-node.json, .htaccess) are never uploaded;
  2. uploads what is new or changed with its Content-Type (extensionless datasets application/xml) and
     Cache-Control, in this order: datasets and documents, then lists, nodeinfo and index.html, then health;
  3. deletes objects the site no longer has, last, and refuses the whole deploy beforehand when that is more
     than --max-deletes (a wrong --to cannot wipe a bucket);
  4. with --distribution-id, invalidates the changed URLs in both forms (/resource/processes and its index files).
A reader polling the node during a deploy never meets a listed EPD that answers 404.

Credentials: the AWS SDK's default chain (AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY, AWS_PROFILE, SSO, GitHub OIDC
web identity via aws-actions/configure-aws-credentials, instance roles). Needs s3:ListBucket, s3:GetObject,
s3:PutObject, s3:DeleteObject and, with --distribution-id, cloudfront:CreateInvalidation.

Exit codes: 0 deployed (or planned with --dry-run); 1 refused by --max-deletes, nothing changed;
2 usage, credentials, network or I/O error (a failed phase stops the deploy before the next one).

Examples:
  $ po-node deploy site --to s3://epd-node --distribution-id E1ABCDEFGHIJKL
  $ po-node deploy site --to s3://epd-node/v2 --dry-run
  $ po-node deploy site --to s3://epd-node --endpoint-url http://127.0.0.1:9000 --force-path-style   # MinIO
  $ AWS_ENDPOINT_URL=https://<account>.r2.cloudflarestorage.com po-node deploy site --to s3://epd-node --region auto
  $ po-node deploy site --to s3://epd-node --json > deploy-report.json`,
    )
    .action(async (site: string, o: DeployFlags) => {
      // Loaded here: other commands never load the deploy code or the AWS SDK.
      const [{ deploy }, report] = await Promise.all([import('../deploy/run.js'), import('../deploy/report.js')]);
      const endpoint = o.endpointUrl ?? io.env.AWS_ENDPOINT_URL_S3 ?? io.env.AWS_ENDPOINT_URL;
      if (endpoint !== undefined && !/^https?:\/\/[^/]/.test(endpoint)) {
        throw new ConfigError(`Endpoint "${endpoint}" is not an http(s) URL`, { hint: 'e.g. --endpoint-url http://127.0.0.1:9000' });
      }
      const result = await deploy({
        site,
        to: o.to,
        maxDeletes: o.maxDeletes,
        concurrency: o.concurrency,
        retries: o.retries,
        requestTimeout: o.requestTimeout,
        dryRun: Boolean(o.dryRun),
        force: Boolean(o.force),
        ...(o.distributionId ? { distributionId: o.distributionId } : {}),
        ...(o.region ? { region: o.region } : {}),
        ...(endpoint ? { endpoint } : {}),
        ...(o.forcePathStyle ? { forcePathStyle: true } : {}),
        ...(o.cacheControl ? { cacheControl: o.cacheControl } : {}),
        onProgress: report.deployProgressReporter(io.stderr, !o.json && !o.quiet),
      });
      if (o.json) io.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
      else io.stdout.write(`${report.formatDeployReport(result, palette(io.stdout, io.env))}\n`);
      setExit(result.ok ? 0 : 1);
    });
}

function int(v: string): number {
  if (!/^-?\d+$/.test(v.trim())) throw new InvalidArgumentError(`"${v}" is not a whole number.`);
  return Number(v);
}
