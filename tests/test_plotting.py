"""Pictures and notebook views (skelsimd.plotting): Clip.plot, Clip.animate and its inline HTML
player, Skeleton.plot, the _repr_html_ summaries; no pyplot figures are left alive and
matplotlib is imported only when drawing."""
import base64
import json
import re
import shutil
import subprocess
import sys
import warnings

import numpy as np
import pytest

import skelsimd as S

matplotlib = pytest.importorskip("matplotlib")
from matplotlib.animation import FuncAnimation  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402

JS = __file__.rsplit("/", 1)[0] + "/js/run_player.js"


@pytest.fixture(scope="module")
def clip():
    return S.data.load_example()


@pytest.fixture(autouse=True)
def no_pyplot_figures_left():
    yield
    if "matplotlib.pyplot" in sys.modules:
        assert sys.modules["matplotlib.pyplot"].get_fignums() == []


def test_import_does_not_load_matplotlib():
    code = "import skelsimd, sys; skelsimd.data.load_example(); print('matplotlib' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_clip_plot(clip):
    fig = clip.plot(10)
    assert isinstance(fig, Figure) and len(fig.axes) == 4
    assert [ax.get_title() for ax in fig.axes] == ["front", "side", "top", "perspective"]
    assert "frame 10 of 240" in fig._suptitle.get_text()
    # the bones drawn are the global positions of that frame (front view: x, y)
    pos = clip.global_positions(slice(10, 11))[0]
    segs = fig.axes[0].collections[0].get_segments()
    child = np.flatnonzero(clip.skeleton.parents >= 0)
    assert np.allclose([s[1] for s in segs], pos[child][:, [0, 1]])
    fig.savefig(__import__("io").BytesIO(), format="png")
    # into given axes, 2-D and 3-D; negative frames count from the end
    fig2 = Figure()
    ax = fig2.add_subplot(1, 2, 1)
    assert clip.plot(-1, ax, view="top") is ax and ax.get_title() == "top"
    ax3 = fig2.add_subplot(1, 2, 2, projection="3d")
    assert clip.plot(0, ax3) is ax3


def test_clip_plot_bad_arguments(clip):
    with pytest.raises(ValueError, match=r"frame: expected -240 <= frame < 240 .*got 240"):
        clip.plot(240)
    with pytest.raises(TypeError, match="frame: expected an int, got float"):
        clip.plot(1.5)
    with pytest.raises(ValueError, match="view: expected one of 'front', 'side', 'top'"):
        clip.plot(0, view="back")
    with pytest.raises(ValueError, match=r"frame: expected -0 <= frame < 0"):
        clip[0:0].plot()


def test_skeleton_plot(clip):
    fig = clip.skeleton.plot()
    assert isinstance(fig, Figure) and len(fig.axes) == 4
    assert "Hips" in [t.get_text() for t in fig.axes[0].texts]           # labels: 31 <= 40
    tree = S.Skeleton([-1, 0, 0, 1, 1, 2], ["a", "b", "c", "d", "e", "f"]).plot()
    assert "no rest pose" in tree.axes[0].get_title()
    assert [t.get_text() for t in tree.axes[0].texts] == list("abcdef")
    from skelsimd import testing
    parents, names = testing.humanoid_skeleton()
    big = S.Skeleton(parents, names, testing.random_qts(96, np.random.default_rng(0))).plot()
    assert len(big.axes[0].texts) == 0                                      # 96 > 40: no labels


def test_animation_is_a_funcanimation(clip):
    anim = clip.animate(frames=slice(0, 40, 2))
    assert isinstance(anim, FuncAnimation) and isinstance(anim, S.plotting.ClipAnimation)
    fig = anim._fig
    assert not hasattr(fig.canvas, "manager") or fig.canvas.manager is None   # not pyplot's
    # the matplotlib path: update(f) moves the bones to frame 2f
    anim._func(3)
    pos = clip.global_positions(slice(6, 7))[0]
    segs = fig.axes[0].collections[0].get_segments()
    child = np.flatnonzero(clip.skeleton.parents >= 0)
    assert np.allclose([s[1] for s in segs], pos[child][:, [0, 1]], atol=1e-5)
    # the inline player ships the same positions, in pixels
    px = anim.frame_pixels()
    assert px.shape == (20, 2, 31, 2)
    ax = fig.axes[1]                                                    # side view: (z, y)
    expected = ax.transData.transform(pos[:, [2, 1]])
    assert np.allclose(px[3, 1, :, 0], expected[:, 0], atol=1e-6)
    assert np.allclose(px[3, 1, :, 1], fig.bbox.height - expected[:, 1], atol=1e-6)
    html = anim._repr_html_()
    data = _player_data(html)
    assert data["frames"] == 20 and data["joints"] == 31 and data["step"] == 2
    assert data["fps"] == pytest.approx(clip.fps / 2)
    xy = np.frombuffer(base64.b64decode(data["xy"]), "<i2").reshape(20, 2, 31, 2) / data["scale"]
    assert np.abs(xy - px).max() <= 0.5 / data["scale"]
    assert base64.b64decode(data["background"]).startswith(b"\x89PNG")


def _player_data(html):
    script = html.split("<script>")[1]
    return json.loads(re.search(r"var d = (\{.*?\});\n", script).group(1))


def test_animation_options_and_errors(clip):
    anim = clip.animate(views="top", fps=30)
    assert len(anim._fig.axes) == 1 and _player_data(anim.to_html())["fps"] == 30
    for kwargs, exc, msg in [
        (dict(views=("back",)), ValueError, "view: expected one of"),
        (dict(views=()), ValueError, "views: expected at least one"),
        (dict(frames=5), TypeError, "frames: expected a slice"),
        (dict(frames=slice(5, 5)), ValueError, "frames: expected a non-empty selection"),
        (dict(fps=0), ValueError, "fps: expected a positive finite number"),
        (dict(fps="x"), TypeError, "fps: expected a positive number"),
    ]:
        with pytest.raises(exc, match=msg):
            clip.animate(**kwargs)


def test_matplotlib_players_on_request(clip):
    anim = clip[:3].animate()
    with matplotlib.rc_context({"animation.html": "jshtml"}):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            html = anim._repr_html_()
    assert "<img id" in html and "sks-animation" not in html


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
def test_player_javascript_runs(clip, tmp_path):
    """The player's script, run in node with a DOM and canvas stub: no errors, frame 0 drawn on
    load, playing steps frames, the slider seeks; the bones drawn are the shipped pixels."""
    anim = clip.animate(frames=slice(0, 30))
    html = anim.to_html()
    path = tmp_path / "player.html"
    path.write_text(html)
    out = subprocess.run(["node", JS, str(path)], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    report = json.loads(out.stdout)
    assert report["playing"] and report["drewBackground"] and report["stoppedBySlider"]
    labels = [f["label"] for f in report["frames"]]
    assert labels[0].startswith("frame 0 ") and labels[1].startswith("frame 2 ")
    assert labels[2].startswith("frame 5 ")
    px = anim.frame_pixels()
    parents = clip.skeleton.parents
    child = np.flatnonzero(parents >= 0)
    for f, frame in zip((0, 2, 5), report["frames"]):
        drawn = np.array(frame["lines"]).reshape(-1, len(child), 2, 2)     # views, bones, ends
        for v in range(2):
            expected = np.stack([px[f, v, parents[child]], px[f, v, child]], axis=1)
            assert np.abs(drawn[v] - expected).max() <= 1 / 16


def test_repr_html(clip):
    h = clip._repr_html_()
    assert "skelsimd.Clip" in h and "240 at 120 fps" in h and "31: Hips" in h and "ZYX" in h
    h = clip.skeleton._repr_html_()
    assert "skelsimd.Skeleton" in h and "left/right pairs</th><td style=\"text-align: left\">12" in h
    odd = S.Skeleton([-1, 0], ["<b>root</b>", "a&b"])
    h = odd._repr_html_()
    assert "&lt;b&gt;root&lt;/b&gt;" in h and "a&amp;b" in h and "<b>root</b>" not in h
    s = S.Surface(4, 6, preset="cloth")
    s.pinned[0, :] = True
    h = s._repr_html_()
    assert "skelsimd.Surface" in h and "4 × 6 (plane)" in h and "6 of 24 vertices" in h
    assert "max stable dt" in h
    assert "skelsimd.Clip" in clip[0:0]._repr_html_()


@pytest.mark.parametrize("name", ["a$}$b", "{" * 200 + "x" + "}" * 200, "$" + "{" * 200 + "$",
                                  r"\frac{1}{2}", "$x$"])
def test_joint_names_are_drawn_as_plain_text(name):
    """Names are drawn as they are, never parsed as mathtext ("a$}$b" raised, 200 nested
    braces a RecursionError)."""
    rest = np.zeros((2, 8), np.float32)
    rest[:, 3] = rest[:, 7] = 1
    rest[1, 5] = 1
    for skeleton in (S.Skeleton([-1, 0], [name, "b"], rest), S.Skeleton([-1, 0], [name, "b"])):
        fig = skeleton.plot(labels=True)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)    # a 400-character name: no layout
            fig.canvas.draw()
        texts = [t.get_text() for ax in fig.axes for t in ax.texts]
        assert name in texts


def test_one_joint_skeletons_and_clips_plot():
    rest = np.array([[0, 0, 0, 1, 0, 0, 0, 1]], np.float32)
    skeleton = S.Skeleton([-1], ["root"], rest)
    skeleton.plot().canvas.draw()
    clip = S.Clip(skeleton, np.repeat(rest[None], 3, axis=0), 1 / 30)
    clip.plot().canvas.draw()
    for view in ("front", "side", "top"):
        clip.plot(1, view=view)
    anim = clip.animate()
    assert anim.frame_pixels().shape[2] == 1
