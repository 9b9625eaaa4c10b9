import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { expect, it } from "vitest";

/*
 * A solve with continuum sections allocates nothing. Measured in a plain Node process
 * (continuumAllocation.fixture.ts, run with tsx), as test/helpers/allocation.test.ts explains.
 */
const FIXTURE = fileURLToPath(new URL("./continuumAllocation.fixture.ts", import.meta.url));
const ROOT = fileURLToPath(new URL("../../", import.meta.url));

it("solving a tentacle of three continuum sections allocates nothing", () => {
  const out = execFileSync(process.execPath, ["--import", "tsx", FIXTURE], {
    cwd: ROOT,
    encoding: "utf8",
    timeout: 120_000,
  });
  const { bytes, sites, iterationsPerSolve } = JSON.parse(out.trim().split("\n").at(-1)!) as {
    bytes: number;
    sites: string[];
    iterationsPerSolve: number;
  };
  console.log(
    `[continuum allocation] ${bytes.toFixed(2)} B per solve, ${iterationsPerSolve.toFixed(1)} iterations per solve`,
  );
  expect(iterationsPerSolve).toBeGreaterThan(1);
  expect(bytes, sites.join("\n")).toBeLessThan(1);
}, 150_000);
