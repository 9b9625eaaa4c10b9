// The tracked body benchmark's rows (not a bench file): what one clip's replay measured, and the printed table.
import { formatTable } from "./harness.js";

/** One clip's replay: errors in cm scaled to a 1.75 m human, rotations in degrees, times in µs a frame. */
export interface Row {
  readonly name: string;
  readonly frames: number;
  readonly upper: number;
  readonly whole: number;
  readonly baseUpper: number;
  readonly baseWhole: number;
  readonly chainsUpper: number;
  readonly chainsWhole: number;
  /** Mean joint rotation error (degrees): TrackedBody, baseline (a), baseline (b); upper body, whole body. */
  readonly rotation: {
    upper: number;
    whole: number;
    baseUpper: number;
    baseWhole: number;
    chainsUpper: number;
    chainsWhole: number;
  };
  /** cm a planted foot moves while planted: the mean over plants of each plant's largest drift, and the largest. */
  readonly sliding: number;
  readonly mostSliding: number;
  readonly jitter: number;
  readonly clipJitter: number;
  readonly micros: number;
  /** µs a frame replaying the clip again (the code compiled and warm): see `bestReplay` in trackedClips.ts. */
  readonly warmMicros: number;
  /** The same for baseline (b). */
  readonly chainsMicros: number;
  /** Solver iterations per solve, mean over the measured frames. */
  readonly iterations: number;
  readonly steps: number;
  readonly finite: boolean;
  /** Legs × frames with a knee inverted (see `invertedKnees` in trackedClips.ts), and the clip's own count. */
  readonly inverted: number;
  readonly clipInverted: number;
  /** The hips' mean offset from the clip's (cm): along the head's heading, up, and up × heading. */
  readonly hipsOffset: readonly number[];
  /** Each measured joint's mean position error (cm), "name error, …". */
  readonly joints: string;
}

/** One clip's per-joint errors and the hips' mean offset, on one line. */
export function trackedJoints(row: Row): string {
  const [forward, up, side] = row.hipsOffset.map(f1);
  return `${row.name}: hips off the clip's by ${forward} forward, ${up} up, ${side} side (mean cm); ${row.joints}`;
}

const f1 = (x: number) => x.toFixed(1);

/** The rows as a markdown table. */
export function trackedTable(rows: readonly Row[]): string {
  return formatTable(
    [
      "clip",
      "frames",
      "MPJPE upper",
      "MPJPE whole",
      "(a) upper",
      "(a) whole",
      "(b) upper",
      "(b) whole",
      "rotation upper °",
      "rotation whole °",
      "(a) rotation upper",
      "(a) rotation whole",
      "(b) rotation upper",
      "(b) rotation whole",
      "foot sliding / plant (largest)",
      "jitter (clip's)",
      "steps",
      "iterations / solve",
      "µs / frame",
      "µs / frame (warm)",
      "(b) µs / frame (warm)",
      "knees inverted (clip's)",
      "finite",
    ],
    rows.map((r) => [
      r.name,
      r.frames,
      f1(r.upper),
      f1(r.whole),
      f1(r.baseUpper),
      f1(r.baseWhole),
      f1(r.chainsUpper),
      f1(r.chainsWhole),
      f1(r.rotation.upper),
      f1(r.rotation.whole),
      f1(r.rotation.baseUpper),
      f1(r.rotation.baseWhole),
      f1(r.rotation.chainsUpper),
      f1(r.rotation.chainsWhole),
      `${f1(r.sliding)} (${f1(r.mostSliding)})`,
      `${r.jitter.toFixed(2)} (${r.clipJitter.toFixed(2)})`,
      r.steps,
      f1(r.iterations),
      r.micros.toFixed(0),
      r.warmMicros.toFixed(0),
      r.chainsMicros.toFixed(0),
      `${r.inverted} (${r.clipInverted})`,
      r.finite ? "yes" : "NO",
    ]),
  );
}
