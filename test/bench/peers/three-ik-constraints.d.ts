// THREE.IK's ball constraint, missing from the minimal typings in three-ik.d.ts (declarations merge).
declare module "three-ik/build/three-ik.module.js" {
  /** Keeps a joint's bone within `angle / 2` degrees of its parent's +Z. */
  export class IKBallConstraint {
    constructor(angle: number);
  }
}
