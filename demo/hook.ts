import { Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import type { Scene } from "@babylonjs/core/scene.js";
import type { DemoApp } from "./app.js";
import type { FabrikBehavior, FabrikJoint } from "../plugin/index.js";
import type { EffectorChoice } from "./stage/effectorChoices.js";
import { projectToPage } from "./stage/project.js";

type Triple = [number, number, number];

/** What the browser tests (and curious users, from the console) can drive: `window.__fabrikDemo`. */
export interface DemoHook {
  /** Settles when the first scene is on screen. */
  readonly ready: Promise<void>;
  readonly scene: Scene | null;
  /** The behavior of the scene's main character. */
  readonly ik: FabrikBehavior | null;
  readonly sceneId: string;
  /** The last load or scene error shown to the user, null after a success. */
  readonly error: string | null;
  /** How many scene or file loads have finished, shown or refused. */
  readonly loads: number;
  setScene(id: string): Promise<boolean>;
  /** Loads a file as if dropped; resolves once it is shown or rejected. */
  loadFile(bytes: Uint8Array | ArrayBuffer, name: string): Promise<{ ok: boolean; error: string | null }>;
  /** Keys of the effectors offered in the panel. */
  effectors(): string[];
  /** Keys of the targets (draggable handles) in the scene. */
  targets(): string[];
  /** Adds (or removes) a target on an offered effector, as clicking it in the panel does. */
  toggleTarget(key: string): void;
  setTargetPosition(key: string, x: number, y: number, z: number): boolean;
  targetPosition(key: string): Triple | null;
  /** The handle's position on the page, CSS pixels, for real mouse drags. */
  targetScreenPosition(key: string): { x: number; y: number } | null;
  /** Where a world point appears on the page, CSS pixels. */
  pagePosition(x: number, y: number, z: number): { x: number; y: number } | null;
  /** The effector's world position as solved in the next frame (or now, when nothing solves). */
  effectorWorldPosition(key: string): Promise<Triple | null>;
  /** Resolves after `count` more frames were rendered. */
  frames(count: number): Promise<void>;
  /** Scene-specific numbers plus the main character's last solve. */
  metrics(): Record<string, number>;
  play(clip: string | null): void;
  /**
   * The body's world positions as solved in the next frame (the root joints, and with `body` the hips and
   * the root's children that carry bones: not the control bones hanging from it), and the character's height.
   */
  anchors(body?: boolean): Promise<{ height: number; points: Triple[] }>;
}

export function installHook(
  app: DemoApp,
  ready: Promise<void>,
  load: (file: { name: string; data: Uint8Array }) => Promise<unknown>,
  setScene: (id: string) => Promise<unknown>,
  choices: () => EffectorChoice[],
  toggle: (choice: EffectorChoice) => void,
): DemoHook {
  const character = () => app.current?.character ?? null;
  const handles = () => app.current?.handles ?? null;
  const jointOf = (key: string): FabrikJoint =>
    handles()?.get(key)?.joint ?? choices().find((c) => c.key === key)?.joint ?? key;
  const triple = (v: { x: number; y: number; z: number }): Triple => [v.x, v.y, v.z];
  let loads = 0;
  app.onLoading.add((message) => {
    if (message === null) loads++;
  });

  const hook: DemoHook = {
    ready,
    get scene() {
      return app.current?.stage.scene ?? null;
    },
    get ik() {
      return character()?.ik ?? null;
    },
    get sceneId() {
      return app.currentId;
    },
    get error() {
      return app.lastError;
    },
    get loads() {
      return loads;
    },
    async setScene(id) {
      await setScene(id);
      return app.currentId === id;
    },
    async loadFile(bytes, name) {
      const data = bytes instanceof Uint8Array ? bytes : new Uint8Array(bytes);
      await load({ name, data });
      return { ok: app.lastError === null && app.currentId === "model", error: app.lastError };
    },
    effectors: () => choices().map((c) => c.key),
    targets: () => handles()?.keys ?? [],
    toggleTarget(key) {
      const choice = choices().find((c) => c.key === key);
      if (choice !== undefined) toggle(choice);
    },
    setTargetPosition: (key, x, y, z) => handles()?.setPosition(key, x, y, z) ?? false,
    targetPosition(key) {
      const mesh = handles()?.get(key)?.mesh;
      return mesh === undefined ? null : triple(mesh.getAbsolutePosition());
    },
    targetScreenPosition: (key) => handles()?.screenPosition(key) ?? null,
    pagePosition(x, y, z) {
      const scene = app.current?.stage.scene;
      return scene === undefined ? null : projectToPage(scene, new Vector3(x, y, z));
    },
    effectorWorldPosition(key) {
      const c = character();
      if (c === null) return Promise.resolve(null);
      const read = () => {
        const p = c.jointWorldPosition(jointOf(key));
        return p === null ? null : triple(p);
      };
      if (c.ik.plan === null || !c.ik.enabled) return Promise.resolve(read());
      // The solved pose exists from the solve until the frame is drawn; read it there.
      return new Promise((resolve) => c.ik.onSolvedObservable.addOnce(() => resolve(read())));
    },
    frames(count) {
      const scene = app.current?.stage.scene;
      if (scene === undefined) return Promise.resolve();
      return new Promise((resolve) => {
        let left = count;
        const observer = scene.onAfterRenderObservable.add(() => {
          if (--left > 0) return;
          observer.remove();
          resolve();
        });
      });
    },
    metrics() {
      const c = character();
      const base = c === null ? {} : { ...c.stats, converged: c.stats.converged ? 1 : 0 };
      return { ...base, ...(app.current?.metrics?.() ?? {}) };
    },
    play(clip) {
      character()?.play(clip);
    },
    anchors(withBody = true) {
      const c = character();
      if (c === null) return Promise.resolve({ height: 0, points: [] });
      const read = () => {
        const rig = c.ik.rig!;
        const parents = Array.from(rig.parents);
        const carries = (j: number) => parents.includes(j);
        const body = parents
          .map((p, j) => j)
          .filter(
            (j) =>
              parents[j] < 0 ||
              (withBody && (j === c.ik.roles.hips || (parents[parents[j]] < 0 && carries(j)))),
          );
        const all = rig.nodes.map((_, j) => c.jointWorldPosition(j)!);
        const ys = all.map((p) => p.y);
        return { height: Math.max(...ys) - Math.min(...ys), points: body.map((j) => triple(all[j])) };
      };
      if (c.ik.plan === null || !c.ik.enabled) return Promise.resolve(read());
      return new Promise((resolve) => c.ik.onSolvedObservable.addOnce(() => resolve(read())));
    },
  };
  (window as unknown as { __fabrikDemo: DemoHook }).__fabrikDemo = hook;
  return hook;
}
