import type { HostEmitter } from './types.js';

/**
 * GitHub Pages cannot set headers or rewrite: `.nojekyll` keeps `_*`/`.*` files when publishing from a branch.
 * `/resource/processes/` serves index.xml (Pages tries index.xml before index.json). What cannot work
 * (extensionless types, the 301 on folder URLs, format=json) is listed in docs/hosting.md.
 */
export const githubPages: HostEmitter = {
  name: 'github-pages',
  title: 'GitHub Pages',
  emit() {
    return { site: [{ path: '.nojekyll', contentType: 'text/plain', source: { text: '' } }], deploy: [] };
  },
};
