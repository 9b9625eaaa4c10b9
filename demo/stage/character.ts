import type { AnimationGroup } from "@babylonjs/core/Animations/animationGroup.js";
import type { AssetContainer } from "@babylonjs/core/assetContainer.js";
import { LoadAssetContainerAsync } from "@babylonjs/core/Loading/sceneLoader.js";
import { Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import type { AbstractMesh } from "@babylonjs/core/Meshes/abstractMesh.js";
import { TransformNode } from "@babylonjs/core/Meshes/transformNode.js";
import type { Scene } from "@babylonjs/core/scene.js";
import { GLTFLoaderAnimationStartMode } from "@babylonjs/loaders/glTF/glTFFileLoader.js";
import "@babylonjs/loaders/glTF/2.0/index.js";
import {
  buildSkeletonRigs,
  FabrikBehavior,
  FabrikError,
  installFabrikInspector,
  type FabrikBehaviorOptions,
  type FabrikJoint,
  type SolveReport,
} from "../../plugin/index.js";
import type { Stage } from "./stage.js";

/** A loaded, skinned character with IK attached, standing under a `holder` node the scenes move around. */
export interface Character {
  readonly name: string;
  /** Move, turn and tilt the character through this node (never through the glTF root or the skinned mesh). */
  readonly holder: TransformNode;
  /** The glTF `__root__`, where the behavior is attached. */
  readonly root: TransformNode;
  readonly meshes: readonly AbstractMesh[];
  readonly animations: readonly AnimationGroup[];
  readonly ik: FabrikBehavior;
  /** What the last solve did, and how long the behavior's frame took (read, solve, write back). */
  readonly stats: { iterations: number; converged: boolean; maxResidual: number; micros: number };
  /** Plays one clip looped (stopping the others); `null` stops them all and puts the loaded pose back. */
  play(name: string | null): void;
  /** The clip playing, if any. */
  readonly playing: string | null;
  /** World position of a joint (bone name, humanoid role, node) as Babylon computes it now. */
  jointWorldPosition(joint: FabrikJoint, out?: Vector3): Vector3 | null;
  dispose(): void;
}

export type CharacterSource = string | File | ArrayBufferView;

/** Loads a glTF/GLB (or VRM, which is GLB) into a container without starting any clip. */
export async function loadContainer(
  scene: Scene,
  source: CharacterSource,
  fileName?: string,
  rootUrl?: string,
): Promise<AssetContainer> {
  const extension = fileName?.toLowerCase().endsWith(".gltf") ? ".gltf" : ".glb";
  return LoadAssetContainerAsync(source, scene, {
    pluginExtension: extension,
    ...(fileName !== undefined ? { name: fileName } : {}),
    ...(rootUrl !== undefined ? { rootUrl } : {}),
    pluginOptions: { gltf: { animationStartMode: GLTFLoaderAnimationStartMode.NONE } },
  });
}

export interface CharacterOptions {
  readonly name: string;
  readonly ik?: FabrikBehaviorOptions;
  /** Clip to start looping, if the file has it. */
  readonly play?: string | null;
  /** Several characters from one container are clones; the only one may simply be added. */
  readonly clone?: boolean;
  /**
   * Let Babylon cull the skin by its bind-pose bounds (a character standing in place); by default it is
   * drawn in every frame, as an animated or IK-moved limb can leave those bounds.
   */
  readonly cullable?: boolean;
}

/** Puts a container's content in the scene under a holder node and attaches FabrikBehavior to it. */
export function addCharacter(stage: Stage, container: AssetContainer, options: CharacterOptions): Character {
  const scene = stage.scene;
  const holder = new TransformNode(`${options.name}-holder`, scene);
  holder.rotationQuaternion = null;
  let roots: TransformNode[];
  let animations: AnimationGroup[];
  if (options.clone === true) {
    const entries = container.instantiateModelsToScene((n) => `${options.name}:${n}`, false, {
      doNotInstantiate: true,
    });
    roots = entries.rootNodes as TransformNode[];
    animations = entries.animationGroups;
  } else {
    container.addAllToScene();
    roots = container.rootNodes as TransformNode[];
    animations = container.animationGroups;
  }
  for (const root of roots) root.parent = holder;
  const root = roots[0];
  const meshes = root.getChildMeshes(false);
  if (root.getClassName() === "Mesh") meshes.push(root as AbstractMesh);
  const skinned = meshes.filter((m) => m.skeleton !== null);
  if (skinned.length === 0) {
    holder.dispose();
    container.dispose();
    throw new FabrikError(
      `"${options.name}" has no skeleton: there is no skinned mesh in it, so there is nothing for IK to ` +
        "bend. Drop a rigged character (a glTF with a skin).",
    );
  }
  for (const mesh of skinned) {
    // Bind-pose bounds do not cover a limb IK has moved: never cull the skin (its skeleton updates only
    // when it is drawn).
    mesh.alwaysSelectAsActiveMesh = options.cullable !== true;
  }
  for (const mesh of meshes) {
    mesh.isPickable = false;
    mesh.receiveShadows = true;
  }
  stage.castShadows(meshes);

  const stats = { iterations: 0, converged: true, maxResidual: 0, micros: 0 };
  let started = 0;
  // Added just before the behavior attaches, so it runs right before the behavior's own observer.
  const timer = scene.onBeforeRenderObservable.add(() => {
    started = performance.now();
  });
  const ik = attachIk(root, options.ik ?? {});
  // The behavior's rows in the Babylon Inspector (opt-in): the panel's Inspector button shows them.
  installFabrikInspector(ik);
  ik.onSolvedObservable.add(({ report }: { report: SolveReport }) => {
    stats.micros = (performance.now() - started) * 1000;
    stats.iterations = report.iterations;
    stats.converged = report.converged;
    stats.maxResidual = report.maxResidual;
  });

  // The pose the file was loaded in, for "no clip": a stopped clip would leave its last frame.
  const joints = ik.rig!.nodes.filter((node): node is TransformNode => node !== null);
  const loadedPose = joints.map((node) => ({
    position: node.position.clone(),
    rotation: node.rotationQuaternion?.clone() ?? null,
    euler: node.rotation.clone(),
    scaling: node.scaling.clone(),
  }));
  const toLoadedPose = () =>
    joints.forEach((node, i) => {
      const pose = loadedPose[i];
      node.position.copyFrom(pose.position);
      node.scaling.copyFrom(pose.scaling);
      if (pose.rotation !== null) (node.rotationQuaternion ??= pose.rotation.clone()).copyFrom(pose.rotation);
      else {
        node.rotationQuaternion = null;
        node.rotation.copyFrom(pose.euler);
      }
    });

  let playing: string | null = null;
  const character: Character = {
    name: options.name,
    holder,
    root,
    meshes,
    animations,
    ik,
    stats,
    get playing() {
      return playing;
    },
    play(name) {
      for (const group of animations) group.stop();
      const group = animations.find((g) => g.name === name || g.name.endsWith(`:${name}`));
      // Clones' clips are named "<character>:<clip>"; the panel knows them by the clip name.
      playing = group === undefined ? null : group.name.replace(/^.*:/, "");
      if (group === undefined) toLoadedPose();
      group?.start(true);
    },
    jointWorldPosition(joint, out = new Vector3()) {
      const j = ik.jointIndex(joint);
      const node = j >= 0 ? ik.rig!.nodes[j] : null;
      if (node === null) return null;
      scene.incrementRenderId();
      return out.copyFrom(node.computeWorldMatrix(true).getTranslation());
    },
    dispose() {
      timer.remove();
      root.removeBehavior(ik);
      for (const group of animations) group.dispose();
      holder.dispose(false, true);
    },
  };
  if (options.play !== undefined && options.play !== null) character.play(options.play);
  else if (options.play === undefined && animations.length > 0) character.play(animations[0].name);
  return character;
}

/**
 * The clip a character stands still in, by name: "Idle" or "idle" itself, else a name whose last word is
 * idle ("Armature|TRex_Idle"), else one with the word in it ("Idle_2", "idle breathing"); null when none.
 */
export function idleClip(names: readonly string[]): string | null {
  const words = (name: string) =>
    name
      .toLowerCase()
      .split(/[^a-z]+/)
      .filter((w) => w !== "");
  const rank = (name: string) => {
    const w = words(name);
    if (name.toLowerCase() === "idle") return 0;
    if (w[w.length - 1] === "idle") return 1;
    return w.includes("idle") ? 2 : 3;
  };
  const best = [...names].sort((a, b) => rank(a) - rank(b))[0];
  return best !== undefined && rank(best) < 3 ? best : null;
}

/**
 * Attaches the behavior; a file holding several unrelated skeletons (props with their own skins, several
 * characters) gets it on the largest, rather than an error the user can do nothing about.
 */
function attachIk(root: TransformNode, options: FabrikBehaviorOptions): FabrikBehavior {
  const ik = new FabrikBehavior(options);
  try {
    root.addBehavior(ik, true);
    return ik;
  } catch (error) {
    if (!(error instanceof FabrikError && error.option === "skeleton")) throw error;
  }
  const rigs = buildSkeletonRigs(root);
  const largest = rigs.reduce((a, b) => (b.jointCount > a.jointCount ? b : a));
  const chosen = new FabrikBehavior({ ...options, skeleton: largest.skeletons[0] });
  root.addBehavior(chosen, true);
  return chosen;
}
