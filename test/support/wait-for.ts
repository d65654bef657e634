/** polls `cond` every `stepMs` until it holds; throws naming `what` once `timeoutMs` passed */
export async function waitFor(cond: () => boolean | Promise<boolean>, timeoutMs: number, what: string, stepMs = 2): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await cond())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, stepMs));
  }
}
