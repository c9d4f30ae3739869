"""OpenUSD: skelsimd's arrays-out path against UsdSkel's own per-time-code queries in a Python
loop (what a user writes today with usd-core alone). Measured, never asserted.

    pip install "skelsimd[usd]"
    python benchmarks/usd_bench.py [--rounds 3] [--json OUT.json]

1. Loading: RobotExpressive (three.js's example robot, tests/data/gltf: 43 joints, 14
   animations) written to USD once per animation (the clip with its first skinned mesh). Per
   frame of animation: ``load_usd(path).clips`` (the stage, the Skeleton, the influences and
   every frame as QTS) against opening the stage with ``UsdSkel.Cache`` and calling
   ``SkeletonQuery.ComputeJointLocalTransforms(t)`` for every time code into a NumPy array
   (plus the mesh's points and influences once), the same information. The same on one long
   clip (CMU 01_01, 2,752 frames, with a tube mesh): there the per-frame costs dominate.
2. Skinned points of every frame of a clip: ``skinning_palette`` + ``skin`` on all frames (two
   kernel calls) against ``ComputeSkinningTransforms(t)`` + ``SkinningQuery.ComputeSkinnedPoints``
   per time code; on RobotExpressive's largest mesh and on the CMU walk with a tube mesh of
   3,000 vertices. The outputs are checked equal (1e-5 of the mesh size) before timing.
3. ``save_usd`` of a 2,000-frame BVH clip (tests/data/cmu_01_01.bvh.gz, 31 joints) as .usdc,
   .usda and .usdz.

Times are minima over ``--rounds`` interleaved rounds.
"""
import argparse
import json
import os
import tempfile
import time
import warnings

import numpy as np

import skelsimd

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, os.pardir, "tests", "data")


def best(fn, rounds):
    times = []
    for _ in range(rounds):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def robot_files(folder):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        asset = skelsimd.load_gltf(os.path.join(DATA, "gltf", "RobotExpressive.glb"))
        asset.clips
    paths = []
    pairs = [(a, s) for a, s in asset.clip_pairs() if s == 0]
    mesh = max((m for m in asset.meshes if m.skin == 0), key=lambda m: len(m.positions))
    for a, s in pairs:
        clip = asset.clip(a, s)
        paths.append(skelsimd.save_usd(os.path.join(folder, f"robot_{a:02d}.usdc"), clip,
                                       mesh=mesh, skin=asset.skins[s]))
    return paths, len(asset.skins[0].skeleton)


def usdskel_load(path):
    """UsdSkel alone: every time code's local transforms as a NumPy array, the mesh's points
    and influences once."""
    from pxr import Usd, UsdGeom, UsdSkel
    stage = Usd.Stage.Open(path)
    cache = UsdSkel.Cache()
    predicate = Usd.TraverseInstanceProxies()
    out = []
    for prim in stage.Traverse(predicate):
        if prim.IsA(UsdSkel.Root):
            root = UsdSkel.Root(prim)
            cache.Populate(root, predicate)
            for binding in cache.ComputeSkelBindings(root, predicate):
                query = cache.GetSkelQuery(binding.GetSkeleton())
                t0, t1 = stage.GetStartTimeCode(), stage.GetEndTimeCode()
                frames = np.array([np.asarray(query.ComputeJointLocalTransforms(t))
                                   for t in np.arange(t0, t1 + 1)])
                for target in binding.GetSkinningTargets():
                    points = np.asarray(UsdGeom.Mesh(target.GetPrim()).GetPointsAttr().Get())
                    n = len(points)
                    ji, w = target.ComputeVaryingJointInfluences(n)
                    out.append((frames, points, np.asarray(ji), np.asarray(w)))
    return out


def skinned_pair(path):
    """(skelsimd's all-frames skinning, UsdSkel's per-time-code skinning) on one file."""
    from pxr import Usd, UsdGeom, UsdSkel, Vt
    asset = skelsimd.load_usd(path)
    clip, mesh = asset.clips[0], asset.meshes[0]
    skin = asset.skins[mesh.skin]
    if mesh.weights.shape[1] > 8:
        mesh = mesh.compact_influences(8)

    def ours():
        palette = skelsimd.skinning_palette(skelsimd.qts_to_matrix(clip.local),
                                            clip.skeleton.parents, skin.inverse_bind)
        return skelsimd.skin(mesh.positions, mesh.joint_indices, mesh.weights, palette)

    stage = Usd.Stage.Open(path)
    cache = UsdSkel.Cache()
    cache.Populate(UsdSkel.Root(stage.GetPrimAtPath("/Root")), Usd.TraverseInstanceProxies())
    query = cache.GetSkelQuery(UsdSkel.Skeleton(stage.GetPrimAtPath(skin.path)))
    skinning = cache.GetSkinningQuery(stage.GetPrimAtPath(mesh.path))
    rest = UsdGeom.Mesh(stage.GetPrimAtPath(mesh.path)).GetPointsAttr().Get()

    def theirs(cache=cache, stage=stage):      # the queries need both alive
        out = []
        for t in asset.times:
            pts = Vt.Vec3fArray(rest)
            skinning.ComputeSkinnedPoints(query.ComputeSkinningTransforms(float(t)), pts,
                                          float(t))
            out.append(np.asarray(pts))
        return np.array(out)

    a, b = ours(), theirs()
    size = max(float(np.ptp(b, axis=1).max()), 1e-30)
    err = float(np.abs(a - b).max() / size)
    assert err <= 1e-5, err
    return ours, theirs, clip.frames, len(mesh.positions), err


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--json", metavar="OUT.json")
    args = parser.parse_args()
    results = {}
    folder = tempfile.mkdtemp()

    paths, joints = robot_files(folder)
    frames = sum(skelsimd.load_usd(p).clips[0].frames for p in paths)
    t_ours = best(lambda: [skelsimd.load_usd(p).clips for p in paths], args.rounds)
    t_theirs = best(lambda: [usdskel_load(p) for p in paths], args.rounds)
    results["load"] = [{"file": "RobotExpressive", "files": len(paths), "joints": joints,
                        "frames": frames, "skelsimd_us_per_frame": 1e6 * t_ours / frames,
                        "usdskel_us_per_frame": 1e6 * t_theirs / frames,
                        "ratio": t_theirs / t_ours}]
    print(f"load: RobotExpressive, {len(paths)} animations x {joints} joints, {frames} frames: "
          f"load_usd {1e6 * t_ours / frames:.1f} us/frame, UsdSkel per-time-code loop "
          f"{1e6 * t_theirs / frames:.1f} us/frame: {t_theirs / t_ours:.2f}x")

    walk = skelsimd.load_bvh(os.path.join(DATA, "cmu_01_01.bvh.gz"))
    tube = skelsimd.data.example_mesh(walk.skeleton, sides=12, rings=8)
    long_path = skelsimd.save_usd(os.path.join(folder, "walk_long.usdc"), walk, mesh=tube)
    t_ours = best(lambda: skelsimd.load_usd(long_path).clips, args.rounds)
    t_theirs = best(lambda: usdskel_load(long_path), args.rounds)
    results["load"].append({"file": "cmu_01_01", "files": 1, "joints": len(walk.skeleton),
                            "frames": walk.frames,
                            "skelsimd_us_per_frame": 1e6 * t_ours / walk.frames,
                            "usdskel_us_per_frame": 1e6 * t_theirs / walk.frames,
                            "ratio": t_theirs / t_ours})
    print(f"load: CMU 01_01, 1 animation x {len(walk.skeleton)} joints, {walk.frames} frames: "
          f"load_usd {1e6 * t_ours / walk.frames:.1f} us/frame, UsdSkel per-time-code loop "
          f"{1e6 * t_theirs / walk.frames:.1f} us/frame: {t_theirs / t_ours:.2f}x")
    walk_path = skelsimd.save_usd(os.path.join(folder, "walk.usdc"), walk[:500], mesh=tube)
    robot_longest = max(paths, key=lambda p: skelsimd.load_usd(p).clips[0].frames)
    results["skinning"] = []
    for label, path in (("RobotExpressive", robot_longest), ("CMU walk + tubes", walk_path)):
        ours, theirs, f, v, err = skinned_pair(path)
        t_ours, t_theirs = best(ours, args.rounds), best(theirs, args.rounds)
        results["skinning"].append({"file": label, "frames": f, "vertices": v, "error": err,
                                    "skelsimd_s": t_ours, "usdskel_s": t_theirs,
                                    "ratio": t_theirs / t_ours})
        print(f"skinned points, {label}: {f} frames x {v} vertices: skelsimd {1e3 * t_ours:.2f} "
              f"ms, ComputeSkinnedPoints per time code {1e3 * t_theirs:.2f} ms: "
              f"{t_theirs / t_ours:.0f}x (outputs within {err:.1e} of the mesh size)")

    clip = walk[:2000]
    results["save"] = []
    for suffix in (".usdc", ".usda", ".usdz"):
        out = os.path.join(folder, "save" + suffix)
        t = best(lambda: skelsimd.save_usd(out, clip), args.rounds)
        results["save"].append({"suffix": suffix, "frames": clip.frames, "seconds": t,
                                "bytes": os.path.getsize(out)})
        print(f"save_usd {suffix}: {clip.frames} frames x {len(clip.skeleton)} joints in "
              f"{1e3 * t:.0f} ms ({os.path.getsize(out) / 1e6:.2f} MB)")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=1)


if __name__ == "__main__":
    main()
