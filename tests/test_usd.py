"""skelsimd.load_usd against UsdSkel's own evaluation (usd-core): local joint transforms at
keys and between keys (ComputeJointLocalTransforms) and skinned points
(SkinningQuery.ComputeSkinnedPoints), on files written by other tools (OpenUSD's UsdSkel test
assets, a stage authored here with the pxr API) and by skelsimd.save_usd; round trips through
USD; bad input. Skipped when usd-core is not installed."""
import os
import subprocess
import sys
import warnings

import numpy as np
import pytest

import skelsimd

DATA = os.path.join(os.path.dirname(__file__), "data")
USD_DATA = os.path.join(DATA, "usd")
GLTF_DATA = os.path.join(DATA, "gltf")
SKIP_REASON = 'usd-core is not installed (pip install "skelsimd[usd]")'


@pytest.fixture(scope="module")
def pxr():
    pytest.importorskip("pxr", reason=SKIP_REASON)
    from pxr import Gf, Sdf, Usd, UsdGeom, UsdSkel, Vt
    import types
    return types.SimpleNamespace(Gf=Gf, Sdf=Sdf, Usd=Usd, UsdGeom=UsdGeom, UsdSkel=UsdSkel,
                                 Vt=Vt)


# --- without usd-core ---------------------------------------------------------------------------

def test_import_skelsimd_never_imports_pxr():
    code = "import sys, skelsimd; skelsimd.load_usd; skelsimd.save_usd; print('pxr' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_without_usd_core_the_error_says_how_to_install(monkeypatch, tmp_path):
    monkeypatch.setitem(sys.modules, "pxr", None)          # import pxr now fails
    with pytest.raises(ImportError, match=r'pip install "skelsimd\[usd\]"'):
        skelsimd.load_usd(tmp_path / "x.usda")
    clip = skelsimd.data.load_example()[:2]
    with pytest.raises(ImportError, match=r'pip install "skelsimd\[usd\]"'):
        skelsimd.save_usd(tmp_path / "x.usda", clip)
    assert not (tmp_path / "x.usda").exists()


# --- UsdSkel's evaluation -----------------------------------------------------------------------

def _column(m):
    """USD row-vector 4x4 matrices (..., 4, 4) -> column-vector 3x4."""
    return np.swapaxes(np.asarray(m, dtype=np.float64).reshape(-1, 4, 4), -1, -2)[:, :3, :]


def _rel(a, b):
    return np.abs(a - b).max() / max(1.0, np.abs(b).max())


def _usdskel(pxr, path):
    stage = pxr.Usd.Stage.Open(str(path))
    cache = pxr.UsdSkel.Cache()
    predicate = pxr.Usd.TraverseInstanceProxies()
    for prim in stage.Traverse(predicate):
        if prim.IsA(pxr.UsdSkel.Root):
            cache.Populate(pxr.UsdSkel.Root(prim), predicate)
    return stage, cache


def check_against_usdskel(pxr, path, asset=None, *, quat_defect=0.0):
    """Every clip's local transforms at every frame (keys) and half-way between frames, and
    every mesh's skinned points at every frame, against UsdSkel. Returns the largest errors
    (local transforms, relative; skinned points, relative to the mesh size)."""
    asset = skelsimd.load_usd(path) if asset is None else asset
    stage, cache = _usdskel(pxr, path)
    worst_local = worst_points = 0.0
    tol = 1e-5 + quat_defect
    for clip in asset.clips:
        skin = asset.skins[clip.skin]
        query = cache.GetSkelQuery(pxr.UsdSkel.Skeleton(stage.GetPrimAtPath(skin.path)))
        mats = skelsimd.qts_to_matrix(clip.local).astype(np.float64)
        for f, tc in enumerate(asset.times):
            ref = _column(query.ComputeJointLocalTransforms(float(tc)))
            err = _rel(mats[f], ref)
            assert err <= tol, (path, clip.name, f, err)
            worst_local = max(worst_local, err)
        keys = np.array(query.GetAnimQuery().GetJointTransformTimeSamples())
        for f, tc in enumerate(asset.times[:-1]):            # between keys: half-way
            if ((keys > tc) & (keys < tc + 1)).any():
                continue        # a key between two frames: no frame-sampled clip has its kink
            ref = _column(query.ComputeJointLocalTransforms(float(tc) + 0.5))
            pose = skelsimd.qts_to_matrix(clip.sample((f + 0.5) * clip.frame_time,
                                                      method="exact")).astype(np.float64)
            err = _rel(pose, ref)
            assert err <= tol, (path, clip.name, f + 0.5, err)
            worst_local = max(worst_local, err)
    for mesh in asset.meshes:
        clips = [c for c in asset.clips if c.skin == mesh.skin]
        if not clips:
            continue
        clip, skin = clips[0], asset.skins[mesh.skin]
        query = cache.GetSkelQuery(pxr.UsdSkel.Skeleton(stage.GetPrimAtPath(skin.path)))
        skinning = cache.GetSkinningQuery(stage.GetPrimAtPath(mesh.path))
        points_attr = pxr.UsdGeom.Mesh(stage.GetPrimAtPath(mesh.path)).GetPointsAttr()
        rest_points = points_attr.Get(pxr.Usd.TimeCode.EarliestTime())
        m = mesh if mesh.weights.shape[1] <= 8 else mesh.compact_influences(8)
        palette = skelsimd.skinning_palette(skelsimd.qts_to_matrix(clip.local),
                                            clip.skeleton.parents, skin.inverse_bind)
        ours = skelsimd.skin(m.positions, m.joint_indices, m.weights, palette)
        size = float(np.ptp(mesh.positions, axis=0).max()) or 1.0
        for f, tc in enumerate(asset.times):
            pts = pxr.Vt.Vec3fArray(rest_points)
            assert skinning.ComputeSkinnedPoints(query.ComputeSkinningTransforms(float(tc)),
                                                 pts, float(tc))
            ref = np.asarray(pts)
            # relative to the mesh's size, bound or skinned (RobotExpressive's skinned mesh is
            # 100 times its bind pose: a root joint scales it)
            err = np.abs(ours[f] - ref).max() / max(size, float(np.ptp(ref, axis=0).max()))
            assert err <= tol, (path, mesh.path, f, err)
            worst_points = max(worst_points, err)
    return worst_local, worst_points


def test_openusd_lbs_asset(pxr):
    path = os.path.join(USD_DATA, "lbs.usda")
    with pytest.warns(UserWarning, match="not a Mesh: skipped"):
        asset = skelsimd.load_usd(path)
    assert [s.skeleton.names for s in asset.skins] == [("joint1", "joint2", "joint3")]
    assert asset.time_codes_per_second == 24 and asset.times[0] == 1 and len(asset.times) == 30
    by_path = {m.path: m for m in asset.meshes}
    assert set(by_path) == {"/Root/Mesh", "/Root/MeshWithFaceVaryingNormals",
                            "/Root/MeshWithNormals"}
    assert by_path["/Root/Mesh"].weights.shape == (40, 3)             # elementSize 3 kept
    assert by_path["/Root/MeshWithNormals"].weights.shape == (12, 2)
    assert by_path["/Root/MeshWithNormals"].normals.shape == (12, 3)
    assert by_path["/Root/MeshWithFaceVaryingNormals"].normals is None
    assert by_path["/Root/Mesh"].triangles.shape == (20, 3)           # 10 quads
    # geomBindTransform folded in: the file's points are not the bind-pose positions
    stage = pxr.Usd.Stage.Open(path)
    raw = np.asarray(pxr.UsdGeom.Mesh(stage.GetPrimAtPath("/Root/Mesh")).GetPointsAttr().Get())
    assert np.abs(raw - by_path["/Root/Mesh"].positions).max() > 0.5
    local, points = check_against_usdskel(pxr, path, asset)
    assert local <= 1e-5 and points <= 1e-5


def test_openusd_skinned_arm_sparse_animation_between_keys(pxr):
    path = os.path.join(USD_DATA, "skinnedArm.usda")
    asset = skelsimd.load_usd(path)
    (clip,) = asset.clips
    assert clip.name == "Anim" and clip.frames == 10 and asset.meters_per_unit == 0.01
    # only the elbow is animated; the others keep restTransforms
    assert np.abs(clip.local[:, 0] - clip.local[0, 0]).max() == 0
    assert np.abs(clip.local[:, 2, 4:7] - [0, 0, 2]).max() < 1e-7
    # the file's last key (0.7071, 0.7071, 0, 0) has |q|^2 = 0.99998: UsdSkel builds its
    # matrix without normalising, skelsimd's quaternions are unit, so the two differ by that
    q = np.array([0.7071, 0.7071, 0, 0])
    defect = abs(1 - q @ q)
    local, points = check_against_usdskel(pxr, path, asset, quat_defect=defect)
    assert local <= 1e-5 + defect


# --- a stage authored with usd-core --------------------------------------------------------------

def author_stage(pxr, path, *, left_handed=False):
    """A SkelRoot with a 4-joint Skeleton (rest transforms with a uniform scale, a custom
    bind pose), a sparse SkelAnimation keyed every 3 time codes in its own joint order, a
    quad-and-pentagon mesh with elementSize 3, its own skel:joints order, a geomBindTransform,
    per-vertex normals, a face subset and a hole, and a second mesh bound rigidly (constant
    influences)."""
    Gf, Usd, UsdGeom, UsdSkel, Vt = pxr.Gf, pxr.Usd, pxr.UsdGeom, pxr.UsdSkel, pxr.Vt
    stage = Usd.Stage.CreateNew(str(path))
    stage.SetStartTimeCode(0)
    stage.SetEndTimeCode(12)
    stage.SetTimeCodesPerSecond(30)
    UsdGeom.SetStageUpAxis(stage, UsdGeom.Tokens.z)
    root = UsdSkel.Root.Define(stage, "/Char")
    skel = UsdSkel.Skeleton.Define(stage, "/Char/Skel")
    joints = ["hip", "hip/spine", "hip/spine/head", "hip/leg"]
    skel.CreateJointsAttr(joints)

    def trs(t, axis, angle, s):
        m = Gf.Matrix4d(1.0)
        m.SetScale(Gf.Vec3d(s, s, s))
        r = Gf.Matrix4d(1.0)
        r.SetRotate(Gf.Rotation(Gf.Vec3d(*axis), angle))
        x = m * r
        x.SetTranslateOnly(Gf.Vec3d(*t))
        return x

    rest = [trs((0, 0, 1), (0, 0, 1), 10, 1), trs((0, 0.1, 0.5), (1, 0, 0), 20, 1.5),
            trs((0, 0, 0.4), (0, 1, 0), -30, 1), trs((0.2, 0, -0.5), (1, 1, 0), 45, 0.5)]
    skel.CreateRestTransformsAttr(Vt.Matrix4dArray(rest))
    world = []
    for j, m in enumerate(rest):
        parent = joints[j].rsplit("/", 1)[0] if "/" in joints[j] else None
        world.append(m * world[joints.index(parent)] if parent else m)
    bind = [w * trs((0.01 * j, 0, 0), (0, 0, 1), 3 * j, 1) for j, w in enumerate(world)]
    skel.CreateBindTransformsAttr(Vt.Matrix4dArray(bind))
    anim = UsdSkel.Animation.Define(stage, "/Char/Skel/Anim")
    anim.CreateJointsAttr(["hip/leg", "hip", "hip/spine"])        # sparse, its own order
    t_attr, r_attr, s_attr = (anim.CreateTranslationsAttr(), anim.CreateRotationsAttr(),
                              anim.CreateScalesAttr())
    rng = np.random.default_rng(7)
    for tc in range(0, 13, 3):
        t_attr.Set(Vt.Vec3fArray([Gf.Vec3f(*map(float, rng.normal(size=3) * 0.3))
                                  for _ in range(3)]), tc)
        quats = []
        for _ in range(3):
            q = rng.normal(size=4)
            q /= np.linalg.norm(q)
            quats.append(Gf.Quatf(float(q[3]), float(q[0]), float(q[1]), float(q[2])))
        r_attr.Set(Vt.QuatfArray(quats), tc)
        s_attr.Set(Vt.Vec3hArray([Gf.Vec3h(1, 1, 1), Gf.Vec3h(2, 2, 2), Gf.Vec3h(1, 1, 1)]), tc)
    UsdSkel.BindingAPI.Apply(skel.GetPrim()).CreateAnimationSourceRel().SetTargets(
        [anim.GetPath()])
    UsdSkel.BindingAPI.Apply(root.GetPrim()).CreateSkeletonRel().SetTargets([skel.GetPath()])

    mesh = UsdGeom.Mesh.Define(stage, "/Char/Body")
    pts = rng.normal(size=(9, 3)).astype(np.float32)
    mesh.CreatePointsAttr(Vt.Vec3fArray.FromNumpy(pts))
    mesh.CreateFaceVertexCountsAttr([4, 5, 3, 2])                     # quad, pentagon, tri, edge
    mesh.CreateFaceVertexIndicesAttr([0, 1, 2, 3, 4, 5, 6, 7, 8, 0, 2, 4, 1, 3])
    mesh.CreateHoleIndicesAttr([2])
    if left_handed:
        mesh.CreateOrientationAttr(UsdGeom.Tokens.leftHanded)
    normals = rng.normal(size=(9, 3)).astype(np.float32)
    mesh.CreateNormalsAttr(Vt.Vec3fArray.FromNumpy(normals))
    mesh.SetNormalsInterpolation(UsdGeom.Tokens.vertex)
    binding = UsdSkel.BindingAPI.Apply(mesh.GetPrim())
    binding.CreateJointsAttr(["hip/leg", "hip/spine/head", "hip"])  # the mesh's own order
    ji = rng.integers(0, 3, size=(9, 3)).astype(np.int32)
    w = rng.random(size=(9, 3)).astype(np.float32)
    w /= w.sum(axis=1, keepdims=True)
    binding.CreateJointIndicesPrimvar(False, 3).Set(Vt.IntArray.FromNumpy(ji.reshape(-1)))
    binding.CreateJointWeightsPrimvar(False, 3).Set(Vt.FloatArray.FromNumpy(w.reshape(-1)))
    binding.CreateGeomBindTransformAttr(trs((0.5, -0.25, 0.1), (0, 1, 1), 33, 1.25))
    UsdGeom.Subset.CreateGeomSubset(mesh, "front", UsdGeom.Tokens.face, Vt.IntArray([1, 3]))

    rigid = UsdGeom.Mesh.Define(stage, "/Char/Helmet")
    rigid.CreatePointsAttr(Vt.Vec3fArray.FromNumpy(pts[:4] + 1))
    rigid.CreateFaceVertexCountsAttr([4])
    rigid.CreateFaceVertexIndicesAttr([0, 1, 2, 3])
    rb = UsdSkel.BindingAPI.Apply(rigid.GetPrim())
    rb.CreateJointIndicesPrimvar(True, 2).Set(Vt.IntArray([2, 1]))
    rb.CreateJointWeightsPrimvar(True, 2).Set(Vt.FloatArray([0.75, 0.25]))
    stage.GetRootLayer().Save()
    return path


def test_stage_authored_with_usd_core(pxr, tmp_path):
    path = author_stage(pxr, tmp_path / "char.usda")
    asset = skelsimd.load_usd(path)
    assert asset.up_axis == "Z" and asset.time_codes_per_second == 30
    (skin,) = asset.skins
    assert skin.skeleton.names == ("hip", "spine", "head", "leg")
    assert skin.skeleton.rest.shape == (4, 8)                        # uniform scales: QTS
    assert np.allclose(skin.skeleton.rest[:, 7], [1, 1.5, 1, 0.5])
    body, helmet = asset.meshes
    assert body.path == "/Char/Body" and body.weights.shape == (9, 3)
    # quad -> 2 triangles, pentagon -> 3, the hole and the 2-vertex face left out
    assert body.triangles.tolist() == [[0, 1, 2], [0, 2, 3], [4, 5, 6], [4, 6, 7], [4, 7, 8]]
    assert body.face_sets["front"].tolist() == [2, 3, 4]
    assert np.allclose(np.linalg.norm(body.normals, axis=1), 1)
    # the mesh's own joint order is mapped to the skeleton's: hip/leg is joint 3
    stage = pxr.Usd.Stage.Open(str(path))
    raw = np.asarray(stage.GetPrimAtPath("/Char/Body").GetAttribute(
        "primvars:skel:jointIndices").Get()).reshape(9, 3)
    assert (body.joint_indices == np.array([3, 2, 0])[raw]).all()
    # constant influences expanded to every vertex
    assert helmet.joint_indices.tolist() == [[2, 1]] * 4
    assert np.allclose(helmet.weights, [[0.75, 0.25]] * 4)
    local, points = check_against_usdskel(pxr, path, asset)
    assert local <= 1e-5 and points <= 1e-5


def test_left_handed_meshes_are_turned_counter_clockwise(pxr, tmp_path):
    right = skelsimd.load_usd(author_stage(pxr, tmp_path / "r.usda")).meshes[0]
    left = skelsimd.load_usd(author_stage(pxr, tmp_path / "l.usda", left_handed=True)).meshes[0]
    assert (left.triangles == right.triangles[:, [0, 2, 1]]).all()


def test_non_uniform_scale_is_refused_and_matrices_are_exact(pxr, tmp_path):
    path = author_stage(pxr, tmp_path / "char.usda")
    stage = pxr.Usd.Stage.Open(str(path))
    scales = stage.GetPrimAtPath("/Char/Skel/Anim").GetAttribute("scales")
    scales.Set(pxr.Vt.Vec3hArray([pxr.Gf.Vec3h(1, 1, 1), pxr.Gf.Vec3h(1, 2, 1),
                                  pxr.Gf.Vec3h(1, 1, 1)]), 6)
    stage.GetRootLayer().Save()
    asset = skelsimd.load_usd(path)
    message = (r"/Char/Skel/Anim\.scales: non-uniform scale \[1\.666016 2\. +1\.666016\] at "
               r"frame 4 \(time code 4, joint 'hip'\).*local_matrices")
    with pytest.warns(UserWarning, match=r"1 of 1 clips refused, UsdAsset\.refused"):
        assert asset.clips == []
    assert list(asset.refused) == [("Anim", 0)]
    with pytest.raises(ValueError, match=message):
        asset.clip(0, 0)
    with pytest.raises(ValueError, match=message):
        asset.clip("/Char/Skel/Anim", 0)
    local = asset.local_matrices(0, 0)
    query = pxr.UsdSkel.Cache().GetSkelQuery(pxr.UsdSkel.Skeleton(stage.GetPrimAtPath(
        "/Char/Skel")))
    for f in range(13):
        ref = _column(query.ComputeJointLocalTransforms(float(f)))
        assert _rel(local[f].astype(np.float64), ref) <= 1e-5


# --- bad input -------------------------------------------------------------------------------------

def _edit(pxr, path, fn):
    stage = pxr.Usd.Stage.Open(str(path))
    fn(stage)
    stage.GetRootLayer().Save()
    return path


def _unchanged_error(path, match):
    before = open(path, "rb").read()
    with pytest.raises(ValueError, match=match):
        skelsimd.load_usd(path)
    assert open(path, "rb").read() == before


def test_missing_file(pxr, tmp_path):
    with pytest.raises(ValueError, match="no such file") as info:
        skelsimd.load_usd(tmp_path / "absent.usda")
    assert isinstance(info.value, FileNotFoundError)


def test_unparsable_layer(pxr, tmp_path):
    path = tmp_path / "bad.usda"
    path.write_text('#usda 1.0\ndef Xform "a" {\n    float x = \n}\n')
    _unchanged_error(path, r"bad\.usda: not a USD layer USD can open .*Expected")


def test_skeleton_without_joints(pxr, tmp_path):
    path = tmp_path / "empty.usda"
    path.write_text('#usda 1.0\ndef SkelRoot "R" {\n    def Skeleton "S" {\n    }\n}\n')
    _unchanged_error(path, r"/R/S\.joints: the Skeleton has no joints")


@pytest.mark.parametrize("case,match", [
    ("index", r"/Char/Body\.primvars:skel:jointIndices: value 3 at position 4 is not a joint "
              r"index \(/Char/Body\.skel:joints has 3 joints\)"),
    ("weights", r"/Char/Body\.primvars:skel:jointWeights: 26 values, expected 27 "
                r"\(9 points x elementSize 3\)"),
    ("anim", r"/Char/Skel/Anim\.rotations: 2 values at time code 6, expected 3"),
    ("nan", r"/Char/Skel/Anim\.translations: non-finite value at time code 9 \(joint 'hip'\)"),
    ("rest", r"/Char/Skel\.restTransforms: non-finite matrix at joint 2 \('head'\)"),
    ("bind", r"/Char/Skel\.bindTransforms: 3 matrices, expected 4"),
])
def test_bad_usdskel_data_names_prim_and_attribute(pxr, tmp_path, case, match):
    path = author_stage(pxr, tmp_path / "char.usda")
    Vt, Gf = pxr.Vt, pxr.Gf

    def edit(stage):
        body = stage.GetPrimAtPath("/Char/Body")
        anim = stage.GetPrimAtPath("/Char/Skel/Anim")
        skel = stage.GetPrimAtPath("/Char/Skel")
        if case == "index":
            a = body.GetAttribute("primvars:skel:jointIndices")
            v = list(a.Get())
            v[4] = 3
            a.Set(Vt.IntArray(v))
        elif case == "weights":
            a = body.GetAttribute("primvars:skel:jointWeights")
            a.Set(Vt.FloatArray(list(a.Get())[:-1]))
        elif case == "anim":
            a = anim.GetAttribute("rotations")
            a.Set(Vt.QuatfArray(list(a.Get(6))[:2]), 6)
        elif case == "nan":
            a = anim.GetAttribute("translations")
            v = list(a.Get(9))
            v[1] = Gf.Vec3f(float("nan"), 0, 0)
            a.Set(Vt.Vec3fArray(v), 9)
        elif case == "rest":
            a = skel.GetAttribute("restTransforms")
            v = list(a.Get())
            v[2] = Gf.Matrix4d(float("nan"))
            a.Set(Vt.Matrix4dArray(v))
        elif case == "bind":
            a = skel.GetAttribute("bindTransforms")
            a.Set(Vt.Matrix4dArray(list(a.Get())[:3]))

    _edit(pxr, path, edit)
    _unchanged_error(path, match)


# --- save_usd -------------------------------------------------------------------------------------

def _globals(clip):
    return skelsimd.qts_local_to_global_matrix(clip.local, clip.skeleton).astype(np.float64)


def _size(clip):
    """The largest entry of the clip's global matrices (their translations, or the scale of
    their 3x3 parts: RobotExpressive's root scales by 100)."""
    return max(1.0, float(np.abs(_globals(clip)).max()))


@pytest.mark.parametrize("suffix", [".usda", ".usdc", ".usd", ".usdz"])
def test_save_usd_reads_back_and_usdskel_agrees(pxr, tmp_path, suffix):
    clip = skelsimd.data.load_example()[:30]
    mesh = skelsimd.data.example_mesh(clip.skeleton)
    path = skelsimd.save_usd(tmp_path / f"walk{suffix}", clip, mesh=mesh, up_axis="Z",
                             meters_per_unit=0.01)
    assert path == str(tmp_path / f"walk{suffix}")
    assert sorted(os.listdir(tmp_path)) == [f"walk{suffix}"]           # no temporary left
    head = open(path, "rb").read(8)
    assert head.startswith({".usda": b"#usda", ".usdc": b"PXR-USDC", ".usd": b"PXR-USDC",
                            ".usdz": b"PK"}[suffix])
    asset = skelsimd.load_usd(path)
    assert asset.up_axis == "Z" and asset.meters_per_unit == 0.01
    assert asset.time_codes_per_second == 120 and len(asset.times) == 30
    (skin,) = asset.skins
    assert skin.skeleton.names == clip.skeleton.names
    assert (skin.skeleton.parents == clip.skeleton.parents).all()
    back = asset.clips[0]
    assert np.abs(_globals(back) - _globals(clip)).max() <= 1e-5 * _size(clip)
    (m,) = asset.meshes
    assert (m.triangles == mesh["triangles"]).all()
    assert np.abs(m.positions - mesh["positions"]).max() <= 1e-6 * np.abs(mesh["positions"]).max()
    local, points = check_against_usdskel(pxr, path, asset)
    assert local <= 1e-5 and points <= 1e-5


def test_save_usd_keeps_names_usd_cannot_spell_and_face_sets(pxr, tmp_path):
    skel = skelsimd.Skeleton([-1, 0, 1], names=["mixamorig:Hips", "spine 1", "spine.1"])
    local = np.zeros((3, 3, 8), np.float32)
    local[..., 3] = local[..., 7] = 1
    local[:, 1:, 5] = 1
    clip = skelsimd.Clip(skel, local, 1 / 24, name="a walk")
    mesh = {"positions": [[0, 0, 0], [1, 0, 0], [0, 1, 0], [1, 1, 0]],
            "triangles": [[0, 1, 2], [2, 1, 3]], "joint_indices": [[0], [1], [2], [2]],
            "weights": [[1], [1], [1], [1]], "face_sets": {"top": [1]}}
    path = skelsimd.save_usd(tmp_path / "odd.usda", clip, mesh=mesh)
    asset = skelsimd.load_usd(path)
    assert asset.skins[0].skeleton.names == skel.names
    assert asset.skins[0].joints == ("mixamorig_Hips", "mixamorig_Hips/spine_1",
                                     "mixamorig_Hips/spine_1/spine_1_1")
    assert asset.clips[0].name == "a walk"
    assert {k: v.tolist() for k, v in asset.meshes[0].face_sets.items()} == {"top": [1]}


def test_save_usd_refuses_bad_clips_and_never_leaves_a_partial_file(pxr, tmp_path):
    clip = skelsimd.data.load_example()[:3]
    target = tmp_path / "keep.usda"
    target.write_bytes(b"previous")
    bad = clip.local.copy()
    bad[1, 4, 5] = np.nan
    cases = [
        (lambda: skelsimd.save_usd(target, skelsimd.Clip(clip.skeleton, bad, clip.frame_time)),
         ValueError, r"clip\.local: expected finite values, got nan at index \(1, 4, 5\)"),
        (lambda: skelsimd.save_usd(target, clip[:0]), ValueError,
         "clip: expected at least one frame, got 0 frames"),
        (lambda: skelsimd.save_usd(tmp_path / "x.fbx", clip), ValueError,
         r"path: expected a name ending in \.usd, \.usda, \.usdc or \.usdz"),
        (lambda: skelsimd.save_usd(target, clip.skeleton), TypeError,
         "clip: expected a skelsimd.Clip, got Skeleton"),
        (lambda: skelsimd.save_usd(target, clip, up_axis="X"), ValueError, "up_axis"),
        (lambda: skelsimd.save_usd(target, clip, meters_per_unit=0.0), ValueError,
         "meters_per_unit"),
        (lambda: skelsimd.save_usd(target, clip, mesh={"positions": [[0, 0, 0]],
                                                        "triangles": [[0, 0, 0]],
                                                        "joint_indices": [[40]],
                                                        "weights": [[1]]}),
         ValueError, r"mesh\.joint_indices\[0, 0\]"),
    ]
    for call, kind, match in cases:
        with pytest.raises(kind, match=match):
            call()
        assert target.read_bytes() == b"previous"
    assert sorted(os.listdir(tmp_path)) == ["keep.usda"]


# --- round trips ----------------------------------------------------------------------------------

def test_bvh_usd_bvh_round_trip(pxr, tmp_path):
    clip = skelsimd.load_bvh(os.path.join(DATA, "cmu_01_01.bvh.gz"))[:200]
    usd = skelsimd.save_usd(tmp_path / "walk.usdc", clip)
    mid = skelsimd.load_usd(usd).clips[0]
    assert np.abs(_globals(mid) - _globals(clip)).max() <= 1e-5 * _size(clip)
    skelsimd.save_bvh(mid, tmp_path / "back.bvh")
    back = skelsimd.load_bvh(tmp_path / "back.bvh")
    assert back.skeleton.names == clip.skeleton.names
    assert np.abs(_globals(back) - _globals(clip)).max() <= 1e-5 * _size(clip)


GLTF_FILES = ["Fox.glb", "RobotExpressive.glb", "rigged_simple.gltf", "03_skinned_cylinder.gltf",
              "Animation_Skin_06.gltf", "Animation_Skin_08.gltf"]


@pytest.mark.parametrize("name", GLTF_FILES)
def test_gltf_usd_gltf_round_trip_and_skinned_vertices(pxr, tmp_path, name):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")          # the files' own weight warnings
        asset = skelsimd.load_gltf(os.path.join(GLTF_DATA, name))
    pairs = asset.clip_pairs()
    assert len(asset.clips) == len(pairs) >= 1
    for k, (clip, (a, s)) in enumerate(zip(asset.clips, pairs)):
        if k >= 8:                  # RobotExpressive's 56 clips: 8 of them (two per skin)
            break
        meshes = [m for m in asset.meshes if m.skin == s]
        mesh = meshes[0] if meshes else None
        path = skelsimd.save_usd(tmp_path / f"c{k}.usdc", clip, mesh=mesh, skin=asset.skins[s])
        usd = skelsimd.load_usd(path)
        mid = usd.clips[0]
        assert np.abs(_globals(mid) - _globals(clip)).max() <= 1e-5 * _size(clip)
        if mesh is not None:
            def skinned(c, m, ib):
                m = m.compact_influences(8)
                return skelsimd.skin(m.positions, m.joint_indices, m.weights,
                                     skelsimd.multiply_joints(
                                         skelsimd.qts_local_to_global_matrix(c.local, c.skeleton),
                                         ib))
            ref = skinned(clip, mesh, asset.skins[s].inverse_bind)
            got = skinned(mid, usd.meshes[0], usd.skins[0].inverse_bind)
            size = max(float(np.ptp(mesh.positions, axis=0).max()),
                       float(np.ptp(ref, axis=1).max()))
            assert np.abs(got - ref).max() <= 1e-5 * size, (name, k)
            local, points = check_against_usdskel(pxr, path, usd)
        out = skelsimd.save_gltf(tmp_path / f"c{k}.glb", mid, mesh=usd.meshes[0] if mesh else None,
                                 inverse_bind=usd.skins[0].inverse_bind)
        back = skelsimd.load_gltf(out).clips[0]
        assert np.abs(_globals(back) - _globals(clip)).max() <= 1e-5 * _size(clip)


# --- python -m skelsimd convert ----------------------------------------------------------------

def _run(*args):
    env = dict(os.environ)
    env.pop("SKELSIMD_ISA", None)
    return subprocess.run([sys.executable, "-m", "skelsimd", "convert", *args],
                          capture_output=True, text=True, env=env,
                          cwd=os.path.dirname(os.path.dirname(skelsimd.__file__)))


def test_convert_between_bvh_gltf_and_usd(pxr, tmp_path):
    src = skelsimd.data.example_path()
    clip = skelsimd.load_bvh(src, end_sites=True)
    steps = [(src, "walk.usda", ["--mesh", "--up-axis", "Z"]), ("walk.usda", "walk.glb", []),
             ("walk.glb", "again.usdc", []), ("again.usdc", "walk.bvh", []),
             ("walk.bvh", "walk.usdz", [])]
    for a, b, extra in steps:
        res = _run(a if os.path.isabs(a) else str(tmp_path / a), str(tmp_path / b), *extra)
        assert res.returncode == 0, res.stderr
        assert "240 frames" in res.stdout and "120 Hz" in res.stdout
    first = skelsimd.load_usd(tmp_path / "walk.usda")
    assert first.up_axis == "Z" and len(first.meshes) == 1
    again = skelsimd.load_usd(tmp_path / "again.usdc")       # the mesh went through glTF
    assert len(again.meshes) == 1 and again.meters_per_unit == 1.0
    assert np.abs(again.meshes[0].positions - first.meshes[0].positions).max() < 1e-4
    for name in ("walk.usda", "again.usdc", "walk.usdz"):
        back = skelsimd.load_usd(tmp_path / name).clips[0]
        idx = back.skeleton.indices(clip.skeleton.names)    # BVH adds End Sites below leaves
        assert np.abs(_globals(back)[:, idx] - _globals(clip)).max() <= 1e-5 * _size(clip)
    check_against_usdskel(pxr, tmp_path / "again.usdc")


def test_convert_refuses_and_writes_nothing(pxr, tmp_path):
    res = _run(str(tmp_path / "a.usda"), str(tmp_path / "b.usdc"))
    assert res.returncode == 2 and "expected IN .bvh" in res.stderr
    res = _run(str(tmp_path / "missing.usda"), str(tmp_path / "b.glb"))
    assert res.returncode == 1 and "missing.usda: no such file" in res.stderr
    res = _run(skelsimd.data.example_path(), str(tmp_path / "b.usda"), "--up-axis", "X")
    assert res.returncode == 2 and "--up-axis" in res.stderr
    assert list(tmp_path.iterdir()) == []


def test_exporter_noise_in_scales_is_a_uniform_scale_within_the_tolerance(pxr, tmp_path):
    path = author_stage(pxr, tmp_path / "char.usda")
    stage = pxr.Usd.Stage.Open(str(path))
    scales = stage.GetPrimAtPath("/Char/Skel/Anim").GetAttribute("scales")
    noisy = pxr.Gf.Vec3h(1, 1.000977, 1)              # one half-float step above 1
    scales.Set(pxr.Vt.Vec3hArray([pxr.Gf.Vec3h(1, 1, 1), noisy, pxr.Gf.Vec3h(1, 1, 1)]), 6)
    stage.GetRootLayer().Save()
    asset = skelsimd.load_usd(path)
    (clip,) = asset.clips                                   # default tolerance 1e-3: accepted
    assert abs(clip.local[6, 0, 7] - (2 + 1.000977) / 3) < 1e-6   # the mean axis scale
    strict = skelsimd.load_usd(path)
    strict.scale_tolerance = 0.0
    with pytest.raises(ValueError, match=r"non-uniform scale \[1\.666016 1\.666992 1\.666016\] "
                                         r"at frame 4"):     # between the keys 3 and 6
        strict.clip(0, 0)


def test_a_referenced_character_with_a_layer_offset(pxr, tmp_path):
    """Composition: a shot referencing the character with a time offset and scale, so the
    animation's samples reach the stage at other time codes than the file stores them."""
    author_stage(pxr, tmp_path / "char.usda")
    shot = pxr.Usd.Stage.CreateNew(str(tmp_path / "shot.usda"))
    shot.SetStartTimeCode(0)
    shot.SetEndTimeCode(26)
    prim = shot.DefinePrim("/Shot")
    prim.GetReferences().AddReference("./char.usda", "/Char", pxr.Sdf.LayerOffset(1.0, 2.0))
    shot.GetRootLayer().Save()
    asset = skelsimd.load_usd(tmp_path / "shot.usda")
    assert [s.path for s in asset.skins] == ["/Shot/Skel"] and len(asset.times) == 27
    assert [m.path for m in asset.meshes] == ["/Shot/Body", "/Shot/Helmet"]
    local, points = check_against_usdskel(pxr, tmp_path / "shot.usda", asset)
    assert local <= 1e-5 and points <= 1e-5
    # time code t of the file is 1 + 2 * (24 / 30) t on the shot's (the offset, the scale and
    # the ratio of the layers' timeCodesPerSecond): file frames 0, 5, 10 are shot frames 1, 9, 17
    own = skelsimd.load_usd(tmp_path / "char.usda").clips[0]
    for shot_frame, own_frame in ((1, 0), (9, 5), (17, 10)):
        assert np.abs(asset.clips[0].local[shot_frame] - own.local[own_frame]).max() < 1e-6


def test_load_reads_the_file_as_it_is_now(pxr, tmp_path):
    """USD shares open layers process-wide: a file rewritten while another stage holds its
    layer is read as it is now, not as it was when first opened."""
    clip = skelsimd.data.load_example()
    path = str(tmp_path / "a.usda")
    skelsimd.save_usd(path, clip[:10])
    held = pxr.Usd.Stage.Open(path)                 # another stage keeps the layer open
    assert skelsimd.load_usd(path).clips[0].frames == 10
    skelsimd.save_usd(path, clip[:20])
    assert skelsimd.load_usd(path).clips[0].frames == 20
    assert held.GetRootLayer().realPath == os.path.realpath(path)
