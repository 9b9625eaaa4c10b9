import { cpus } from "node:os";
import { PerformanceObserver } from "node:perf_hooks";
import { GCProfiler, getHeapStatistics } from "node:v8";

/** A peer driven one iteration at a time, so every solver gets the same tolerance and iteration cap. */
export interface ChainSolver {
  readonly name: string;
  /** Back to the rest pose with a new target (not timed). */
  reset(x: number, y: number, z: number): void;
  /** One iteration; returns the effector's distance to the target afterwards. */
  iterate(): number;
}

/** A solver that runs its own iteration loop (ours). */
export interface WholeSolver {
  readonly name: string;
  reset(x: number, y: number, z: number): void;
  /** Solves to `tolerance` within `cap` iterations; returns the iterations used and writes the residual. */
  solve(tolerance: number, cap: number): { iterations: number; residual: number };
}

export interface Measurement {
  name: string;
  /** Median over rounds of the mean time per solve, in microseconds. */
  usPerSolve: number;
  meanIterations: number;
  /** Mean time per iteration (total time / total iterations), in microseconds. */
  usPerIteration: number;
  convergedFraction: number;
  meanResidual: number;
}

function drive(
  solver: ChainSolver | WholeSolver,
  tolerance: number,
  cap: number,
): { iterations: number; residual: number } {
  if ("solve" in solver) return solver.solve(tolerance, cap);
  let residual = Infinity;
  let iterations = 0;
  while (iterations < cap) {
    iterations++;
    residual = solver.iterate();
    if (residual <= tolerance) break;
  }
  return { iterations, residual };
}

/** Solves every target from rest, `rounds` times; only the solving is timed, not the reset. */
export function measure(
  solver: ChainSolver | WholeSolver,
  targets: Float64Array,
  tolerance: number,
  cap: number,
  rounds: number,
): Measurement {
  const count = targets.length / 3;
  const roundTimes: number[] = [];
  let iterations = 0,
    converged = 0,
    residualSum = 0,
    totalTime = 0,
    totalIterations = 0;
  for (let round = 0; round < rounds; round++) {
    let time = 0;
    for (let i = 0; i < count; i++) {
      solver.reset(targets[3 * i], targets[3 * i + 1], targets[3 * i + 2]);
      const t0 = performance.now();
      const result = drive(solver, tolerance, cap);
      time += performance.now() - t0;
      totalIterations += result.iterations;
      if (round === 0) {
        iterations += result.iterations;
        residualSum += result.residual;
        if (result.residual <= tolerance) converged++;
      }
    }
    roundTimes.push((1000 * time) / count);
    totalTime += time;
  }
  roundTimes.sort((a, b) => a - b);
  return {
    name: solver.name,
    usPerSolve: roundTimes[Math.floor(rounds / 2)],
    meanIterations: iterations / count,
    usPerIteration: (1000 * totalTime) / totalIterations,
    convergedFraction: converged / count,
    meanResidual: residualSum / count,
  };
}

/**
 * Heap bytes allocated per call of `fn` in steady state: the heap growth over `count` calls after a full
 * collection, and the number of collections that ran meanwhile (any collection means something allocated).
 * Needs node's --expose-gc.
 */
export async function allocationPerCall(
  fn: () => void,
  count: number,
): Promise<{ bytesPerCall: number; gcRuns: number }> {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (gc === undefined)
    throw new Error("allocation measurement needs node --expose-gc (see vite.config.ts execArgv)");
  // Warm up long enough for V8 to finish tiering up the code under test: compiling allocates too.
  for (let i = 0; i < 20000; i++) fn();
  let gcRuns = 0;
  const observer = new PerformanceObserver((list) => (gcRuns += list.getEntries().length));
  observer.observe({ entryTypes: ["gc"] });
  // Two windows, the lesser counted: heap growth in a window also holds V8's own bookkeeping when it
  // re-optimises the code under test, which happens in one window, while a real per-call allocation shows
  // in both.
  let best = { bytesPerCall: Infinity, gcRuns: 0 };
  for (let window = 0; window < 2; window++) {
    gc();
    gc();
    await new Promise((resolve) => setTimeout(resolve, 10));
    gcRuns = 0;
    const before = process.memoryUsage().heapUsed;
    for (let i = 0; i < count; i++) fn();
    const after = process.memoryUsage().heapUsed;
    await new Promise((resolve) => setTimeout(resolve, 10));
    const bytesPerCall = Math.max(0, after - before) / count;
    if (bytesPerCall < best.bytesPerCall) best = { bytesPerCall, gcRuns };
  }
  observer.disconnect();
  return best;
}

export function formatTable(header: string[], rows: (string | number)[][]): string {
  const lines = [header, header.map(() => "---"), ...rows.map((r) => r.map(String))];
  return lines.map((cells) => `| ${cells.join(" | ")} |`).join("\n");
}

export function machineName(): string {
  const cpu = cpus();
  return `${cpu[0]?.model.trim() ?? "unknown CPU"}, ${cpu.length} cores, Node ${process.version}`;
}

/**
 * Heap bytes allocated per call of `fn`, exact even when collections run meanwhile: the heap's growth over
 * `count` calls plus what every collection in between freed (from V8's GC profiler). Use it where a peer
 * allocates enough per call to trigger collections, which makes {@link allocationPerCall} a lower bound.
 * Warm `fn` up first. Needs node's --expose-gc.
 */
export function bytesAllocated(fn: () => void, count: number): { bytesPerCall: number; gcRuns: number } {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (gc === undefined)
    throw new Error("allocation measurement needs node --expose-gc (see vite.config.ts execArgv)");
  gc();
  const profiler = new GCProfiler();
  const before = getHeapStatistics().used_heap_size;
  profiler.start();
  for (let i = 0; i < count; i++) fn();
  const after = getHeapStatistics().used_heap_size;
  const { statistics } = profiler.stop();
  let freed = 0;
  for (const s of statistics)
    freed += s.beforeGC.heapStatistics.usedHeapSize - s.afterGC.heapStatistics.usedHeapSize;
  return { bytesPerCall: Math.max(0, after - before + freed) / count, gcRuns: statistics.length };
}

/**
 * The machine's memory latency right now, in nanoseconds per dependent load: a pointer chase through one
 * random cycle over 32 MB (beyond the caches). Printed beside results that are bound by memory (100
 * characters' poses and plans do not stay in cache from one frame to the next), so runs on a shared machine
 * can be compared: the same code measured 1.25 ms and 4 ms per frame (100 characters, no limits) in runs of
 * one day. It explains part of that spread, not all: which physical pages a run's heap lands on matters too.
 */
export function memoryLatencyNs(): number {
  const n = 1 << 23;
  const next = new Int32Array(n);
  // Sattolo's shuffle: a single cycle through every slot, so the chase visits all of them.
  for (let i = 0; i < n; i++) next[i] = i;
  let seed = 12345;
  for (let i = n - 1; i > 0; i--) {
    seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
    const j = seed % i;
    const t = next[i];
    next[i] = next[j];
    next[j] = t;
  }
  const steps = 1 << 21;
  let p = 0;
  for (let i = 0; i < 1 << 16; i++) p = next[p];
  const t0 = performance.now();
  for (let i = 0; i < steps; i++) p = next[p];
  const ns = ((performance.now() - t0) * 1e6) / steps;
  // p is used, so the chase cannot be optimised away.
  return p >= 0 ? ns : -ns;
}

/** Median of a list of numbers (the list is sorted in place). */
export function median(values: number[]): number {
  values.sort((a, b) => a - b);
  const mid = values.length >> 1;
  return values.length % 2 === 1 ? values[mid] : (values[mid - 1] + values[mid]) / 2;
}

/** Bytes as `0 B`, `512 B`, `3.4 kB`, `1.2 MB`. */
export function formatBytes(bytes: number): string {
  if (bytes < 1) return bytes < 0.05 ? "0 B" : `${bytes.toFixed(1)} B`;
  if (bytes < 1024) return `${bytes.toFixed(0)} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} kB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

/** Microseconds as `12.3 µs`, `4.56 ms`, `1.23 s`. */
export function formatMicroseconds(us: number): string {
  if (us < 1000) return `${us < 10 ? us.toFixed(2) : us.toFixed(1)} µs`;
  if (us < 1_000_000) return `${(us / 1000).toFixed(2)} ms`;
  return `${(us / 1_000_000).toFixed(2)} s`;
}
