/**
 * The continuous optimum of a routing problem, by its Lagrange dual: maximise the output subject
 * to token balances, each pool direction's output concave in its input. For token prices ν ≥ 0
 * (the output's fixed at 1), D(ν) = ν_in · amount + Σ_edges max_x [ν_to g(x) − ν_from x] bounds
 * the optimum from above (weak duality) and equals it at the minimiser (strong duality). D is
 * minimised by coordinate descent on the prices (each step a bisection on the token's net
 * balance) and damped Newton steps, each edge's arbitrage subproblem answered by its oracle, from
 * the latent prices and, when given, the prices read off a good feasible flow. The edges' flows
 * at the prices found are the optimum's own split.
 */

/** a pool direction's continuous curve: the arbitrage subproblem at marginal rate r (out per in) */
export type Oracle = (r: number) => { x: number; y: number };

export interface Edge {
  from: number;
  to: number;
  oracle: Oracle;
}

/** tokens 0..n−1, directed pool edges, the amount of the source token to route to the target */
export interface DualProblem {
  n: number;
  edges: Edge[];
  /** latent value per unit of each token (any scale): the descent's first start */
  price: number[];
  source: number;
  target: number;
  amount: number;
}

export interface DualSolution {
  /** the dual value: an upper bound of the continuous optimum */
  bound: number;
  /** share of the amount the flow at the prices found spends */
  spent: number;
  prices: number[];
  /** each edge's flow at those prices */
  flows: { x: number; y: number }[];
}

/**
 * The marginal rate of an edge at input x (output per input): the rate r at which the edge's
 * arbitrage subproblem takes exactly x (bisection on r; x(r) falls as r rises).
 */
export function marginalAt(e: Edge, x: number): number {
  let hi = 1;
  for (let k = 0; k < 400 && e.oracle(hi).x > x; k++) hi *= 4;
  let lo = hi;
  for (let k = 0; k < 400 && !(e.oracle(lo).x > x); k++) lo /= 4;
  if (!(e.oracle(lo).x > x)) return 0;
  for (let k = 0; k < 200 && hi / lo > 1 + 1e-14; k++) {
    const mid = Math.sqrt(lo * hi);
    if (e.oracle(mid).x > x) lo = mid;
    else hi = mid;
  }
  return Math.sqrt(lo * hi);
}

/**
 * Dual prices read off a feasible flow (edge inputs by edge index): the value of one more unit of
 * each token at the target, given each edge's marginal rate at its flow, backwards from the
 * target over the DAG (ν_t = max over t's edges of ν_to × rate). At an optimal flow these are
 * optimal dual prices (KKT); for any flow they are prices, and D(ν) is an upper bound.
 */
export function pricesAt(inst: DualProblem, flows: number[]): number[] {
  const n = inst.n;
  const nu = new Array<number>(n).fill(0);
  nu[inst.target] = 1;
  const rate = inst.edges.map((e, i) => marginalAt(e, flows[i] ?? 0));
  // relax in reverse topological order: edges only go forward, so n sweeps settle it
  for (let sweep = 0; sweep < n; sweep++) {
    let moved = false;
    inst.edges.forEach((e, i) => {
      const v = nu[e.to] * rate[i];
      if (v > nu[e.from]) {
        nu[e.from] = v;
        moved = true;
      }
    });
    if (!moved) break;
  }
  return nu;
}

/**
 * The dual upper bound of the continuous optimum (see the file comment): minimised from the
 * latent prices and, when given, from the prices of a good feasible flow; the lowest D wins (each
 * is an upper bound).
 */
export function dualBound(inst: DualProblem, flows?: number[]): number {
  return dualSolve(inst, flows).bound;
}

/**
 * The dual bound and the share of the input its optimal flow spends: below 1 when the network
 * cannot turn the whole amount into more output (a concentrated pool every path crosses runs out
 * of liquidity), where the continuous optimum leaves input unspent; a swap must spend it all, so
 * such instances have no meaningful reference.
 */
export function dualSolve(inst: DualProblem, flows?: number[]): DualSolution {
  const latent = inst.price.map((p) => p / inst.price[inst.target]);
  let best = dualFrom(inst, latent);
  if (flows) {
    // tokens of no value at the flow: a tiny positive price keeps the descent in the interior
    const warm = pricesAt(inst, flows).map((v, t) => (v > 0 ? v : latent[t] * 1e-9));
    const other = dualFrom(inst, warm);
    if (other.bound < best.bound) best = other;
  }
  return best;
}

function dualFrom(inst: DualProblem, start: number[]): DualSolution {
  const n = inst.n;
  const A = inst.amount;
  const nu = start.slice();
  const byToken: number[][] = Array.from({ length: n }, () => []);
  inst.edges.forEach((e, i) => {
    byToken[e.from].push(i);
    byToken[e.to].push(i);
  });
  const balance = (t: number, v: number): number => {
    let h = t === inst.source ? A : 0;
    for (const ei of byToken[t]) {
      const e = inst.edges[ei];
      if (e.from === t) h -= e.oracle(v / nu[e.to]).x;
      else h += e.oracle(nu[e.from] / v).y;
    }
    return h;
  };
  const coordinate = (sweeps: number): void => {
    for (let sweep = 0; sweep < sweeps; sweep++) {
      let moved = 0;
      for (let t = 0; t < n; t++) {
        if (t === inst.target) continue;
        const v0 = nu[t];
        let lo = v0 / 1.01;
        let hi = v0 * 1.01;
        for (let k = 0; k < 200 && balance(t, lo) > 0; k++) lo /= 4;
        for (let k = 0; k < 200 && balance(t, hi) < 0; k++) hi *= 4;
        for (let k = 0; k < 100; k++) {
          const mid = Math.sqrt(lo * hi);
          if (balance(t, mid) < 0) lo = mid;
          else hi = mid;
          if (hi / lo < 1 + 1e-13) break;
        }
        nu[t] = Math.sqrt(lo * hi);
        moved = Math.max(moved, Math.abs(Math.log(nu[t] / v0)));
      }
      if (moved < 1e-12) break;
    }
  };
  // then Levenberg–Marquardt-damped Newton on u = ln ν (the target's price fixed at 1): the
  // gradient is ν_t × balance_t (exact), the Hessian by differences of the gradient
  const free = Array.from({ length: n }, (_, t) => t).filter((t) => t !== inst.target);
  const term = (v: number[], e: Edge): number => {
    if (!(v[e.to] > 0)) return 0;
    const { x, y } = e.oracle(Math.max(1e-300, v[e.from] / v[e.to]));
    return v[e.to] * y - (x > 0 ? v[e.from] * x : 0);
  };
  const dual = (v: number[]): number => {
    let d = v[inst.source] * A;
    for (const e of inst.edges) d += term(v, e);
    return d;
  };
  const start0 = dual(nu);
  const grad = (v: number[]): number[] => {
    const save = nu.slice();
    for (let t = 0; t < n; t++) nu[t] = v[t];
    const g = free.map((t) => v[t] * balance(t, v[t]));
    for (let t = 0; t < n; t++) nu[t] = save[t];
    return g;
  };
  const newton = (iters: number): void => {
  let cur = dual(nu);
  let lambda = 1e-3;
  for (let it = 0; it < iters; it++) {
    const g = grad(nu);
    const k = free.length;
    const H: number[][] = Array.from({ length: k }, () => new Array(k).fill(0));
    for (let j = 0; j < k; j++) {
      const h = 1e-6;
      const v = nu.slice();
      v[free[j]] *= Math.exp(h);
      const g2 = grad(v);
      for (let i = 0; i < k; i++) H[i][j] = (g2[i] - g[i]) / h;
    }
    for (let i = 0; i < k; i++) for (let j = 0; j < i; j++) H[i][j] = H[j][i] = (H[i][j] + H[j][i]) / 2;
    let hmax = 0;
    for (let i = 0; i < k; i++) hmax = Math.max(hmax, Math.abs(H[i][i]));
    let improved = false;
    for (let tries = 0; tries < 30 && !improved; tries++) {
      // solve (H + λ diag(|H|+1e-12·scale)) d = −g by Gaussian elimination
      const M = H.map((row, i) => [...row.map((x, j) => x + (i === j ? lambda * (Math.abs(H[i][i]) + 1e-9 * hmax + 1e-300) : 0)), -g[i]]);
      for (let c = 0; c < k; c++) {
        let piv = c;
        for (let r = c + 1; r < k; r++) if (Math.abs(M[r][c]) > Math.abs(M[piv][c])) piv = r;
        [M[c], M[piv]] = [M[piv], M[c]];
        if (M[c][c] === 0) continue;
        for (let r = 0; r < k; r++) {
          if (r === c) continue;
          const f = M[r][c] / M[c][c];
          for (let x = c; x <= k; x++) M[r][x] -= f * M[c][x];
        }
      }
      const d = M.map((row, i) => (row[i] !== 0 ? row[k] / row[i] : 0));
      const v = nu.slice();
      free.forEach((t, i) => (v[t] *= Math.exp(Math.max(-2, Math.min(2, d[i])))));
      const val = dual(v);
      if (val < cur) {
        improved = cur - val > 1e-15 * Math.abs(cur);
        for (let t = 0; t < n; t++) nu[t] = v[t];
        cur = val;
        lambda = Math.max(1e-12, lambda / 10);
        if (!improved) break;
      } else lambda *= 10;
    }
    if (!improved) break;
  }
  };
  for (let round = 0; round < 6; round++) {
    coordinate(round === 0 ? 60 : 30);
    newton(60);
  }
  const D = dual(nu);
  // the descent keeps every accepted step below the start; the start itself is a bound too
  let out = 0;
  for (const e of inst.edges) if (e.from === inst.source) out += e.oracle(Math.max(1e-300, nu[e.from] / nu[e.to])).x;
  const prices = D <= start0 ? nu : start;
  const flows = inst.edges.map((e) => (prices[e.to] > 0 ? e.oracle(Math.max(1e-300, prices[e.from] / prices[e.to])) : { x: 0, y: 0 }));
  return { bound: Math.min(D, start0), spent: out / A, prices, flows };
}

