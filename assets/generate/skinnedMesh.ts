import {
  X,
  Z,
  add,
  addScaled,
  cross,
  dot,
  length,
  lerp,
  normalize,
  scale,
  smoothstep,
  sub,
  type Vec3,
} from "./math.js";

/** A circular radius, or an elliptical `[along side, across side]` pair (see {@link TubeSpec.side}). */
export type Radius = number | readonly [number, number];

/** A point on a tube's centre line. */
export interface Station {
  readonly at: Vec3;
  readonly radius: Radius;
  /**
   * The joint that drives the stretch from this station to the next; on the last station, the joint that
   * drives the end cap. Where the joint changes between stations the skin blends smoothly across it.
   */
  readonly bone: number;
}

/**
 * A closed tube along a polyline of stations: rings of vertices, a dome (or flat) cap at each end.
 * Bones are straight, so stations that are joints keep every bone's surface riding on its own bone.
 */
export interface TubeSpec {
  readonly stations: readonly Station[];
  /** Vertices per ring. */
  readonly sides: number;
  /** Elliptical sections measure their first radius along this direction (made perpendicular to the tube). */
  readonly side?: Vec3;
  /** Longest allowed distance between rings; segments also get at least {@link minDivisions}. */
  readonly spacing?: number;
  /** Ring intervals per segment at least, so every bone has at least this many rings bending with it. */
  readonly minDivisions?: number;
  /** How far the start and end caps bulge past the end stations; 0 closes the end flat. */
  readonly startCap?: number;
  readonly endCap?: number;
  /**
   * Half-width of the blend between two bones, as a fraction of the shorter of the two bone runs that
   * meet. At most 0.5, so neighbouring blends never overlap and no vertex needs more than two joints.
   */
  readonly blend?: number;
}

/** Flat vertex streams of one skinned primitive, ready to become glTF accessors. */
export interface MeshData {
  readonly positions: Float32Array;
  readonly normals: Float32Array;
  readonly joints: Uint8Array;
  readonly weights: Float32Array;
  readonly indices: Uint16Array;
}

interface Ring {
  readonly center: Vec3;
  readonly tangent: Vec3;
  readonly radius: readonly [number, number];
  /** Arc-length coordinate along the tube, which the skin weights are a function of. */
  readonly s: number;
}

const CAP_DIVISIONS = 4;

/** Accumulates tubes into one skinned primitive. */
export class SkinnedMeshBuilder {
  private readonly positions: number[] = [];
  private readonly joints: number[] = [];
  private readonly weights: number[] = [];
  private readonly indices: number[] = [];

  addTube(spec: TubeSpec): this {
    const { stations, sides } = spec;
    if (stations.length < 2) throw new Error("tube: needs at least two stations");
    if (sides < 3) throw new Error("tube: needs at least three sides");
    const spacing = spec.spacing ?? 0.03;
    const minDivisions = spec.minDivisions ?? 4;
    const startCap = spec.startCap ?? Math.min(...radii(stations[0].radius));
    const endCap = spec.endCap ?? Math.min(...radii(stations[stations.length - 1].radius));
    const blend = Math.min(0.5, spec.blend ?? 0.4);
    const side = spec.side ?? X;

    const arc = [0];
    const dirs: Vec3[] = [];
    for (let k = 1; k < stations.length; k++) {
      const d = sub(stations[k].at, stations[k - 1].at);
      arc.push(arc[k - 1] + length(d));
      dirs.push(normalize(d));
    }

    const rings: Ring[] = [];
    const first = stations[0];
    const last = stations[stations.length - 1];
    const end = arc[arc.length - 1];
    for (let i = 1; i < CAP_DIVISIONS && startCap > 0; i++) {
      const phi = ((i / CAP_DIVISIONS) * Math.PI) / 2;
      const back = startCap * Math.cos(phi);
      rings.push(ring(addScaled(first.at, dirs[0], -back), dirs[0], first.radius, Math.sin(phi), -back));
    }
    for (let k = 0; k < dirs.length; k++) {
      const segment = arc[k + 1] - arc[k];
      const divisions = Math.max(minDivisions, Math.ceil(segment / spacing));
      for (let i = 0; i < divisions; i++) {
        const t = i / divisions;
        const tangent = i === 0 && k > 0 ? normalize(add(dirs[k - 1], dirs[k])) : dirs[k];
        const r0 = radii(stations[k].radius);
        const r1 = radii(stations[k + 1].radius);
        const center = addScaled(stations[k].at, sub(stations[k + 1].at, stations[k].at), t);
        rings.push({
          center,
          tangent,
          radius: [lerp(r0[0], r1[0], t), lerp(r0[1], r1[1], t)],
          s: arc[k] + segment * t,
        });
      }
    }
    const lastDir = dirs[dirs.length - 1];
    rings.push(ring(last.at, lastDir, last.radius, 1, end));
    for (let i = CAP_DIVISIONS - 1; i >= 1 && endCap > 0; i--) {
      const phi = ((i / CAP_DIVISIONS) * Math.PI) / 2;
      const ahead = endCap * Math.cos(phi);
      rings.push(ring(addScaled(last.at, lastDir, ahead), lastDir, last.radius, Math.sin(phi), end + ahead));
    }

    const skin = tubeSkin(stations, arc, endCap, blend);
    const base = this.positions.length / 3;
    this.vertex(addScaled(first.at, dirs[0], -startCap), skin(-startCap));
    for (const r of rings) {
      const u = perpendicular(side, r.tangent);
      const v = cross(r.tangent, u);
      const weights = skin(r.s);
      for (let j = 0; j < sides; j++) {
        const a = (2 * Math.PI * j) / sides;
        const offset = add(scale(u, r.radius[0] * Math.cos(a)), scale(v, r.radius[1] * Math.sin(a)));
        this.vertex(add(r.center, offset), weights);
      }
    }
    this.vertex(addScaled(last.at, lastDir, endCap), skin(end + endCap));

    // Counter-clockwise seen from outside: (around the ring) x (along the tube) points outwards.
    const startPole = base;
    const endPole = base + 1 + rings.length * sides;
    const at = (r: number, j: number) => base + 1 + r * sides + (j % sides);
    for (let j = 0; j < sides; j++) {
      this.indices.push(startPole, at(0, j + 1), at(0, j));
      for (let r = 0; r + 1 < rings.length; r++) {
        this.indices.push(at(r, j), at(r, j + 1), at(r + 1, j));
        this.indices.push(at(r, j + 1), at(r + 1, j + 1), at(r + 1, j));
      }
      this.indices.push(at(rings.length - 1, j), at(rings.length - 1, j + 1), endPole);
    }
    return this;
  }

  get vertexCount(): number {
    return this.positions.length / 3;
  }

  build(): MeshData {
    if (this.vertexCount > 0xffff) throw new Error("mesh: too many vertices for 16-bit indices");
    return {
      positions: Float32Array.from(this.positions),
      normals: Float32Array.from(vertexNormals(this.positions, this.indices)),
      joints: Uint8Array.from(this.joints),
      weights: Float32Array.from(this.weights),
      indices: Uint16Array.from(this.indices),
    };
  }

  private vertex(p: Vec3, influences: Influences): void {
    this.positions.push(...p);
    this.joints.push(...influences.joints);
    this.weights.push(...influences.weights);
  }
}

interface Influences {
  readonly joints: readonly [number, number, number, number];
  readonly weights: readonly [number, number, number, number];
}

/**
 * Skin weights along a tube as a function of arc length: one joint inside a bone's stretch, and across
 * each station where the joint changes, a smoothstep blend centred on the station (half and half at the
 * joint itself), so the surface bends gradually instead of creasing.
 */
function tubeSkin(stations: readonly Station[], arc: readonly number[], endCap: number, blend: number) {
  // Pieces: segment k is driven by station k's bone; the end cap by the last station's bone.
  const pieceStart = [...arc];
  const pieceEnd = [...arc.slice(1), arc[arc.length - 1] + endCap];
  const bones = stations.map((s) => s.bone);
  const runStart = (k: number) => {
    while (k > 0 && bones[k - 1] === bones[k]) k--;
    return pieceStart[k];
  };
  const runEnd = (k: number) => {
    while (k + 1 < bones.length && bones[k + 1] === bones[k]) k++;
    return pieceEnd[k];
  };
  const blends: { at: number; width: number; from: number; to: number }[] = [];
  for (let k = 1; k < bones.length; k++) {
    if (bones[k] === bones[k - 1]) continue;
    const width = blend * Math.min(arc[k] - runStart(k - 1), runEnd(k) - arc[k]);
    blends.push({ at: arc[k], width, from: bones[k - 1], to: bones[k] });
  }
  return (s: number): Influences => {
    for (const b of blends) {
      if (b.width > 0 && Math.abs(s - b.at) < b.width) {
        const f = smoothstep((s - b.at + b.width) / (2 * b.width));
        // Float32 weights that add up to 1 as closely as float32 allows; the heavier joint first.
        const wTo = Math.fround(f);
        const wFrom = Math.fround(1 - wTo);
        return wTo > wFrom
          ? { joints: [b.to, b.from, 0, 0], weights: [wTo, wFrom, 0, 0] }
          : { joints: [b.from, b.to, 0, 0], weights: [wFrom, wTo, 0, 0] };
      }
    }
    let piece = 0;
    while (piece + 1 < bones.length && s >= pieceEnd[piece]) piece++;
    return { joints: [bones[piece], 0, 0, 0], weights: [1, 0, 0, 0] };
  };
}

function radii(r: Radius): readonly [number, number] {
  return typeof r === "number" ? [r, r] : r;
}

function ring(center: Vec3, tangent: Vec3, r: Radius, factor: number, s: number): Ring {
  const [a, b] = radii(r);
  return { center, tangent, radius: [a * factor, b * factor], s };
}

/** `side` made perpendicular to the unit `tangent`; another axis when they are (nearly) parallel. */
function perpendicular(side: Vec3, tangent: Vec3): Vec3 {
  for (const candidate of [side, Z, X]) {
    const p = sub(candidate, scale(tangent, dot(candidate, tangent)));
    if (length(p) > 1e-3) return normalize(p);
  }
  throw new Error("tube: no direction perpendicular to the tangent");
}

/** Area-weighted vertex normals: smooth across rings, and right at the poles where many triangles meet. */
function vertexNormals(positions: readonly number[], indices: readonly number[]): number[] {
  const sums = new Array<number>(positions.length).fill(0);
  const p = (i: number): Vec3 => [positions[3 * i], positions[3 * i + 1], positions[3 * i + 2]];
  for (let t = 0; t < indices.length; t += 3) {
    const [a, b, c] = [indices[t], indices[t + 1], indices[t + 2]];
    const n = cross(sub(p(b), p(a)), sub(p(c), p(a)));
    for (const i of [a, b, c]) {
      sums[3 * i] += n[0];
      sums[3 * i + 1] += n[1];
      sums[3 * i + 2] += n[2];
    }
  }
  const normals: number[] = [];
  for (let i = 0; i < positions.length / 3; i++) {
    normals.push(...normalize([sums[3 * i], sums[3 * i + 1], sums[3 * i + 2]]));
  }
  return normals;
}
