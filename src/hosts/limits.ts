import { lstatSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Finding } from '../findings.js';
import type { HostName } from '../config/hosts.js';
import { finding } from '../messages/finding.js';

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
  /** Per-EPD ZIP exports (--zip-export): what a build without them saves. */
  zipExports: number;
  zipExportBytes: number;
  largest?: { path: string; bytes: number };
  fullestFolder?: { path: string; entries: number };
}

/** Files, bytes and the largest of a folder; `counts` leaves out files (by path relative to dir) from the totals. */
export function measureSite(dir: string, counts: (rel: string) => boolean = () => true): SiteMeasure {
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
      else if (counts(r)) {
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
  const { zipExports, zipExportBytes } = m;
  for (const h of hosts) {
    const l = HOST_LIMITS[h];
    if (!l) continue;
    const at = { host: l.title, source: l.source };
    if (l.siteBytes && m.artifactBytes > l.siteBytes) {
      const bytes = m.artifactBytes;
      out.push(finding('host-limit', { case: 'site-bytes', ...at, bytes, limit: l.siteBytes, zipExports, zipExportBytes }));
    }
    if (l.files && m.files > l.files) {
      out.push(finding('host-limit', { case: 'files', ...at, files: m.files, limit: l.files, zipExports }));
    }
    if (l.fileBytes && m.largest && m.largest.bytes > l.fileBytes) {
      out.push(finding('host-limit', { case: 'file-bytes', ...at, path: m.largest.path, bytes: m.largest.bytes, limit: l.fileBytes }));
    }
    const full = m.fullestFolder;
    if (l.filesPerFolder && full && full.entries > l.filesPerFolder) {
      out.push(finding('host-limit', { case: 'folder-entries', ...at, path: full.path, entries: full.entries, limit: l.filesPerFolder }));
    }
  }
  return out;
}
