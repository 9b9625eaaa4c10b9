// The demo opened in a browser page, driven through its test hook (not a test file).
import { mkdirSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import type { Browser, Page } from "playwright-core";
import type { DemoHook } from "../../demo/hook.js";
import { decodePng, imageStats } from "./png.js";

export const SCREENSHOTS = fileURLToPath(new URL("./screenshots/", import.meta.url));

export interface DemoPage {
  readonly page: Page;
  /** Uncaught page errors and console errors, for the tests to assert there are none. */
  readonly errors: string[];
  /** Runs `fn` in the page with the hook (window.__fabrikDemo); `arg` must be serialisable. */
  hook<R, A = undefined>(fn: (hook: DemoHook, arg: A) => R | Promise<R>, arg?: A): Promise<R>;
  /** Saves a full-page screenshot under test/e2e/screenshots/ for review. */
  screenshot(name: string): Promise<void>;
  /** Luminance spread and colour count of what the WebGL canvas holds (not the panel over it). */
  canvasStats(): Promise<{ deviation: number; colors: number }>;
  /** What the WebGL canvas holds, as a PNG (no page elements over it). */
  canvasPng(): Promise<Buffer>;
}

export async function openDemo(
  browser: Browser,
  url: string,
  viewport = { width: 960, height: 540 },
): Promise<DemoPage> {
  const page = await browser.newPage({ viewport });
  const errors: string[] = [];
  page.on("pageerror", (error) => errors.push(`pageerror: ${error.message}`));
  page.on("console", (message) => {
    if (message.type() === "error") errors.push(`console: ${message.text()}`);
  });
  // A loaded machine can take a while to compile shaders in software: wait for the hook, not for "load".
  page.setDefaultTimeout(60_000);
  await page.goto(url, { waitUntil: "domcontentloaded" });
  await page.waitForFunction(() => "__fabrikDemo" in window);
  const hook: DemoPage["hook"] = (fn, arg) =>
    page.evaluate(
      ([source, value]) => {
        const run = new Function("hook", "arg", `return (${source})(hook, arg);`);
        return run((window as unknown as { __fabrikDemo: DemoHook }).__fabrikDemo, value);
      },
      [fn.toString(), arg] as const,
    );
  await hook((h) => h.ready);
  mkdirSync(SCREENSHOTS, { recursive: true });
  const canvasPng = async (): Promise<Buffer> => {
    const dataUrl = await page.evaluate(() =>
      (document.getElementById("scene") as HTMLCanvasElement).toDataURL("image/png"),
    );
    return Buffer.from(dataUrl.split(",")[1], "base64");
  };
  return {
    page,
    errors,
    hook,
    async screenshot(name) {
      writeFileSync(`${SCREENSHOTS}${name}.png`, await page.screenshot());
    },
    canvasPng,
    async canvasStats() {
      return imageStats(decodePng(await canvasPng()));
    },
  };
}
