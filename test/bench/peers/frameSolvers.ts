// Every solver of the peer bench behind one frame-by-frame interface (not a test file): a chain that keeps
// its pose from frame to frame, a target moved each frame, and a solve to a tolerance within a cap.
import { Bone as BabylonBone } from "@babylonjs/core/Bones/bone.js";
import { BoneIKController } from "@babylonjs/core/Bones/boneIKController.js";
import { Skeleton as BabylonSkeleton } from "@babylonjs/core/Bones/skeleton.js";
import { Matrix, Vector3 as BabylonVector3 } from "@babylonjs/core/Maths/math.vector.js";
import { Mesh } from "@babylonjs/core/Meshes/mesh.js";
import { TransformNode } from "@babylonjs/core/Meshes/transformNode.js";
import type { Scene } from "@babylonjs/core/scene.js";
import { Bone, BufferGeometry, MeshBasicMaterial, Skeleton, SkinnedMesh, Vector3 } from "three";
import { CCDIKSolver, type IK as CCDChain } from "three/examples/jsm/animation/CCDIKSolver.js";
import { IK, IKBallConstraint, IKChain, IKJoint } from "three-ik/build/three-ik.module.js";
import { Bone as LegacyBone, Object3D as LegacyObject3D } from "three-legacy";
import {
  compilePlan,
  createJointLimits,
  createPose,
  setJointLimit,
  solvePlan,
  type SolveSettings,
} from "../../../plugin/index.js";
import { straightChain } from "../../solver/fixtures.js";

/**
 * A chain of `bones` bones of `boneLength` pointing up (+Y) from the origin in its own model space, solved
 * frame after frame from where the last frame left it.
 */
export interface FrameSolver {
  readonly name: string;
  /**
   * Moves the target (model space) to `from[o..o+2]` without touching the pose. Points travel in arrays, not
   * as arguments: V8 boxes doubles passed to calls it does not inline, and the harness must not allocate.
   */
  aim(from: Float64Array, o: number): void;
  /** Solves to the chain's tolerance within `cap` iterations; returns the iterations used (see {@link residual}). */
  solve(cap: number): number;
  /** Distance from the effector to the target after the last solve. */
  readonly residual: number;
  /** Local rotations, x y z w per joint, into `out` (4 per joint; the chain's joints in order). */
  locals(out: Float64Array): void;
}

/**
 * The limits every solver gets, each in its own vocabulary: babylon-fabrik a 1-rad circular swing cone and
 * ±0.6 rad twist per joint (the limb: that shoulder and a hinge elbow of 0..2.5 rad); THREE.IK a ball
 * constraint of the same cone (it has no twist or hinge); CCDIKSolver Euler ranges of ±1 rad across the
 * bone and ±0.6 rad about it (the elbow: a hinge axis); Babylon's controller is a hinge by construction.
 */
export interface ChainOptions {
  readonly bones: number;
  readonly boneLength: number;
  readonly limits: boolean;
  /** A two-bone limb bending toward a pole (babylon-fabrik and Babylon's controller use the pole). */
  readonly limb: boolean;
  /** The pole point of a limb, model space. */
  readonly pole: readonly [number, number, number];
  /** An effector this close to its target is done (model units). */
  readonly tolerance: number;
}

const CONE = 1;
const TWIST = 0.6;
/** The elbow bends one way only, by up to 2.5 rad about +X: the forearm folds forward (+Z), the elbow goes back. */
const ELBOW_MIN = 0;
const ELBOW_MAX = 2.5;

export function fabrikFrameSolver(o: ChainOptions): FrameSolver {
  const rig = straightChain(o.bones, o.boneLength);
  const limits = createJointLimits(rig);
  if (o.limits) {
    for (let j = 0; j < o.bones; j++) {
      if (o.limb && j === 1)
        setJointLimit(limits, j, { hinge: { axis: [1, 0, 0], min: ELBOW_MIN, max: ELBOW_MAX } });
      else
        setJointLimit(limits, j, {
          swing: { up: CONE, right: CONE, down: CONE, left: CONE },
          twist: { min: -TWIST, max: TWIST },
        });
    }
  }
  const plan = compilePlan(rig, { effectors: [{ joint: o.bones, pole: o.limb }], limits });
  const pose = createPose(rig);
  const target = new Float64Array(3);
  const settings: SolveSettings = {
    tolerance: o.tolerance,
    maxIterations: 1,
    poles: Float64Array.of(o.pole[0], o.pole[1], o.pole[2]),
  };
  const solver = {
    name: "babylon-fabrik",
    residual: 0,
    aim(from: Float64Array, i: number) {
      target[0] = from[i];
      target[1] = from[i + 1];
      target[2] = from[i + 2];
    },
    solve(cap: number) {
      settings.maxIterations = cap;
      const report = solvePlan(plan, pose, target, settings);
      solver.residual = report.maxResidual;
      return report.iterations;
    },
    locals(out: Float64Array) {
      const q = pose.orientations;
      for (let j = 0; j < rig.jointCount; j++) {
        const p = rig.parents[j];
        localRotation(q, p, j, out);
      }
    },
  };
  return solver;
}

/** out[4j..] = conj(q[4p..]) · q[4j..] (q[4j..] itself for a root). */
function localRotation(q: Float64Array, p: number, j: number, out: Float64Array): void {
  const j4 = 4 * j;
  if (p < 0) {
    for (let i = 0; i < 4; i++) out[j4 + i] = q[j4 + i];
    return;
  }
  const p4 = 4 * p;
  const ax = -q[p4],
    ay = -q[p4 + 1],
    az = -q[p4 + 2],
    aw = q[p4 + 3];
  const bx = q[j4],
    by = q[j4 + 1],
    bz = q[j4 + 2],
    bw = q[j4 + 3];
  out[j4] = aw * bx + ax * bw + ay * bz - az * by;
  out[j4 + 1] = aw * by - ax * bz + ay * bw + az * bx;
  out[j4 + 2] = aw * bz + ax * by - ay * bx + az * bw;
  out[j4 + 3] = aw * bw - ax * bx - ay * by - az * bz;
}

/**
 * THREE.IK points every bone's +Z at its child, so its chain runs along +Z; targets are turned by the
 * rotation taking our +Y to its +Z, (x, y, z) -> (x, -z, y), which changes no distance or angle.
 */
export function threeIkFrameSolver(o: ChainOptions): FrameSolver {
  const root = new LegacyObject3D();
  const joints: LegacyBone[] = [];
  for (let i = 0; i <= o.bones; i++) {
    const bone = new LegacyBone();
    if (i > 0) {
      bone.position.set(0, 0, o.boneLength);
      joints[i - 1].add(bone);
    } else root.add(bone);
    joints.push(bone);
  }
  const target = new LegacyObject3D();
  root.add(target);
  root.updateMatrixWorld(true);
  const ik = new IK();
  const chain = new IKChain();
  // Its ball constraint keeps a bone within angle/2 degrees of its parent's +Z (the parent bone's direction).
  const degrees = (2 * CONE * 180) / Math.PI;
  joints.forEach((bone, i) =>
    chain.add(
      new IKJoint(bone, o.limits && i < o.bones ? { constraints: [new IKBallConstraint(degrees)] } : {}),
      i === o.bones ? { target } : {},
    ),
  );
  ik.add(chain);
  const effector = chain.effector!;
  const solver = {
    name: "THREE.IK",
    residual: 0,
    aim(from: Float64Array, i: number) {
      target.position.set(from[i], -from[i + 2], from[i + 1]);
      target.updateMatrixWorld(true);
    },
    solve(cap: number) {
      let iterations = 0;
      while (iterations < cap) {
        iterations++;
        ik.solve(); // one forward and one backward pass
        solver.residual = effector._worldPosition.distanceTo(target.position);
        if (solver.residual <= o.tolerance) break;
      }
      return iterations;
    },
    locals(out: Float64Array) {
      joints.forEach((bone, j) =>
        out.set([bone.quaternion.x, bone.quaternion.y, bone.quaternion.z, bone.quaternion.w], 4 * j),
      );
    },
  };
  return solver;
}

/** three.js CCDIKSolver, one CCD sweep per iteration. */
export function ccdFrameSolver(o: ChainOptions): FrameSolver {
  const mesh = new SkinnedMesh(new BufferGeometry(), new MeshBasicMaterial());
  const joints: Bone[] = [];
  for (let i = 0; i <= o.bones; i++) {
    const bone = new Bone();
    if (i > 0) {
      bone.position.set(0, o.boneLength, 0);
      joints[i - 1].add(bone);
    } else mesh.add(bone);
    joints.push(bone);
  }
  const target = new Bone();
  mesh.add(target);
  mesh.bind(new Skeleton([...joints, target]));
  const links: CCDChain["links"] = [];
  for (let i = o.bones - 1; i >= 0; i--) {
    const link: CCDChain["links"][number] = { index: i };
    if (o.limits) {
      if (o.limb && i === 1) {
        link.limitation = new Vector3(1, 0, 0);
        link.rotationMin = new Vector3(ELBOW_MIN, 0, 0);
        link.rotationMax = new Vector3(ELBOW_MAX, 0, 0);
      } else {
        link.rotationMin = new Vector3(-CONE, -TWIST, -CONE);
        link.rotationMax = new Vector3(CONE, TWIST, CONE);
      }
    }
    links.push(link);
  }
  const ccd = new CCDIKSolver(mesh, [{ target: o.bones + 1, effector: o.bones, links, iteration: 1 }]);
  mesh.updateMatrixWorld(true);
  const tip = joints[o.bones].matrixWorld.elements;
  const goal = target.position;
  const solver = {
    name: "three.js CCDIKSolver",
    residual: 0,
    aim(from: Float64Array, i: number) {
      goal.set(from[i], from[i + 1], from[i + 2]);
      target.updateMatrixWorld(true);
    },
    solve(cap: number) {
      let iterations = 0;
      while (iterations < cap) {
        iterations++;
        ccd.update();
        solver.residual = Math.hypot(tip[12] - goal.x, tip[13] - goal.y, tip[14] - goal.z);
        if (solver.residual <= o.tolerance) break;
      }
      return iterations;
    },
    locals(out: Float64Array) {
      joints.forEach((bone, j) =>
        out.set([bone.quaternion.x, bone.quaternion.y, bone.quaternion.z, bone.quaternion.w], 4 * j),
      );
    },
  };
  return solver;
}

/**
 * Babylon's BoneIKController on a two-bone limb (a skinned mesh without geometry under a NullEngine scene):
 * analytic, one update per frame, bending toward a pole node.
 */
export function babylonTwoBoneSolver(o: ChainOptions, scene: Scene, index: number): FrameSolver {
  if (o.bones !== 2) throw new Error("Babylon's BoneIKController solves two-bone limbs only");
  const mesh = new Mesh(`limb${index}`, scene);
  const skeleton = new BabylonSkeleton(`limb${index}`, `limb${index}`, scene);
  const upper = new BabylonBone("upper", skeleton, null, Matrix.Identity());
  const lower = new BabylonBone("lower", skeleton, upper, Matrix.Translation(0, o.boneLength, 0));
  const hand = new BabylonBone("hand", skeleton, lower, Matrix.Translation(0, o.boneLength, 0));
  mesh.skeleton = skeleton;
  const pole = new TransformNode(`pole${index}`, scene);
  pole.position.set(o.pole[0], o.pole[1], o.pole[2]);
  const controller = new BoneIKController(mesh, lower, { poleTargetMesh: pole });
  const position = new BabylonVector3();
  const solver = {
    name: "Babylon BoneIKController",
    residual: 0,
    aim(from: Float64Array, i: number) {
      controller.targetPosition.set(from[i], from[i + 1], from[i + 2]);
    },
    solve() {
      controller.update();
      // Like the other solvers, leave the effector's world position up to date.
      hand.getAbsolutePositionToRef(mesh, position);
      const t = controller.targetPosition;
      solver.residual = Math.hypot(position.x - t.x, position.y - t.y, position.z - t.z);
      return 1;
    },
    locals(out: Float64Array) {
      [upper, lower, hand].forEach((bone, j) => {
        const q = bone.rotationQuaternion;
        out.set([q.x, q.y, q.z, q.w], 4 * j);
      });
    },
  };
  return solver;
}
