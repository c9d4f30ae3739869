"""skelsimd's headline workloads side by side with ozz-animation's runtime jobs, on the same
input bytes, in one interleaved run.

    python benchmarks/anchors/compare_ozz.py --ozz-src OZZ_SRC --ozz-build OZZ_BUILD
        [--bench PATH] [--rounds 5] [--min-time 0.05] [--repeat 5] [--workdir DIR] [--json FILE]
        [--skin [--sizes 10000 1000000] [--threads 1 2]]

OZZ_SRC is a checkout of ozz-animation (its include/ directory is used), OZZ_BUILD the CMake
build directory of its runtime and offline libraries (README.md beside this file says how to
build it). The script compiles ozz_bench.cc against them (g++ -O3 -mavx2 -mfma, or $CXX; or
give --bench, an ozz_bench already built), takes the inputs of skelsimd's own benchmark
workloads (skelsimd._bench: the very arrays the headline rows' calls close over), writes them
to array files that ozz_bench reads, checks that both sides compute the same results on them,
then alternates rounds: each round times every row's skelsimd call (under the dispatched target
and under avx2) and its ozz job, one after the other. Each timing is the best of --repeat
samples of calls batched to last at least --min-time seconds (skelsimd._bench.core.measure;
ozz_bench measures its jobs the same way in C++); the table gives minima over the rounds.
"""
from __future__ import annotations

import argparse
import glob
import inspect
import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

# the checkout's skelsimd (built in place) before an installed one
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
import skelsimd  # noqa: E402
from skelsimd import _isa  # noqa: E402
from skelsimd._bench import joints as BJ  # noqa: E402
from skelsimd._bench import quat as BQ  # noqa: E402
from skelsimd._bench import runtime as BR  # noqa: E402
from skelsimd._bench import skinning as BS  # noqa: E402
from skelsimd._bench.core import Workload, load_average, machine_info, measure  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
OZZ_LIBS = ("ozz_animation_offline", "ozz_animation", "ozz_geometry", "ozz_base")
FLAGS = ["-O3", "-mavx2", "-mfma", "-std=c++17", "-Wall", "-Wextra",
         # ozz's own build turns this off: __m128 as a template argument (std::vector<SimdFloat4>)
         "-Wno-ignored-attributes"]
BLEND_T = 0.3     # blend_joints' t in skelsimd._bench.quat (the check below confirms it)


def _write_inputs(workdir: str, job: str, inputs: dict[str, Any]) -> None:
    """The arrays of one ozz job as the files ozz_bench reads (int32 indices, float32 else)."""
    for name, a in inputs.items():
        a = np.asarray(a)
        write_array(os.path.join(workdir, f"{job}.{name}.arr"),
                    a.astype(np.int32) if a.dtype.kind in "iu" else _f32(a))


def _timing_footer(args: argparse.Namespace, load_before: Sequence[float] | None,
                   load_after: Sequence[float] | None) -> str:
    """The line under a table: how it was timed and the load average around it."""
    return (f"minima over {args.rounds} interleaved rounds, each the best of {args.repeat} "
            f"samples of >= {args.min_time} s; load average (1, 5, 15 min) before "
            f"{' '.join(map(str, load_before or []))}, after {' '.join(map(str, load_after or []))}")


# --- the ozz side ------------------------------------------------------------------------------


def build_bench(ozz_src: str, ozz_build: str, out_dir: str) -> str:
    """Compile ozz_bench.cc against an ozz build; returns the executable's path."""
    libs = []
    for name in OZZ_LIBS:
        found = sorted(glob.glob(os.path.join(ozz_build, "**", f"lib{name}*.a"), recursive=True))
        found = [f for f in found if os.path.basename(f) in (f"lib{name}.a", f"lib{name}_r.a")]
        if not found:
            sys.exit(f"--ozz-build: lib{name}.a not found under {ozz_build} (build ozz's runtime "
                     "and offline libraries first: see README.md)")
        libs.append(found[0])
    include = os.path.join(ozz_src, "include")
    if not os.path.isfile(os.path.join(include, "ozz", "animation", "runtime", "blending_job.h")):
        sys.exit(f"--ozz-src: {include}/ozz/animation/runtime/blending_job.h not found")
    exe = os.path.join(out_dir, "ozz_bench")
    cmd = ([os.environ.get("CXX", "g++")] + FLAGS + ["-I", include,
           os.path.join(HERE, "ozz_bench.cc"), "-o", exe] + libs)
    print("building:", " ".join(cmd), flush=True)
    subprocess.run(cmd, check=True)
    return exe


def write_array(path: str, a: np.ndarray) -> None:
    """An SKB1 array file (the format ozz_bench reads): magic, dtype code, ndim, dims, data."""
    a = np.ascontiguousarray(a)
    code = {np.dtype(np.float32): 1, np.dtype(np.int32): 2}[a.dtype]
    with open(path, "wb") as f:
        f.write(b"SKB1")
        f.write(np.array([code, a.ndim], "<u4").tobytes())
        f.write(np.array(a.shape, "<u8").tobytes())
        f.write(a.astype(a.dtype.newbyteorder("<"), copy=False).tobytes())


def read_array(path: str) -> np.ndarray:
    with open(path, "rb") as f:
        raw = f.read()
    if raw[:4] != b"SKB1":
        raise ValueError(f"{path}: not an SKB1 array file")
    code, ndim = np.frombuffer(raw, "<u4", 2, 4)
    shape = tuple(int(d) for d in np.frombuffer(raw, "<u8", int(ndim), 12))
    dtype = {1: "<f4", 2: "<i4"}[int(code)]
    return np.frombuffer(raw, dtype, offset=12 + 8 * int(ndim)).reshape(shape)


def ozz_version(ozz_src: str | None) -> str:
    """ozz-animation's version from its top CMakeLists.txt (OZZ_VERSION_MAJOR/MINOR/PATCH)."""
    parts = {}
    try:
        with open(os.path.join(ozz_src or "", "CMakeLists.txt")) as f:
            for line in f:
                for key in ("MAJOR", "MINOR", "PATCH"):
                    if line.startswith(f"set(OZZ_VERSION_{key} "):
                        parts[key] = line.split()[1].rstrip(")")
    except OSError:
        pass
    return ".".join(parts[k] for k in ("MAJOR", "MINOR", "PATCH")) if len(parts) == 3 else "?"


class OzzBench:
    """The ozz_bench process: one command line in, one JSON line out."""

    def __init__(self, exe: str, data_dir: str) -> None:
        self.dir = data_dir
        self.proc = subprocess.Popen([exe, data_dir], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, text=True)

    def ask(self, line: str) -> dict[str, Any]:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()
        reply: dict[str, Any] = json.loads(self.proc.stdout.readline())
        if "error" in reply:
            raise RuntimeError(f"ozz_bench {line!r}: {reply['error']}")
        return reply

    def time(self, job: str, min_time: float, repeat: int) -> float:
        return float(self.ask(f"time {job} {min_time} {repeat}")["ns_per_unit"])

    def outputs(self, job: str, *names: str) -> list[np.ndarray]:
        self.ask(f"check {job}")
        return [read_array(os.path.join(self.dir, f"{job}.out.{n}.arr")) for n in names]

    def close(self) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write("quit\n")
        self.proc.stdin.close()
        self.proc.wait()


# --- the rows ----------------------------------------------------------------------------------

@dataclass
class Row:
    title: str
    unit: str
    workload: Workload
    ozz_job: str
    equivalent: str                      # "yes", or what differs
    inputs: dict[str, np.ndarray] = field(default_factory=dict)
    check: Callable[[OzzBench, object], str] | None = None   # -> a line describing the errors


def closure(w: Workload) -> dict[str, Any]:
    """The arrays a workload's skelsimd call closes over: the bytes its timed row reads."""
    return dict(inspect.getclosurevars(w.kernel).nonlocals)


def _f32(a: Any) -> np.ndarray:
    return np.ascontiguousarray(a, dtype=np.float32)


def _quat_err(got: np.ndarray, want: np.ndarray) -> float:
    """Max abs difference of two quaternion arrays, each row up to sign."""
    g, w = np.asarray(got, np.float64), np.asarray(want, np.float64)
    return float(np.minimum(np.abs(g - w).max(-1), np.abs(g + w).max(-1)).max(initial=0.0))


def _assert(err: float, tol: float, what: str) -> str:
    if not err <= tol:
        raise AssertionError(f"{what}: ozz and skelsimd differ by {err:.3g} > {tol:.3g}")
    return f"{what} {err:.2g} (tol {tol:.0e})"


def skin_rows() -> list[Row]:
    rows = []
    for normals, renormalize in ((False, True), (True, True), (True, False)):
        w = (BS.skin_normals_workload(renormalize=renormalize) if normals
             else BS.skin_workload(1))
        c = closure(w)
        job = "skin_normals" if normals else "skin"
        inputs = {"positions": c["positions"], "indices": c["idx"], "weights": c["w"],
                  "palette": c["palette"][0]}
        if normals:
            inputs["normals"] = c["normals"]

        def check(ozz: OzzBench, res: object, job: str = job, normals: bool = normals,
                  renormalize: bool = renormalize) -> str:
            if normals:
                assert isinstance(res, tuple)
                pos, nrm = (np.asarray(r, np.float64)[0] for r in res)
                o_pos, o_nrm = ozz.outputs(job, "positions", "normals")
            else:
                pos = np.asarray(res, np.float64)[0]
                (o_pos,) = ozz.outputs(job, "positions")
            # relative to the point's distance from the origin (at least 1)
            scale = np.maximum(1.0, np.linalg.norm(pos, axis=-1, keepdims=True))
            text = _assert(float((np.abs(o_pos - pos) / scale).max()), 1e-4, "positions rel")
            if normals and not renormalize:
                # the same job: both sides leave the normals unnormalised
                text += "; " + _assert(float(np.abs(o_nrm - nrm).max()), 1e-4, "normals")
            elif normals:
                # ozz leaves normals unnormalised: compare their directions
                unit = o_nrm / np.linalg.norm(o_nrm, axis=-1, keepdims=True)
                text += "; " + _assert(float(np.abs(unit - nrm).max()), 1e-4,
                                       "normals (ozz's renormalised)")
            return text

        what = ("skin 10000 x 4, 1 palette" if not normals
                else "skin 10000 x 4 + normals, 1 palette" if renormalize
                else "skin 10000 x 4 + normals renormalize=False, 1 palette")
        rows.append(Row(what, "vertex", w, job,
                        "no: skelsimd renormalises the normals, ozz does not (README.md)"
                        if normals and renormalize
                        else "yes (ozz reads 3 weights and uint16 indices)",
                        inputs, check))
    return rows


@dataclass
class SkinSize:
    """One mesh size of the --skin table: ozz's SkinningJob with normals against
    skin(..., normals=...) with renormalize=False (the same job) and True (for reference)."""
    vertices: int
    job: str
    raw: Workload                         # renormalize=False
    renorm: Workload                      # renormalize=True
    inputs: dict[str, np.ndarray]
    check: Callable[[OzzBench, object], str]


def skin_size(vertices: int) -> SkinSize:
    raw = BS.skin_normals_workload(vertices=vertices, renormalize=False)
    renorm = BS.skin_normals_workload(vertices=vertices, renormalize=True)
    c, cr = closure(raw), closure(renorm)
    assert all(np.array_equal(c[k], cr[k]) for k in ("positions", "normals", "idx", "w",
                                                     "palette")), "the two workloads differ"
    job = f"skin_normals_{vertices}"
    inputs = {"positions": c["positions"], "indices": c["idx"], "weights": c["w"],
              "palette": c["palette"][0], "normals": c["normals"]}

    def check(ozz: OzzBench, res: object) -> str:
        assert isinstance(res, tuple)
        pos, nrm = (np.asarray(r, np.float64)[0] for r in res)
        o_pos, o_nrm = ozz.outputs(job, "positions", "normals")
        scale = np.maximum(1.0, np.linalg.norm(pos, axis=-1, keepdims=True))
        return (_assert(float((np.abs(o_pos - pos) / scale).max()), 1e-4, "positions rel")
                + "; " + _assert(float(np.abs(o_nrm - nrm).max()), 1e-4, "normals"))

    return SkinSize(vertices, job, raw, renorm, inputs, check)


def _result_bytes(res: object) -> list[bytes]:
    assert isinstance(res, tuple)
    return [np.asarray(r).tobytes() for r in res]


def run_skin(args: argparse.Namespace, exe: str, workdir: str, version: str) -> None:
    """--skin: SkinningJob with normals beside skin(..., normals=..., renormalize=False and
    True) at each --sizes and each --threads count, on the dispatched target; interleaved
    rounds (every size, variant and count, then ozz), minima over the rounds."""
    load_before = load_average()
    info = machine_info()
    sizes = [skin_size(v) for v in args.sizes]
    for sz in sizes:
        _write_inputs(workdir, sz.job, sz.inputs)
    ozz = OzzBench(exe, workdir)
    print(f"machine: {info['cpu']} ({info['cores']} cores); skelsimd target {skelsimd.isa()}; "
          f"ozz-animation {version}, ozz_bench: {' '.join(FLAGS[:3])}", flush=True)
    variants = [("renormalize=False", "raw"), ("renormalize=True", "renorm")]
    # ozz_bench is built for avx2: skelsimd's avx2 target too, renormalize=False on 1 thread
    avx2 = "avx2" in _isa.supported_isas() and skelsimd.isa() != "avx2"
    for sz in sizes:
        for _, attr in variants:
            w: Workload = getattr(sz, attr)
            first = None
            for n in args.threads:
                with skelsimd.threads(n):
                    res = w.kernel()
                try:
                    if w.check is not None:
                        w.check(res)
                except AssertionError as e:
                    if attr == "raw":
                        raise
                    # renormalising a blended normal that nearly cancels (random palettes,
                    # unrelated joints) amplifies its rounding: reported, not a stop, as this
                    # variant is timed for reference only
                    worst = [ln for ln in str(e).splitlines() if "Max absolute" in ln]
                    print(f"note: {w.title}, {n} threads, against float64: "
                          f"{worst[0].strip() if worst else e}", flush=True)
                got = _result_bytes(res)
                if first is None:
                    first = got
                elif got != first:
                    raise AssertionError(f"{w.title}: {n} threads differ from {args.threads[0]}")
            if attr == "raw" and avx2:
                with skelsimd.threads(args.threads[0]), _isa.use_isa("avx2"):
                    if _result_bytes(w.kernel()) != first:
                        raise AssertionError(f"{w.title}: avx2 differs from {skelsimd.isa()}")
            if attr == "raw":
                with skelsimd.threads(args.threads[0]):
                    print(f"check skin {sz.vertices} x 4 + normals: "
                          f"{sz.check(ozz, w.kernel())}", flush=True)
    best: dict[tuple[int, str], float] = {}

    def keep(key: tuple[int, str], ns: float) -> None:
        best[key] = min(best.get(key, np.inf), ns)

    for r in range(args.rounds):
        for sz in sizes:
            for _, attr in variants:
                w = getattr(sz, attr)
                for n in args.threads:
                    with skelsimd.threads(n):
                        keep((sz.vertices, f"{attr} {n}"),
                             measure(w.kernel, min_time=args.min_time, repeat=args.repeat)
                             * 1e9 / w.units)
            if avx2:
                with skelsimd.threads(args.threads[0]), _isa.use_isa("avx2"):
                    keep((sz.vertices, "raw avx2"),
                         measure(sz.raw.kernel, min_time=args.min_time, repeat=args.repeat)
                         * 1e9 / sz.raw.units)
            keep((sz.vertices, "ozz"), ozz.time(sz.job, args.min_time, args.repeat))
        print(f"round {r + 1}/{args.rounds} done", file=sys.stderr, flush=True)
    ozz.close()
    load_after = load_average()
    counts = args.threads
    head = (["vertices x 4 + normals"]
            + [f"renormalize=False {n}T" for n in counts]
            + [f"renormalize=True {n}T" for n in counts]
            + ([f"renormalize=False avx2 {counts[0]}T"] if avx2 else []) + [f"ozz {version} (1T)"]
            + [f"False {n}T / ozz" for n in counts]
            + ([f"False avx2 {counts[0]}T / ozz"] if avx2 else []) + [f"True {counts[0]}T / ozz"])
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for sz in sizes:
        b = {k[1]: v for k, v in best.items() if k[0] == sz.vertices}
        cells = ([f"{sz.vertices:,}"] + [fmt(b[f"raw {n}"]) for n in counts]
                 + [fmt(b[f"renorm {n}"]) for n in counts]
                 + ([fmt(b["raw avx2"])] if avx2 else []) + [fmt(b["ozz"])]
                 + [f"{b[f'raw {n}'] / b['ozz']:.2f}" for n in counts]
                 + ([f"{b['raw avx2'] / b['ozz']:.2f}"] if avx2 else [])
                 + [f"{b[f'renorm {counts[0]}'] / b['ozz']:.2f}"])
        lines.append("| " + " | ".join(cells) + " |")
    print()
    print("ns per vertex, skelsimd on " + skelsimd.isa())
    print("\n".join(lines))
    print()
    print(_timing_footer(args, load_before, load_after))
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"machine": info, "ozz_version": version, "isa": skelsimd.isa(),
                       "load_before": load_before, "load_after": load_after,
                       "rounds": args.rounds, "threads": counts,
                       "ns_per_vertex": {f"{v} {k}": t for (v, k), t in best.items()}},
                      f, indent=1)


def nlerp_rows() -> list[Row]:
    w = BQ.nlerp_workload()
    c = closure(w)
    q0, q1, t = c["q0"], c["q1"], c["t"]

    def check(ozz: OzzBench, res: object) -> str:
        (got,) = ozz.outputs("nlerp", "q")
        want = np.asarray(res, np.float64)
        err = np.abs(got - want).max(-1)
        # where q0 . q1 is 0 up to rounding either hemisphere is right: compare with both
        a, b, tt = q0.astype(np.float64), q1.astype(np.float64), t.astype(np.float64)[:, None]
        tie = np.abs((a * b).sum(-1)) < 1e-6
        for sign in (1.0, -1.0):
            lerp = (1 - tt) * a + tt * sign * b
            ref = lerp / np.linalg.norm(lerp, axis=-1, keepdims=True)
            err = np.where(tie, np.minimum(err, np.abs(got - ref).max(-1)), err)
        return (_assert(float(err.max()), 1e-6, "quaternions")
                + f" ({int(tie.sum())} pairs with q0.q1 ~ 0)")

    inputs = {"q0": q0, "q1": q1, "t": t}
    return [Row("nlerp 1024 pairs", "pair", w, "nlerp",
                "yes (ozz's SoA NLerp plus the hemisphere test; ozz's data already SoA)",
                inputs, check),
            Row("nlerp 1024 pairs vs ozz NLerp alone", "pair", w, "nlerp_nofix",
                "no: ozz's NLerp has no hemisphere test (wrong on q1 ~ -q0)")]


def _blend_check(job: str) -> Callable[[OzzBench, object], str]:
    def check(ozz: OzzBench, res: object) -> str:
        (got,) = ozz.outputs(job, "pose")
        want = np.asarray(res, np.float64)
        text = _assert(_quat_err(got[..., :4], want[..., :4]), 1e-5, "rotations")
        err_t = float(np.abs(got[..., 4:7] - want[..., 4:7]).max())
        text += "; " + _assert(err_t, 1e-5, "translations")
        text += "; " + _assert(float(np.abs(got[..., 7:10] - want[..., 7:8]).max()), 1e-5, "scales")
        return text
    return check


def blend_rows() -> list[Row]:
    rows = []
    # two layers: blend_joints(a, b, t) is BlendingJob with layers a, b at weights 1 - t, t
    nl = BQ.blend_joints_workload(method="nlerp")
    fast = BQ.blend_joints_workload()
    c = closure(nl)
    two = {"layers": np.stack([c["a"], c["b"]], axis=1),
           "weights": np.array([1 - BLEND_T, BLEND_T], np.float32)}
    rows.append(Row("blend_joints nlerp 1000 x 96", "joint", nl, "blend2",
                    "yes (ozz: estimated 1/sqrt, one Run per character)", two,
                    _blend_check("blend2")))
    cf = closure(fast)
    assert all(np.array_equal(cf[k], c[k]) for k in ("a", "b")), "blend_joints workloads differ"
    rows.append(Row("blend_joints fast 1000 x 96", "joint", fast, "blend2",
                    "no: skelsimd slerps (fast method), ozz's BlendingJob nlerps"))
    w3 = BQ.blend_layers_workload()
    c3 = closure(w3)
    rows.append(Row("blend_layers 3 x 1000 x 96", "joint", w3, "blend3",
                    "yes (ozz: estimated 1/sqrt, one Run per character)",
                    {"layers": c3["x"], "weights": c3["w"]}, _blend_check("blend3")))
    for batch in (1000, 10):
        wa = BR.layers_additive_workload(batch=batch)
        ca = closure(wa)
        (delta, weight), = ca["layer"]
        job = f"blend2_add{batch}"
        rows.append(Row(f"2 layers + additive {batch} x 96", "joint", wa, job,
                        "yes (ozz: estimated 1/sqrt, one Run per character)",
                        {"layers": ca["x"], "weights": ca["w"], "additive": delta,
                         "additive_weight": np.array([weight], np.float32)}, _blend_check(job)))
    return rows


def walk_rows() -> list[Row]:
    wm = BQ.qts_walk_workload(matrix=True)
    c = closure(wm)
    parents = np.asarray(c["parents"], np.int32)

    def check(ozz: OzzBench, res: object) -> str:
        (got,) = ozz.outputs("local_to_model", "global")
        want = np.asarray(res, np.float64)
        scale = np.maximum(1.0, np.abs(want))
        return _assert(float((np.abs(got - want) / scale).max()), 1e-4, "global matrices rel")

    army = BJ.army()
    ca = closure(army)
    assert np.array_equal(np.asarray(ca["parents"]), parents), "the army's skeleton differs"
    return [Row("qts_local_to_global_matrix 1000 x 96", "joint", wm, "local_to_model",
                "yes (QTS in, matrices out; ozz: 4x4 out, one Run per character)",
                {"parents": parents, "local": c["local"]}, check),
            Row("local_to_global 1000 x 96 (matrices in)", "joint", army, "local_to_model",
                "no: skelsimd multiplies 3x4 local matrices, ozz converts QTS to matrices first")]


def ik_rows() -> list[Row]:
    w2 = BR.two_bone_workload(1000)
    c2 = closure(w2)

    def check2(ozz: OzzBench, res: object) -> str:
        start, mid, reached = ozz.outputs("ik_two_bone", "start", "mid", "reached")
        assert isinstance(res, tuple)
        text = _assert(_quat_err(start, res[0]), 1e-4, "start corrections")
        text += "; " + _assert(_quat_err(mid, res[1]), 1e-4, "mid corrections")
        differ = int(((reached > 0.5) != np.asarray(res[2])).sum())
        return text + f"; reached differs on {differ} chains"

    wa = BR.aim_workload(1000)
    ca = closure(wa)

    def check_aim(ozz: OzzBench, res: object) -> str:
        q, reached = ozz.outputs("ik_aim", "q", "reached")
        assert isinstance(res, tuple)
        text = _assert(_quat_err(q, res[0]), 1e-4, "corrections")
        differ = int(((reached > 0.5) != np.asarray(res[1])).sum())
        return text + f"; reached differs on {differ} joints"

    return [Row("ik_two_bone 1000 chains", "solve", w2, "ik_two_bone",
                "yes (ozz: one Run per chain)",
                {"start": c2["s"], "mid": c2["m"], "end": c2["e"], "target": c2["target"],
                 "pole": c2["pole"], "axis": c2["axis"]}, check2),
            Row("ik_aim 1000 joints", "solve", wa, "ik_aim", "yes (ozz: one Run per joint)",
                {"joint": ca["s"], "target": ca["target"], "pole": ca["pole"],
                 "forward": ca["forward"], "up": ca["up"]}, check_aim)]


def all_rows() -> list[Row]:
    return skin_rows() + nlerp_rows() + blend_rows() + walk_rows() + ik_rows()


# --- the run -----------------------------------------------------------------------------------

def fmt(x: float | None, digits: int = 2) -> str:
    if x is None:
        return ""
    return f"{x:.{digits}f}" if x < 100 else f"{x:.0f}"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--ozz-src", help="ozz-animation checkout (its include/ is used)")
    ap.add_argument("--ozz-build", help="ozz-animation CMake build directory (its .a libraries)")
    ap.add_argument("--bench", help="an ozz_bench already built (then --ozz-* are not needed)")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--min-time", type=float, default=0.05)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--workdir", help="where the input files (and ozz_bench) go; a temporary "
                    "directory by default")
    ap.add_argument("--json", help="write the results here too")
    ap.add_argument("--skin", action="store_true",
                    help="only the skinning-with-normals table: --sizes x --threads, "
                    "renormalize=False (ozz's job) and True, against SkinningJob")
    ap.add_argument("--sizes", type=int, nargs="+", default=[10_000, 1_000_000],
                    help="with --skin: vertex counts (default 10000 1000000)")
    ap.add_argument("--threads", type=int, nargs="+", default=[1, 2],
                    help="with --skin: skelsimd thread counts (default 1 2; ozz is single-threaded)")
    args = ap.parse_args()

    load_before = load_average()
    info = machine_info()
    tmp = None
    workdir = args.workdir
    if workdir is None:
        tmp = tempfile.TemporaryDirectory(prefix="skelsimd_ozz_")
        workdir = tmp.name
    os.makedirs(workdir, exist_ok=True)
    if args.bench:
        exe = args.bench
    else:
        if not (args.ozz_src and args.ozz_build):
            ap.error("give --ozz-src and --ozz-build (or --bench)")
        exe = build_bench(args.ozz_src, args.ozz_build, workdir)

    version = ozz_version(args.ozz_src)
    if args.skin:
        run_skin(args, exe, workdir, version)
        if tmp is not None:
            tmp.cleanup()
        return
    rows = all_rows()
    for row in rows:
        _write_inputs(workdir, row.ozz_job, row.inputs)
    ozz = OzzBench(exe, workdir)

    isas = [skelsimd.isa()] + (["avx2"] if "avx2" in _isa.supported_isas()
                               and skelsimd.isa() != "avx2" else [])
    print(f"machine: {info['cpu']} ({info['cores']} cores); skelsimd targets timed: "
          f"{', '.join(isas)}; ozz-animation {version}, ozz_bench: {' '.join(FLAGS[:3])}",
          flush=True)
    # correctness first: the workload's own float64 check, then ozz against skelsimd
    checks = {}
    for row in rows:
        for isa in isas:
            with _isa.use_isa(isa):
                res = row.workload.kernel()
                if row.workload.check is not None:
                    row.workload.check(res)
        if row.check is not None:
            checks[row.title] = row.check(ozz, res)
            print(f"check {row.title}: {checks[row.title]}", flush=True)

    best: dict[str, dict[str, float]] = {row.title: {} for row in rows}
    for r in range(args.rounds):
        ozz_round: dict[str, float] = {}
        for row in rows:
            for isa in isas:
                with _isa.use_isa(isa):
                    ns = measure(row.workload.kernel, min_time=args.min_time,
                                 repeat=args.repeat) * 1e9 / row.workload.units
                b = best[row.title]
                b[isa] = min(b.get(isa, np.inf), ns)
            if row.ozz_job not in ozz_round:
                ozz_round[row.ozz_job] = ozz.time(row.ozz_job, args.min_time, args.repeat)
            b["ozz"] = min(b.get("ozz", np.inf), ozz_round[row.ozz_job])
        print(f"round {r + 1}/{args.rounds} done", file=sys.stderr, flush=True)
    ozz.close()
    load_after = load_average()

    head = (["row", "unit"] + [f"skelsimd {i}" for i in isas] + [f"ozz {version}"]
            + [f"{i} / ozz" for i in isas] + ["same job"])
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for row in rows:
        b = best[row.title]
        cells = ([row.title, f"ns/{row.unit}"] + [fmt(b[i]) for i in isas] + [fmt(b["ozz"])]
                 + [f"{b[i] / b['ozz']:.2f}" for i in isas] + [row.equivalent])
        lines.append("| " + " | ".join(cells) + " |")
    print()
    print("\n".join(lines))
    print()
    print(_timing_footer(args, load_before, load_after))
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"machine": info, "ozz_version": version, "load_before": load_before,
                       "load_after": load_after,
                       "rounds": args.rounds, "checks": checks,
                       "rows": [{"title": r.title, "unit": r.unit, "ozz_job": r.ozz_job,
                                 "equivalent": r.equivalent, "ns_per_unit": best[r.title]}
                                for r in rows]}, f, indent=1)
    if tmp is not None:
        tmp.cleanup()


if __name__ == "__main__":
    main()
