/**
 * The README's settings table and the code agree: every environment variable the service reads
 * (libs/config and any other file under apps/ or libs/ that reads the environment) has a row, and
 * every row names a variable something reads.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { loadConfig } from '@app/config';

const ROOT = path.join(__dirname, '..');

/** the product's source files under apps/ and libs/ (not its specs, benches or test helpers) */
function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) {
      if (entry.name !== 'bench' && entry.name !== 'testing' && entry.name !== 'node_modules') out.push(...sourceFiles(full));
    } else if (/\.ts$/.test(entry.name) && !/\.(spec|bench)\.ts$/.test(entry.name) && entry.name !== 'spec-support.ts') out.push(full);
  }
  return out;
}

const NAME = '[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)*';

/**
 * The variables one file reads: `process.env.X` / `process.env['X']` anywhere; in a file that reads
 * an environment record handed to it (`env: Env`, as the config library's modules do), also
 * `env.X`, `env['X']` and every string literal that is a variable's name (the names its helpers
 * take: `int(env, 'PORT', ...)`, `{ variable: 'LOG_RETENTION_...' }`).
 */
function variablesRead(text: string): string[] {
  const names = new Set<string>();
  for (const m of text.matchAll(new RegExp(`process\\.env(?:\\.(${NAME})\\b|\\[\\s*['"](${NAME})['"]\\s*\\])`, 'g'))) names.add(m[1] ?? m[2]);
  if (/\benv\s*:\s*Env\b/.test(text)) {
    for (const m of text.matchAll(new RegExp(`\\benv(?:\\?)?\\.(${NAME})\\b`, 'g'))) names.add(m[1]);
    for (const m of text.matchAll(new RegExp(`'(${NAME})'`, 'g'))) names.add(m[1]);
  }
  return [...names];
}

/** every variable the product reads, with the files reading it */
function readByCode(): Map<string, string[]> {
  const byName = new Map<string, string[]>();
  for (const file of [...sourceFiles(path.join(ROOT, 'apps')), ...sourceFiles(path.join(ROOT, 'libs'))]) {
    for (const name of variablesRead(fs.readFileSync(file, 'utf8'))) {
      byName.set(name, [...(byName.get(name) ?? []), path.relative(ROOT, file)]);
    }
  }
  return byName;
}

/** the variables of the README's settings table (`| variable | default | meaning |`) */
function readmeSettings(): string[] {
  const lines = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8').split('\n');
  const head = lines.findIndex((l) => /^\|\s*variable\s*\|\s*default\s*\|\s*meaning\s*\|/.test(l));
  if (head < 0) throw new Error('README.md has no settings table (a header row "| variable | default | meaning |")');
  const names: string[] = [];
  for (const line of lines.slice(head + 2)) {
    if (!line.startsWith('|')) break;
    const m = new RegExp(`^\\|\\s*\`(${NAME})\`\\s*\\|`).exec(line);
    if (m === null) throw new Error(`a row of the README's settings table does not start with a \`VARIABLE\`: ${line}`);
    names.push(m[1]);
  }
  return names;
}

describe("the README's settings table", () => {
  const code = readByCode();
  const table = readmeSettings();

  it('lists every variable the code reads', () => {
    const missing = [...code.keys()].filter((n) => !table.includes(n)).map((n) => `${n} (read in ${code.get(n)!.join(', ')})`);
    expect(missing).toEqual([]);
  });

  it('lists only variables the code reads, each once', () => {
    expect(table.filter((n) => !code.has(n))).toEqual([]);
    expect(table.filter((n, i) => table.indexOf(n) !== i)).toEqual([]);
  });

  it('finds what loadConfig reads at run time (the scan above misses no way of reading)', () => {
    const envs: Record<string, string>[] = [
      {},
      { INGEST_SOURCE: 'geyser', GEYSER_URL: 'http://127.0.0.1:1', RPC_URL: 'http://127.0.0.1:2', CHAIN_GATEWAY: 'rpc' },
      { DEPLOYMENT: 'self-hosted', AUTH_MODE: 'keys', INGEST_SOURCE: 'file', INGEST_FILE: 'x.jsonl', LOG_DRIVER: 'kafka' },
    ];
    const seen = new Set<string>();
    for (const values of envs) {
      const env = new Proxy(values, {
        get: (target, key) => {
          if (typeof key === 'string') seen.add(key);
          return target[key as string];
        },
      });
      try {
        loadConfig(env);
      } catch {
        // a refused combination still reads what it read before refusing
      }
    }
    expect(seen.size).toBeGreaterThan(40);
    expect([...seen].filter((n) => !code.has(n))).toEqual([]);
  });

  it('the scan reads the forms a file uses', () => {
    expect(variablesRead("const a = process.env.FOO_BAR; const b = process.env['BAZ'];").sort()).toEqual(['BAZ', 'FOO_BAR']);
    expect(variablesRead("function f(env: Env) { return int(env, 'PORT', 1) + env.DATA_DIR; }").sort()).toEqual(['DATA_DIR', 'PORT']);
    expect(variablesRead("const s = 'NOT_READ';")).toEqual([]);
  });
});
