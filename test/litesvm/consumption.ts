/**
 * Compute units per top-level instruction, read from a transaction's program logs ("Program X
 * invoke [1]" … "Program X consumed N of M compute units"): what the real programs spent on each
 * instruction, inner invocations included. Builtins (System, Compute Budget) log no consumption:
 * their entry is null.
 */
export interface InstructionUnits {
  program: string;
  units: number | null;
}

const INVOKE = /^Program (\w+) invoke \[(\d+)\]$/;
const CONSUMED = /^Program (\w+) consumed (\d+) of \d+ compute units$/;
const END = /^Program (\w+) (success|failed)/;

export function unitsPerInstruction(logs: readonly string[]): InstructionUnits[] {
  const out: InstructionUnits[] = [];
  let depth = 0;
  for (const l of logs) {
    let m = INVOKE.exec(l);
    if (m) {
      depth = Number(m[2]);
      if (depth === 1) out.push({ program: m[1], units: null });
      continue;
    }
    m = CONSUMED.exec(l);
    if (m && depth === 1) {
      out[out.length - 1].units = Number(m[2]);
      continue;
    }
    if (END.test(l)) depth = Math.max(0, depth - 1);
  }
  return out;
}
