import { lstatSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Finding } from '../findings.js';
import { finding } from '../messages/finding.js';
import type { HostName } from './types.js';

/**
 * Documented limits of the hosts that refuse a site above them (docs/hosting.md#host-limits, with sources).
 * nginx, Apache and S3 + CloudFront have none that a PO Node reaches (an S3 object may be 5 TB).
 */
export interface HostLimits {
  title: string;
  /** Published site, in bytes as the host counts them (GitHub Pages: its tar artifact). */
  siteBytes?: number;
  files?: number;
  fileBytes?: number;
  filesPerFolder?: number;
  source: string;
}

export const HOST_LIMITS: Partial<Record<HostName, HostLimits>> = {
  'github-pages': {
    title: 'GitHub Pages',
    // "Published GitHub Pages sites may be no larger than 1 GB"; deploy-pages warns on the artifact above it.
    siteBytes: 1_000_000_000,
    source: 'https://docs.github.com/en/pages/getting-started-with-github-pages/github-pages-limits',
  },
  'cloudflare-pages': {
    title: 'Cloudflare Pages',
    // 20,000 files on the Free plan (paid plans: 100,000); 25 MiB per file.
    files: 20_000,
    fileBytes: 25 * 1024 * 1024,
    source: 'https://developers.cloudflare.com/pages/platform/limits/',
  },
  netlify: {
    title: 'Netlify',
    // No limit on files per deploy, but 54,000 per folder: resource/processes holds two entries per EPD.
    filesPerFolder: 54_000,
    source: 'https://docs.netlify.com/site-deploys/overview/#files-per-directory-limit',
  },
};

/** A built site as a host sees it: every path counted with its bytes, hard links as the copies hosts make of them. */
export interface SiteMeasure {
  files: number;
  bytes: number;
  /** Size of the tar GitHub's upload-pages-artifact makes (it dereferences hard links): 512-byte headers, padded data. */
  artifactBytes: number;
  /** Per-EPD ZIP exports: what --no-zip-export saves. */
  zipExports: number;
  zipExportBytes: number;
  largest?: { path: string; bytes: number };
  fullestFolder?: { path: string; entries: number };
}

export function measureSite(dir: string): SiteMeasure {
  const m: SiteMeasure = { files: 0, bytes: 0, artifactBytes: 1024, zipExports: 0, zipExportBytes: 0 };
  const walk = (abs: string, rel: string) => {
    const names = readdirSync(abs);
    if (!m.fullestFolder || names.length > m.fullestFolder.entries) m.fullestFolder = { path: rel || '.', entries: names.length };
    for (const name of names) {
      const p = join(abs, name);
      const r = rel ? `${rel}/${name}` : name;
      const st = lstatSync(p);
      m.artifactBytes += 512;
      if (st.isDirectory()) walk(p, r);
      else {
        m.files++;
        m.bytes += st.size;
        m.artifactBytes += Math.ceil(st.size / 512) * 512;
        if (name === 'zipexport.zip') {
          m.zipExports++;
          m.zipExportBytes += st.size;
        }
        if (!m.largest || st.size > m.largest.bytes) m.largest = { path: r, bytes: st.size };
      }
    }
  };
  walk(dir, '');
  return m;
}

/** One warning per limit the site is above, naming the remedy; hosts without limits give none. */
export function hostLimitFindings(m: SiteMeasure, hosts: readonly HostName[]): Finding[] {
  const out: Finding[] = [];
  const warn = (l: HostLimits, message: string) =>
    out.push(finding('host-limit', { host: l.title, detail: message, source: l.source }));
  // The per-EPD ZIP exports are most of a large site: say what dropping them saves.
  const zips = (what: string) => (m.zipExports ? ` Build with --no-zip-export to drop the per-EPD ZIP exports (${what}),` : '');
  const count = (n: number) => n.toLocaleString('en');
  for (const h of hosts) {
    const l = HOST_LIMITS[h];
    if (!l) continue;
    if (l.siteBytes && m.artifactBytes > l.siteBytes) {
      const over = `the site is ${size(m.artifactBytes)} as published, over the ${size(l.siteBytes)} limit; the deployment may be refused.`;
      warn(l, `${over}${zips(`${size(m.zipExportBytes)} of it`)} or publish to S3 + CloudFront (no site size limit).`);
    }
    if (l.files && m.files > l.files) {
      const over = `the site has ${count(m.files)} files, over the ${count(l.files)} a site may have (Free plan); the upload will fail.`;
      warn(l, `${over}${zips(`${count(m.zipExports)} files`)} or use a paid plan or S3 + CloudFront.`);
    }
    if (l.fileBytes && m.largest && m.largest.bytes > l.fileBytes) {
      const over = `${m.largest.path} is ${size(m.largest.bytes)}, over the ${size(l.fileBytes)} a file may be;`;
      warn(l, `${over} publish to S3 + CloudFront, or drop the file from the inputs.`);
    }
    const full = m.fullestFolder;
    if (l.filesPerFolder && full && full.entries > l.filesPerFolder) {
      const over = `${full.path} holds ${count(full.entries)} entries, over the ${count(l.filesPerFolder)} a folder may hold;`;
      warn(l, `${over} deploys will fail. Publish to S3 + CloudFront or your own nginx/Apache.`);
    }
  }
  return out;
}

function size(n: number): string {
  return n >= 1e9 ? `${(n / 1e9).toFixed(2)} GB` : `${(n / 1e6).toFixed(1)} MB`;
}
