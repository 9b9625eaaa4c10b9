import { Bone, BufferGeometry, MeshBasicMaterial, Skeleton, SkinnedMesh } from "three";
import { CCDIKSolver } from "three/examples/jsm/animation/CCDIKSolver.js";
import type { ChainSolver } from "../harness.js";

/** three.js CCDIKSolver on a straight chain of `bones` bones along +Y, one CCD sweep per iteration. */
export function ccdChain(bones: number, boneLength: number): ChainSolver {
  const mesh = new SkinnedMesh(new BufferGeometry(), new MeshBasicMaterial());
  const joints: Bone[] = [];
  for (let i = 0; i <= bones; i++) {
    const bone = new Bone();
    if (i > 0) {
      bone.position.set(0, boneLength, 0);
      joints[i - 1].add(bone);
    } else {
      mesh.add(bone);
    }
    joints.push(bone);
  }
  const target = new Bone();
  mesh.add(target);
  mesh.bind(new Skeleton([...joints, target]));
  const links = [];
  for (let i = bones - 1; i >= 0; i--) links.push({ index: i });
  const solver = new CCDIKSolver(mesh, [{ target: bones + 1, effector: bones, links, iteration: 1 }]);
  const tip = joints[bones].matrixWorld.elements;
  const goal = target.position;

  return {
    name: "three.js CCDIKSolver (three 0.187.0)",
    reset(x, y, z) {
      for (const joint of joints) joint.quaternion.set(0, 0, 0, 1);
      target.position.set(x, y, z);
      mesh.updateMatrixWorld(true);
    },
    iterate() {
      solver.update();
      return Math.hypot(tip[12] - goal.x, tip[13] - goal.y, tip[14] - goal.z);
    },
  };
}
