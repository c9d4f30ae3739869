"""skelsimd.humanoid_map: the humanoid profile's bones found in real files (CMU and 20tab BVH,
CesiumMan, RobotExpressive), in synthetic skeletons of every naming family, in the same
skeletons with their names replaced (the topology and rest-geometry fallback, Y-up and Z-up),
with user overrides, and refused on non-humanoids and broken skeletons."""
import json
import os

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import skelsimd
from skelsimd import HUMANOID_BONES, HUMANOID_REQUIRED, humanoid_map
from skelsimd.humanoid import _parse
from strategies import unit_quaternions

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "data")
GLTF = os.path.join(DATA, "gltf")


def _gltf_skeleton(name):
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")       # CesiumMan's unnormalised weights
        return skelsimd.load_gltf(os.path.join(GLTF, name)).skins[0].skeleton


# --- the profile ----------------------------------------------------------------------------------

def test_profile_tables():
    assert len(HUMANOID_BONES) == len(set(HUMANOID_BONES)) == 55
    assert set(HUMANOID_REQUIRED) <= set(HUMANOID_BONES)
    assert list(HUMANOID_REQUIRED) == [b for b in HUMANOID_BONES if b in HUMANOID_REQUIRED]
    assert len(HUMANOID_REQUIRED) == 12 and "leftHand" not in HUMANOID_REQUIRED
    order = {b: i for i, b in enumerate(HUMANOID_BONES)}
    chains = [("hips", "spine", "chest", "upperChest", "neck", "head", "leftEye"),
              ("head", "jaw")]
    for s in ("left", "right"):
        chains += [("hips", f"{s}UpperLeg", f"{s}LowerLeg", f"{s}Foot", f"{s}Toes"),
                   ("upperChest", f"{s}Shoulder", f"{s}UpperArm", f"{s}LowerArm", f"{s}Hand",
                    f"{s}ThumbMetacarpal", f"{s}ThumbProximal", f"{s}ThumbDistal"),
                   (f"{s}Hand", f"{s}LittleProximal", f"{s}LittleIntermediate",
                    f"{s}LittleDistal")]
    for chain in chains:            # parents before children
        assert [order[b] for b in chain] == sorted(order[b] for b in chain), chain
    assert {"humanoid_map", "HUMANOID_BONES", "HUMANOID_REQUIRED"} <= set(skelsimd.__all__)


@pytest.mark.parametrize("name, side, word", [
    ("LeftUpLeg", "left", "upleg"), ("mixamorig:RightForeArm", "right", "forearm"),
    ("mixamorig1:LeftHand", "left", "hand"), ("mixamorigLeftArm", "left", "arm"),
    ("Armature|thigh_l", "left", "thigh"), ("LHipJoint", "left", "hipjoint"),
    ("RThumb", "right", "thumb"), ("L_Hip", "left", "hip"), ("r_hand", "right", "hand"),
    ("left_knee", "left", "knee"), ("UpperLeg_L", "left", "upperleg"),
    ("UpperLeg.L", "left", "upperleg"), ("UpperLegL", "left", "upperleg"),
    ("Palm2R", "right", "palm2"), ("thigh.l", "left", "thigh"), ("calf_r", "right", "calf"),
    ("DEF-thigh.L", "left", "thigh"), ("ORG-upper_arm.R", "right", "upperarm"),
    ("MCH-shin.L", "left", "shin"), ("DEF-thigh.L.001", "left", "thigh001"),
    ("Bip01 L Thigh", "left", "thigh"), ("lhand", "left", "hand"), ("rfoot", "right", "foot"),
    ("lowerback", None, "lowerback"), ("LowerBack", None, "lowerback"),
    ("lowerneck", None, "lowerneck"), ("Hips", None, "hips"), ("spine.001", None, "spine001"),
    ("spine_03", None, "spine03"), ("Root", None, "root"), ("HEAD", None, "head"),
    ("ball_l", "left", "ball"), ("LeftThumbMetacarpal", "left", "thumbmetacarpal"),
    ("J_Bip_C_Hips", None, "hips"), ("J_Bip_L_UpperLeg", "left", "upperleg"),
    ("J_Adj_R_FaceEye", "right", "faceeye"), ("CC_Base_L_Thigh", "left", "thigh"),
])
def test_names_are_normalised(name, side, word):
    assert _parse(name) == (side, word)


# --- real files -----------------------------------------------------------------------------------

CMU_01 = {
    "hips": "Hips", "spine": "LowerBack", "chest": "Spine", "upperChest": "Spine1",
    "neck": "Neck", "head": "Head",
    "leftUpperLeg": "LeftUpLeg", "leftLowerLeg": "LeftLeg", "leftFoot": "LeftFoot",
    "leftToes": "LeftToeBase",
    "rightUpperLeg": "RightUpLeg", "rightLowerLeg": "RightLeg", "rightFoot": "RightFoot",
    "rightToes": "RightToeBase",
    "leftShoulder": "LeftShoulder", "leftUpperArm": "LeftArm", "leftLowerArm": "LeftForeArm",
    "leftHand": "LeftHand",
    "rightShoulder": "RightShoulder", "rightUpperArm": "RightArm", "rightLowerArm": "RightForeArm",
    "rightHand": "RightHand",
    "leftThumbMetacarpal": "LThumb", "rightThumbMetacarpal": "RThumb",
}
# the bvh11 / mocapbank export of CMU: LeftHip is the thigh, LeftShoulder the upper arm
CMU_131 = {
    "hips": "Hips", "spine": "lowerback", "chest": "Chest", "upperChest": "Chest2",
    "neck": "lowerneck", "head": "Head",
    "leftUpperLeg": "LeftHip", "leftLowerLeg": "LeftKnee", "leftFoot": "LeftAnkle",
    "leftToes": "LeftToe",
    "rightUpperLeg": "RightHip", "rightLowerLeg": "RightKnee", "rightFoot": "RightAnkle",
    "rightToes": "RightToe",
    "leftShoulder": "LeftCollar", "leftUpperArm": "LeftShoulder", "leftLowerArm": "LeftElbow",
    "leftHand": "LeftWrist",
    "rightShoulder": "RightCollar", "rightUpperArm": "RightShoulder",
    "rightLowerArm": "RightElbow", "rightHand": "RightWrist",
    "leftThumbMetacarpal": "LThumb", "rightThumbMetacarpal": "RThumb",
}
MOCAPBANK = {
    "hips": "Hips", "spine": "Chest", "chest": "Chest2", "neck": "Neck", "head": "Head",
    "leftUpperLeg": "LeftHip", "leftLowerLeg": "LeftKnee", "leftFoot": "LeftAnkle",
    "rightUpperLeg": "RightHip", "rightLowerLeg": "RightKnee", "rightFoot": "RightAnkle",
    "leftShoulder": "LeftCollar", "leftUpperArm": "LeftShoulder", "leftLowerArm": "LeftElbow",
    "leftHand": "LeftWrist",
    "rightShoulder": "RightCollar", "rightUpperArm": "RightShoulder",
    "rightLowerArm": "RightElbow", "rightHand": "RightWrist",
}


def _mixamo_expected():
    m = {"hips": "Hips", "spine": "Spine", "chest": "Spine1", "upperChest": "Spine2",
         "neck": "Neck", "head": "Head"}
    for s, S in (("left", "Left"), ("right", "Right")):
        m.update({f"{s}Eye": f"{S}Eye", f"{s}UpperLeg": f"{S}UpLeg", f"{s}LowerLeg": f"{S}Leg",
                  f"{s}Foot": f"{S}Foot", f"{s}Toes": f"{S}ToeBase",
                  f"{s}Shoulder": f"{S}Shoulder", f"{s}UpperArm": f"{S}Arm",
                  f"{s}LowerArm": f"{S}ForeArm", f"{s}Hand": f"{S}Hand"})
        for f, word in (("Thumb", "Thumb"), ("Index", "Index"), ("Middle", "Middle"),
                        ("Ring", "Ring"), ("Little", "Pinky")):
            slots = (("Metacarpal", "Proximal", "Distal") if f == "Thumb"
                     else ("Proximal", "Intermediate", "Distal"))
            for k, slot in enumerate(slots, 1):
                m[f"{s}{f}{slot}"] = f"{S}Hand{word}{k}"
    return {b: "mixamorig:" + j for b, j in m.items()}


# RobotExpressive (Quaternius): Body is the parent of the legs and of the joint named Hips, so
# it is the profile's hips; the feet hang from the root Bone (IK); no hand joints (palms).
ROBOT = {
    "hips": "Body", "spine": "Abdomen", "chest": "Torso_1", "neck": "Neck", "head": "Head",
    "leftUpperLeg": "UpperLegL", "leftLowerLeg": "LowerLegL", "leftFoot": "FootL",
    "rightUpperLeg": "UpperLegR", "rightLowerLeg": "LowerLegR", "rightFoot": "FootR",
    "leftShoulder": "ShoulderL", "leftUpperArm": "UpperArmL", "leftLowerArm": "LowerArmL",
    "rightShoulder": "ShoulderR", "rightUpperArm": "UpperArmR", "rightLowerArm": "LowerArmR",
}
for _s, _L in (("left", "L"), ("right", "R")):     # two-joint fingers fill the first two slots
    ROBOT.update({f"{_s}ThumbMetacarpal": f"Thumb{_L}", f"{_s}ThumbProximal": f"Thumb2{_L}",
                  f"{_s}IndexProximal": f"Index{_L}", f"{_s}IndexIntermediate": f"Index2{_L}",
                  f"{_s}MiddleProximal": f"Middle1{_L}",
                  f"{_s}MiddleIntermediate": f"Middle2{_L}",
                  f"{_s}RingProximal": f"Ring1{_L}", f"{_s}RingIntermediate": f"Ring2{_L}"})
# CesiumMan: joints named nodeN, found by topology and geometry. It faces +X (its toes point
# there) with Y up, so its left is up x forward = -Z: the node7 leg and node16 arm.
CESIUM = {
    "hips": "node2", "spine": "node11", "chest": "node12", "neck": "node19", "head": "node20",
    "leftUpperLeg": "node7", "leftLowerLeg": "node8", "leftFoot": "node9", "leftToes": "node10",
    "rightUpperLeg": "node3", "rightLowerLeg": "node4", "rightFoot": "node5",
    "rightToes": "node6",
    "leftUpperArm": "node16", "leftLowerArm": "node17", "leftHand": "node18",
    "rightUpperArm": "node13", "rightLowerArm": "node14", "rightHand": "node15",
}

REAL = {
    "cmu_01_01.bvh.gz": CMU_01,
    "cmu_01_01_beyond_180.bvh": CMU_01,
    "cmu_131_01.bvh.gz": CMU_131,
    "cmu_131_02.bvh.gz": CMU_131,
    "example": CMU_131,
    "20tab_freebvh.bvh.gz": _mixamo_expected(),
    "20tab_freebvh_excerpt.bvh": _mixamo_expected(),
    "20tab_mocapbank.bvh.gz": MOCAPBANK,
    "20tab_mocapbank_excerpt.bvh": MOCAPBANK,
    "cesium_man.gltf": CESIUM,
    "RobotExpressive.glb": ROBOT,
}


def _real(name):
    if name == "example":
        return skelsimd.data.load_example().skeleton
    if name.endswith((".gltf", ".glb")):
        return _gltf_skeleton(name)
    return skelsimd.load_bvh(os.path.join(DATA, name)).skeleton


@pytest.fixture(scope="module")
def real_skeletons():
    return {name: _real(name) for name in REAL}


@pytest.mark.parametrize("name", sorted(REAL))
def test_real_files(name, real_skeletons):
    sk = real_skeletons[name]
    got = humanoid_map(sk)
    assert got == REAL[name]
    assert list(got) == [b for b in HUMANOID_BONES if b in got]
    _check_structure(sk, got)


@pytest.mark.parametrize("name", ["cmu_01_01_beyond_180.bvh", "20tab_freebvh_excerpt.bvh",
                                  "20tab_mocapbank_excerpt.bvh"])
def test_end_sites_change_nothing(name):
    path = os.path.join(DATA, name)
    with_ends = skelsimd.load_bvh(path, end_sites=True)
    assert len(with_ends.skeleton) > len(skelsimd.load_bvh(path).skeleton)
    assert humanoid_map(with_ends) == REAL[name]


def test_clip_and_skin_are_accepted():
    clip = skelsimd.data.load_example()
    assert humanoid_map(clip) == humanoid_map(clip.skeleton) == CMU_131
    asset = skelsimd.load_gltf(os.path.join(GLTF, "RobotExpressive.glb"))
    assert len(asset.skins) == 4
    for skin in asset.skins:         # four skins over the same joints
        assert humanoid_map(skin) == ROBOT


def _check_structure(sk, m):
    """The chains follow each other (module rule 2) and the spine is ordered along the
    hips-to-head path."""
    ix = {b: sk.index(j) for b, j in m.items()}
    p = sk.parents

    def above(a, b):          # a is a proper ancestor of b
        j = int(p[b])
        while j >= 0:
            if j == a:
                return True
            j = int(p[j])
        return False
    for s in ("left", "right"):
        assert above(ix["hips"], ix[f"{s}UpperLeg"])
        assert above(ix[f"{s}UpperLeg"], ix[f"{s}LowerLeg"])
        assert above(ix[f"{s}UpperArm"], ix[f"{s}LowerArm"])
        assert above(ix["hips"], ix[f"{s}UpperArm"])
        if f"{s}Hand" in ix:
            assert above(ix[f"{s}LowerArm"], ix[f"{s}Hand"])
        if f"{s}Shoulder" in ix:
            assert above(ix[f"{s}Shoulder"], ix[f"{s}UpperArm"])
        if f"{s}Toes" in ix:
            assert above(ix[f"{s}Foot"], ix[f"{s}Toes"])
    spine = [ix[b] for b in ("hips", "spine", "chest", "upperChest", "neck", "head") if b in ix]
    for a, b in zip(spine, spine[1:]):
        assert above(a, b)
    assert len(set(ix.values())) == len(ix)         # one joint per bone


# --- synthetic skeletons of every naming family ---------------------------------------------------

def _quat_x(deg):
    h = np.radians(deg) / 2
    return np.array([np.sin(h), 0.0, 0.0, np.cos(h)])


def build(names, *, spine=3, necks=1, hipjoint=False, clavicle=True, toes=True, twist=False,
          ik_feet=False, fingers=False, eyes=False, jaw=False, apose=False, segments=False,
          root=False, up="y"):
    """A Y-up humanoid in metres facing +Z (its left at +X), or Z-up (the root turned +90 degrees
    about X: facing -Y, Blender's convention); `names(role, side)` names each joint (None: no
    such joint). Returns the Skeleton."""
    joints = []                      # (name, parent name, offset)

    def add(role, parent, offset, side=None, k=None):
        name = names(role, side) if k is None else names(role, side, k)
        if name is not None:
            joints.append((name, parent, np.asarray(offset, float)))
        return name if name is not None else parent

    top = add("root", None, (0, 0, 0)) if root else None
    hips = add("hips", top, (0, 1.0, 0))
    chest = hips
    for i in range(spine):
        chest = add("spine", chest, (0, 0.45 / spine, 0), k=i)
    neck = chest
    for i in range(necks):
        neck = add("neck", neck, (0, 0.08, 0), k=i)
    head = add("head", neck, (0, 0.1, 0))
    if jaw:
        add("jaw", head, (0, -0.02, 0.05))
    c, s45 = (np.cos(np.radians(40)), np.sin(np.radians(40))) if apose else (1.0, 0.0)
    for side, x in (("left", 1.0), ("right", -1.0)):
        if eyes:
            add("eye", head, (0.03 * x, 0.06, 0.08), side)
        leg = hips
        if hipjoint:
            leg = add("hipjoint", leg, (0, 0, 0), side)
        leg = add("upperLeg", leg, (0.1 * x, -0.05, 0), side)
        if segments:
            leg = add("upperLegSeg", leg, (0, -0.22, 0), side)
        if twist:
            add("upperLegTwist", leg, (0, -0.2, 0.0), side)
        knee = add("lowerLeg", leg, (0, -0.44 + (0.22 if segments else 0), 0), side)
        leg = knee
        if segments:
            leg = add("lowerLegSeg", leg, (0, -0.2, 0), side)
        if ik_feet:
            foot = add("foot", top, (0.1 * x, 0.09, 0), side)
        else:
            foot = add("foot", leg, (0, -0.4 + (0.2 if segments else 0), 0), side)
        if toes:
            add("toes", foot, (0, -0.06, 0.12), side)
        arm = chest
        if clavicle:
            arm = add("shoulder", arm, (0.04 * x, 0.04, 0), side)
        arm = add("upperArm", arm, (0.12 * x, 0, 0), side)
        if twist:
            add("upperArmTwist", arm, (0.14 * x * c, -0.14 * s45, 0), side)
        if segments:
            arm = add("upperArmSeg", arm, (0.14 * x * c, -0.14 * s45, 0), side)
        elbow = add("lowerArm", arm, ((0.28 - 0.14 * segments) * x * c,
                                      -(0.28 - 0.14 * segments) * s45, 0), side)
        arm = elbow
        if twist:
            add("lowerArmTwist", arm, (0.12 * x * c, -0.12 * s45, 0), side)
        if segments:
            arm = add("lowerArmSeg", arm, (0.12 * x * c, -0.12 * s45, 0), side)
        hand = add("hand", arm, ((0.25 - 0.12 * segments) * x * c,
                                 -(0.25 - 0.12 * segments) * s45, 0), side)
        if fingers:
            for f, base in (("thumb", (0.03, 0, 0.04)), ("index", (0.09, 0, 0.03)),
                            ("middle", (0.09, 0, 0.01)), ("ring", (0.09, 0, -0.01)),
                            ("pinky", (0.08, 0, -0.03))):
                j = hand
                for k in range(1, 4):
                    off = base if k == 1 else (0.03, 0, 0.01 if f == "thumb" else 0)
                    j = add(f, j, (off[0] * x * c, -off[0] * s45, off[2]), side, k)
    names_ = [j[0] for j in joints]
    parents = [names_.index(j[1]) if j[1] is not None else -1 for j in joints]
    rest = np.zeros((len(joints), 8))
    rest[:, 3] = 1
    rest[:, 7] = 1
    rest[:, 4:7] = [j[2] for j in joints]
    if up == "z":
        for j, p in enumerate(parents):
            if p < 0:
                rest[j, :4] = _quat_x(90)
    return skelsimd.Skeleton(parents, names_, rest.astype(np.float32))


def _family(table):
    """names(role, side, k) from a table of templates: {S} Left/Right, {L} L/R, {l} l/r,
    {side} left/right, {n} the index k (+ the table's "base" for fingers)."""
    def names(role, side=None, k=None):
        t = table.get(role)
        if t is None:
            return None
        if isinstance(t, (list, tuple)):
            return t[k] if k < len(t) else None
        fill = {}
        if side is not None:
            fill = {"S": side.capitalize(), "L": side[0].upper(), "l": side[0], "side": side}
        if k is not None:
            fill["n"] = k + table.get("finger_base", 0) - 1 if role in FINGERS else k
            fill["f"] = table.get("finger_names", {}).get(role, role)
        return t.format(**fill)
    return names


FINGERS = ("thumb", "index", "middle", "ring", "pinky")

FAMILIES = {
    # family: (table of names, build options, expected spine / chest / upperChest / neck roles)
    "bandai-namco": ({
        "hips": "Hips", "spine": ["Spine", "Chest"], "neck": ["Neck"], "head": "Head",
        "upperLeg": "UpperLeg_{L}", "lowerLeg": "LowerLeg_{L}", "foot": "Foot_{L}",
        "toes": "Toes_{L}", "shoulder": "Shoulder_{L}", "upperArm": "UpperArm_{L}",
        "lowerArm": "LowerArm_{L}", "hand": "Hand_{L}"}, {"spine": 2}),
    "mixamo": ({
        "hips": "mixamorig:Hips", "spine": ["mixamorig:Spine", "mixamorig:Spine1",
                                            "mixamorig:Spine2"],
        "neck": ["mixamorig:Neck"], "head": "mixamorig:Head", "eye": "mixamorig:{S}Eye",
        "upperLeg": "mixamorig:{S}UpLeg", "lowerLeg": "mixamorig:{S}Leg",
        "foot": "mixamorig:{S}Foot", "toes": "mixamorig:{S}ToeBase",
        "shoulder": "mixamorig:{S}Shoulder", "upperArm": "mixamorig:{S}Arm",
        "lowerArm": "mixamorig:{S}ForeArm", "hand": "mixamorig:{S}Hand",
        **{f: "mixamorig:{S}Hand{f}{n}" for f in FINGERS},
        "finger_names": {f: f.capitalize() for f in FINGERS}, "finger_base": 1},
        {"fingers": True, "eyes": True}),
    "mixamo-threejs": ({           # three.js's loader drops the colon: mixamorigLeftUpLeg
        "hips": "mixamorigHips", "spine": ["mixamorigSpine", "mixamorigSpine1",
                                           "mixamorigSpine2"],
        "neck": ["mixamorigNeck"], "head": "mixamorigHead",
        "upperLeg": "mixamorig{S}UpLeg", "lowerLeg": "mixamorig{S}Leg",
        "foot": "mixamorig{S}Foot", "toes": "mixamorig{S}ToeBase",
        "shoulder": "mixamorig{S}Shoulder", "upperArm": "mixamorig{S}Arm",
        "lowerArm": "mixamorig{S}ForeArm", "hand": "mixamorig{S}Hand"}, {"apose": True}),
    "unreal4": ({
        "root": "root", "hips": "pelvis", "spine": ["spine_01", "spine_02", "spine_03"],
        "neck": ["neck_01"], "head": "head", "upperLeg": "thigh_{l}", "lowerLeg": "calf_{l}",
        "foot": "foot_{l}", "toes": "ball_{l}", "shoulder": "clavicle_{l}",
        "upperArm": "upperarm_{l}", "lowerArm": "lowerarm_{l}", "hand": "hand_{l}",
        "upperArmTwist": "upperarm_twist_01_{l}", "lowerArmTwist": "lowerarm_twist_01_{l}",
        "upperLegTwist": "thigh_twist_01_{l}",
        **{f: "{f}_0{n}_{l}" for f in FINGERS}, "finger_base": 1},
        {"root": True, "twist": True, "fingers": True, "apose": True}),
    "unreal5": ({
        "root": "root", "hips": "pelvis",
        "spine": ["spine_01", "spine_02", "spine_03", "spine_04", "spine_05"],
        "neck": ["neck_01", "neck_02"], "head": "head", "upperLeg": "thigh_{l}",
        "lowerLeg": "calf_{l}", "foot": "foot_{l}", "toes": "ball_{l}",
        "shoulder": "clavicle_{l}", "upperArm": "upperarm_{l}", "lowerArm": "lowerarm_{l}",
        "hand": "hand_{l}"}, {"root": True, "spine": 5, "necks": 2}),
    "rigify-def": ({           # the head is spine.006: found by topology
        "hips": "DEF-spine", "spine": ["DEF-spine.001", "DEF-spine.002", "DEF-spine.003"],
        "neck": ["DEF-spine.004", "DEF-spine.005"], "head": "DEF-spine.006",
        "upperLeg": "DEF-thigh.{L}", "upperLegSeg": "DEF-thigh.{L}.001",
        "lowerLeg": "DEF-shin.{L}", "lowerLegSeg": "DEF-shin.{L}.001", "foot": "DEF-foot.{L}",
        "toes": "DEF-toe.{L}", "shoulder": "DEF-shoulder.{L}", "upperArm": "DEF-upper_arm.{L}",
        "upperArmSeg": "DEF-upper_arm.{L}.001", "lowerArm": "DEF-forearm.{L}",
        "lowerArmSeg": "DEF-forearm.{L}.001", "hand": "DEF-hand.{L}",
        "thumb": "DEF-thumb.0{n}.{L}", **{f: "DEF-f_{f}.0{n}.{L}" for f in FINGERS[1:]},
        "finger_base": 1}, {"segments": True, "necks": 2, "fingers": True, "up": "z"}),
    "rigify-metarig": ({
        "hips": "spine", "spine": ["spine.001", "spine.002", "spine.003"],
        "neck": ["spine.004", "spine.005"], "head": "spine.006", "eye": "eye.{L}",
        "jaw": "jaw", "upperLeg": "thigh.{L}", "lowerLeg": "shin.{L}", "foot": "foot.{L}",
        "toes": "toe.{L}", "shoulder": "shoulder.{L}", "upperArm": "upper_arm.{L}",
        "lowerArm": "forearm.{L}", "hand": "hand.{L}"},
        {"necks": 2, "eyes": True, "jaw": True}),
    "blender-dot": ({
        "hips": "Hips", "spine": ["Spine", "Chest"], "neck": ["Neck"], "head": "Head",
        "upperLeg": "UpperLeg.{L}", "lowerLeg": "LowerLeg.{L}", "foot": "Foot.{L}",
        "toes": "Toes.{L}", "shoulder": "Shoulder.{L}", "upperArm": "UpperArm.{L}",
        "lowerArm": "LowerArm.{L}", "hand": "Hand.{L}"}, {"spine": 2, "up": "z"}),
    "quaternius": ({          # no separators, IK feet under the root
        "root": "Root", "hips": "Hips", "spine": ["Abdomen", "Torso"], "neck": ["Neck"],
        "head": "Head", "upperLeg": "UpperLeg{L}", "lowerLeg": "LowerLeg{L}",
        "foot": "Foot{L}", "shoulder": "Shoulder{L}", "upperArm": "UpperArm{L}",
        "lowerArm": "LowerArm{L}", "hand": "Hand{L}"},
        {"spine": 2, "ik_feet": True, "root": True, "toes": False, "apose": True}),
    "smpl": ({
        "hips": "Pelvis", "spine": ["Spine1", "Spine2", "Spine3"], "neck": ["Neck"],
        "head": "Head", "upperLeg": "{L}_Hip", "lowerLeg": "{L}_Knee", "foot": "{L}_Ankle",
        "toes": "{L}_Foot", "shoulder": "{L}_Collar", "upperArm": "{L}_Shoulder",
        "lowerArm": "{L}_Elbow", "hand": "{L}_Wrist"}, {}),
    "smpl-lowercase": ({
        "hips": "pelvis", "spine": ["spine1", "spine2", "spine3"], "neck": ["neck"],
        "head": "head", "upperLeg": "{side}_hip", "lowerLeg": "{side}_knee",
        "foot": "{side}_ankle", "toes": "{side}_foot", "shoulder": "{side}_collar",
        "upperArm": "{side}_shoulder", "lowerArm": "{side}_elbow", "hand": "{side}_wrist",
        **{f: "{side}_{f}{n}" for f in FINGERS}, "finger_base": 1}, {"fingers": True}),
    "cmu": ({
        "hips": "Hips", "hipjoint": "{L}HipJoint", "spine": ["LowerBack", "Spine", "Spine1"],
        "neck": ["Neck", "Neck1"], "head": "Head", "upperLeg": "{S}UpLeg",
        "lowerLeg": "{S}Leg", "foot": "{S}Foot", "toes": "{S}ToeBase",
        "shoulder": "{S}Shoulder", "upperArm": "{S}Arm", "lowerArm": "{S}ForeArm",
        "hand": "{S}Hand"}, {"hipjoint": True, "necks": 2}),
    "godot": ({
        "hips": "Hips", "spine": ["Spine", "Chest", "UpperChest"], "neck": ["Neck"],
        "head": "Head", "eye": "{S}Eye", "jaw": "Jaw", "upperLeg": "{S}UpperLeg",
        "lowerLeg": "{S}LowerLeg", "foot": "{S}Foot", "toes": "{S}Toes",
        "shoulder": "{S}Shoulder", "upperArm": "{S}UpperArm", "lowerArm": "{S}LowerArm",
        "hand": "{S}Hand",
        "thumb": "{S}Thumb{n}", "index": "{S}Index{n}", "middle": "{S}Middle{n}",
        "ring": "{S}Ring{n}", "pinky": "{S}Little{n}"},
        {"eyes": True, "jaw": True, "fingers": True}),
    "vroid": ({
        "hips": "J_Bip_C_Hips", "spine": ["J_Bip_C_Spine", "J_Bip_C_Chest",
                                          "J_Bip_C_UpperChest"],
        "neck": ["J_Bip_C_Neck"], "head": "J_Bip_C_Head", "eye": "J_Adj_{L}_FaceEye",
        "upperLeg": "J_Bip_{L}_UpperLeg", "lowerLeg": "J_Bip_{L}_LowerLeg",
        "foot": "J_Bip_{L}_Foot", "toes": "J_Bip_{L}_ToeBase", "shoulder": "J_Bip_{L}_Shoulder",
        "upperArm": "J_Bip_{L}_UpperArm", "lowerArm": "J_Bip_{L}_LowerArm",
        "hand": "J_Bip_{L}_Hand", **{f: "J_Bip_{L}_{f}{n}" for f in FINGERS},
        "finger_names": {"thumb": "Thumb", "index": "Index", "middle": "Middle", "ring": "Ring",
                         "pinky": "Little"}, "finger_base": 1},
        {"eyes": True, "fingers": True}),
    "character-creator": ({
        "hips": "CC_Base_Hip", "spine": ["CC_Base_Waist", "CC_Base_Spine01", "CC_Base_Spine02"],
        "neck": ["CC_Base_NeckTwist01", "CC_Base_NeckTwist02"], "head": "CC_Base_Head",
        "upperLeg": "CC_Base_{L}_Thigh", "lowerLeg": "CC_Base_{L}_Calf",
        "foot": "CC_Base_{L}_Foot", "toes": "CC_Base_{L}_ToeBase",
        "shoulder": "CC_Base_{L}_Clavicle", "upperArm": "CC_Base_{L}_Upperarm",
        "lowerArm": "CC_Base_{L}_Forearm", "hand": "CC_Base_{L}_Hand"}, {"necks": 2}),
    "biped": ({
        "hips": "Bip01 Pelvis", "spine": ["Bip01 Spine", "Bip01 Spine1", "Bip01 Spine2"],
        "neck": ["Bip01 Neck"], "head": "Bip01 Head", "upperLeg": "Bip01 {L} Thigh",
        "lowerLeg": "Bip01 {L} Calf", "foot": "Bip01 {L} Foot", "toes": "Bip01 {L} Toe0",
        "shoulder": "Bip01 {L} Clavicle", "upperArm": "Bip01 {L} UpperArm",
        "lowerArm": "Bip01 {L} Forearm", "hand": "Bip01 {L} Hand"}, {}),
}

_GODOT_SLOTS = {"thumb": ("Metacarpal", "Proximal", "Distal")}


def _godot_names(table):
    """Godot / VRM finger names carry the slot: LeftIndexProximal."""
    base = _family(table)

    def names(role, side=None, k=None):
        if role in FINGERS:
            slots = _GODOT_SLOTS.get(role, ("Proximal", "Intermediate", "Distal"))
            f = "Little" if role == "pinky" else role.capitalize()
            return f"{side.capitalize()}{f}{slots[k - 1]}"
        return base(role, side, k)
    return names


def _expected(table, names, opts):
    """The map the family's table implies (module rules 2 and 4)."""
    spine = [names("spine", None, i) for i in range(opts.get("spine", 3))]
    necks = [names("neck", None, i) for i in range(opts.get("necks", 1))]
    want = {"hips": names("hips"), "head": names("head"), "neck": necks[0]}
    body = [j for j in spine if j != names("hips")]
    want["spine"] = body[0]
    if len(body) == 2:
        want["chest"] = body[1]
    elif len(body) >= 3:
        want["chest"], want["upperChest"] = body[len(body) // 2], body[-1]
    if opts.get("jaw"):
        want["jaw"] = names("jaw")
    for side in ("left", "right"):
        for role, bone in (("eye", "Eye"), ("upperLeg", "UpperLeg"), ("lowerLeg", "LowerLeg"),
                           ("foot", "Foot"), ("toes", "Toes"), ("shoulder", "Shoulder"),
                           ("upperArm", "UpperArm"), ("lowerArm", "LowerArm"), ("hand", "Hand")):
            if role == "eye" and not opts.get("eyes") or role == "toes" and not opts.get(
                    "toes", True):
                continue
            want[side + bone] = names(role, side)
        if opts.get("fingers"):
            for f in FINGERS:
                slots = (("Metacarpal", "Proximal", "Distal") if f == "thumb"
                         else ("Proximal", "Intermediate", "Distal"))
                name = "Little" if f == "pinky" else f.capitalize()
                for k, slot in enumerate(slots, 1):
                    want[f"{side}{name}{slot}"] = names(f, side, k)
    return want


def _family_case(family):
    table, opts = FAMILIES[family]
    names = _godot_names(table) if family == "godot" else _family(table)
    return build(names, **opts), _expected(table, names, opts)


@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_naming_families(family):
    sk, want = _family_case(family)
    got = humanoid_map(sk)
    assert got == want
    _check_structure(sk, got)


@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_naming_families_without_rest_pose(family):
    """Names alone (no geometry) give the same map, except where the family's head is not
    named (Rigify's spine.006), which needs the rest pose's topology only."""
    sk, want = _family_case(family)
    bare = skelsimd.Skeleton(sk.parents, sk.names)
    assert humanoid_map(bare) == want


def test_the_test_suites_game_character():
    """skelsimd.testing's 96-joint Unreal-style character (no rest pose): five spine joints,
    twist bones, metacarpals before the numbered finger joints, face joints, IK helpers."""
    from skelsimd import testing as T
    parents, names = T.humanoid_skeleton()
    want = {"hips": "pelvis", "spine": "spine_01", "chest": "spine_03", "upperChest": "spine_05",
            "neck": "neck_01", "head": "head", "leftEye": "eye_l", "rightEye": "eye_r",
            "jaw": "jaw"}
    for s, x in (("left", "l"), ("right", "r")):
        want.update({f"{s}UpperLeg": f"thigh_{x}", f"{s}LowerLeg": f"calf_{x}",
                     f"{s}Foot": f"foot_{x}", f"{s}Toes": f"ball_{x}",
                     f"{s}Shoulder": f"clavicle_{x}", f"{s}UpperArm": f"upperarm_{x}",
                     f"{s}LowerArm": f"lowerarm_{x}", f"{s}Hand": f"hand_{x}"})
        for f, word in (("Thumb", "thumb"), ("Index", "index"), ("Middle", "middle"),
                        ("Ring", "ring"), ("Little", "pinky")):
            slots = (("Metacarpal", "Proximal", "Distal") if f == "Thumb"
                     else ("Proximal", "Intermediate", "Distal"))
            for k, slot in enumerate(slots, 1):
                want[f"{s}{f}{slot}"] = f"{word}_0{k}_{x}"
    assert humanoid_map(skelsimd.Skeleton(parents, names)) == want


# --- the fallback on topology and rest geometry ---------------------------------------------------

def _renamed(sk):
    return skelsimd.Skeleton(sk.parents, [f"j{i}" for i in range(len(sk))], sk.rest)


def _z_up(sk):
    """The same skeleton with its roots turned +90 degrees about X (Y-up -> Z-up)."""
    rest = np.array(sk.rest, dtype=np.float64)
    q = _quat_x(90)
    rot = skelsimd.quat_to_matrix(q.astype(np.float32)).astype(np.float64)
    for j in np.flatnonzero(np.asarray(sk.parents) < 0):
        if rest.ndim == 2:
            rest[j, :4] = skelsimd.quat_multiply(q.astype(np.float32),
                                                 rest[j, :4].astype(np.float32))
            rest[j, 4:7] = rot @ rest[j, 4:7]
        else:
            rest[j] = rot @ rest[j]
    return skelsimd.Skeleton(sk.parents, sk.names, rest.astype(np.float32))


def _required_of(m):
    return {b: j for b, j in m.items() if b in HUMANOID_REQUIRED}


@pytest.mark.parametrize("name", sorted(REAL))
@pytest.mark.parametrize("up", ["y", "z"])
def test_fallback_on_renamed_real_files(name, up, real_skeletons):
    """With every name replaced by j0..jN, topology and geometry alone find the same hips,
    head, legs and arms (and sides), Y-up or Z-up."""
    sk = real_skeletons[name]
    if up == "z":
        sk = _z_up(sk)
    got = humanoid_map(_renamed(sk))
    back = {b: sk.names[int(j[1:])] for b, j in got.items()}
    assert _required_of(back) == _required_of(REAL[name])
    for b in ("leftHand", "rightHand", "leftToes", "rightToes", "neck"):
        if b in REAL[name]:                  # the optional chain joints too, where they exist
            assert back[b] == REAL[name][b], b
    _check_structure(_renamed(sk), got)


@pytest.mark.parametrize("family", ["unreal4", "smpl", "cmu", "quaternius", "mixamo",
                                    "godot", "biped"])
@pytest.mark.parametrize("up", ["y", "z"])
def test_fallback_on_renamed_families(family, up):
    """Twist bones, IK feet, fingers, A-pose: the fallback's required bones are the names' own.
    (Limbs split into deform segments, Rigify's DEF-thigh.L.001, need their names: straight
    segments of equal length do not tell where the knee is.)"""
    sk, want = _family_case(family)
    if up == "z":
        sk = _z_up(sk)
    got = humanoid_map(_renamed(sk))
    back = {b: sk.names[int(j[1:])] for b, j in got.items()}
    assert _required_of(back) == _required_of(want)


def test_fallback_allows_a_prop_joint():
    """A weapon joint under one hand leaves the arms a pair."""
    sk, want = _family_case("unreal4")
    names = list(sk.names) + ["weapon_r"]
    parents = list(sk.parents) + [sk.index("hand_r")]
    rest = np.concatenate([sk.rest, [[0, 0, 0, 1, 0.05, -0.05, 0.1, 1]]]).astype(np.float32)
    with_prop = skelsimd.Skeleton(parents, names, rest)
    assert humanoid_map(with_prop) == want
    got = humanoid_map(_renamed(with_prop))
    back = {b: names[int(j[1:])] for b, j in got.items()}
    assert _required_of(back) == _required_of(want) and back["rightHand"] == "hand_r"


def test_fallback_reads_the_side_from_the_toes():
    """Facing -X (toes towards -X, Y up), the character's left is up x forward = +Z."""
    sk, _ = _family_case("cmu")
    rest = np.array(sk.rest)
    h = np.radians(-90) / 2            # turn the whole character -90 degrees about Y
    rest[0, :4] = [0, np.sin(h), 0, np.cos(h)]
    turned = skelsimd.Skeleton(sk.parents, sk.names, rest)
    got = humanoid_map(_renamed(turned))
    back = {b: sk.names[int(j[1:])] for b, j in got.items()}
    assert back["leftUpperLeg"] == "LeftUpLeg" and back["rightUpperArm"] == "RightArm"
    pos = skelsimd.qts_local_to_global_matrix(turned.rest, turned)[:, :, 3]
    assert pos[sk.index("LeftUpLeg"), 2] > 0 > pos[sk.index("RightUpLeg"), 2]


def test_partial_names_are_completed_by_topology():
    """Rigify-style names for the limbs and an unnamed head: the names keep the limbs and the
    topology gives the head and neck."""
    sk, want = _family_case("rigify-metarig")
    names = list(sk.names)
    for j in ("spine.004", "spine.005", "spine.006"):
        names[names.index(j)] = f"bone_{j[-3:]}"
    got = humanoid_map(skelsimd.Skeleton(sk.parents, names, sk.rest))
    assert got["head"] == "bone_006" and got["neck"] == "bone_004"
    assert got["leftUpperArm"] == "upper_arm.L" and got["rightLowerLeg"] == "shin.R"


# --- errors ---------------------------------------------------------------------------------------

def test_quadruped_is_refused():
    fox = _gltf_skeleton("Fox.glb")
    with pytest.raises(ValueError) as info:
        humanoid_map(fox)
    msg = str(info.value)
    assert "skeleton" in msg
    assert all(b in msg for b in HUMANOID_REQUIRED), msg
    with pytest.raises(ValueError, match="leftUpperLeg"):
        humanoid_map(_renamed(fox))


def test_missing_leg_is_named():
    sk, _ = _family_case("mixamo")
    keep = [j for j in range(len(sk)) if "RightUpLeg" not in sk.names[j] and not any(
        w in sk.names[j] for w in ("RightLeg", "RightFoot", "RightToeBase"))]
    old = {j: i for i, j in enumerate(keep)}
    parents = [old[int(sk.parents[j])] if sk.parents[j] >= 0 else -1 for j in keep]
    one_leg = skelsimd.Skeleton(parents, [sk.names[j] for j in keep], sk.rest[keep])
    with pytest.raises(ValueError) as info:
        humanoid_map(one_leg)
    msg = str(info.value)
    assert "rightUpperLeg" in msg and "rightLowerLeg" in msg and "rightFoot" in msg
    assert "leftUpperLeg" not in msg and "hips" not in msg.split("missing")[1].split(" among")[0]


def test_broken_chain_is_refused():
    """A lower leg that is not below its upper leg (siblings under the hips) is no leg; without
    a rest pose the topology cannot help, and the message says so."""
    sk, _ = _family_case("godot")
    names = list(sk.names)
    parents = np.array(sk.parents)
    parents[names.index("LeftLowerLeg")] = names.index("Hips")
    broken = skelsimd.Skeleton(parents, names)
    with pytest.raises(ValueError) as info:
        humanoid_map(broken)
    msg = str(info.value)
    assert "leftUpperLeg" in msg and "leftLowerLeg" in msg and "no rest pose" in msg
    assert "rightUpperLeg" not in msg


def test_named_hand_off_the_arm_is_refused():
    """A rig that names a hand must have it below the lower arm (an override may still drop
    it)."""
    sk, _ = _family_case("bandai-namco")
    parents = np.array(sk.parents)
    parents[sk.index("Hand_L")] = sk.index("Hips")
    broken = skelsimd.Skeleton(parents, sk.names, sk.rest)
    with pytest.raises(ValueError, match="missing leftHand among"):
        humanoid_map(broken)
    got = humanoid_map(broken, {"leftHand": None})
    assert "leftHand" not in got and got["rightHand"] == "Hand_R"


def test_no_names_and_no_rest_pose():
    sk, _ = _family_case("smpl")
    with pytest.raises(ValueError, match="missing hips, head, .*no rest pose"):
        humanoid_map(skelsimd.Skeleton(sk.parents))


def test_non_finite_rest_pose_is_not_used():
    sk, want = _family_case("smpl")
    rest = np.array(sk.rest)
    rest[3, 5] = np.nan
    assert humanoid_map(skelsimd.Skeleton(sk.parents, sk.names, rest)) == want   # names
    with pytest.raises(ValueError, match="missing hips.*the rest pose is not finite"):
        humanoid_map(skelsimd.Skeleton(sk.parents, rest=rest))


def test_bad_skeleton_argument():
    with pytest.raises(TypeError, match="skeleton: expected a Skeleton, a Clip or a GltfSkin"):
        humanoid_map([-1, 0, 1])
    with pytest.raises(TypeError, match="skeleton"):
        humanoid_map(None)


# --- overrides ------------------------------------------------------------------------------------

def test_overrides_dict():
    clip = skelsimd.data.load_example()
    got = humanoid_map(clip, {"leftHand": "lhand", "leftThumbMetacarpal": None,
                              "rightToes": "RightAnkle"})
    assert got["leftHand"] == "lhand"
    assert "leftThumbMetacarpal" not in got and got["rightThumbMetacarpal"] == "RThumb"
    assert got["rightToes"] == "RightAnkle"
    assert {b: j for b, j in got.items() if b not in ("leftHand", "rightToes")} == {
        b: j for b, j in CMU_131.items() if b not in ("leftHand", "rightToes",
                                                    "leftThumbMetacarpal")}
    assert list(got) == [b for b in HUMANOID_BONES if b in got]


def test_overrides_json_file(tmp_path):
    path = tmp_path / "map.json"
    path.write_text(json.dumps({"neck": "Neck", "chest": "Chest2"}))
    got = humanoid_map(skelsimd.data.load_example(), path)
    assert got["neck"] == "Neck" and got["chest"] == "Chest2"
    assert humanoid_map(skelsimd.data.load_example(), str(path)) == got


def test_overrides_complete_a_failing_skeleton():
    """The fox is no humanoid, but a user may still name every required bone."""
    fox = _gltf_skeleton("Fox.glb")
    user = {"hips": "b_Hip_01", "head": "b_Head_05",
            "leftUpperLeg": "b_LeftLeg01_015", "leftLowerLeg": "b_LeftLeg02_016",
            "leftFoot": "b_LeftFoot01_017", "rightUpperLeg": "b_RightLeg01_019",
            "rightLowerLeg": "b_RightLeg02_020", "rightFoot": "b_RightFoot01_021",
            "leftUpperArm": "b_LeftUpperArm_09", "leftLowerArm": "b_LeftForeArm_010",
            "rightUpperArm": "b_RightUpperArm_06", "rightLowerArm": "b_RightForeArm_07"}
    got = humanoid_map(fox, user)
    assert _required_of(got) == user
    # the spine follows the overridden hips-to-head path
    assert (got["spine"], got["chest"], got["neck"]) == ("b_Spine01_02", "b_Spine02_03",
                                                         "b_Neck_04")


def test_overridden_ends_move_the_spine():
    cmu = _real("cmu_01_01_beyond_180.bvh")
    got = humanoid_map(cmu, {"hips": "LowerBack"})
    assert (got["hips"], got["spine"], got["chest"], got["neck"]) == ("LowerBack", "Spine",
                                                                     "Spine1", "Neck")
    assert "upperChest" not in got
    got = humanoid_map(cmu, {"head": "Neck1"})
    assert (got["spine"], got["chest"], got["upperChest"], got["neck"], got["head"]) == (
        "LowerBack", "Spine", "Spine1", "Neck", "Neck1")
    got = humanoid_map(cmu, {"hips": "LowerBack", "chest": "Spine"})   # given spine bones stay
    assert (got["spine"], got["chest"], got["upperChest"]) == ("LowerBack", "Spine", "Spine1")


def test_overrides_errors(tmp_path):
    clip = skelsimd.data.load_example()
    with pytest.raises(ValueError, match=r"overrides\['leftFoot'\] = 'LeftFoot': no joint named "
                                         r"'LeftFoot'"):
        humanoid_map(clip, {"leftFoot": "LeftFoot"})
    with pytest.raises(ValueError, match="'leftfoot' is not a bone of the humanoid profile.*"
                                         "similar: leftFoot"):
        humanoid_map(clip, {"leftfoot": "LeftAnkle"})
    with pytest.raises(ValueError, match="missing leftFoot"):
        humanoid_map(clip, {"leftFoot": None})
    with pytest.raises(TypeError, match=r"overrides\['head'\]: expected a joint name"):
        humanoid_map(clip, {"head": 16})
    with pytest.raises(TypeError, match="overrides: expected a dict"):
        humanoid_map(clip, [("head", "Head")])
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    with pytest.raises(ValueError, match="overrides: .* is not valid JSON"):
        humanoid_map(clip, bad)
    bad.write_text("[1, 2]")
    with pytest.raises(ValueError, match="must hold a JSON object"):
        humanoid_map(clip, bad)
    with pytest.raises(FileNotFoundError):
        humanoid_map(clip, tmp_path / "absent.json")


# --- invariance of the fallback -------------------------------------------------------------------

@settings(deadline=None)
@given(seed=st.integers(0, 2**32 - 1), unit=st.floats(0.01, 100.0),
       order=st.sampled_from(["depth-first", "breadth-first"]))
def test_fallback_ignores_orientation_unit_and_joint_order(seed, unit, order):
    """A renamed CMU skeleton (its toes give the facing) turned by any rotation, in any unit and
    joint order maps to the same joints."""
    sk = _real("cmu_01_01_beyond_180.bvh")
    q = unit_quaternions((), np.random.default_rng(seed)).astype(np.float32)
    rest = np.array(sk.rest, dtype=np.float32)
    rest[:, 4:7] *= unit
    rest[0, :4] = q
    turned = skelsimd.Skeleton(sk.parents, [f"j{i}" for i in range(len(sk))], rest)
    turned, perm, _ = turned.reorder(order)
    got = humanoid_map(turned)
    back = {b: sk.names[int(j[1:])] for b, j in got.items()}
    assert _required_of(back) == _required_of(CMU_01)
    assert back["leftToes"] == "LeftToeBase" and back["rightHand"] == "RightHand"


@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_names_ignore_joint_order(family):
    sk, want = _family_case(family)
    assert humanoid_map(sk.reorder("breadth-first")[0]) == want
