/**
 * Tiny benchmark harness: timing, percentiles and the BENCHMARKS.md writer.
 * Benchmarks measure; they never assert (targets are reported beside the figures).
 */
import * as fs from 'fs';
import * as os from 'os';

export interface BenchRow {
  metric: string;
  value: string;
  target?: string;
  /** 'met' | 'missed' | '' when there is no target */
  verdict?: string;
  notes?: string;
}

export interface BenchSection {
  title: string;
  description: string;
  rows: BenchRow[];
}

export function nowNs(): bigint {
  return process.hrtime.bigint();
}

export function percentile(sortedMs: number[], p: number): number {
  if (sortedMs.length === 0) return NaN;
  const idx = Math.min(sortedMs.length - 1, Math.max(0, Math.ceil((p / 100) * sortedMs.length) - 1));
  return sortedMs[idx];
}

/** Latency samples in milliseconds → p50/p90/p99/max. */
export function summarize(samplesMs: number[]): { p50: number; p90: number; p99: number; max: number; n: number } {
  const s = [...samplesMs].sort((a, b) => a - b);
  return { p50: percentile(s, 50), p90: percentile(s, 90), p99: percentile(s, 99), max: s[s.length - 1], n: s.length };
}

export function fmtMs(ms: number): string {
  if (ms < 0.01) return `${(ms * 1000).toFixed(2)} µs`;
  if (ms < 1) return `${(ms * 1000).toFixed(0)} µs`;
  return `${ms.toFixed(2)} ms`;
}

export function fmtRate(perSecond: number, unit: string): string {
  return `${Math.round(perSecond).toLocaleString('en-US')} ${unit}/s`;
}

export function verdict(ok: boolean): string {
  return ok ? 'met' : 'missed';
}

export function machineLine(): string {
  const cpu = os.cpus()[0]?.model ?? 'unknown cpu';
  return `Node ${process.version}, ${os.cpus().length} cores (${cpu}), ${Math.round(os.totalmem() / 2 ** 30)} GiB, ${os.platform()} ${os.arch()}`;
}

export function fmtPct(share: number, digits = 0): string {
  return `${(share * 100).toFixed(digits)}%`;
}

/** the file's head: its title, the line of the full run it comes from (null: none recorded), the machine */
function renderHead(produced: string | null, machine = machineLine()): string[] {
  const out = ['# Benchmarks', ''];
  if (produced !== null) out.push(produced, '');
  out.push(`Machine: ${machine}. Figures are from one run: expect a few percent of noise on throughputs, tens of percent on latency medians and far more on tails (eight runs of one version of the code in one session, the live stream with the quote work on the main thread: median 68 to 94 ms, p99 427 to 1,290 ms, pushes over 150 ms 11% to 25%; sixteen runs of the all-in-one with a quote worker in another session: median 69 to 76 ms, p99 249 to 664 ms, pushes over 150 ms 4.4% to 15.0%).`, '');
  return out;
}

/** one section: its heading, description and table, and the blank line after it */
function renderSection(s: BenchSection): string[] {
  const out = [`## ${s.title}`, '', s.description, ''];
  out.push('| metric | value | target | verdict | notes |', '|---|---|---|---|---|');
  for (const r of s.rows) out.push(`| ${r.metric} | ${r.value} | ${r.target ?? ''} | ${r.verdict ?? ''} | ${r.notes ?? ''} |`);
  out.push('');
  return out;
}

export function renderMarkdown(command: string, sections: BenchSection[], date: string): string {
  return [...renderHead(`Produced by \`${command}\` on ${date}.`), ...sections.flatMap(renderSection)].join('\n');
}

interface StoredSection {
  title: string;
  text: string;
}

/** split a BENCHMARKS.md into its `## ` sections (title → text incl. heading) */
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

const PRODUCED = /^Produced by `[^`]+` on \S+\.$/;
const REFRESHED = /^Sections refreshed on (\S+) by `([^`]+)`( on another machine \([^:]*\))?: (.*)\.$/;
const MACHINE = /^Machine: (.*?)\. Figures are from one run/;

/**
 * BENCHMARKS.md after a run of some suites (`command`, which measured `fresh`): the other
 * sections are kept as they were and the fresh ones replace theirs (a new one is appended). The
 * header keeps the line of the last full run (`npm run bench`) with its date, and says which
 * sections each later partial run refreshed, when and by which command; a section refreshed
 * again is named only under its latest run.
 */
export function mergeBenchmarks(existing: string, command: string, fresh: BenchSection[], date: string): string {
  const kept = readSections(existing);
  const byTitle = new Map(fresh.map((s) => [s.title, { title: s.title, text: renderSection(s).join('\n') }]));
  const keptTitles = new Set(kept.map((s) => s.title));
  const merged: StoredSection[] = [...kept.map((s) => byTitle.get(s.title) ?? s), ...[...byTitle.values()].filter((s) => !keptTitles.has(s.title))];
  const firstSection = existing.indexOf('\n## ');
  const head = (firstSection < 0 ? existing : existing.slice(0, firstSection)).split('\n');
  const produced = head.find((l) => PRODUCED.test(l));
  // the machine the file's figures come from stays in the header; a partial run on another one
  // names its own in its line
  const current = machineLine();
  const machine = head.map((l) => MACHINE.exec(l)?.[1]).find((m) => m !== undefined) ?? current;
  const here = current === machine ? '' : ` on another machine (${current})`;
  // the earlier partial runs, without the sections this one refreshed
  const earlier: string[] = [];
  for (const line of head) {
    const m = REFRESHED.exec(line);
    if (!m) continue;
    const titles = m[4].split('; ').filter((t) => !byTitle.has(t));
    if (titles.length > 0) earlier.push(`Sections refreshed on ${m[1]} by \`${m[2]}\`${m[3] ?? ''}: ${titles.join('; ')}.`);
  }
  // (no line of a full run yet: none is claimed)
  const header = renderHead(produced ?? null, machine).join('\n').trimEnd();
  const refreshed = [...earlier, `Sections refreshed on ${date} by \`${command}\`${here}: ${[...byTitle.keys()].join('; ')}.`];
  return `${header}\n\n${refreshed.join('\n\n')}\n\n${merged.map((s) => s.text.trimEnd()).join('\n\n')}\n`;
}

/** CPU counters at one moment, in USER_HZ ticks (see cpuSnapshot) */
export interface CpuSnapshot {
  /** OS thread id of this process → its CPU time so far (user + system) */
  threads: Map<string, number>;
  /** /proc/stat's first line: user, nice, system, idle, iowait, irq, softirq, steal */
  machine: number[];
  /** when it was taken (Unix ms) */
  at: number;
}

/** CPU time so far of each OS thread of this process, and the machine's CPU counters (Linux /proc; null where /proc is not there) */
export function cpuSnapshot(): CpuSnapshot | null {
  try {
    const threads = new Map<string, number>();
    for (const tid of fs.readdirSync('/proc/self/task')) {
      let stat: string;
      try {
        stat = fs.readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
      } catch {
        continue; // the thread ended meanwhile
      }
      // after the command name (in parentheses): state is field 3, utime and stime fields 14 and 15
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      threads.set(tid, Number(f[11]) + Number(f[12]));
    }
    const machine = fs.readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1, 9).map(Number);
    return { threads, machine, at: Date.now() };
  } catch {
    return null;
  }
}

/**
 * Where the CPU went between two snapshots: this process's main thread and its other threads
 * (busiest first), each as a share of the wall time; the machine's busy, stolen and idle shares
 */
export function cpuUse(a: CpuSnapshot | null, b: CpuSnapshot | null): { main: number; others: number[]; busy: number; steal: number; idle: number } | null {
  const seconds = a === null || b === null ? 0 : (b.at - a.at) / 1000;
  if (a === null || b === null || seconds <= 0) return null;
  const HZ = 100; // USER_HZ: /proc's tick, 100 on Linux whatever the kernel's own
  const share = (tid: string): number => ((b.threads.get(tid) ?? 0) - (a.threads.get(tid) ?? 0)) / HZ / seconds;
  const main = String(process.pid);
  const others = [...b.threads.keys()].filter((t) => t !== main).map(share).filter((x) => x >= 0.005).sort((x, y) => y - x);
  const d = b.machine.map((v, i) => v - a.machine[i]);
  const total = d.reduce((x, y) => x + y, 0) || 1;
  return { main: share(main), others, busy: (d[0] + d[1] + d[2] + d[5] + d[6]) / total, steal: d[7] / total, idle: (d[3] + d[4]) / total };
}
