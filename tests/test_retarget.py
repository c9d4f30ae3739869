"""skelsimd.Retargeter and skelsimd.pose_to_tpose: the exact cases (the same skeleton gives the
clip back; re-oriented joint frames, a Z-up root and another unit give the same world positions;
other proportions and an A-pose give the same bone directions and the root path scaled by the leg
ratio), feet kept on the CMU clips, glTF characters as targets, and bad input."""
import os

import numpy as np
import pytest

import skelsimd
from skelsimd._rotation64 import quat_conj, quat_mul, quat_rotate
from skelsimd.footplant import _labels
from skelsimd.retarget import CONTACT_SPEED, _remap_numpy

DATA = os.path.join(os.path.dirname(__file__), "data")
GLTF = os.path.join(DATA, "gltf")


def _profile(left, right, **body):
    """A humanoid profile map of a rig whose side names are built by ``left``/``right``."""
    out = dict(body)
    for side, name in (("left", left), ("right", right)):
        for bone, joint in (("UpperLeg", "UpLeg"), ("LowerLeg", "Leg"), ("Foot", "Foot"),
                            ("Toes", "ToeBase"), ("Shoulder", "Shoulder"), ("UpperArm", "Arm"),
                            ("LowerArm", "ForeArm"), ("Hand", "Hand")):
            out[side + bone] = name(joint)
    return out


# The profile of each clip family (written out here so that the tests do not depend on the
# automatic map; mapping="auto" is tested separately).
CMU_131 = {"hips": "Hips", "spine": "lowerback", "chest": "Chest", "upperChest": "Chest2",
           "neck": "Neck", "head": "Head"}
for _s, _n in (("left", "Left"), ("right", "Right")):
    CMU_131.update({_s + "UpperLeg": _n + "Hip", _s + "LowerLeg": _n + "Knee",
                    _s + "Foot": _n + "Ankle", _s + "Toes": _n + "Toe",
                    _s + "Shoulder": _n + "Collar", _s + "UpperArm": _n + "Shoulder",
                    _s + "LowerArm": _n + "Elbow", _s + "Hand": _n + "Wrist"})
CMU_01 = _profile(lambda j: "Left" + j, lambda j: "Right" + j, hips="Hips", spine="LowerBack",
                  chest="Spine", upperChest="Spine1", neck="Neck", head="Head")
MIXAMO = {k: "mixamorig:" + v for k, v in _profile(
    lambda j: "Left" + j, lambda j: "Right" + j, hips="Hips", spine="Spine", chest="Spine1",
    upperChest="Spine2", neck="Neck", head="Head").items()}
ROBOT = {"hips": "Hips", "spine": "Abdomen", "chest": "Torso_1", "neck": "Neck", "head": "Head"}
for _s, _n in (("left", "L"), ("right", "R")):
    ROBOT.update({_s + "UpperLeg": "UpperLeg" + _n, _s + "LowerLeg": "LowerLeg" + _n,
                  _s + "Foot": "Foot" + _n, _s + "Shoulder": "Shoulder" + _n,
                  _s + "UpperArm": "UpperArm" + _n, _s + "LowerArm": "LowerArm" + _n,
                  _s + "Hand": "Palm2" + _n})

CLIPS = {"example": (None, CMU_131), "cmu_131_02": ("cmu_131_02.bvh.gz", CMU_131),
         "cmu_01_01": ("cmu_01_01.bvh.gz", CMU_01),
         "20tab_freebvh": ("20tab_freebvh_excerpt.bvh", MIXAMO)}
_CACHE = {}


def _clip(name):
    if name not in _CACHE:
        path, profile = CLIPS[name]
        clip = skelsimd.data.load_example() if path is None else skelsimd.load_bvh(
            os.path.join(DATA, path))
        if clip.frames > 600:
            clip = clip[:600]
        _CACHE[name] = clip, profile
    return _CACHE[name]


def _pairs(source, target):
    """A profile dict naming both rigs' joints: bone -> (source joint, target joint)."""
    return {k: (source[k], target[k]) for k in target if k in source}


def _needs_profile():
    """The automatic humanoid map (skelsimd.humanoid_map) for the tests that use it."""
    return pytest.importorskip("skelsimd.humanoid")


def _robot():
    path = os.path.join(GLTF, "RobotExpressive.glb")
    if not os.path.exists(path):
        pytest.skip("RobotExpressive.glb is not in tests/data/gltf")
    return skelsimd.load_gltf(path)


def _angles(a, b):
    a, b = np.asarray(a, np.float64), np.asarray(b, np.float64)
    return np.arctan2(np.linalg.norm(np.cross(a, b), axis=-1), np.sum(a * b, axis=-1))


def _same_quat(a, b):
    """|a - b| with b's sign chosen per quaternion (q and -q are the same rotation)."""
    s = np.where(np.sum(a * b, axis=-1, keepdims=True) < 0, -1.0, 1.0)
    return np.abs(a - s * b)


# --- source == target ------------------------------------------------------------------------------

@pytest.mark.parametrize("name", list(CLIPS))
def test_same_skeleton_gives_the_clip_back(name):
    clip, _ = _clip(name)
    same = {n: n for n in clip.skeleton.names}
    out = skelsimd.Retargeter(clip, clip, same, scale=1.0).apply(clip)
    assert out.skeleton is clip.skeleton and out.frame_time == clip.frame_time
    assert _same_quat(out.local[..., :4], clip.local[..., :4]).max() < 1e-6
    size = np.ptp(clip.global_positions()[0], axis=0).max()
    assert np.abs(out.local[..., 4:] - clip.local[..., 4:]).max() <= 1e-6 * size


def test_same_skeleton_with_the_profile_gives_the_clip_back():
    """With the defaults (T-posed rests, the frame from the geometry, the leg ratio)."""
    _needs_profile()
    clip, _ = _clip("example")
    rt = skelsimd.Retargeter(clip, clip, {n: n for n in clip.skeleton.names})
    assert abs(rt.scale - 1.0) < 1e-12 and np.abs(rt.frame - np.eye(3)).max() < 1e-12
    out = rt.apply(clip)
    assert _same_quat(out.local[..., :4], clip.local[..., :4]).max() < 1e-6


# --- re-oriented joint frames, Z-up, units --------------------------------------------------------

def _random_quats(rng, n):
    q = rng.normal(size=(n, 4))
    return q / np.linalg.norm(q, axis=-1, keepdims=True)


def _reoriented(clip, frames, root, unit):
    """The clip's skeleton with joint j's local frame turned by frames[j] (offsets, rest and
    poses rotated to match), its world turned by ``root`` and its lengths times ``unit``."""
    parents = clip.skeleton.parents

    def convert(local):
        local = np.asarray(local, np.float64)
        out = np.empty_like(local)
        for j, p in enumerate(parents):
            if p < 0:
                out[..., j, :4] = quat_mul(quat_mul(root, local[..., j, :4]), frames[j])
                out[..., j, 4:7] = quat_rotate(root, local[..., j, 4:7]) * unit
            else:
                inv = quat_conj(frames[p])
                out[..., j, :4] = quat_mul(quat_mul(inv, local[..., j, :4]), frames[j])
                out[..., j, 4:7] = quat_rotate(inv, local[..., j, 4:7]) * unit
            out[..., j, 7] = local[..., j, 7]
        return out.astype(np.float32)

    skel = skelsimd.Skeleton(parents, clip.skeleton.names, convert(clip.skeleton.rest))
    return skel, skelsimd.Clip(skel, convert(clip.local), clip.frame_time)


Z_UP = np.array([np.sqrt(0.5), 0.0, 0.0, np.sqrt(0.5)])      # +90 degrees about x: y -> z


@pytest.mark.parametrize("name", ["example", "cmu_01_01", "20tab_freebvh"])
@pytest.mark.parametrize("case", ["frames", "z-up and metres", "both"])
def test_reoriented_skeleton_gives_the_same_world_positions(name, case):
    clip, _ = _clip(name)
    rng = np.random.default_rng(len(name) + len(case))
    n = len(clip.skeleton)
    frames = _random_quats(rng, n) if case != "z-up and metres" else np.tile([0, 0, 0, 1.0], (n, 1))
    root, unit = (Z_UP, 0.01) if case != "frames" else (np.array([0, 0, 0, 1.0]), 1.0)
    target, truth = _reoriented(clip, frames, root, unit)
    same = {n: n for n in clip.skeleton.names}
    if case == "frames":
        rt = skelsimd.Retargeter(clip, target, same, scale=1.0)
    else:
        _needs_profile()
        rt = skelsimd.Retargeter(clip, target, same)
        assert abs(rt.scale - unit) < 1e-6 * unit
    out = rt.apply(clip)
    size = np.ptp(truth.global_positions()[0], axis=0).max()
    err = np.abs(out.global_positions(precision="float64")
                 - truth.global_positions(precision="float64")).max()
    assert err <= 1e-5 * size, (err / size)


def test_reoriented_skeleton_with_the_profile_dict():
    """A profile dict naming joints of both (no automatic map needed): the frame, the T-pose
    and the leg ratio from it; the mapped joints' world rotations follow the source's."""
    clip, profile = _clip("example")
    rng = np.random.default_rng(7)
    target, truth = _reoriented(clip, _random_quats(rng, len(clip.skeleton)), Z_UP, 0.01)
    rt = skelsimd.Retargeter(clip, target, profile)
    assert abs(rt.scale - 0.01) < 1e-8
    assert np.abs(rt.frame - np.array([[1, 0, 0], [0, 0, -1], [0, 1, 0]])).max() < 1e-6
    out = rt.apply(clip)
    g_out = skelsimd.qts_local_to_global(out.local, target)
    g_truth = skelsimd.qts_local_to_global(truth.local, target)
    idx = [target.index(j) for j in rt.mapping.values()]
    assert _same_quat(g_out[:, idx, :4], g_truth[:, idx, :4]).max() < 1e-5
    hips = target.index("Hips")
    assert np.abs(g_out[:, hips, 4:7] - g_truth[:, hips, 4:7]).max() < 1e-6


# --- other proportions, A-pose ---------------------------------------------------------------------

def _forward(sk, profile, pos):
    """The character's forward axis as the guide defines it: side x up, up from the spine to
    the head and side from the right upper leg to the left one, both paths counted bone by
    bone with unit steps."""
    def path(a, b):
        def chain(j):
            out = []
            while j >= 0:
                out.append(j)
                j = int(sk.parents[j])
            return out
        ca, cb = chain(sk.index(a)), chain(sk.index(b))
        common = set(ca) & set(cb)

        def steps(c):
            v = np.zeros(3)
            for j in c:
                if j in common:
                    break
                bone = pos[j] - pos[sk.parents[j]]
                if np.linalg.norm(bone) > 0:
                    v += bone / np.linalg.norm(bone)
            return v
        return steps(cb) - steps(ca)
    up = path(profile.get("spine", profile["hips"]), profile["head"])
    up /= np.linalg.norm(up)
    side = path(profile["rightUpperLeg"], profile["leftUpperLeg"])
    side -= np.dot(side, up) * up
    forward = np.cross(side, up)
    return forward / np.linalg.norm(forward)


def _proportions(clip, profile, rng, a_pose=np.pi / 4, symmetric=False):
    """Bones scaled by 0.6 to 1.6 at random (the same factor on both sides when
    ``symmetric``), arms lowered by ``a_pose`` about the character's forward axis (an A-pose:
    a turn about another axis would also twist the hands, which no T-pose can tell)."""
    rest = clip.skeleton.rest.astype(np.float64).copy()
    factors = rng.uniform(0.6, 1.6, size=len(rest))
    if symmetric:
        names = clip.skeleton.names
        for j, n in enumerate(names):
            twin = n.replace("Left", "Right").replace("LHip", "RHip").replace("lhand", "rhand")
            if twin != n and twin in names:
                factors[names.index(twin)] = factors[j]
    rest[:, 4:7] *= factors[:, None]
    sk = clip.skeleton
    world = skelsimd.qts_local_to_global(clip.skeleton.rest, sk).astype(np.float64)
    forward = _forward(sk, profile, world[:, 4:7])
    for side, sign in (("left", -1.0), ("right", 1.0)):
        j = sk.index(profile[side + "UpperArm"])
        p = int(sk.parents[j])
        turn = np.r_[forward * np.sin(sign * a_pose / 2), np.cos(sign * a_pose / 2)]
        # a world-space turn of the upper arm, as a local one
        rest[j, :4] = quat_mul(quat_mul(quat_conj(world[p, :4]), quat_mul(turn, world[p, :4])),
                               rest[j, :4])
    target = skelsimd.Skeleton(sk.parents, sk.names, rest.astype(np.float32))
    return target


def _legs(skeleton, profile, rest=None):
    pos = skelsimd.qts_local_to_global(skeleton.rest if rest is None else rest,
                                       skeleton)[:, 4:7].astype(np.float64)
    total = 0.0
    for side in ("left", "right"):
        chain = [skeleton.index(profile[side + b]) for b in ("UpperLeg", "LowerLeg", "Foot")]
        total += np.linalg.norm(np.diff(pos[chain], axis=0), axis=-1).sum()
    return total / 2


@pytest.mark.parametrize("name", ["example", "cmu_131_02", "cmu_01_01", "20tab_freebvh"])
def test_other_proportions_keep_every_bone_direction(name):
    clip, profile = _clip(name)
    rng = np.random.default_rng(len(name))
    target = _proportions(clip, profile, rng)
    rt = skelsimd.Retargeter(clip, target, profile)
    assert np.abs(rt.frame - np.eye(3)).max() < 1e-6          # the frame ignores proportions
    ratio = _legs(target, profile) / _legs(clip.skeleton, profile)
    assert abs(rt.scale - ratio) < 1e-7 * ratio
    out = rt.apply(clip)
    gs = clip.global_positions(precision="float64")
    gt = out.global_positions(precision="float64")
    sk, bones = clip.skeleton, 0
    for s_name, t_name in rt.mapping.items():
        j = sk.index(s_name)
        for c in sk.children(j):
            if sk.names[c] not in rt.mapping:
                continue
            tj, tc = target.index(t_name), target.index(rt.mapping[sk.names[c]])
            src, dst = gs[:, c] - gs[:, j], gt[:, tc] - gt[:, tj]
            if np.linalg.norm(src, axis=-1).min() == 0:
                continue
            bones += 1
            assert _angles(src, dst).max() < 1e-4, (s_name, sk.names[c])
    assert bones >= 14
    hips = sk.index(profile["hips"])
    root = target.index(rt.mapping[profile["hips"]])
    assert np.abs(gt[:, root] - (ratio * gs[:, hips] + rt.lift)).max() \
        < 1e-5 * np.abs(gt[:, root]).max()
    # the lift: the hips' height above the feet, the T-posed rests' (legs straight down)
    rests = [skelsimd.qts_local_to_global(skelsimd.pose_to_tpose(s, mapping=profile), s)[:, 4:7]
             for s in (sk, target)]
    height = [r[s.index(profile["hips"]), 1] - (r[s.index(profile["leftFoot"]), 1]
                                                 + r[s.index(profile["rightFoot"]), 1]) / 2
              for r, s in zip(rests, (sk, target))]
    assert abs(rt.lift[1] - (height[1] - ratio * height[0])) < 1e-3 * height[1]


def test_pose_to_tpose_straightens_the_chains():
    clip, profile = _clip("example")
    target = _proportions(clip, profile, np.random.default_rng(3))
    rest = skelsimd.pose_to_tpose(target, mapping=profile)
    pos = skelsimd.qts_local_to_global(rest, target)[:, 4:7].astype(np.float64)
    before = skelsimd.qts_local_to_global(target.rest, target)[:, 4:7].astype(np.float64)
    i = {k: target.index(v) for k, v in profile.items()}
    up = pos[i["head"]] - pos[i["neck"]]
    up /= np.linalg.norm(up)
    for a, b in (("spine", "chest"), ("chest", "upperChest"), ("upperChest", "neck")):
        assert _angles(pos[i[b]] - pos[i[a]], up) < 1e-5
    for side in ("left", "right"):
        for a, b in (("UpperLeg", "LowerLeg"), ("LowerLeg", "Foot")):
            assert _angles(pos[i[side + b]] - pos[i[side + a]], -up) < 1e-5
        arm = pos[i[side + "Hand"]] - pos[i[side + "UpperArm"]]
        assert _angles(pos[i[side + "LowerArm"]] - pos[i[side + "UpperArm"]], arm) < 1e-5
        assert abs(np.dot(arm, up)) < 1e-5 * np.linalg.norm(arm)      # horizontal
    left = pos[i["leftHand"]] - pos[i["rightHand"]]
    hips_side = pos[i["leftUpperLeg"]] - pos[i["rightUpperLeg"]]
    assert np.dot(left, hips_side) > 0                                   # left arm to the left
    # bone lengths and the hips' placement are kept
    for j, p in enumerate(target.parents):
        if p >= 0:
            assert abs(np.linalg.norm(pos[j] - pos[p])
                       - np.linalg.norm(before[j] - before[p])) < 1e-4
    assert np.array_equal(rest[:, 4:], target.rest[:, 4:])


# --- feet ------------------------------------------------------------------------------------------

def _free(clip, contact):
    """Frames farther than the blend ramp from every contact frame."""
    on = _labels(clip, contact, "contact")
    ramp = int(np.ceil(0.1 / clip.frame_time)) + 1
    return ~np.convolve(on, np.ones(2 * ramp + 1), "same").astype(bool)


# measured: mean sliding per contact frame of the ankles (target units, the source's scaled)
# 0.02 to 0.04 for the source, 2e-6 to 5e-6 with feet= (see docs/guide/retargeting.md)
@pytest.mark.parametrize("name", ["example", "cmu_131_02", "cmu_01_01"])
def test_feet_do_not_slide_more_than_the_source(name):
    clip, profile = _clip(name)
    target = _proportions(clip, profile, np.random.default_rng(11), symmetric=True)
    feet = [profile["leftFoot"], profile["rightFoot"]]
    rt = skelsimd.Retargeter(clip, target, profile, feet=feet)
    plain = skelsimd.Retargeter(clip, target, profile).apply(clip)
    out = rt.apply(clip)
    speed = CONTACT_SPEED * _legs(clip.skeleton, profile)
    for foot in feet:
        contact = clip.contacts(foot, speed=speed)
        source = skelsimd.foot_sliding(clip, foot, contact) * rt.scale
        after = skelsimd.foot_sliding(out, rt.mapping[foot], contact)
        before = skelsimd.foot_sliding(plain, rt.mapping[foot], contact)
        assert source.size > 20
        assert after.mean() <= source.mean() and after.max() <= source.max() + 1e-6, \
            (foot, source.mean(), before.mean(), after.mean())
        # outside its contacts and their ramps, the leg is the plain retarget's
        free = _free(clip, contact)
        leg = [target.index(rt.mapping[profile[side + b]]) for side in ("left", "right")
               for b in ("UpperLeg", "LowerLeg", "Foot") if profile[side + "Foot"] == foot]
        assert free.sum() > 10
        assert np.array_equal(out.local[free][:, leg], plain.local[free][:, leg])


def _shin_ends(rt, out):
    """The world position of each placed foot's bind offset from its knee, and the foot's."""
    g = out.global_matrices().astype(np.float64)
    for hip, knee, foot, off in rt._reach:
        yield foot, g[:, knee, :, :3] @ off.astype(np.float64) + g[:, knee, :, 3], g[:, foot, :, 3]


def test_feet_parented_to_the_root_are_placed():
    """RobotExpressive's feet hang from the root: each is placed at its upper leg plus the
    source's foot offset from its upper leg (aligned and scaled), held during contacts, and
    the leg is bent by two-bone IK so that the shin's end meets the foot."""
    asset = _robot()
    clip, profile = _clip("example")
    sk = asset.skins[0].skeleton
    src = clip.global_positions(precision="float64")
    for feet in (None, "auto"):
        rt = skelsimd.Retargeter(clip, asset.skins[0], _pairs(profile, ROBOT), feet=feet)
        for side in ("L", "R"):
            assert rt._placed[sk.index("Foot" + side)]
        out = rt.apply(clip)
        g = out.global_positions(precision="float64")
        size = np.ptp(g[0], axis=0).max()
        contact = clip.contacts("LeftAnkle", speed=CONTACT_SPEED * _legs(clip.skeleton, profile))
        free = _free(clip, contact) if feet else np.ones(clip.frames, bool)
        leg = src[:, clip.skeleton.index("LeftAnkle")] - src[:, clip.skeleton.index("LeftHip")]
        expect = g[:, sk.index("UpperLegL")] + rt.scale * leg @ rt.frame.T
        assert np.abs(g[free, sk.index("FootL")] - expect[free]).max() < 1e-5 * size
        if feet:
            held = skelsimd.foot_sliding(out, "FootL", contact)
            assert held.size > 20 and held.max() < 1e-5 * size
        for foot, end, at in _shin_ends(rt, out):
            gap = np.linalg.norm(end - at, axis=-1)
            assert np.median(gap) < 1e-4 * size and np.mean(gap < 1e-3 * size) > 0.9, \
                (sk.names[foot], np.median(gap), gap.max())


# --- glTF characters -------------------------------------------------------------------------------

def test_gltf_skin_target_bind_pose_and_bone_directions():
    """RobotExpressive: rest matrices, a scale-100 armature turned -90 degrees about x, A-pose
    arms; each mapped bone of the arms and the spine points as the source's after the frame
    rotation (the legs are bent to reach the placed feet: see above)."""
    asset = _robot()
    skin = asset.skins[0]
    clip, profile = _clip("example")
    rt = skelsimd.Retargeter(clip, skin, _pairs(profile, ROBOT))
    sk = skin.skeleton
    assert set(rt.unmapped) >= {"Bone", "Body", "PoleTargetL", "Middle1L"}
    out = rt.apply(clip)
    assert out.skeleton is sk and out.local.shape == (clip.frames, 43, 8)
    assert np.isfinite(out.local).all()
    # the bind pose: the unmapped joints above the hips keep it, so their skinning matrices
    # (world times inverse bind) are the same rigid placement
    g = skelsimd.qts_local_to_global_matrix(out.local[:1], sk)[0].astype(np.float64)
    pal = [np.vstack([g[j], [0, 0, 0, 1]]) @ np.vstack([skin.inverse_bind[j], [0, 0, 0, 1]])
           for j in (sk.index("Bone"), sk.index("Body"))]
    assert np.abs(pal[0] - pal[1]).max() < 1e-4 * np.abs(pal[0]).max()
    gs, gt = clip.global_positions(precision="float64"), out.global_positions(precision="float64")
    for side in ("left", "right"):
        for a, b in (("UpperArm", "LowerArm"), ("LowerArm", "Hand"), ("spine", "chest")):
            a, b = (k if k.islower() else side + k for k in (a, b))
            s0, s1 = (clip.skeleton.index(profile[k]) for k in (a, b))
            t0, t1 = (sk.index(ROBOT[k]) for k in (a, b))
            angle = _angles((gs[:, s1] - gs[:, s0]) @ rt.frame.T, gt[:, t1] - gt[:, t0])
            assert angle.max() < 1e-4, (side, a, b, angle.max())
    # the legs' ratio: Robot's legs are ~1.3 units against CMU's ~14 units
    assert 0.05 < rt.scale < 0.2, rt.scale


def test_auto_mapping_on_gltf_characters():
    _needs_profile()
    clip = skelsimd.data.load_example()
    for path in ("cesium_man.gltf", "RobotExpressive.glb"):
        full = os.path.join(GLTF, path)
        if not os.path.exists(full):
            continue
        with pytest.warns() if path.startswith("cesium") else _nothing():
            asset = skelsimd.load_gltf(full)
        rt = skelsimd.Retargeter(clip, asset.skins[0], feet="auto")
        out = rt.apply(clip)
        assert np.isfinite(out.local).all() and len(rt.mapping) >= 14


class _nothing:
    def __enter__(self):
        return self

    def __exit__(self, *a):
        return False


def test_source_as_skeleton_clip_or_rest_arrays():
    clip, profile = _clip("example")
    a = skelsimd.Retargeter(clip.skeleton, clip.skeleton, profile).apply_local(clip.local[:3])
    b = skelsimd.Retargeter(clip, clip, profile).apply_local(clip.local[:3])
    assert np.array_equal(a, b)
    # the rests as matrices give the same alignment
    mats = skelsimd.qts_to_matrix(clip.skeleton.rest)
    sk = skelsimd.Skeleton(clip.skeleton.parents, clip.skeleton.names, mats)
    c = skelsimd.Retargeter(sk, clip, profile).apply_local(clip.local[:3])
    assert _same_quat(c[..., :4], b[..., :4]).max() < 1e-5
    # batch shapes
    assert skelsimd.Retargeter(clip, clip, profile).apply_local(clip.local[:6].reshape(2, 3, 31, 8)
                                                                 ).shape == (2, 3, 31, 8)


def test_remap_numpy_matches_the_kernel_contract_float64():
    """The NumPy formulation against the contract evaluated in float64 on random input."""
    rng = np.random.default_rng(5)
    js, jt, f = 5, 7, 4
    parents = np.array([-1, 0, 1, 1, 0, 4, -1])
    index = np.array([0, 2, -1, 3, 4, -1, 1], dtype=np.int32)
    placed = np.array([1, 0, 0, 1, 0, 0, 1], dtype=bool)
    world = np.concatenate([_random_quats(rng, f * js).reshape(f, js, 4),
                            rng.normal(size=(f, js, 3)), rng.uniform(0.5, 2, (f, js, 1))], -1)
    offsets = _random_quats(rng, jt)
    rest = np.concatenate([_random_quats(rng, jt), rng.normal(size=(jt, 3)),
                           rng.uniform(0.5, 2, (jt, 1))], -1)
    out = _remap_numpy(world.astype(np.float32), index, offsets, parents, rest, placed)
    wq, wt, ws = np.zeros((f, jt, 4)), np.zeros((f, jt, 3)), np.zeros((f, jt))
    for j, p in enumerate(parents):
        s = index[j]
        if s >= 0:
            wq[:, j] = quat_mul(world[:, s, :4], offsets[j])
        else:
            wq[:, j] = rest[j, :4] if p < 0 else quat_mul(wq[:, p], rest[j, :4])
        if s >= 0 and placed[j]:
            wt[:, j] = world[:, s, 4:7]
        else:
            wt[:, j] = rest[j, 4:7] if p < 0 else wt[:, p] + ws[:, p, None] * quat_rotate(
                wq[:, p], rest[j, 4:7])
        ws[:, j] = rest[j, 7] if p < 0 else ws[:, p] * rest[j, 7]
    g = skelsimd.qts_local_to_global(out, parents, precision="float64").astype(np.float64)
    assert _same_quat(g[..., :4], wq).max() < 1e-5
    assert np.abs(g[..., 4:7] - wt).max() < 1e-4
    assert np.abs(g[..., 7] - ws).max() < 1e-5


# --- bad input -------------------------------------------------------------------------------------

def test_clip_of_another_skeleton_is_refused():
    clip, profile = _clip("example")
    other, _ = _clip("cmu_01_01")
    rt = skelsimd.Retargeter(clip, clip, profile)
    out = np.full((other.frames, 31, 8), 7.0, np.float32)
    with pytest.raises(ValueError, match="clip: expected a clip of the source skeleton"):
        rt.apply(other, out=out)
    assert (out == 7).all()


def test_frames_of_nan_are_refused_and_nothing_is_written():
    clip, profile = _clip("example")
    bad = clip[:10]
    bad.local[4, 3, 1] = np.nan
    for feet in (None, [profile["leftFoot"]]):
        rt = skelsimd.Retargeter(clip, clip, profile, feet=feet)
        out = np.full((10, 31, 8), 7.0, np.float32)
        with pytest.raises(ValueError, match=r"frame \(4,\) joint 'LeftKnee'"):
            rt.apply(bad, out=out)
        assert (out == 7).all()


def test_mapping_naming_missing_joints_is_refused():
    clip, profile = _clip("example")
    with pytest.raises(ValueError, match="'Nope' is not a joint of the target"):
        skelsimd.Retargeter(clip, clip, {"Hips": "Nope"})
    with pytest.raises(ValueError, match=r"mapping\['leftFoot'\]: 'Nope' is not a joint"):
        skelsimd.Retargeter(clip, clip, {**profile, "leftFoot": "Nope"})
    with pytest.raises(ValueError, match="'Nope' is neither a joint of the source"):
        skelsimd.Retargeter(clip, clip, {"Nope": "Hips"})
    with pytest.raises(ValueError, match="driven by both"):
        skelsimd.Retargeter(clip, clip, {"Hips": "Hips", "Head": "Hips"})
    with pytest.raises(ValueError, match="feet: 'Spine' is not a mapped joint"):
        skelsimd.Retargeter(clip, clip, profile, feet=["Spine"])
    with pytest.raises(TypeError, match="mapping: expected 'auto' or a dict"):
        skelsimd.Retargeter(clip, clip, 3)


def test_no_common_humanoid_is_refused():
    _needs_profile()
    clip = skelsimd.data.load_example()
    fox = skelsimd.load_gltf(os.path.join(GLTF, "Fox.glb"))
    with pytest.raises(ValueError, match="mapping: no humanoid found in the target"):
        skelsimd.Retargeter(clip, fox.skins[0])


def test_other_bad_arguments():
    clip, profile = _clip("example")
    with pytest.raises(TypeError, match="source: expected a skelsimd.Skeleton, Clip or GltfSkin"):
        skelsimd.Retargeter("walk.bvh", clip, profile)
    with pytest.raises(ValueError, match="scale: expected a positive finite number"):
        skelsimd.Retargeter(clip, clip, profile, scale=-1.0)
    with pytest.raises(ValueError, match="scale: expected 'legs', 'height' or a number"):
        skelsimd.Retargeter(clip, clip, profile, scale="arms")
    with pytest.raises(ValueError, match=r"target_rest: expected shape \(31, 8\)"):
        skelsimd.Retargeter(clip, clip, profile, target_rest=np.zeros((3, 8)))
    bare = skelsimd.Skeleton(clip.skeleton.parents, clip.skeleton.names)
    with pytest.raises(ValueError, match="target: the skeleton has no rest pose"):
        skelsimd.Retargeter(clip, bare, profile)
    rt = skelsimd.Retargeter(clip, clip, profile)
    with pytest.raises(ValueError, match=r"local: expected shape \(\.\.\., 31, 8\)"):
        rt.apply_local(np.zeros((2, 30, 8)))
    with pytest.raises(ValueError, match="out: expected a writeable C-contiguous array"):
        rt.apply(clip, out=np.zeros((2, 31, 8), np.float32))


def test_height_scale_and_float_scale():
    clip, profile = _clip("example")
    target = _proportions(clip, profile, np.random.default_rng(1), a_pose=0.0)
    h = skelsimd.Retargeter(clip, target, profile, scale="height").scale
    assert 0.5 < h < 1.8
    assert skelsimd.Retargeter(clip, target, profile, scale=2).scale == 2.0


def test_the_kernel_and_the_numpy_remap_agree():
    """Retargeter.apply with the SIMD kernel (where built) and with the NumPy formulation."""
    from skelsimd import _core
    if getattr(_core, "retarget_remap", None) is None:
        pytest.skip("the build has no retarget_remap kernel")
    clip, profile = _clip("cmu_131_02")
    target = _proportions(clip, profile, np.random.default_rng(4))
    fast = skelsimd.Retargeter(clip, target, profile)
    slow = skelsimd.Retargeter(clip, target, profile)
    slow._remap_fn = _remap_numpy
    a, b = fast.apply(clip), slow.apply(clip)
    size = np.ptp(a.global_positions()[0], axis=0).max()
    assert _same_quat(a.local[..., :4], b.local[..., :4]).max() < 1e-5
    assert np.abs(a.global_positions() - b.global_positions()).max() < 1e-5 * size
