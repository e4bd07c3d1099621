import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const root = new URL('../..', import.meta.url).pathname;
const tracked = execFileSync('git', ['ls-files', '-co', '--exclude-standard'], {
  cwd: root,
  encoding: 'utf8',
})
  .split('\n')
  .filter((f) => f && existsSync(`${root}${f}`) && !f.endsWith('package-lock.json'));

describe('the repository stands alone', () => {
  it('points no user at specification files outside the repository', () => {
    const offenders = tracked.filter((file) => {
      const text = readFileSync(`${root}${file}`, 'utf8');
      if (/shared\/spec\b/.test(text)) return true;
      // In prose, ../shared is the folder beside the clone; in code it is this repository's shared/.
      return file.endsWith('.md') && /\.\.\/shared\b/.test(text);
    });
    expect(offenders).toEqual([]);
  });

  it('ships the license its package.json declares', () => {
    const pkg = JSON.parse(readFileSync(`${root}package.json`, 'utf8')) as { license: string };
    expect(pkg.license).toBe('MIT');
    expect(readFileSync(`${root}LICENSE`, 'utf8')).toMatch(/^MIT License\n/);
  });
});
