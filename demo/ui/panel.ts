import type { Settings } from "../app.js";
import type { DemoScene } from "../scenes/types.js";
import type { EffectorChoice } from "../stage/effectorChoices.js";
import { el } from "./dom.js";

export interface PanelActions {
  openScene(id: string): void;
  setSetting<K extends keyof Settings>(key: K, value: Settings[K]): void;
  play(clip: string | null): void;
  toggleEffector(choice: EffectorChoice): void;
  inspector(): void;
  /** Files picked with the "Open a character" button (a .gltf with its .bin and textures, or one file). */
  openFiles(files: File[]): void;
}

/** The control panel: scenes, switches, the character's clips and effectors, and a status line. */
export class Panel {
  private readonly _sceneButtons = new Map<string, HTMLButtonElement>();
  private readonly _hint = el("p", { class: "hint" });
  private readonly _clips = el("select", { id: "clip", "aria-label": "Animation" });
  private readonly _effectors = el("div", { class: "effectors", id: "effectors" });
  private readonly _status = el("p", { class: "status", id: "status" });
  /** The current scene's own switches (see DemoScene.switches). */
  private readonly _sceneSwitches = el("div", { class: "switches scene-switches" });
  private readonly _characterSection: HTMLElement;
  private readonly _weight: HTMLInputElement;
  private readonly _weightValue: HTMLOutputElement;
  private readonly _toggles = new Map<keyof Settings, HTMLInputElement>();
  /** Scenes whose button shows only while they are on screen ("Your model" needs a file to open). */
  private readonly _onlyWhenShown = new Set<string>();
  private _choices: EffectorChoice[] = [];

  constructor(
    root: HTMLElement,
    scenes: readonly { id: string; title: string; hidden?: boolean }[],
    settings: Settings,
    private readonly _actions: PanelActions,
  ) {
    const sceneList = el("nav", { class: "scenes", "aria-label": "Scenes" });
    for (const scene of scenes) {
      const button = el("button", { type: "button", "data-scene": scene.id, hidden: scene.hidden === true }, [
        scene.title,
      ]);
      button.addEventListener("click", () => _actions.openScene(scene.id));
      this._sceneButtons.set(scene.id, button);
      if (scene.hidden === true) this._onlyWhenShown.add(scene.id);
      sceneList.append(button);
    }
    this._clips.addEventListener("change", () => _actions.play(this._clips.value || null));

    const weight = el("input", {
      type: "range",
      id: "weight",
      min: "0",
      max: "1",
      step: "0.01",
      value: String(settings.weight),
    });
    const weightValue = el("output", { for: "weight" }, [settings.weight.toFixed(2)]);
    this._weight = weight;
    this._weightValue = weightValue;
    weight.addEventListener("input", () => {
      weightValue.textContent = Number(weight.value).toFixed(2);
      _actions.setSetting("weight", Number(weight.value));
    });
    const inspector = el("button", { type: "button", id: "inspector", class: "secondary" }, ["Inspector"]);
    inspector.addEventListener("click", () => _actions.inspector());
    const picker = el("input", {
      type: "file",
      id: "open-file",
      multiple: true,
      accept: ".glb,.gltf,.vrm,.bin,.png,.jpg,.jpeg,.webp,.ktx2",
      hidden: true,
    });
    picker.addEventListener("change", () => {
      const files = Array.from(picker.files ?? []);
      // Cleared, so picking the same file again loads it again.
      picker.value = "";
      if (files.length > 0) _actions.openFiles(files);
    });
    const open = el("button", { type: "button", id: "open", class: "secondary" }, ["Open a character…"]);
    open.addEventListener("click", () => picker.click());

    this._characterSection = el("section", {}, [
      el("h2", {}, ["Character"]),
      el("label", { class: "row" }, ["Animation", this._clips]),
      el("h3", {}, ["Effectors ", el("small", {}, ["click to add or remove a target"])]),
      this._effectors,
    ]);

    root.append(
      el("header", {}, [
        el("h1", {}, ["babylon-fabrik"]),
        el("p", { class: "tagline" }, ["Full-body FABRIK inverse kinematics for Babylon.js characters"]),
      ]),
      sceneList,
      this._hint,
      this._sceneSwitches,
      el("section", { class: "switches" }, [
        this._toggle("ik", "IK on", settings.ik),
        this._toggle("limits", "Joint limits", settings.limits),
        this._toggle("debug", "Debug view", settings.debug),
        el("label", { class: "row" }, ["Weight", weight, weightValue]),
        inspector,
      ]),
      this._characterSection,
      this._status,
      el("p", { class: "drop-hint" }, [
        open,
        picker,
        " or drop your own ",
        el("b", {}, [".glb"]),
        ", ",
        el("b", {}, [".gltf"]),
        " or ",
        el("b", {}, [".vrm"]),
        " character anywhere on the page.",
      ]),
    );
  }

  private _toggle(key: "ik" | "limits" | "debug", label: string, on: boolean): HTMLElement {
    const input = el("input", { type: "checkbox", id: `toggle-${key}`, checked: on });
    input.addEventListener("change", () => this._actions.setSetting(key, input.checked));
    this._toggles.set(key, input);
    return el("label", { class: "toggle" }, [input, label]);
  }

  /** Shows a freshly opened scene: active button, hint, clips and effector list. */
  show(id: string, demo: DemoScene, choices: EffectorChoice[]): void {
    for (const [sceneId, button] of this._sceneButtons) {
      button.classList.toggle("active", sceneId === id);
      if (this._onlyWhenShown.has(sceneId)) button.hidden = sceneId !== id;
    }
    this._hint.textContent = demo.hint;
    this._sceneSwitches.replaceChildren(
      ...(demo.switches ?? []).map((s) => {
        const input = el("input", { type: "checkbox", id: `toggle-${s.id}`, checked: s.on });
        input.addEventListener("change", () => s.set(input.checked));
        return el("label", { class: "toggle" }, [input, s.label]);
      }),
    );
    this._sceneSwitches.hidden = demo.switches === undefined || demo.switches.length === 0;
    const character = demo.character;
    this._characterSection.hidden = character === null;
    this._choices = choices;
    this._clips.replaceChildren(el("option", { value: "" }, ["(none)"]));
    if (character === null) return;
    for (const group of character.animations) {
      const name = group.name.replace(/^.*:/, "");
      this._clips.append(el("option", { value: name, selected: character.playing === name }, [name]));
    }
    this._renderEffectors(demo);
  }

  /** Re-marks which effectors have a target. */
  refreshEffectors(demo: DemoScene): void {
    this._renderEffectors(demo);
  }

  private _renderEffectors(demo: DemoScene): void {
    const active = new Set(demo.handles?.keys ?? []);
    const chip = (choice: EffectorChoice) => {
      const button = el(
        "button",
        { type: "button", class: `chip ${choice.group}`, "data-effector": choice.key, title: choice.key },
        [choice.key],
      );
      button.classList.toggle("on", active.has(choice.key));
      button.disabled = demo.handles === null;
      button.addEventListener("click", () => this._actions.toggleEffector(choice));
      return button;
    };
    const roles = this._choices.filter((c) => c.group === "role");
    const ends = this._choices.filter((c) => c.group === "end");
    const parts: HTMLElement[] = [];
    if (roles.length > 0) parts.push(el("div", { class: "chips" }, roles.map(chip)));
    if (ends.length > 0) {
      const list = el("div", { class: "chips" }, ends.map(chip));
      if (roles.length === 0) parts.push(list);
      else parts.push(el("details", {}, [el("summary", {}, [`${ends.length} more end joints`]), list]));
    }
    if (parts.length === 0) parts.push(el("p", { class: "muted" }, ["No end effectors found."]));
    this._effectors.replaceChildren(...parts);
  }

  status(text: string): void {
    this._status.textContent = text;
  }

  /** Shows settings changed elsewhere (the Inspector edits the behavior directly). */
  sync(settings: Settings): void {
    if (document.activeElement !== this._weight && Number(this._weight.value) !== settings.weight) {
      this._weight.value = String(settings.weight);
      this._weightValue.textContent = settings.weight.toFixed(2);
    }
    for (const [key, input] of this._toggles) input.checked = settings[key] as boolean;
  }
}
