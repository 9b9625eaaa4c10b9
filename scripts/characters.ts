/**
 * The third-party characters the tests and the demo check use (never copied into the project): where each
 * is published, under which licence, and the sha256 of the exact bytes the tests were written against.
 * `npm run fetch-characters` downloads them into ../shared/assets/<folder>/.
 */
export interface SharedCharacter {
  readonly folder: string;
  readonly file: string;
  readonly bytes: number;
  readonly sha256: string;
  /** A public copy at a fixed commit. */
  readonly url: string;
  /** The original publication. */
  readonly origin: string;
  readonly licence: string;
}

const github = (repo: string, commit: string, path: string) =>
  `https://raw.githubusercontent.com/${repo}/${commit}/${path}`;
const GLTF_KUN = "48d35f988bdd5448fc2a494d99b16db233406dc7";
const SHOWCASE = "eab2e43a7e688dad1cc6be764c1c4ba593e1961c";
const quaternius = (pack: string, file: string) =>
  github("trebeljahr/quaternius-showcase", SHOWCASE, `public/glb/${pack}/${file}`);

export const SHARED_CHARACTERS: readonly SharedCharacter[] = [
  {
    folder: "RiggedSimple",
    file: "RiggedSimple.glb",
    bytes: 15104,
    sha256: "3a79dabb67bb0cd598a18d08b954d9d357c27c30672f82ef5d3f4e7fe6ca3401",
    url: github("unavi-xyz/gltf_kun", GLTF_KUN, "assets/RiggedSimple.glb"),
    origin: "Khronos glTF-Sample-Assets, RiggedSimple",
    licence: "CC-BY 4.0, © 2017 Cesium",
  },
  {
    folder: "SimpleSkin",
    file: "SimpleSkin.gltf",
    bytes: 3566,
    sha256: "7d0c3f48d0510d101269cb4fdd3ee035eaada0e04809a0899e0b4cfe8c38e68f",
    url: github("unavi-xyz/gltf_kun", "6e2457a1a96b1746165a569646d0fe171881cb2c", "assets/SimpleSkin.gltf"),
    origin: "Khronos glTF-Sample-Assets, SimpleSkin (glTF tutorial)",
    licence: "CC0 1.0",
  },
  {
    folder: "RiggedFigure",
    file: "RiggedFigure.glb",
    bytes: 50116,
    sha256: "d6be85417d3e256861ee733eea6916093a7af7c79c16366181fd8abcaeb38cf5",
    url: github("unavi-xyz/gltf_kun", GLTF_KUN, "assets/RiggedFigure.glb"),
    origin: "Khronos glTF-Sample-Assets, RiggedFigure",
    licence: "CC-BY 4.0, © 2017 Cesium",
  },
  {
    folder: "CesiumMan",
    file: "CesiumMan.glb",
    bytes: 490956,
    sha256: "659349b0a374b73d5362a61070039bc8601401bbdeacbece4f3680fb4bfd41b0",
    url: github(
      "ousttrue/gltf-test-models",
      "d31c7c3d3c24554304ac43c902def569afd2b3c0",
      "glTF-Sample-Assets/Models/CesiumMan/glTF-Binary/CesiumMan.glb",
    ),
    origin: "Khronos glTF-Sample-Assets, CesiumMan",
    licence: "CC-BY 4.0, © 2017 Cesium (Cesium trademark limits on the logo)",
  },
  {
    folder: "RobotExpressive",
    file: "RobotExpressive.glb",
    bytes: 463988,
    sha256: "047f5e5fb3bb6d378bd1df16ca6137f2a596c99b3a1b5690b4020c05aaf6f319",
    url: github(
      "Sensor-Guided-Living/vr",
      "3c2eee04509680648cf248282efd316ea69f046d",
      "examples/models/gltf/RobotExpressive/RobotExpressive.glb",
    ),
    origin: "three.js examples (Tomás Laulhé / Quaternius, changes by Don McCurdy)",
    licence: "CC0 1.0",
  },
  {
    folder: "Fox",
    file: "Fox.glb",
    bytes: 162852,
    sha256: "d97044e701822bac5a62696459b27d7b375aada5de8574ed4362edbba94771f7",
    url: github(
      "bevyengine/bevy",
      "4805ca792c3e94eef07afd6fa9a2712f388c9a67",
      "assets/models/animated/Fox.glb",
    ),
    origin:
      "Khronos glTF-Sample-Assets, Fox (PixelMannen; rig and animation tomkranis; AsoboStudio, scurest)",
    licence: "CC0 1.0 model, CC-BY 4.0 rig, animation and conversion",
  },
  {
    folder: "QuaterniusSpider",
    file: "Spider.glb",
    bytes: 449008,
    sha256: "d759e35f6cf5adc7eb7e3f70135cd2a808787fc36337a523015592ba840ccd6d",
    url: quaternius("easy_enemies_pack", "Spider.glb"),
    origin: "Quaternius, Easy Enemy Pack",
    licence: "CC0 1.0",
  },
  {
    folder: "QuaterniusSnake",
    file: "Snake.glb",
    bytes: 216696,
    sha256: "70b4af1088dec939e167b07c0a5e69992a4851beac8bd24a9da1189b65ae101c",
    url: quaternius("easy_enemies_pack", "Snake.glb"),
    origin: "Quaternius, Easy Enemy Pack",
    licence: "CC0 1.0",
  },
  {
    folder: "RecursiveSkeletons",
    file: "RecursiveSkeletons.glb",
    bytes: 561620,
    sha256: "15fb11ee4d3b31735efe7dc776a31e8fa67568ea148a3315442970303675b641",
    url: github("unavi-xyz/gltf_kun", GLTF_KUN, "assets/RecursiveSkeletons.glb"),
    origin: "Khronos glTF-Sample-Assets, RecursiveSkeletons (SharpGLTF, Vicente Penades)",
    licence: "CC-BY 4.0",
  },
  {
    folder: "QuaterniusHorse",
    file: "Horse.glb",
    bytes: 682356,
    sha256: "fbddb2c97179eca896ec69c985cd9cc74540484510776c400df64e088e9f2414",
    url: quaternius("animals_pack", "Horse.glb"),
    origin: "Quaternius, Ultimate Animated Animal Pack",
    licence: "CC0 1.0",
  },
  {
    folder: "QuaterniusTrex",
    file: "Trex.glb",
    bytes: 336568,
    sha256: "e1c9862deef89f096c7d85dacf62aa9ce48089e5867d2bf632ed1e1733013349",
    url: quaternius("dinosaurs_pack", "Trex.glb"),
    origin: "Quaternius, Animated Dinosaur Pack",
    licence: "CC0 1.0",
  },
  {
    folder: "QuaterniusWorkerWoman",
    file: "Worker.glb",
    bytes: 772396,
    sha256: "00bd8f9da25b9196f61d2f4d9f21972f98632665926ed4da2652c0c020fd0bc6",
    url: quaternius("modular_women", "Worker.glb"),
    origin: "Quaternius, Modular Women Pack",
    licence: "CC0 1.0",
  },
];
