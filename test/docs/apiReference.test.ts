import { readdirSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { Application, Logger, LogLevel, TSConfigReader, TypeDocReader } from "typedoc";
import { expect, it } from "vitest";

/*
 * `npm run docs` builds the API reference with TypeDoc from typedoc.json: the types of plugin/index.ts, with
 * the README as its front page and docs/*.md as guides. This test runs the same conversion and validation
 * without writing any HTML, so it fails whenever the build would: a type error, a TypeScript version TypeDoc
 * does not support, a public signature naming a type the package does not export, a {@link} that resolves
 * to nothing, or a relative link in the README or a guide to a file that does not exist.
 */

const CONFIG = fileURLToPath(new URL("../../typedoc.json", import.meta.url));
const DOCS = fileURLToPath(new URL("../../docs", import.meta.url));

/** Keeps every warning and error, so a failure shows what TypeDoc said. */
class Recorder extends Logger {
  readonly messages: string[] = [];
  override log(message: string, level: LogLevel): void {
    super.log(message, level);
    if (level >= LogLevel.Warn) this.messages.push(`${LogLevel[level]}: ${message}`);
  }
}

it("the API reference builds from plugin/index.ts without warnings", async () => {
  // Only the config file and tsconfig: the default readers would also parse vitest's command line.
  const app = await Application.bootstrap({ options: CONFIG }, [new TypeDocReader(), new TSConfigReader()]);
  expect(app.logger.errorCount + app.logger.warningCount, "problems reading typedoc.json").toBe(0);
  const recorder = new Recorder();
  app.logger = recorder;

  const project = await app.convert();
  expect(recorder.messages).toEqual([]);
  expect(project, "conversion failed").toBeDefined();
  app.validate(project!);
  expect(recorder.messages).toEqual([]);

  // The public API sits at the top of the reference, and every guide in docs/ is one of its pages.
  for (const name of ["FabrikBehavior", "solvePlan", "FootPlacement", "FabrikError"]) {
    expect(project!.getChildByName(name), name).toBeDefined();
  }
  const guides = readdirSync(DOCS)
    .filter((file) => file.endsWith(".md"))
    .map((file) => file.slice(0, -3));
  expect(guides).toContain("errors");
  expect((project!.documents ?? []).map((d) => d.name).sort()).toEqual(guides.sort());
});
