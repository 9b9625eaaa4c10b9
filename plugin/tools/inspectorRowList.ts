import { InspectableType, type IInspectable } from "@babylonjs/core/Misc/iInspectable.js";
import type { FabrikBehavior } from "../babylon/index.js";

/** What the two buttons do: put the selected joint's limits back as they were at attach, or remove them. */
export interface LimitButtons {
  reset(): void;
  free(): void;
}

/**
 * The rows a behavior shows in the Inspector's "Custom" section, in order: its settings, one group per
 * target, then the selected joint's limits. Each row is bound to the property `prefix + suffix` of the
 * selected entity (see InspectorRows, which defines those properties). Labels are unique: Inspector v2 keys
 * its rows by label within the section.
 *
 * @param depths bones from each joint up to its root: the longest chain a target on it can be given.
 */
export function inspectorRowList(
  ik: FabrikBehavior,
  prefix: string,
  depths: Int32Array,
  buttons: LimitButtons,
): IInspectable[] {
  const p = prefix;
  const rows: IInspectable[] = [
    { label: "FABRIK IK", propertyName: `${p}Summary`, type: InspectableType.Tab },
    { label: "Enabled", propertyName: `${p}Enabled`, type: InspectableType.Checkbox },
    { label: "Skip when hidden", propertyName: `${p}SkipWhenHidden`, type: InspectableType.Checkbox },
    {
      label: "Weight",
      propertyName: `${p}Weight`,
      type: InspectableType.Slider,
      min: 0,
      max: 1,
      step: 0.01,
    },
    {
      label: "Iterations (max)",
      propertyName: `${p}MaxIterations`,
      type: InspectableType.Slider,
      min: 1,
      max: Math.max(200, ik.maxIterations),
      step: 1,
    },
    {
      label: "Tolerance (× height)",
      propertyName: `${p}Tolerance`,
      type: InspectableType.Slider,
      min: 0,
      max: Math.max(0.02, ik.tolerance),
      step: 0.0001,
    },
    { label: "Last solve", propertyName: `${p}LastSolve`, type: InspectableType.Tab },
    { label: "Debug view", propertyName: `${p}Debug`, type: InspectableType.Checkbox },
  ];
  ik.targets.forEach((t, e) => {
    rows.push(
      { label: `Target ${e + 1}`, propertyName: `${p}Target${e}`, type: InspectableType.Tab },
      {
        label: `Target ${e + 1} position`,
        propertyName: `${p}Target${e}Position`,
        type: InspectableType.Vector3,
      },
      {
        label: `Target ${e + 1} weight`,
        propertyName: `${p}Target${e}Weight`,
        type: InspectableType.Slider,
        min: 0,
        max: 1,
        step: 0.01,
      },
      {
        label: `Target ${e + 1} chain length`,
        propertyName: `${p}Target${e}ChainLength`,
        type: InspectableType.Slider,
        min: 1,
        max: Math.max(1, depths[t.joint]),
        step: 1,
      },
    );
  });
  ik.continuumSections.forEach((_, s) => {
    rows.push(
      { label: `Continuum section ${s + 1}`, propertyName: `${p}Section${s}`, type: InspectableType.Tab },
      {
        label: `Continuum section ${s + 1} max bend (°)`,
        propertyName: `${p}Section${s}MaxBend`,
        type: InspectableType.Slider,
        min: 1,
        max: 359,
        step: 1,
      },
    );
  });
  const names = ik.rig!.names;
  const roleOf = new Map<number, string>();
  for (const [role, j] of Object.entries(ik.roles)) if (j !== undefined) roleOf.set(j, role);
  const angle = (label: string, suffix: string, min: number, max = 180): IInspectable => ({
    label,
    propertyName: `${p}${suffix}`,
    type: InspectableType.Slider,
    min,
    max,
    step: 1,
  });
  rows.push(
    {
      label: "Joint",
      propertyName: `${p}Joint`,
      type: InspectableType.Options,
      options: names.map((name, j) => ({
        label: roleOf.has(j) ? `${name} (${roleOf.get(j)})` : name,
        value: j,
      })),
    },
    { label: "Limits", propertyName: `${p}JointLimits`, type: InspectableType.Tab },
    angle("Swing up (°)", "SwingUp", 0),
    angle("Swing right (°)", "SwingRight", 0),
    angle("Swing down (°)", "SwingDown", 0),
    angle("Swing left (°)", "SwingLeft", 0),
    angle("Twist min (°)", "TwistMin", -180),
    angle("Twist max (°)", "TwistMax", -180),
    angle("Hinge min (°)", "HingeMin", -180),
    angle("Hinge max (°)", "HingeMax", -180),
    angle("Pivot min (°)", "PivotMin", -180),
    angle("Pivot max (°)", "PivotMax", -180),
    angle("Universal first min (°)", "UniversalFirstMin", -180),
    angle("Universal first max (°)", "UniversalFirstMax", -180),
    angle("Universal second min (°)", "UniversalSecondMin", -90, 90),
    angle("Universal second max (°)", "UniversalSecondMax", -90, 90),
    {
      label: "Reset joint limits",
      propertyName: `${p}ResetJoint`,
      type: InspectableType.Button,
      callback: () => buttons.reset(),
    },
    {
      label: "Remove joint limits",
      propertyName: `${p}FreeJoint`,
      type: InspectableType.Button,
      callback: () => buttons.free(),
    },
  );
  return rows;
}
