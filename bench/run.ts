/**
 * Runs the benchmarks and writes BENCHMARKS.md.
 *
 *   npm run bench                 every suite; rewrites BENCHMARKS.md
 *   npm run bench -- log quote    only the named suites; their sections in BENCHMARKS.md are
 *                                 replaced, the other sections are kept
 *
 * A suite is a module under bench/ exporting `bench(): Promise<BenchSection[]>`. Suites measure
 * and report targets beside the figures; they never assert.
 */
import * as fs from 'fs';
import * as path from 'path';
import { renderMarkdown, type BenchSection } from './harness';

/** suite name → module (relative to this file), in report order */
export const SUITES: Record<string, string> = {
  log: './log.bench',
  projection: './projection.bench',
  programs: './programs.bench',
  quote: './quote.bench',
  routing: './routing-quality.bench',
  price: './price.bench',
  stream: './stream.bench',
  'stream-window': './stream-window.bench',
  swap: './swap.bench',
};

const OUT = path.join(__dirname, '..', 'BENCHMARKS.md');

interface StoredSection {
  title: string;
  text: string;
}

/** split an existing BENCHMARKS.md into its `## ` sections (title → text incl. heading) */
function readSections(markdown: string): StoredSection[] {
  const out: StoredSection[] = [];
  let cur: StoredSection | null = null;
  for (const line of markdown.split('\n')) {
    if (line.startsWith('## ')) {
      cur = { title: line.slice(3).trim(), text: line + '\n' };
      out.push(cur);
    } else if (cur) cur.text += line + '\n';
  }
  return out;
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const unknown = args.filter((a) => !(a in SUITES));
  if (unknown.length > 0) {
    console.error(`unknown suite(s): ${unknown.join(', ')}; known: ${Object.keys(SUITES).join(', ')}`);
    process.exit(2);
  }
  const names = args.length > 0 ? args : Object.keys(SUITES);
  const fresh: BenchSection[] = [];
  for (const name of names) {
    const file = path.join(__dirname, SUITES[name].slice(2) + '.ts');
    if (!fs.existsSync(file)) {
      console.log(`[bench] ${name}: no suite yet (${path.relative(process.cwd(), file)} missing), skipped`);
      continue;
    }
    console.log(`[bench] ${name} ...`);
    const t0 = Date.now();
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const mod = require(SUITES[name]) as { bench: () => Promise<BenchSection[]> };
    const sections = await mod.bench();
    for (const s of sections) {
      console.log(`\n## ${s.title}`);
      for (const r of s.rows) console.log(`  ${r.metric}: ${r.value}${r.target ? ` (target ${r.target}: ${r.verdict})` : ''}${r.notes ? `  — ${r.notes}` : ''}`);
    }
    fresh.push(...sections);
    console.log(`[bench] ${name} done in ${((Date.now() - t0) / 1000).toFixed(1)} s\n`);
  }
  const date = new Date().toISOString().slice(0, 10);
  const command = args.length > 0 ? `npm run bench -- ${args.join(' ')}` : 'npm run bench';
  let text: string;
  if (args.length === 0) {
    text = renderMarkdown(command, fresh, date);
  } else {
    // keep the other suites' sections, replace (or append) the fresh ones
    const kept = fs.existsSync(OUT) ? readSections(fs.readFileSync(OUT, 'utf8')) : [];
    const rendered = readSections(renderMarkdown(command, fresh, date));
    const byTitle = new Map(rendered.map((s) => [s.title, s]));
    const merged: StoredSection[] = kept.map((s) => byTitle.get(s.title) ?? s);
    for (const s of rendered) if (!kept.some((k) => k.title === s.title)) merged.push(s);
    const header = renderMarkdown('npm run bench', [], date).trimEnd();
    text = `${header}\nSections refreshed on ${date} by \`${command}\`: ${[...byTitle.keys()].join('; ')}.\n\n${merged.map((s) => s.text.trimEnd()).join('\n\n')}\n`;
  }
  fs.writeFileSync(OUT, text);
  console.log(`[bench] wrote BENCHMARKS.md (${fresh.length} section(s) from ${names.join(', ')})`);
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
