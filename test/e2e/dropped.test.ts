// Files a user opens in the demo, in real Chromium: every third-party character of ../shared/assets (which
// the demo has never seen) through the file picker, a .gltf with and without its .bin, and broken files.
import { existsSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { Format, NodeIO } from "@gltf-transform/core";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { SHARED_CHARACTERS } from "../../scripts/characters.js";
import { launchChromium } from "./chromium.js";
import { openDemo, type DemoPage } from "./demoPage.js";

const chromiumPath = inject("chromiumPath");
const demoUrl = inject("demoUrl");
const SHARED = fileURLToPath(new URL("../../../shared/assets/", import.meta.url));
const MANNEQUIN = fileURLToPath(new URL("../../assets/mannequin.glb", import.meta.url));
const present = SHARED_CHARACTERS.filter((c) => existsSync(`${SHARED}${c.folder}/${c.file}`));
/** The legs FootPlacement finds by itself (see test/helpers/groundLegs.test.ts); 0: none, no ground switch. */
const LEGS: Record<string, number> = {
  RiggedSimple: 0,
  SimpleSkin: 0,
  RiggedFigure: 2,
  CesiumMan: 2,
  RobotExpressive: 2,
  Fox: 4,
  QuaterniusSpider: 8,
  QuaterniusSnake: 0,
  QuaterniusHorse: 4,
  QuaterniusTrex: 2,
  QuaterniusWorkerWoman: 2,
};

type Triple = [number, number, number];
const distance = (a: Triple, b: Triple) => Math.hypot(a[0] - b[0], a[1] - b[1], a[2] - b[2]);

interface Picked {
  readonly name: string;
  readonly buffer: Buffer;
}

/** Opens files with the panel's file picker, as a user does; resolves once the page has shown or refused them. */
async function openFiles(
  demo: DemoPage,
  files: readonly Picked[],
): Promise<{ scene: string; error: string | null }> {
  const loads = await demo.hook((h) => h.loads);
  await demo.page.setInputFiles(
    "#open-file",
    files.map((f) => ({ name: f.name, mimeType: "application/octet-stream", buffer: f.buffer })),
  );
  await demo.page.waitForFunction(
    (before) => (window as unknown as { __fabrikDemo: { loads: number } }).__fabrikDemo.loads > before,
    loads,
  );
  return demo.hook((h) => ({ scene: h.sceneId, error: h.error }));
}

/** The error card's text, dismissed. */
async function errorCard(demo: DemoPage): Promise<string> {
  const card = demo.page.locator("#error");
  await card.waitFor({ state: "visible" });
  const text = (await card.locator("p").textContent()) ?? "";
  await demo.page.click("#error button");
  return text;
}

describe.skipIf(chromiumPath === "")("files opened in the demo, in Chromium", () => {
  let browser: Browser;
  let demo: DemoPage;

  beforeAll(async () => {
    browser = await launchChromium(chromiumPath);
    demo = await openDemo(browser, demoUrl);
  });

  afterAll(async () => {
    await browser?.close();
  });

  it("is served from a sub-path, as from a project's static pages", async () => {
    expect(new URL(demoUrl).pathname).toBe("/babylon-fabrik/demo/");
    expect(await demo.hook((h) => h.sceneId)).toBe("pose");
    expect(demo.errors).toEqual([]);
  });

  it("says what is wrong with broken files, and keeps working", async () => {
    const glb = readFileSync(MANNEQUIN);
    const random = Buffer.from(Array.from({ length: 4096 }, (_, i) => (i * 7919 + 13) % 251));
    const broken: [Picked, RegExp][] = [
      [
        { name: "cut.glb", buffer: glb.subarray(0, Math.floor(glb.length * 0.6)) },
        /cut short.*get the file again/s,
      ],
      [{ name: "noise.glb", buffer: random }, /not a glTF binary file.*glTF 2\.0 Binary/s],
      [{ name: "empty.glb", buffer: Buffer.alloc(0) }, /is empty \(0 bytes\)/],
      [{ name: "broken.gltf", buffer: Buffer.from("{ not json") }, /not valid glTF JSON/],
    ];
    for (const [file, message] of broken) {
      const { scene } = await openFiles(demo, [file]);
      expect(scene, file.name).toBe("pose");
      const text = await errorCard(demo);
      console.log(`[e2e] ${file.name}: ${text}`);
      expect(text).toMatch(message);
      expect(text).not.toMatch(/typed array|magic/i);
    }
    // The page still works: the scene renders and a target still moves the hand.
    const goal: Triple = [-0.3, 1.15, 0.3];
    await demo.hook((h, g) => h.setTargetPosition("leftHand", ...g), goal);
    const hand = (await demo.hook((h) => h.effectorWorldPosition("leftHand")))!;
    expect(distance(hand, goal)).toBeLessThan(0.015);
    expect(demo.errors).toEqual([]);
  });

  it("loads a .gltf opened with its .bin, and says which file is missing without it", async () => {
    const io = new NodeIO();
    const document = await io.readBinary(new Uint8Array(readFileSync(MANNEQUIN)));
    const { json, resources } = await io.writeJSON(document, { format: Format.GLTF, basename: "mannequin" });
    const gltf: Picked = { name: "mannequin.gltf", buffer: Buffer.from(JSON.stringify(json)) };
    const bins = Object.entries(resources).map(([name, bytes]) => ({ name, buffer: Buffer.from(bytes) }));
    expect(bins.map((b) => b.name)).toEqual(["mannequin.bin"]);

    await openFiles(demo, [gltf]);
    const text = await errorCard(demo);
    expect(text).toMatch(/"mannequin\.bin", which was not dropped with it.*\.bin and textures/s);

    const loaded = await openFiles(demo, [gltf, ...bins]);
    expect(loaded).toEqual({ scene: "model", error: null });
    expect(await demo.hook((h) => h.effectors())).toContain("leftHand");
    // The mannequin's clips include Idle: it stands still in it.
    expect(await demo.page.locator("#clip").inputValue()).toBe("Idle");
    // "(none)" puts the loaded pose back, not the clip's last frame.
    const rest = await demo.hook((h) => h.anchors());
    await demo.page.selectOption("#clip", "");
    await demo.hook((h) => h.frames(2));
    expect(await demo.hook((h) => h.metrics().skinToSkeleton)).toBeLessThan(6);
    expect(rest.points.length).toBeGreaterThan(0);
    expect(demo.errors).toEqual([]);
  });

  it.skipIf(present.length === 0)(
    "gives every third-party character foot and hand targets without tipping it over",
    async () => {
      const report: string[] = [];
      for (const c of present) {
        const picked: Picked = { name: c.file, buffer: readFileSync(`${SHARED}${c.folder}/${c.file}`) };
        const loaded = await openFiles(demo, [picked]);
        expect(loaded, c.folder).toEqual({ scene: "model", error: null });
        const effectors = await demo.page.locator("#effectors [data-effector]").allTextContents();
        expect(effectors.length, `${c.folder}: effectors listed`).toBeGreaterThan(0);
        // In the loaded pose, so the body holds still between the two measurements.
        await demo.page.selectOption("#clip", "");
        await demo.hook((h) => h.frames(1));
        const wanted = effectors.filter((key) =>
          /^(left|right)(Hand|Foot)$|foot|lowerleg|hoof|paw/i.test(key),
        );
        // Without hands or feet (a snake, a bare chain) the first end is pulled, which may be the body
        // itself: then only the root must stay.
        const limbs = wanted.length > 0;
        const keys = limbs ? wanted : effectors.slice(0, 1);
        const before = await demo.hook((h, body) => h.anchors(body), limbs);
        // As a click on its chip does (end joints sit in a folded list).
        for (const key of keys) await demo.hook((h, k) => h.toggleTarget(k), key);
        expect(await demo.hook((h) => h.targets()), c.folder).toEqual(keys);
        // Each target a little up and forward of where its effector stands.
        const step = 0.03 * before.height;
        for (const key of keys) {
          const at = (await demo.hook((h, k) => h.targetPosition(k), key))!;
          await demo.hook((h, [k, p]) => h.setTargetPosition(k, ...p), [
            key,
            [at[0], at[1] + step, at[2] + step],
          ] as [string, Triple]);
        }
        await demo.hook((h) => h.frames(3));
        const after = await demo.hook((h, body) => h.anchors(body), limbs);
        const moved = Math.max(...before.points.map((p, i) => distance(p, after.points[i])));
        const skin = await demo.hook((h) => h.metrics().skinToSkeleton);
        report.push(
          `${c.folder}: ${effectors.length} effectors; targets on ${keys.join(", ")}; body moved ` +
            `${((100 * moved) / before.height).toFixed(2)} % of its height; skin ${skin.toFixed(1)}× the skeleton`,
        );
        expect(moved / before.height, `${c.folder}: root (and hips) moved, in heights`).toBeLessThan(0.05);
        await demo.screenshot(`opened-${c.folder}`);
        // Uneven ground: FootPlacement at its defaults, on the legs it finds by itself.
        const legs = await demo.hook((h) => h.metrics().legs);
        expect(legs, `${c.folder}: legs found`).toBe(LEGS[c.folder] ?? legs);
        expect(await demo.page.locator("#toggle-ground").count(), c.folder).toBe(legs > 0 ? 1 : 0);
        if (legs > 0) {
          for (const key of keys) await demo.hook((h, k) => h.toggleTarget(k), key);
          await demo.page.click("#toggle-ground");
          await demo.hook((h) => h.frames(20));
          expect(await demo.hook((h) => h.metrics().groundedLegs), `${c.folder}: legs on the ground`).toBe(
            legs,
          );
          await demo.screenshot(`ground-${c.folder}`);
          await demo.page.click("#toggle-ground");
        }
        report[report.length - 1] += `; ${legs} legs found by FootPlacement`;
      }
      console.log(`[e2e] third-party characters opened in the demo:\n  ${report.join("\n  ")}`);
      expect(demo.errors).toEqual([]);
    },
    300_000,
  );

  it("hides the Your model button once another scene shows", async () => {
    await demo.hook((h) => h.setScene("pose"));
    expect(await demo.page.locator('[data-scene="model"]').isHidden()).toBe(true);
  });
});
