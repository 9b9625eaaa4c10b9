/**
 * The one error type the solver throws. It always names what is at fault (a joint, an effector or an
 * option) so a user can fix the input without reading solver code. Whenever it is thrown, nothing has
 * been changed: validation runs before any write.
 */
export class FabrikError extends Error {
  override readonly name = "FabrikError";

  constructor(
    message: string,
    /** The joint at fault, when there is one (its index in the rig). */
    readonly joint?: number,
    /** The option or field at fault, when there is one. */
    readonly option?: string,
  ) {
    super(message);
  }
}

/** `joint 4 ("LeftHand")` or `joint 4` when the rig has no names. */
export function describeJoint(index: number, names: readonly string[] | undefined): string {
  const name = names?.[index];
  return name !== undefined && name !== "" ? `joint ${index} ("${name}")` : `joint ${index}`;
}
