"""Pictures of skinned meshes: the vertices skinned on the kernels against a NumPy reference,
plot_mesh's figure, and the canvas player rendered in headless Chromium (Debian's chromium
package; .ci/run installs it) to check the canvas shows the character."""
import os
import shutil
import struct
import subprocess
import zlib

import numpy as np
import pytest

import skelsimd
from skelsimd.plotting import MeshAnimation, animate_mesh, plot_mesh, skinned_vertices
from skelsimd._mesh_pictures import _camera


@pytest.fixture(scope="module")
def character():
    clip = skelsimd.data.load_example(end_sites=True)
    return clip, skelsimd.data.example_mesh(clip.skeleton)


def _reference_vertices(mesh, clip, f):
    """Linear-blend skinning in float64 with the rest pose's inverse as the bind."""
    from skelsimd.reference.joints import local_to_global as ref_l2g
    rest = np.asarray(skelsimd.qts_to_matrix(clip.skeleton.rest), dtype=np.float64)
    g_rest = ref_l2g(rest, clip.skeleton.parents)
    g = ref_l2g(np.asarray(clip.local_matrices()[f], dtype=np.float64), clip.skeleton.parents)
    h = np.concatenate([g, np.broadcast_to([0, 0, 0, 1.0], g.shape[:-2] + (1, 4))], axis=-2)
    hr = np.concatenate([g_rest, np.broadcast_to([0, 0, 0, 1.0], g.shape[:-2] + (1, 4))], -2)
    pal = h @ np.linalg.inv(hr)
    p = np.concatenate([mesh["positions"], np.ones((len(mesh["positions"]), 1))], axis=1)
    out = np.zeros((len(p), 3))
    for k in range(mesh["weights"].shape[1]):
        m = pal[mesh["joint_indices"][:, k]]
        out += mesh["weights"][:, k, None] * (m @ p[..., None])[:, :3, 0]
    return out


def test_skinned_vertices_match_reference(character):
    clip, mesh = character
    for f in (0, 57, clip.frames - 1):
        got = skinned_vertices(mesh, None, clip, f)
        ref = _reference_vertices(mesh, clip, f)
        assert got.shape == ref.shape and got.dtype == np.float32
        np.testing.assert_allclose(got, ref, atol=1e-3)      # centimetres, ~100 from origin
    batch = skinned_vertices(mesh, None, clip, slice(10, 20, 3))
    assert batch.shape == (4, len(mesh["positions"]), 3)
    np.testing.assert_array_equal(batch[1], skinned_vertices(mesh, None, clip, 13))


def test_skinned_vertices_with_given_inverse_bind(character):
    clip, mesh = character
    ib = skelsimd.invert_joints(skelsimd.qts_local_to_global_matrix(clip.skeleton.rest[None],
                                                                     clip.skeleton)[0])

    class Skin:
        inverse_bind = ib

    np.testing.assert_array_equal(skinned_vertices(mesh, Skin(), clip, 5),
                                  skinned_vertices(mesh, ib, clip, 5))
    np.testing.assert_array_equal(skinned_vertices(mesh, ib, clip, 5),
                                  skinned_vertices(mesh, None, clip, 5))


def test_bad_arguments(character):
    clip, mesh = character
    with pytest.raises(ValueError, match="skin: expected inverse bind matrices of shape"):
        skinned_vertices(mesh, np.zeros((3, 3, 4)), clip, 0)
    with pytest.raises(TypeError, match="clip: expected a skelsimd.Clip"):
        animate_mesh(mesh, None, "walk")
    with pytest.raises(TypeError, match="mesh: expected positions"):
        skinned_vertices({"positions": mesh["positions"]}, None, clip, 0)
    with pytest.raises(ValueError, match="frames: expected a non-empty selection"):
        animate_mesh(mesh, None, clip, frames=slice(5, 5))
    with pytest.raises(ValueError, match="frame: expected"):
        skinned_vertices(mesh, None, clip, clip.frames)
    with pytest.raises(ValueError, match="size: expected 16 <= size"):
        animate_mesh(mesh, None, clip, size=3)
    with pytest.raises(ValueError, match="azimuth: expected a finite"):
        animate_mesh(mesh, None, clip, azimuth=float("nan"))
    big = dict(mesh, positions=np.broadcast_to(np.zeros(3, np.float32), (30_000_000, 3)))
    with pytest.raises(ValueError, match=r"frames: 240 frames of 30000000 vertices are .* MiB"):
        animate_mesh(big, None, clip)
    bad = dict(mesh, triangles=mesh["triangles"] + len(mesh["positions"]))
    with pytest.raises(ValueError, match=r"mesh.triangles: expected vertex indices in \[0, "):
        animate_mesh(bad, None, clip)


def test_plot_mesh_draws_sorted_shaded_triangles(character):
    pytest.importorskip("matplotlib")
    clip, mesh = character
    fig = plot_mesh(mesh, None, clip, -1, azimuth=90, elevation=0)
    (ax,) = fig.axes
    (polys,) = ax.collections
    assert len(polys.get_paths()) == len(mesh["triangles"])
    colors = polys.get_facecolors()[:, :3]
    assert len(np.unique(np.round(colors, 3), axis=0)) > 20          # shaded, not flat
    assert "frame 239 of 240" in ax.get_title()


def test_player_html_ships_every_frame(character):
    clip, mesh = character
    anim = animate_mesh(mesh, None, clip, frames=slice(0, 30, 3))
    assert isinstance(anim, MeshAnimation) and anim.vertices.shape == (10, 1080, 3)
    assert anim.fps == pytest.approx(clip.fps / 3)
    html = anim._repr_html_()
    assert "<canvas" in html and "order.sort" in html and '"frames": 10' in html


# --- headless Chromium ----------------------------------------------------------------------

def _browser():
    for name in ("chromium", "chromium-browser"):
        path = shutil.which(name)
        if path:
            return path
    if os.environ.get("CI"):
        pytest.fail("chromium is not installed (.ci/run installs Debian's chromium package)")
    pytest.skip("chromium is not installed (apt-get install chromium): the player's rendering "
                "is not checked")


def _read_png(path):
    """(H, W, C) uint8 pixels of an 8-bit non-interlaced RGB/RGBA PNG (what Chromium writes)."""
    data = open(path, "rb").read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos, idat = 8, b""
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            w, h, depth, ctype, _, _, interlace = struct.unpack(">IIBBBBB", body)
            assert depth == 8 and ctype in (2, 6) and interlace == 0
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    c = 3 if ctype == 2 else 4
    raw = np.frombuffer(zlib.decompress(idat), np.uint8).reshape(h, 1 + w * c)
    out = np.zeros((h, w * c), np.int32)
    for y in range(h):
        f, line = raw[y, 0], raw[y, 1:].astype(np.int32)
        prev = out[y - 1] if y else np.zeros(w * c, np.int32)
        if f == 0:
            out[y] = line
        elif f == 2:
            out[y] = (line + prev) & 255
        else:                                  # sub, average, Paeth: left-to-right recurrences
            row = np.zeros(w * c, np.int32)
            for x in range(w * c):
                a = row[x - c] if x >= c else 0
                b = prev[x]
                cc = prev[x - c] if x >= c else 0
                if f == 1:
                    pred = a
                elif f == 3:
                    pred = (a + b) >> 1
                else:
                    p = a + b - cc
                    pa, pb, pc = abs(p - a), abs(p - b), abs(p - cc)
                    pred = a if pa <= pb and pa <= pc else (b if pb <= pc else cc)
                row[x] = (line[x] + pred) & 255
            out[y] = row
    return out.reshape(h, w, c).astype(np.uint8)


def test_player_renders_the_character_in_chromium(character, tmp_path):
    browser = _browser()
    clip, mesh = character
    size = 300
    anim = animate_mesh(mesh, None, clip, frames=slice(0, 12, 4), size=size, azimuth=20)
    page = tmp_path / "player.html"
    page.write_text("<!DOCTYPE html><html><body style='margin:0; background:#fff'>"
                    + anim.to_html() + "</body></html>", encoding="utf-8")
    shot = tmp_path / "shot.png"
    res = subprocess.run([browser, "--headless", "--no-sandbox", "--disable-gpu",
                          "--hide-scrollbars", "--force-device-scale-factor=1",
                          f"--window-size={size + 20},{size + 80}", f"--screenshot={shot}",
                          page.as_uri()], capture_output=True, text=True, timeout=60)
    assert shot.exists(), res.stderr[-2000:]
    img = _read_png(str(shot))[:size, :size, :3].astype(int)
    ink = (img < 235).any(axis=2)                    # not the white background
    # where frame 0 must be: the player's camera and framing, in NumPy
    v = anim.vertices.astype(np.float64)
    centre = (v.reshape(-1, 3).min(0) + v.reshape(-1, 3).max(0)) / 2
    radius = np.linalg.norm(v - centre, axis=-1).max()
    cam = (v[0] - centre) @ _camera(20, 10).T
    px = size / 2 + 0.48 * size / radius * cam[:, 0]
    py = size / 2 - 0.48 * size / radius * cam[:, 1]
    x0, x1, y0, y1 = px.min() - 3, px.max() + 3, py.min() - 3, py.max() + 3
    ys, xs = np.nonzero(ink)
    assert len(xs) > 1500, f"only {len(xs)} drawn pixels"
    inside = (xs >= x0) & (xs <= x1) & (ys >= y0) & (ys <= y1)
    assert inside.mean() > 0.99, (x0, x1, y0, y1, xs.min(), xs.max(), ys.min(), ys.max())
    # the character spans its box: drawn pixels near its top, bottom, left and right edges
    assert ys.min() < y0 + 10 and ys.max() > y1 - 10 and xs.min() < x0 + 10 and xs.max() > x1 - 10
    colours = {tuple(c) for c in img[ink][::7]}
    assert len(colours) > 20                         # Lambert shading, not one flat colour
    blue = img[ink].mean(axis=0)
    assert blue[2] > blue[0] + 30                    # the mesh's colour (#6f9bd1), shaded


def test_asset_pictures(character, tmp_path):
    from skelsimd.plotting import animate_gltf, plot_gltf
    clip, mesh = character
    asset = skelsimd.load_gltf(skelsimd.save_gltf(tmp_path / "c.glb", clip[:12], mesh=mesh))
    anim = animate_gltf(asset, frames=slice(0, 12, 2))
    assert anim.vertices.shape == (6, len(mesh["positions"]), 3)
    np.testing.assert_allclose(anim.vertices[1], skinned_vertices(mesh, None, clip, 2), atol=1e-3)
    assert animate_gltf(asset, clip=0).vertices.shape[0] == 12
    assert animate_gltf(asset, clip=clip[:3]).vertices.shape[0] == 3
    with pytest.raises(ValueError, match=r"mesh: expected 0 <= mesh < 1"):
        animate_gltf(asset, mesh=1)
    with pytest.raises(ValueError, match=r"clip: expected 0 <= clip < 1"):
        animate_gltf(asset, clip=4)
    with pytest.raises(TypeError, match="asset: expected what skelsimd.load_gltf returns"):
        animate_gltf(mesh)
    still = skelsimd.load_gltf(skelsimd.save_gltf(tmp_path / "s.glb", clip.skeleton, mesh=mesh))
    with pytest.raises(ValueError, match="asset: no clip animates skin 0 of mesh 0"):
        animate_gltf(still)
    pytest.importorskip("matplotlib")
    fig = plot_gltf(asset, 3)
    assert "frame 3 of 12" in fig.axes[0].get_title()
    # the asset's own one-line methods draw and play the same
    assert np.array_equal(asset.animate(frames=slice(0, 12, 2)).vertices, anim.vertices)
    assert "frame 3 of 12" in asset.plot(3).axes[0].get_title()


def test_sixteen_influences_compacted(character):
    """Four JOINTS/WEIGHTS sets: each vertex keeps its 12 largest weights (what skin takes),
    exactly when it has at most 12 non-zero ones, renormalised otherwise."""
    clip, mesh = character
    v = len(mesh["positions"])
    ji = np.zeros((v, 16), np.int32)
    w = np.zeros((v, 16), np.float32)
    ji[:, [3, 14]] = mesh["joint_indices"]                 # the two influences among zeros
    w[:, [3, 14]] = mesh["weights"]
    sixteen = dict(mesh, joint_indices=ji, weights=w)
    np.testing.assert_array_equal(skinned_vertices(sixteen, None, clip, 7),
                                  skinned_vertices(mesh, None, clip, 7))
    w[0] = 1 / 16                                          # 16 equal weights: the first 12 kept
    kept = dict(mesh, joint_indices=ji[:, :12].copy(), weights=w[:, :12].copy())
    kept["weights"][0] = 1 / 12
    kept["weights"][1:] = np.take_along_axis(w, np.argsort(w == 0, axis=1, kind="stable"), 1)[1:, :12]
    kept["joint_indices"][1:] = np.take_along_axis(ji, np.argsort(w == 0, axis=1, kind="stable"), 1)[1:, :12]
    np.testing.assert_array_equal(skinned_vertices(sixteen, None, clip, 7),
                                  skinned_vertices(kept, None, clip, 7))
