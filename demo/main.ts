import { DemoApp } from "./app.js";
import { installHook } from "./hook.js";
import { SCENES } from "./scenes/index.js";
import { droppedScene } from "./scenes/dropped.js";
import type { DroppedFile } from "./scenes/types.js";
import { effectorChoices, type EffectorChoice } from "./stage/effectorChoices.js";
import { frameBesidePanel } from "./stage/panelOffset.js";
import { installDropZone, modelFile } from "./ui/dropZone.js";
import { followScene, toggleInspector } from "./ui/inspector.js";
import { Overlay } from "./ui/overlay.js";
import { Panel } from "./ui/panel.js";

const canvas = document.getElementById("scene") as HTMLCanvasElement;
const panelElement = document.getElementById("panel") as HTMLElement;
const app = new DemoApp(canvas);
const overlay = new Overlay();
let choices: EffectorChoice[] = [];

function openScene(id: string): Promise<unknown> {
  const definition = SCENES.find((s) => s.id === id) ?? SCENES[0];
  if (definition === droppedScene && app.currentId !== droppedScene.id) return Promise.resolve();
  overlay.clearError();
  return app.open(definition);
}

function openFile(file: DroppedFile): Promise<unknown> {
  overlay.clearError();
  return app.open(droppedScene, file);
}

/** Puts a target on an effector at its current place (so nothing jumps), or takes it away. */
function toggleEffector(choice: EffectorChoice): void {
  const demo = app.current;
  const character = demo?.character;
  if (demo === null || demo.handles === null || character == null) return;
  if (!demo.handles.remove(choice.key)) {
    const at = character.jointWorldPosition(choice.joint);
    if (at === null) return;
    try {
      // No fallback chain: a foot under the root is placed through its leg by setTarget itself, and a
      // shorter chain than setTarget picks could only turn the body's root.
      demo.handles.add(choice.key, character.ik, choice.joint, at, choice.options);
    } catch (error) {
      overlay.error(error instanceof Error ? error.message : String(error));
      return;
    }
    demo.handles.select(choice.key);
  }
  panel.refreshEffectors(demo);
}

/** The Inspector's panes cover the page's panel: hide it and offer a close button instead. */
function inspecting(open: boolean): void {
  document.body.classList.toggle("inspecting", open);
}
document.getElementById("close-inspector")!.addEventListener("click", () => {
  const scene = app.current?.stage.scene;
  if (scene !== undefined) void toggleInspector(scene, inspecting);
});

const panel = new Panel(
  panelElement,
  SCENES.map((s) => ({ id: s.id, title: s.title, hidden: s === droppedScene })),
  app.settings,
  {
    openScene: (id) => void openScene(id).then(() => history.replaceState(null, "", `#${app.currentId}`)),
    setSetting: (key, value) => app.set(key, value),
    play: (clip) => app.current?.character?.play(clip),
    toggleEffector,
    inspector: () => {
      const scene = app.current?.stage.scene;
      if (scene !== undefined) void toggleInspector(scene, inspecting);
    },
    openFiles: (files) => void openFile(modelFile(files)),
  },
);

app.onLoading.add((message) => overlay.loading(message));
app.onError.add((message) => overlay.error(message));
app.onSceneChanged.add((demo) => {
  choices = demo.character === null ? [] : effectorChoices(demo.character.ik);
  panel.show(app.currentId, demo, choices);
  frameBesidePanel(demo.stage, panelElement);
  void followScene(demo.stage.scene, inspecting);
});

setInterval(() => {
  const demo = app.current;
  if (demo === null) return;
  const parts: string[] = [`${app.engine.getFps().toFixed(0)} fps`];
  const c = demo.character;
  // The Inspector edits the behavior itself: show what it holds.
  if (c !== null && (c.ik.weight !== app.settings.weight || c.ik.enabled !== app.settings.ik)) {
    app.settings.weight = c.ik.weight;
    app.settings.ik = c.ik.enabled;
    app.applySettings();
  }
  panel.sync(app.settings);
  if (c !== null && !(c.ik.enabled && c.ik.weight > 0)) parts.push("IK off");
  else if (c !== null && c.ik.plan !== null) {
    parts.push(
      `${c.ik.plan.effectorCount} targets`,
      `${c.stats.iterations} iterations`,
      // Residuals are in the rig's model units (centimetres on some files): show them relative to its size.
      `residual ${((100 * c.stats.maxResidual) / c.ik.height).toFixed(2)} % of height`,
      `IK ${c.stats.micros.toFixed(0)} µs/frame`,
    );
  }
  for (const [key, value] of Object.entries(demo.metrics?.() ?? {}))
    parts.push(`${key} ${formatMetric(value)}`);
  panel.status(parts.join(" · "));
}, 250);

function formatMetric(value: number): string {
  return Number.isInteger(value) ? String(value) : value.toFixed(3);
}

installDropZone((file) => void openFile(file));

const first = location.hash.slice(1);
const ready = openScene(SCENES.some((s) => s.id === first) ? first : SCENES[0].id).then(() => undefined);
installHook(
  app,
  ready,
  (file) => openFile(file),
  (id) => openScene(id),
  () => choices,
  toggleEffector,
);
