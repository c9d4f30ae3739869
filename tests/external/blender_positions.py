"""Run by Blender's Python (the `bpy` package, in a virtual environment of its own: it needs
NumPy < 2), never by the test suite: imports a glTF file with Blender's own importer and writes
the world positions of every armature bone's head, per animation, at the frames asked for.

    python blender_positions.py IN.glb OUT.npz FPS T0 T1 ...

OUT.npz holds, per action ``k``, ``names_k`` (the bones, as Blender names them: the glTF node
names) and ``heads_k`` (len(T), B, 3) in glTF's axes (Blender's importer turns +Y up into +Z
up; the inverse is applied here), and ``actions`` (their names). Times are seconds; Blender
evaluates frame ``t * FPS`` of the scene, whose rate is set to FPS before the import.
check_blender.py compares them with skelsimd's clips.
"""
import sys

import bpy
import numpy as np


def _import(path, fps):
    bpy.ops.wm.read_factory_settings(use_empty=True)
    scene = bpy.context.scene
    scene.render.fps = int(round(fps))
    scene.render.fps_base = scene.render.fps / fps
    bpy.ops.import_scene.gltf(filepath=path)
    return scene, [o for o in scene.objects if o.type == "ARMATURE" and o.animation_data]


def main(argv):
    path, out, fps = argv[0], argv[1], float(argv[2])
    times = [float(t) for t in argv[3:]]
    # A bone an action does not key keeps whatever pose the previous action left, so every
    # action is evaluated in a fresh import (where unkeyed bones hold the file's node pose).
    scene, arms = _import(path, fps)
    plan = [(a, s.action.name) for a, arm in enumerate(arms)
            for t in arm.animation_data.nla_tracks for s in t.strips]
    plan = plan or [(a, arm.animation_data.action.name) for a, arm in enumerate(arms)
                    if arm.animation_data.action]
    result, names = {}, []
    for k, (a, action_name) in enumerate(plan):
        if k:
            scene, arms = _import(path, fps)
        arm = arms[a]
        for track in arm.animation_data.nla_tracks:
            track.mute = True
        action = bpy.data.actions[action_name]
        arm.animation_data.action = action
        ours = [x for x in getattr(action, "slots", ()) or () if x.target_id_type == "OBJECT"]
        if ours:                                   # Blender >= 4.4: slotted actions
            arm.animation_data.action_slot = ours[0]
        bones = list(arm.pose.bones)
        heads = np.zeros((len(times), len(bones), 3))
        for i, t in enumerate(times):
            frame = t * fps
            scene.frame_set(int(np.floor(frame)), subframe=float(frame - np.floor(frame)))
            for b, bone in enumerate(bones):
                p = arm.matrix_world @ bone.head
                heads[i, b] = (p.x, p.z, -p.y)          # Blender Z-up -> glTF Y-up
        result[f"names_{k}"] = np.array([b.name for b in bones])
        result[f"heads_{k}"] = heads
        names.append(action.name)
    np.savez(out, actions=np.array(names), **result)


if __name__ == "__main__":
    main(sys.argv[sys.argv.index("--") + 1:] if "--" in sys.argv else sys.argv[1:])
