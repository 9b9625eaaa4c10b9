// Minimal typings for the benchmark peer THREE.IK (npm `three-ik`), which ships none.
declare module "three-ik/build/three-ik.module.js" {
  import type { Bone, Object3D, Vector3 } from "three-legacy";
  export class IK {
    add(chain: IKChain): void;
    solve(): void;
  }
  export class IKJoint {
    constructor(bone: Bone, options?: { constraints?: unknown[] });
    _worldPosition: Vector3;
  }
  export class IKChain {
    effector: IKJoint | null;
    add(joint: IKJoint, options?: { target?: Object3D }): this;
    connect(chain: IKChain): this;
  }
}
