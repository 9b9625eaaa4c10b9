import { Quaternion, Vector3 } from "@babylonjs/core/Maths/math.vector.js";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { FabrikBehavior } from "../../plugin/babylon/fabrikBehavior.js";
import { TrackedBody } from "../../plugin/helpers/trackedBody.js";
import { FabrikError } from "../../plugin/solver/errors.js";
import { PoseReader } from "../../plugin/babylon/poseReader.js";
import { characterNamed, loadCharacter, noteIfMissing, OWN_CHARACTERS } from "../babylon/characters.js";
import {
  bodyDirections,
  finite,
  mannequin,
  pitch,
  trackedCharacter,
  TrackedRig,
  yaw,
  type Pose3,
} from "./trackedBodyHarness.js";

const notes: string[] = [];
afterAll(() => {
  if (notes.length > 0)
    console.log(`[tracked body: lost trackers, extremes, calibration]\n  ${notes.join("\n  ")}`);
});

const HEAD = new Vector3(0, 1.6, 0.01);
const standing = (): Pose3 => ({
  head: HEAD.clone(),
  left: new Vector3(-0.22, 1.05, 0.35),
  right: new Vector3(0.22, 1.05, 0.35),
});

describe("TrackedBody: lost trackers, extreme inputs, calibration", () => {
  let rig: TrackedRig;
  afterEach(() => rig?.dispose());

  it("a lost hand fades smoothly to the animated pose; a lost head takes the whole body back", async () => {
    rig = await TrackedRig.create();
    const rest = rig.positions();
    rig.run(60, standing);
    const j = rig.j;
    rig.body.rightHand.weight = 0;
    const path: Vector3[] = [];
    rig.run(30, standing, (m) => path.push(m.world[j.rightHand].clone()));
    const steps = path.slice(1).map((p, i) => p.subtract(path[i]).length());
    const total = steps.reduce((a, b) => a + b, 0);
    const fadeFrames = 0.25 * 60;
    // Smooth: no frame moves the hand more than twice the mean step of the fade.
    expect(Math.max(...steps)).toBeLessThan((2 * total) / fadeFrames);
    // The arm shows its animation (here the rest pose): its joints' local rotations are the animated ones.
    const arm = [j.rightShoulder, j.rightUpperArm, j.rightLowerArm, j.rightHand];
    const locals = (): number[] =>
      arm.flatMap((k) => {
        const q = rig.ik.rig!.nodes[k]!.rotationQuaternion!;
        return [q.x, q.y, q.z, q.w];
      });
    const animated = locals();
    rig.run(1, standing, () => {
      const now = locals();
      expect(Math.max(...now.map((x, i) => Math.abs(x - animated[i])))).toBeLessThan(1e-6);
    });
    expect(rig.body.appliedWeight("rightHand")).toBe(0);
    // The head (and with it the hips and legs) and the other hand go too.
    rig.body.head.weight = 0;
    rig.body.leftHand.weight = 0;
    const m = rig.run(30, standing);
    const worst = Math.max(...m.world.map((p, i) => p.subtract(rest[i]).length()));
    expect(worst).toBeLessThan(1e-4);
    notes.push(
      `lost hand: largest step ${(100 * Math.max(...steps)).toFixed(1)} cm of ${(100 * total).toFixed(1)} cm`,
    );
  });

  it("a head lost mid-step or mid-jump: once faded out, no foot in the air and no step counted; back, planted afresh", async () => {
    rig = await TrackedRig.create();
    rig.run(30, standing);
    // Walking ahead (a foot in the air), then the head lost; and a jump, the head lost at its top.
    const walk = (t: number): Pose3 => {
      const p = standing();
      const o = new Vector3(0, 0, Math.min(t, 2));
      return { head: p.head.add(o), left: p.left.add(o), right: p.right.add(o) };
    };
    const hop = (t: number): Pose3 => {
      const p = standing();
      const o = new Vector3(0, 0.3 * Math.sin(Math.min(1, t / 0.3) * (Math.PI / 2)), 0);
      return { head: p.head.add(o), left: p.left.add(o), right: p.right.add(o) };
    };
    for (const [path, frames] of [
      [walk, 40],
      [hop, 18],
    ] as const) {
      rig.body.head.weight = 1;
      rig.run(30, standing);
      rig.run(frames, path);
      expect(rig.body.isStepping(0) || rig.body.isStepping(1)).toBe(true);
      rig.body.head.weight = 0;
      rig.run(15, () => path(frames / 60));
      const steps = rig.body.steps;
      let inAir = 0;
      rig.run(
        60,
        () => path(frames / 60),
        (m) => {
          if (m.stepping[0] || m.stepping[1]) inAir++;
        },
      );
      expect(inAir).toBe(0);
      expect(rig.body.steps).toBe(steps);
    }
    // Tracked again standing where it started: the feet planted under the hips, never both in the air.
    rig.body.head.weight = 1;
    let both = 0;
    const m = rig.run(60, standing, (f) => {
      if (f.stepping[0] && f.stepping[1]) both++;
    });
    expect(both).toBe(0);
    expect(finite(m.world)).toBe(true);
    expect(m.world[rig.j.head].subtract(HEAD).length()).toBeLessThan(0.01);
  });

  it.each([
    [
      "a hand's place and the head's rotation",
      { left: new Vector3(NaN, 1, 0), headRotation: new Quaternion(NaN, 0, 0, 1) },
    ],
    ["the head's place", { head: new Vector3(NaN, NaN, NaN) }],
  ] as const)("a tracker whose pose turns NaN (%s) fades out, never writing NaN", async (_, bad) => {
    rig = await TrackedRig.create();
    rig.run(30, standing);
    let frames = 0;
    rig.run(
      30,
      () => ({ ...standing(), ...bad }),
      (m) => {
        if (!finite(m.world)) frames++;
      },
    );
    // Every frame of the fade, not only the last: the last good pose is what fades out.
    expect(frames).toBe(0);
    if ("left" in bad) expect(rig.body.appliedWeight("leftHand")).toBe(0);
    expect(rig.body.appliedWeight("head")).toBe(0);
  });

  // Each case with the body turned by the head alone (handsTurn 0) and by the hands too (1, the default).
  it.each(
    (
      [
        [
          "hands behind the back",
          () => ({
            head: HEAD.clone(),
            left: new Vector3(-0.15, 1.0, -0.3),
            right: new Vector3(0.15, 1.0, -0.3),
          }),
        ],
        [
          "head below the hips",
          () => ({
            head: new Vector3(0, 0.3, 0.2),
            headRotation: pitch(1.2),
            left: new Vector3(-0.2, 0.2, 0.4),
            right: new Vector3(0.2, 0.2, 0.4),
          }),
        ],
        [
          "trackers 10 m apart",
          () => ({ head: HEAD.clone(), left: new Vector3(-10, 1, 0), right: new Vector3(10, 1, 0) }),
        ],
        [
          "head 10 m away at once",
          () => ({
            head: new Vector3(10, 1.6, 0),
            headRotation: yaw(Math.PI),
            left: new Vector3(-0.2, 1, 0.3),
            right: new Vector3(0.2, 1, 0.3),
          }),
        ],
        [
          "head upside down",
          () => ({
            head: HEAD.clone(),
            headRotation: pitch(Math.PI),
            left: new Vector3(0, 3, 0),
            right: new Vector3(0, -3, 0),
          }),
        ],
      ] as [string, () => Pose3][]
    ).flatMap(([name, pose]) => [0, 1].map((handsTurn) => [name, handsTurn, pose] as const)),
  )("%s (handsTurn %s): a defined, finite pose, knees not inverted", async (_, handsTurn, pose) => {
    rig = await TrackedRig.create({ handsTurn });
    rig.run(30, standing);
    const a = rig.run(120, pose);
    const b = rig.run(1, pose);
    expect(finite(a.world)).toBe(true);
    // Defined: held still, the body stays (within the solver's tolerance).
    const upper = [rig.j.head, rig.j.hips, rig.j.leftHand, rig.j.rightHand, rig.j.leftFoot, rig.j.rightFoot];
    const drift = Math.max(...upper.map((i) => a.world[i].subtract(b.world[i]).length()));
    expect(drift).toBeLessThan(0.005);
    const heading = new Vector3(0, 0, 1);
    if (pose().headRotation !== undefined) {
      const f = new Vector3(0, 0, 1).applyRotationQuaternion(pose().headRotation!);
      if (Math.abs(f.y) < 0.9) heading.copyFrom(new Vector3(f.x, 0, f.z).normalize());
    }
    for (const side of ["left", "right"] as const) {
      expect(rig.kneeInversion(a.world, side, heading)).toBeLessThan(0.005);
    }
  });

  it("a lean back out of the spine's reach settles: fewer iterations a solve, the pose about as near", async () => {
    // Leaning back with the hips held where they stood (a hips tracker): the head behind and below where a
    // standing spine's limits reach. (Without the tracker the body sits down after the head and the head is
    // within reach: trackedBody.floor.test.ts.) The behavior's settleOutOfReach (on while TrackedBody is
    // attached) ends each solve after a solve that fell short as soon as a short round shows the targets
    // still out of reach.
    const leanBack = (t: number): Pose3 => {
      const k = Math.min(1, t);
      return {
        head: new Vector3(0, 1.6 - 0.8 * k, 0.01 - 0.7 * k),
        headRotation: pitch(-1.2 * k),
        left: new Vector3(-0.3, 1.0 - 0.3 * k, -0.2 * k),
        right: new Vector3(0.3, 1.0 - 0.3 * k, -0.2 * k),
      };
    };
    const measure = async (settle: boolean) => {
      rig = await TrackedRig.create();
      rig.ik.settleOutOfReach = settle;
      rig.run(30, standing);
      rig.body.hips.position.copyFrom(rig.positions()[rig.j.hips]);
      rig.body.hips.weight = 1;
      let iterations = 0,
        solves = 0,
        short = 0;
      const counting = rig.ik.onSolvedObservable.add((e) => {
        iterations += e.report.iterations;
        solves++;
        if (!e.report.converged) short++;
      });
      let head = 0;
      const last = rig.run(120, leanBack, (m, t) => {
        if (t > 1) head = Math.max(head, m.world[rig.j.head].subtract(leanBack(t).head).length());
      });
      counting.remove();
      const result = { iterations: iterations / solves, short, head, finite: finite(last.world) };
      rig.dispose();
      return result;
    };
    const off = await measure(false);
    const on = await measure(true);
    notes.push(
      `lean back out of reach: ${on.iterations.toFixed(1)} iterations a solve settling, ` +
        `${off.iterations.toFixed(1)} without; head up to ${(100 * on.head).toFixed(1)} / ` +
        `${(100 * off.head).toFixed(1)} cm off`,
    );
    // Out of reach both ways (the case is what it says), finite, cheaper, and the head about as near.
    expect(on.short).toBeGreaterThan(60);
    expect(off.short).toBeGreaterThan(60);
    expect(on.finite && off.finite).toBe(true);
    expect(on.iterations).toBeLessThan(0.8 * off.iterations);
    expect(on.head).toBeLessThan(off.head + 0.015);
    rig = await TrackedRig.create();
  });

  it("wrists take the controllers' rotation: the hand points where the controller points, palm in", async () => {
    rig = await TrackedRig.create();
    const turned = yaw(0.4).multiply(pitch(0.3));
    const pose = (): Pose3 => ({ ...standing(), leftRotation: turned, rightRotation: turned });
    const m = rig.run(60, pose);
    const forward = new Vector3(0, 0, 1).applyRotationQuaternion(turned);
    const ik = rig.ik;
    let worst = 0;
    for (const side of ["Left", "Right"]) {
      const hand = m.world[ik.jointIndex(`${side}Hand`)];
      const finger = m.world[ik.jointIndex(`${side}HandMiddle1`)];
      const angle = Math.acos(Vector3.Dot(finger.subtract(hand).normalize(), forward));
      worst = Math.max(worst, angle);
    }
    expect(worst).toBeLessThan(0.2);
    notes.push(`wrist: hands point within ${((worst * 180) / Math.PI).toFixed(1)}° of their controllers`);
  });

  it("a foot tracker moves its foot; hips tracker moves the hips", async () => {
    rig = await TrackedRig.create();
    rig.body.leftFoot.weight = 1;
    rig.body.hips.weight = 1;
    rig.body.leftFoot.position.set(-0.15, 0.3, 0.25);
    rig.body.hips.position.set(0, 0.9, -0.05);
    const m = rig.run(60, standing);
    expect(m.world[rig.j.leftFoot].subtract(new Vector3(-0.15, 0.3, 0.25)).length()).toBeLessThan(0.01);
    expect(m.world[rig.j.hips].subtract(new Vector3(0, 0.9, -0.05)).length()).toBeLessThan(0.01);
  });

  it("calibration scales the avatar to the player's height, keeping its proportions", async () => {
    rig = await TrackedRig.create({ height: 1.9 });
    expect(rig.body.scale).toBeCloseTo(1.9 / 1.75, 2);
    expect(rig.body.height).toBeCloseTo(1.9, 6);
    const tall = HEAD.scale(1.9 / 1.75);
    const k = 1.9 / 1.75;
    const m = rig.run(60, () => ({
      head: tall,
      left: standing().left.scale(k),
      right: standing().right.scale(k),
    }));
    expect(m.world[rig.j.head].subtract(tall).length()).toBeLessThan(0.01);
    // From the head tracker, standing straight.
    rig.body.head.position.set(0, 1.45, 0);
    expect(rig.body.calibrate()).toBeCloseTo(1.45 / 1.6, 3);
    expect(rig.body.calibrate(1.75)).toBeCloseTo(1, 2);
    rig.body.dispose();
    expect(rig.loaded.root.scaling.y).toBeCloseTo(1, 9);
  });

  it("bad input throws a FabrikError naming it and changes nothing", async () => {
    const loaded = await loadCharacter(mannequin);
    try {
      const ik = new FabrikBehavior();
      expect(() => new TrackedBody(ik)).toThrow(FabrikError);
      loaded.root.addBehavior(ik, true);
      const bad: [object, string][] = [
        [{ stepTime: 0 }, "stepTime"],
        [{ fadeTime: -1 }, "fadeTime"],
        [{ hipsFollow: 2 }, "hipsFollow"],
        [{ height: 12 }, "height"],
        [{ steps: 1 }, "steps"],
      ];
      for (const [options, option] of bad) {
        let error: unknown;
        try {
          new TrackedBody(ik, options);
        } catch (e) {
          error = e;
        }
        expect(error).toBeInstanceOf(FabrikError);
        expect((error as FabrikError).option).toBe(option);
      }
      expect(ik.targets.length).toBe(0);
      expect(ik.passes.length).toBe(0);
      expect(ik.holdConfiguration).toBe(true);
      const body = new TrackedBody(ik);
      // The body steers its configuration itself while attached; disposed, the behavior's setting is back.
      expect(ik.holdConfiguration).toBe(false);
      expect(ik.settleOutOfReach).toBe(true);
      expect(() => (body.leftHand.weight = 1.5)).toThrow(/leftHand\.weight/);
      expect(() => body.calibrate(0.1)).toThrow(/height/);
      expect(body.scale).toBe(1);
      body.dispose();
      expect(ik.targets.length).toBe(0);
      expect(ik.holdConfiguration).toBe(true);
      expect(ik.settleOutOfReach).toBe(false);
    } finally {
      loaded.engine.dispose();
    }
  });
});

describe("TrackedBody on other humanoids", () => {
  const others = [
    OWN_CHARACTERS.find((c) => c.folder === "figure")!,
    characterNamed("CesiumMan"),
    characterNamed("RiggedFigure"),
    characterNamed("RobotExpressive"),
    characterNamed("QuaterniusWorkerWoman"),
  ];
  it.each(others.map((c) => [c.folder, c] as const))(
    "%s: the head on its tracker standing and crouched, knees forward, nothing NaN",
    async (_, character) => {
      if (noteIfMissing(character)) return;
      const { loaded, ik, body } = await trackedCharacter(character);
      try {
        body.leftHand.weight = body.rightHand.weight = 0;
        const reader = new PoseReader(ik.rig!);
        reader.read();
        const head = reader.getWorldPositionToRef(ik.jointIndex("head"), new Vector3());
        // The body's forward and up in world space: the head tracker faces that way.
        const m = reader.modelToWorld;
        const { forward, up } = bodyDirections(body, m);
        body.head.rotation.copyFrom(
          Quaternion.RotationQuaternionFromAxis(Vector3.Cross(up, forward).normalize(), up, forward),
        );
        const height = body.height;
        const results: string[] = [];
        for (const drop of [0, 0.2]) {
          const target = head.subtract(up.scale(drop * height));
          body.head.position.copyFrom(target);
          let worstKnee = -Infinity;
          let world: Vector3[] = [];
          for (let i = 0; i < 60; i++) {
            body.update(1 / 60);
            loaded.scene.onBeforeRenderObservable.notifyObservers(loaded.scene);
            reader.read();
            world = Array.from({ length: ik.rig!.jointCount }, (_, j) =>
              reader.getWorldPositionToRef(j, new Vector3()),
            );
            for (const side of ["left", "right"]) {
              const hip = world[ik.jointIndex(`${side}UpperLeg`)],
                knee = world[ik.jointIndex(`${side}LowerLeg`)],
                ankle = world[ik.jointIndex(`${side}Foot`)];
              const axis = ankle.subtract(hip).normalize();
              const off = knee.subtract(hip);
              const perp = off.subtract(axis.scale(Vector3.Dot(off, axis)));
              if (perp.length() > 0.01 * height) worstKnee = Math.max(worstKnee, -Vector3.Dot(perp, forward));
            }
            loaded.scene.onAfterRenderObservable.notifyObservers(loaded.scene);
          }
          const error = world[ik.jointIndex("head")].subtract(target).length() / height;
          expect(finite(world)).toBe(true);
          expect(error, `head error / height, crouched ${drop}`).toBeLessThan(0.01);
          expect(worstKnee).toBeLessThanOrEqual(0);
          results.push(`${drop === 0 ? "standing" : "crouched 20 %"} ${(100 * error).toFixed(2)} %`);
        }
        notes.push(`${character.folder}: head off by ${results.join(", ")} of its height`);
      } finally {
        loaded.engine.dispose();
      }
    },
  );
});
