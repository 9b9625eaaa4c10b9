import { IK, IKChain, IKJoint } from "three-ik/build/three-ik.module.js"; // its ESM build, so three-legacy can be swapped in
import { Bone, Object3D } from "three-legacy";
import type { ChainSolver } from "../harness.js";

/** THREE.IK on a straight chain of `bones` bones along +Y (its own convention: +Y points to the child). */
export function threeIkChain(bones: number, boneLength: number): ChainSolver {
  const root = new Object3D();
  const joints: Bone[] = [];
  for (let i = 0; i <= bones; i++) {
    const bone = new Bone();
    if (i > 0) {
      bone.position.set(0, boneLength, 0);
      joints[i - 1].add(bone);
    } else {
      root.add(bone);
    }
    joints.push(bone);
  }
  const target = new Object3D();
  root.add(target);
  root.updateMatrixWorld(true);

  const ik = new IK();
  const chain = new IKChain();
  joints.forEach((bone, i) => chain.add(new IKJoint(bone), i === bones ? { target } : {}));
  ik.add(chain);
  const effector = chain.effector!;

  return {
    name: "THREE.IK (three-ik 0.1.0)",
    reset(x, y, z) {
      for (let i = 0; i <= bones; i++) {
        joints[i].quaternion.set(0, 0, 0, 1);
        joints[i].position.set(0, i > 0 ? boneLength : 0, 0);
      }
      target.position.set(x, y, z);
      root.updateMatrixWorld(true);
    },
    iterate() {
      ik.solve(); // one forward + backward pass per call
      return effector._worldPosition.distanceTo(target.position);
    },
  };
}
