"""Opens a glTF file in Blender (its own importer, through the `bpy` package in another Python)
and checks that it plays as skelsimd plays it: every animation's joint world positions, at the
keys and between them, against skelsimd's clips. Not part of the test suite (Blender is a
1 GB wheel that needs NumPy < 2): a check run by hand on what skelsimd writes.

    python -m venv /tmp/bpy && /tmp/bpy/bin/pip install "numpy<2" bpy
    python tests/external/check_blender.py --blender-python /tmp/bpy/bin/python walk.glb ...

Prints, per file and animation, the largest joint-position difference relative to the
skeleton's size, and exits 1 when one exceeds --tolerance (default 1e-4).
"""
import argparse
import os
import subprocess
import sys
import tempfile
import warnings

import numpy as np

import skelsimd

HERE = os.path.dirname(os.path.abspath(__file__))


def check(path, blender_python, tolerance, frames=7):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        asset = skelsimd.load_gltf(path)
        clips = asset.clips
    if not clips:
        print(f"{path}: no clip")
        return True
    fps = clips[0].fps
    # the clips' frames (at the keys, for files whose keys are on the sample grid): Blender
    # interpolates rotation keys component-wise where glTF slerps, so between keys the two
    # differ by design
    times = sorted({round(f / c.fps, 9) for c in clips
                    for f in np.linspace(0, c.frames - 1, frames).round()})
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "heads.npz")
        subprocess.run([blender_python, os.path.join(HERE, "blender_positions.py"),
                        os.path.abspath(path), out, str(fps)] + [repr(float(t)) for t in times],
                       check=True, stdout=subprocess.DEVNULL)
        data = np.load(out)
        actions = list(data["actions"])
        ok = True
        for clip in clips:
            match = [k for k, a in enumerate(actions) if a == clip.name or a.startswith(clip.name)]
            if not match and len(actions) == 1 == len(asset.animations):
                match = [0]                     # one unnamed animation: Blender names it
            if not match:
                print(f"{path}: animation {clip.name!r}: no Blender action of that name "
                      f"({actions})")
                ok = False
                continue
            k = match[0]
            names = list(data[f"names_{k}"])
            heads = data[f"heads_{k}"]
            skel = clip.skeleton
            rows = [(j, names.index(n)) for j, n in enumerate(skel.names) if n in names]
            if not rows:
                print(f"{path}: {clip.name!r}: no joint name matches a Blender bone (unnamed "
                      "nodes are named by each tool its own way): not checked")
                ok = False
                continue
            size = 0.0
            worst, worst_t = 0.0, 0.0
            for i, t in enumerate(times):
                f = t * clip.fps
                if f > clip.frames - 1 + 1e-6:
                    continue
                f0 = min(int(np.floor(f)), clip.frames - 1)
                local = clip.local[f0] if f == f0 else clip.sample(t)
                g = skelsimd.qts_local_to_global_matrix(local, skel)[..., 3]
                size = max(size, float(np.ptp(g, axis=0).max()))
                ours = np.array([g[j] for j, _ in rows])
                theirs = np.array([heads[i, b] for _, b in rows])
                d = float(np.abs(ours - theirs).max())
                if d > worst:
                    worst, worst_t = d, t
            rel = worst / max(size, 1e-12)
            verdict = "ok" if rel <= tolerance else "DIFFERS"
            print(f"{path}: {clip.name!r} (skin {clip.skin}): {len(rows)} of {len(skel.names)} "
                  f"joints as Blender bones, max position difference {worst:.3g} "
                  f"({rel:.2g} of the skeleton's size, at t = {worst_t:.4g} s) {verdict}")
            ok &= rel <= tolerance
        return ok


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("files", nargs="+")
    p.add_argument("--blender-python", required=True)
    p.add_argument("--tolerance", type=float, default=1e-4)
    args = p.parse_args(argv)
    ok = all([check(f, args.blender_python, args.tolerance) for f in args.files])
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
