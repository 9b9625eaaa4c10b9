// Issue 7 in real Chromium: the behavior's rows in the Babylon Inspector (opt-in: the demo calls
// installFabrikInspector on each character's behavior), a limit edited through them changing the solved pose,
// and the debug view drawing into the canvas.
import { writeFileSync } from "node:fs";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { launchChromium } from "./chromium.js";
import { openDemo, SCREENSHOTS, type DemoPage } from "./demoPage.js";
import { decodePng } from "./png.js";

const chromiumPath = inject("chromiumPath");
const demoUrl = inject("demoUrl");

type Triple = [number, number, number];
const distance = (a: Triple, b: Triple) => Math.hypot(a[0] - b[0], a[1] - b[1], a[2] - b[2]);

/** The left arm as solved in one frame: shoulder, elbow and hand joints. */
interface Arm {
  arm: Triple;
  elbow: Triple;
  hand: Triple;
}

/** How far the elbow is bent, in degrees (0 for a straight arm). */
function elbowBend({ arm, elbow, hand }: Arm): number {
  const u = [elbow[0] - arm[0], elbow[1] - arm[1], elbow[2] - arm[2]];
  const f = [hand[0] - elbow[0], hand[1] - elbow[1], hand[2] - elbow[2]];
  const cos = (u[0] * f[0] + u[1] * f[1] + u[2] * f[2]) / (Math.hypot(...u) * Math.hypot(...f));
  return (Math.acos(Math.min(1, Math.max(-1, cos))) * 180) / Math.PI;
}

async function solvedArm(demo: DemoPage): Promise<Arm> {
  // All three read in the same solve (each waits for the next onSolved).
  const [arm, elbow, hand] = await demo.hook((h) =>
    Promise.all(["LeftArm", "LeftForeArm", "LeftHand"].map((bone) => h.effectorWorldPosition(bone))),
  );
  return { arm: arm!, elbow: elbow!, hand: hand! };
}

/** Pixels whose colour differs by more than a small tolerance in any channel. */
function differingPixels(a: Buffer, b: Buffer): number {
  const x = decodePng(a);
  const y = decodePng(b);
  expect([y.width, y.height]).toEqual([x.width, x.height]);
  let count = 0;
  for (let i = 0; i < x.rgba.length; i += 4) {
    for (let c = 0; c < 3; c++) {
      if (Math.abs(x.rgba[i + c] - y.rgba[i + c]) > 24) {
        count++;
        break;
      }
    }
  }
  return count;
}

describe.skipIf(chromiumPath === "")("the Inspector rows and the debug view, in Chromium", () => {
  let browser: Browser;
  let demo: DemoPage;

  beforeAll(async () => {
    browser = await launchChromium(chromiumPath);
    demo = await openDemo(browser, demoUrl);
    // A still picture: no Idle clip, and the waving target held where it is.
    await demo.hook((h) => {
      h.play(null);
      const p = h.targetPosition("rightHand")!;
      h.setTargetPosition("rightHand", ...p);
    });
  });

  afterAll(async () => {
    await browser?.close();
  });

  it("lists the behavior's rows for the character selected in the Scene Explorer", async () => {
    const name = await demo.hook((h) => h.ik!.attachedNode!.name);
    const { page } = demo;
    await page.click("#inspector");
    await page.getByText("Scene Explorer").first().waitFor({ timeout: 30_000 });
    // Select the node the way a user does: filter the tree, click the item.
    await page.getByPlaceholder("Filter").first().fill(name);
    await page.locator('[role="treeitem"]').filter({ hasText: name }).last().click();
    await page.getByText("Swing up (°)").first().waitFor();
    // The Inspector's selection (its v1-style `debugNode` global) is the behavior's node.
    expect(
      await demo.hook((h) => (globalThis as { debugNode?: unknown }).debugNode === h.ik!.attachedNode),
    ).toBe(true);

    for (const label of ["Custom", "FABRIK IK", "Enabled", "Weight", "Debug view", "Joint", "Limits"]) {
      expect(await page.getByText(label, { exact: true }).count(), label).toBeGreaterThan(0);
    }
    for (const label of ["Swing up", "Swing right", "Swing down", "Swing left", "Twist min", "Hinge max"]) {
      expect(await page.getByText(`${label} (°)`, { exact: true }).count(), label).toBeGreaterThan(0);
    }
    const names = await demo.hook((h) =>
      (h.ik!.attachedNode!.inspectableCustomProperties ?? []).map((p) => p.propertyName),
    );
    expect(names).toEqual(
      expect.arrayContaining([
        "fabrikEnabled",
        "fabrikWeight",
        "fabrikJoint",
        "fabrikSwingUp",
        "fabrikHingeMax",
      ]),
    );
    await page.getByText("Weight", { exact: true }).first().scrollIntoViewIfNeeded();
    await demo.screenshot("inspector-fabrik");
    expect(demo.errors).toEqual([]);
  });

  it("changes the solved pose when the elbow's hinge limit is edited through those rows", async () => {
    const before = await solvedArm(demo);
    // What the Inspector does on an edit: assign the selected entity's property.
    const limits = await demo.hook((h) => {
      const node = (globalThis as unknown as { debugNode: Record<string, unknown> }).debugNode;
      node.fabrikJoint = h.ik!.rig!.names.indexOf("LeftForeArm");
      return [node.fabrikJoint, node.fabrikHingeMin, node.fabrikHingeMax] as number[];
    });
    console.log(
      `[e2e] elbow joint ${limits[0]}, hinge ${limits[1]}…${limits[2]}°, bent ${elbowBend(before).toFixed(1)}°`,
    );
    await demo.hook(() => {
      const node = (globalThis as unknown as { debugNode: Record<string, unknown> }).debugNode;
      node.fabrikHingeMax = 5;
    });
    expect(
      await demo.hook(
        () => (globalThis as unknown as { debugNode: { fabrikHingeMax: number } }).debugNode.fabrikHingeMax,
      ),
    ).toBeCloseTo(5);
    await demo.hook((h) => h.frames(2));
    const after = await solvedArm(demo);
    console.log(
      `[e2e] after: bent ${elbowBend(after).toFixed(1)}°, hand moved ${(distance(before.hand, after.hand) * 100).toFixed(1)} cm`,
    );
    expect(Math.abs(elbowBend(after) - elbowBend(before)), "elbow bend change (°)").toBeGreaterThan(10);
    // The shoulder, starting from the last frame's arm, takes up part of what the elbow no longer can, so
    // the hand moves less than the elbow's change alone would carry it; it still moves.
    expect(distance(before.hand, after.hand), "hand moved (m)").toBeGreaterThan(0.01);
    await demo.screenshot("inspector-fabrik-hinge");
    expect(demo.errors).toEqual([]);
  });

  it("draws the debug view into the canvas", async () => {
    const { page } = demo;
    await page.click("#close-inspector");
    await page.locator("#panel").waitFor({ state: "visible" });
    await demo.hook((h) => h.frames(3));
    const off = await demo.canvasPng();
    await demo.hook((h) => h.frames(2));
    const offAgain = await demo.canvasPng();
    await page.click("#toggle-debug");
    await demo.hook((h) => h.frames(3));
    const on = await demo.canvasPng();
    await page.click("#toggle-debug");
    writeFileSync(`${SCREENSHOTS}debug-off.png`, off);
    writeFileSync(`${SCREENSHOTS}debug-on.png`, on);
    const noise = differingPixels(off, offAgain);
    const drawn = differingPixels(off, on);
    console.log(`[e2e] debug view: ${drawn} pixels differ (${noise} between two frames without it)`);
    expect(drawn, "pixels the debug view changed").toBeGreaterThan(Math.max(500, 10 * noise));
    expect(demo.errors).toEqual([]);
  });
});
