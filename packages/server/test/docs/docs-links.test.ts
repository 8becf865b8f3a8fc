import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { environmentSchema } from '../../src/config.js';

const repositoryRoot = fileURLToPath(new URL('../../../../', import.meta.url));

/** Markdown files under `folder`, recursively. */
function markdownUnder(folder: string): string[] {
  if (!existsSync(folder)) return [];
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(folder, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : markdownUnder(full);
    return entry.name.endsWith('.md') ? [full] : [];
  });
}

/** README.md, docs/**, and the README of every package and example. */
function documentationFiles(): string[] {
  const readmesIn = (folder: string) =>
    readdirSync(path.join(repositoryRoot, folder))
      .map((name) => path.join(repositoryRoot, folder, name, 'README.md'))
      .filter((file) => existsSync(file));
  return [
    path.join(repositoryRoot, 'README.md'),
    ...markdownUnder(path.join(repositoryRoot, 'docs')),
    ...readmesIn('packages'),
    ...readmesIn('examples'),
  ];
}

/** Link targets of a Markdown text, code blocks and code spans left out. */
function linkTargets(markdown: string): string[] {
  const prose = markdown.replace(/^```[\s\S]*?^```/gm, '').replace(/`[^`\n]*`/g, '');
  const inline = [...prose.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)].map((match) => match[1]);
  const references = [...prose.matchAll(/^\s*\[[^\]]+\]:\s*<?(\S+?)>?(?:\s|$)/gm)].map((match) => match[1]);
  return [...inline, ...references].filter((target): target is string => target !== undefined);
}

/** GitHub's anchors of a Markdown file's headings. */
function headingAnchors(markdown: string): Set<string> {
  const prose = markdown.replace(/^```[\s\S]*?^```/gm, '');
  return new Set(
    [...prose.matchAll(/^#{1,6}\s+(.+?)\s*#*\s*$/gm)].map((match) =>
      (match[1] ?? '')
        .toLowerCase()
        .replace(/[^\p{L}\p{N}\s_-]/gu, '')
        .replace(/\s/g, '-'),
    ),
  );
}

const isExternal = (target: string) => /^[a-z][a-z0-9+.-]*:/i.test(target);

/** Why `target` (linked from `file`) is broken, or undefined when it resolves inside the repository. */
function problemOf(file: string, target: string): string | undefined {
  const [pathPart = '', fragment] = target.split('#', 2);
  const resolved =
    pathPart === '' ? file : path.resolve(path.dirname(file), decodeURI(pathPart.split('?')[0] ?? ''));
  const relative = path.relative(repositoryRoot, resolved);
  if (relative.startsWith('..') || path.isAbsolute(relative)) return 'points outside the repository';
  if (!existsSync(resolved)) return 'does not exist';
  if (fragment && resolved.endsWith('.md') && statSync(resolved).isFile()) {
    if (!headingAnchors(readFileSync(resolved, 'utf8')).has(fragment)) return `has no heading #${fragment}`;
  }
  return undefined;
}

describe('documentation links', () => {
  const files = documentationFiles();

  it('finds the documentation: the README, docs/ and the package READMEs', () => {
    const names = files.map((file) => path.relative(repositoryRoot, file));
    expect(names).toContain('README.md');
    expect(names).toContain(path.join('docs', 'deployment.md'));
    expect(names).toContain(path.join('packages', 'server', 'README.md'));
  });

  it('resolves every relative link to a file inside the repository (and a heading for #anchors)', () => {
    const broken = files.flatMap((file) =>
      linkTargets(readFileSync(file, 'utf8'))
        .filter((target) => !isExternal(target))
        .flatMap((target) => {
          const problem = problemOf(file, target);
          return problem ? [`${path.relative(repositoryRoot, file)}: ${target} ${problem}`] : [];
        }),
    );
    expect(broken).toEqual([]);
  });

  it('names every environment variable of the configuration schema in docs/configuration.md', () => {
    const page = readFileSync(path.join(repositoryRoot, 'docs', 'configuration.md'), 'utf8');
    const missing = Object.keys(environmentSchema.shape).filter((name) => !page.includes(`\`${name}\``));
    expect(missing).toEqual([]);
  });
});
