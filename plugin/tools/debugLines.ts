import { VertexBuffer } from "@babylonjs/core/Buffers/buffer.js";
import { Color4 } from "@babylonjs/core/Maths/math.color.js";
import { Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import { CreateLineSystem } from "@babylonjs/core/Meshes/Builders/linesBuilder.js";
import type { LinesMesh } from "@babylonjs/core/Meshes/linesMesh.js";
import type { Scene } from "@babylonjs/core/scene.js";
import type { SkeletonRig } from "../babylon/index.js";
import type { SolvePlan } from "../solver/index.js";

/** Points per hinge or twist arc, minus one. */
export const ARC_SEGMENTS = 16;
/** Polylines per limit slot: cone outline, spokes (or hinge axis), arc, current-angle indicator. */
export const SLOT_LINES = 4;
/** Points of the spokes line: joint → each of the four sides' extremes → joint. */
export const SPOKE_POINTS = 9;

export const MARKER_BASE = 0;
export const MARKER_SUB_BASE = 1;
export const MARKER_EFFECTOR = 2;

/**
 * The debug view's one updatable line system, and which polyline draws what: a bone per jointed joint, a
 * three-line cross per base, sub-base and effector, a diamond (three loops) and a residual line per target,
 * and a limit slot (cone, spokes, arc, indicator) per joint the solver turns plus one for the selected
 * joint. Made anew only when the rig or the set of targets changes; each frame the painters move the
 * points and {@link upload} copies them into the vertex buffers.
 */
export class DebugLines {
  readonly mesh: LinesMesh;
  /** The polylines, in the order above, and their vertex colours. */
  readonly lines: Vector3[][] = [];
  readonly colors: Color4[][];
  /** The child joint of each drawn bone (every joint with a parent). */
  readonly boneJoints: Int32Array;
  readonly markerJoints: Int32Array;
  /** MARKER_BASE, MARKER_SUB_BASE or MARKER_EFFECTOR per marker. */
  readonly markerKinds: Uint8Array;
  readonly markerStart: number;
  readonly targetStart: number;
  /** The joint of each limit slot; the last slot (-1 here) is the selected joint's. */
  readonly slotJoints: Int32Array;
  /** Slot index per joint, -1 for joints drawn only when selected (in the last slot). */
  readonly slotOf: Int32Array;
  readonly slotStart: number;

  private readonly _positions: Float32Array;
  private readonly _vertexColors: Float32Array;
  private readonly _positionBuffer: VertexBuffer | null;
  private readonly _colorBuffer: VertexBuffer | null;

  constructor(rig: SkeletonRig, plan: SolvePlan | null, coneSegments: number, scene: Scene) {
    const n = rig.jointCount;
    const lines = this.lines;
    const add = (points: number, count: number): number => {
      const first = lines.length;
      for (let i = 0; i < count; i++) lines.push(Array.from({ length: points }, () => new Vector3()));
      return first;
    };
    const bones: number[] = [];
    for (let j = 0; j < n; j++) if (rig.parents[j] >= 0) bones.push(j);
    this.boneJoints = Int32Array.from(bones);
    add(2, bones.length);

    const markerJoints: number[] = [];
    const markerKinds: number[] = [];
    if (plan !== null) {
      const groups: [Int32Array, number][] = [
        [plan.bases, MARKER_BASE],
        [plan.subBases, MARKER_SUB_BASE],
        [plan.effectorJoints, MARKER_EFFECTOR],
      ];
      for (const [joints, kind] of groups) {
        for (const j of joints) {
          markerJoints.push(j);
          markerKinds.push(kind);
        }
      }
    }
    this.markerJoints = Int32Array.from(markerJoints);
    this.markerKinds = Uint8Array.from(markerKinds);
    this.markerStart = add(2, 3 * markerJoints.length);

    const effectors = plan?.effectorCount ?? 0;
    this.targetStart = lines.length;
    for (let e = 0; e < effectors; e++) {
      add(5, 3);
      add(2, 1);
    }

    // A slot for every joint the solver turns (any of them may gain a limit while this layout lasts), plus
    // one for the selected joint.
    const slotJoints = plan === null ? [] : Array.from(plan.rotatingJoints);
    slotJoints.push(-1);
    this.slotJoints = Int32Array.from(slotJoints);
    this.slotOf = new Int32Array(n).fill(-1);
    slotJoints.forEach((j, slot) => {
      if (j >= 0) this.slotOf[j] = slot;
    });
    this.slotStart = lines.length;
    for (let slot = 0; slot < slotJoints.length; slot++) {
      add(coneSegments + 1, 1);
      add(SPOKE_POINTS, 1);
      add(ARC_SEGMENTS + 1, 1);
      add(2, 1);
    }

    const colors = lines.map((line) => line.map(() => new Color4(1, 1, 1, 1)));
    const mesh = CreateLineSystem(
      "fabrikDebugView",
      { lines, colors, updatable: true, useVertexAlpha: false },
      scene,
    );
    mesh.isPickable = false;
    // The points move every frame: skip culling and never recompute bounds (that would allocate).
    mesh.alwaysSelectAsActiveMesh = true;
    mesh.doNotSyncBoundingInfo = true;
    mesh.getBoundingInfo().isLocked = true;
    this.mesh = mesh;
    this.colors = colors;
    const vertices = mesh.getTotalVertices();
    this._positions = new Float32Array(3 * vertices);
    this._vertexColors = new Float32Array(4 * vertices);
    this._positionBuffer = mesh.getVertexBuffer(VertexBuffer.PositionKind);
    this._colorBuffer = mesh.getVertexBuffer(VertexBuffer.ColorKind);
  }

  /** The colour joint's cone was drawn with, or null when it has no slot drawn (`selected`: the selected joint). */
  limitColor(joint: number, selected: number): Color4 | null {
    let slot = joint >= 0 && joint < this.slotOf.length ? this.slotOf[joint] : -1;
    if (slot < 0 && joint >= 0 && joint === selected) slot = this.slotJoints.length - 1;
    if (slot < 0) return null;
    return this.colors[this.slotStart + SLOT_LINES * slot][0];
  }

  /**
   * Copies the lines into the vertex buffers. Not `CreateLineSystem(name, { lines, instance })`: its update
   * goes through `updateVerticesData`, whose dirty-marking allocates a closure per call wherever Babylon's
   * mesh code has seen several mesh types (80 bytes a frame, measured); writing the buffers directly
   * allocates nothing, and a line mesh whose layout is unchanged needs no dirty-marking.
   */
  upload(): void {
    const lines = this.lines,
      colors = this.colors;
    const positions = this._positions,
      vertexColors = this._vertexColors;
    let i = 0,
      c = 0;
    for (let l = 0; l < lines.length; l++) {
      const line = lines[l],
        lineColors = colors[l];
      for (let k = 0; k < line.length; k++) {
        const p = line[k],
          q = lineColors[k];
        positions[i] = p.x;
        positions[i + 1] = p.y;
        positions[i + 2] = p.z;
        vertexColors[c] = q.r;
        vertexColors[c + 1] = q.g;
        vertexColors[c + 2] = q.b;
        vertexColors[c + 3] = q.a;
        i += 3;
        c += 4;
      }
    }
    this._positionBuffer!.updateDirectly(positions, 0);
    this._colorBuffer!.updateDirectly(vertexColors, 0);
  }

  dispose(): void {
    this.mesh.dispose(false, true);
  }
}
