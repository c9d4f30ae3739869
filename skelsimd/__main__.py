"""python -m skelsimd: the main job (benchmarks) and small utilities.

    python -m skelsimd bench [--family joints ...] [--out DIR] [--quick] [--threads 1 2 ...]
    python -m skelsimd demo --out DIR
    python -m skelsimd dataset IN_DIR --out OUT.zarr [--workers N] [--scheduler ADDRESS] [--resume]
    python -m skelsimd info
    python -m skelsimd compress IN.bvh (OUT | --out OUT) [--precision P] [--end-sites]
    python -m skelsimd decompress IN (OUT.bvh | --out OUT.bvh)
    python -m skelsimd convert IN OUT [--scale S] [--mesh] [--animation I] [--up-axis Y|Z]
    python -m skelsimd retarget MOTION CHARACTER OUT [--map map.json] [--feet auto] [--clip NAME]
"""
from __future__ import annotations

import argparse
import os
import sys
from typing import TYPE_CHECKING

from . import _isa, __version__, parallel

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence
    from typing import Any

    from ._bench.core import Record, Workload


def _progress_factory(total: int) -> tuple[Callable[[Workload], None], Callable[[], None]]:
    """A progress callback: tqdm when installed (the [bench] extra), plain lines otherwise."""
    try:
        from tqdm import tqdm
    except ImportError:
        tqdm = None
    if tqdm is not None:
        bar = tqdm(total=total, unit="workload", file=sys.stderr, leave=False)

        def step(w: Workload) -> None:
            bar.set_description(w.title)
            bar.update(1)

        return step, bar.close

    count = [0]

    def print_step(w: Workload) -> None:
        count[0] += 1
        print(f"[{count[0]}/{total}] {w.title}", file=sys.stderr, flush=True)

    return print_step, lambda: None


def _plot(records: Sequence[Record], path: str) -> bool:
    """Bar chart of the speed-up over NumPy per workload and variant (needs matplotlib)."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return False
    titles = list(dict.fromkeys(r["title"] for r in records))
    variants = [v for v in _isa.supported_isas() if any(r["variant"] == v for r in records)]
    fig, ax = plt.subplots(figsize=(max(6, 1.6 * len(titles)), 4.5))
    width = 0.8 / max(1, len(variants))
    for i, v in enumerate(variants):
        vals = [next((r.get("speedup_vs_numpy", 0) for r in records if r["title"] == t and r["variant"] == v), 0)
                for t in titles]
        ax.bar([k + i * width for k in range(len(titles))], vals, width, label=v)
    ax.set_xticks([k + width * (len(variants) - 1) / 2 for k in range(len(titles))])
    ax.set_xticklabels(titles, rotation=20, ha="right", fontsize=8)
    ax.set_yscale("log")
    ax.set_ylabel("times faster than NumPy")
    ax.set_title("skelsimd speed-up over the fastest NumPy formulation")
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return True


def _plot_scaling(records: Sequence[Record], path: str) -> bool:
    """ns per joint over batch size, one panel per operation and joint count, one line per
    variant (needs matplotlib). Workloads take part when their params give a batch size and a
    joint count; an operation needs at least two batch sizes to get a panel."""
    from ._bench.core import plot_scaling, series_by_variant

    groups: dict[tuple[str, str, int], list[Record]] = {}
    for r in records:
        p = r.get("params", {})
        if r.get("unit") != "joint" or "batch" not in p or "joints" not in p:
            continue
        op = p.get("op") or r["title"].split()[0]
        groups.setdefault((r["family"], op, p["joints"]), []).append(r)
    panels = [(f"{op}, {joints} joints ({family})", "batch (skeletons or frames)", "ns per joint",
               series_by_variant(recs, lambda r: r["params"]["batch"]))
              for (family, op, joints), recs in groups.items()
              if len({r["params"]["batch"] for r in recs}) > 1]
    return plot_scaling(path, panels)


def cmd_bench(args: argparse.Namespace) -> int:
    from ._bench import FAMILIES, REPORTS, headline_workloads
    from ._bench.core import (format_machine, format_table, load_average, machine_info,
                              run_workloads, write_json)

    variants = args.variants or None
    if variants:
        bad = [v for v in variants if v not in _isa.supported_isas()]
        if bad:
            print(f"error: variant {bad[0]!r} is not supported here; supported: "
                  f"{', '.join(_isa.supported_isas())}", file=sys.stderr)
            return 2
    try:
        workloads = headline_workloads(args.family)
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    min_time, repeat = (0.01, 2) if args.quick else (args.min_time, args.repeat)
    if args.threads:
        return _bench_threads(args, min_time, repeat)
    info = machine_info()
    print(f"skelsimd {__version__} on {info['cpu']} ({info['cores']} cores), active variant "
          f"{_isa.isa()}, NumPy {info['numpy']}; families: {', '.join(args.family or FAMILIES)}")
    print(format_machine(info))
    step, close = _progress_factory(len(workloads))
    try:
        records = run_workloads(workloads, variants=variants, min_time=min_time, repeat=repeat,
                                progress=step)
    finally:
        close()
    info["load_average_after"] = load_average()
    print(format_table(records))
    print(format_machine(info, info["load_average_after"]))
    reports: dict[str, Any] = {}
    if args.out:
        os.makedirs(args.out, exist_ok=True)
    for name in args.family or FAMILIES:
        if name in REPORTS:
            text, data = REPORTS[name](args.out, bool(args.quick))
            print(text)
            reports[name] = data
    if args.out:
        path = os.path.join(args.out, "bench.json")
        write_json(path, records, machine=info, command="bench", quick=bool(args.quick),
                   reports=reports)
        print(f"wrote {path}")
        png = os.path.join(args.out, "bench_speedup.png")
        if _plot(records, png):
            print(f"wrote {png}")
            png = os.path.join(args.out, "bench_ns_per_joint.png")
            if _plot_scaling(records, png):
                print(f"wrote {png}")
        else:
            print("matplotlib is not installed (pip install 'skelsimd[bench]'): no plot written")
    return 0


def _bench_threads(args: argparse.Namespace, min_time: float, repeat: int) -> int:
    """bench --threads N [N ...]: the large calls at each thread count and the per-frame calls
    that stay on the calling thread, interleaved minima, with the speedup over the first count."""
    from ._bench.core import format_machine, load_average, machine_info, write_json
    from ._bench.threads import format_threads_table, run_threads, workloads

    counts = list(args.threads)
    if any(n < 1 for n in counts):
        print(f"error: --threads: expected positive counts, got {counts}", file=sys.stderr)
        return 2
    info = machine_info()
    print(f"skelsimd {__version__} on {info['cpu']} ({info['cores']} cores, "
          f"{parallel.available_cpus()} in this process's affinity mask), active variant "
          f"{_isa.isa()}; thread counts {counts}")
    print(format_machine(info))
    rows = workloads(bool(args.quick))
    step, close = _progress_factory(len(rows))
    try:
        records = run_threads(rows, counts, min_time=min_time, repeat=repeat, progress=step)
    finally:
        close()
    info["load_average_after"] = load_average()
    print(format_threads_table(records, counts))
    torch_records = _bench_torch(args, counts, min_time, repeat)
    info["load_average_after"] = load_average()
    print(format_machine(info, info["load_average_after"]))
    if args.out:
        os.makedirs(args.out, exist_ok=True)
        path = os.path.join(args.out, "bench_threads.json")
        write_json(path, records, machine=info, command="bench --threads", quick=bool(args.quick),
                   threads=counts, torch=torch_records)
        print(f"wrote {path}")
    return 0


def _bench_torch(args: argparse.Namespace, counts: list[int], min_time: float,
                 repeat: int) -> list[dict[str, Any]] | str:
    """The optional PyTorch-on-CPU column of bench --threads: its records, or why it is
    skipped."""
    from ._bench.torch_side import format_torch_table, run_torch, torch_unavailable

    reason = torch_unavailable()
    if reason is not None:
        print(f"PyTorch on CPU: skipped: {reason}")
        return reason
    print("beside PyTorch on CPU (torch.set_num_threads at the same counts; interleaved minima):")
    records = run_torch(counts, quick=bool(args.quick), min_time=min_time, repeat=repeat)
    print(format_torch_table(records, counts))
    return records


def cmd_demo(args: argparse.Namespace) -> int:
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        print("error: the demo draws with matplotlib: pip install 'skelsimd[bench]'", file=sys.stderr)
        return 1
    from . import _demo

    for path in _demo.run(args.out, log=lambda msg: print(msg, file=sys.stderr)):
        print(f"wrote {path}")
    return 0


def cmd_dataset(args: argparse.Namespace) -> int:
    try:
        from .dask import dataset
    except ImportError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    steps: list[dataset._Step] = [] if args.fps is None else [dataset.Resample(args.fps)]
    if args.compress is not None:
        try:
            steps.append(dataset.Compress(args.compress))
        except (TypeError, ValueError) as exc:
            print(f"error: --compress: {exc}", file=sys.stderr)
            return 2
    steps.append(dataset.GlobalPositions())
    if not args.no_features:
        steps.append(dataset.RootFeatures(up=args.up, forward=args.forward))
    if args.workers is not None and args.scheduler not in ("threads", "processes", "sync"):
        print("note: --workers is ignored on a distributed cluster (it has its own workers)",
              file=sys.stderr)
    try:
        report = dataset.build_dataset(args.source, args.out, steps=steps, scheduler=args.scheduler,
                                       workers=args.workers, progress=not args.no_progress,
                                       overwrite=args.overwrite, chunk_frames=args.chunk_frames,
                                       resume=args.resume)
    except (FileNotFoundError, FileExistsError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:       # before any clip was written (while files were found)
        print("interrupted: nothing was written", file=sys.stderr)
        return 130
    print(report.summary())
    if report.interrupted:
        return 130
    return 0 if report.ok else 1


def cmd_info(args: argparse.Namespace) -> int:
    print(f"skelsimd {__version__}")
    print(f"active variant: {_isa.isa()} (best {_isa.best_isa()}; supported {', '.join(_isa.supported_isas())};"
          f" compiled {', '.join(_isa.compiled_isas())})")
    print("dispatch (family -> variant): "
          + ", ".join(f"{f} {v}" for f, v in _isa.dispatch_table().items()))
    return 0


def _output(args: argparse.Namespace, parser_name: str) -> str | None:
    """The output path from the positional OUT or --out (either, or both when equal)."""
    if args.output is not None and args.out is not None and args.output != args.out:
        print(f"error: {parser_name}: the output is given twice ({args.output!r} and --out "
              f"{args.out!r}): give one", file=sys.stderr)
        return None
    out: str | None = args.output if args.output is not None else args.out
    if out is None:
        print(f"error: {parser_name}: the output file is missing (OUT or --out OUT)",
              file=sys.stderr)
    return out


def cmd_compress(args: argparse.Namespace) -> int:
    from .io.bvh import load_bvh
    from .compress import compress

    args.output = _output(args, "compress")
    if args.output is None:
        return 2
    try:
        clip = load_bvh(args.input, end_sites=args.end_sites)
        c = compress(clip, precision=args.precision, shell_distance=args.shell_distance,
                     segment_length=args.segment_length)
    except (OSError, ValueError, TypeError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    data = c.to_bytes()
    try:
        with open(args.output, "wb") as f:
            f.write(data)
    except OSError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    print(f"{args.input}: {c.num_frames} frames x {c.num_joints} joints at {c.sample_rate:.6g} Hz "
          f"-> {args.output}: {len(data)} bytes ({c.nbytes} of animation data, ratio "
          f"{c.ratio:.1f}), max error {c.stats['max_error']:.6g} <= precision {c.precision:g}")
    return 0


def cmd_decompress(args: argparse.Namespace) -> int:
    from .io.bvh import save_bvh
    from .io.skc import read_skc

    args.output = _output(args, "decompress")
    if args.output is None:
        return 2
    try:
        c = read_skc(args.input)
        save_bvh(c.to_clip(), args.output, order=args.order)
    except (OSError, ValueError, TypeError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    print(f"{args.input}: {c.num_frames} frames x {c.num_joints} joints -> {args.output}")
    return 0


_MOTION = (".bvh", ".bvh.gz", ".skc")
_GLTF = (".gltf", ".glb")
_USD = (".usda", ".usdc", ".usdz", ".usd")


def _suffix(path: str, choices: Sequence[str]) -> str | None:
    low = path.lower()
    return next((c for c in choices if low.endswith(c)), None)


def _family(suffix: str) -> str:
    return "gltf" if suffix in _GLTF else "usd" if suffix in _USD else "bvh"


def _read_character(path: str, family: str, animation: int) -> tuple[Any, Any, Any, str]:
    """(clip, mesh or None, inverse bind or None, detail) of a glTF or USD file."""
    if family == "gltf":
        from .io.gltf import load_gltf
        asset: Any = load_gltf(path)
    else:
        from .io.usd import load_usd
        asset = load_usd(path)
    pairs = asset.clip_pairs()      # indices stay put when a clip cannot be converted
    if not pairs:
        raise ValueError(f"{path}: the file has no animation of a skin")
    if not 0 <= animation < len(pairs):
        raise ValueError(f"--animation: expected 0 <= I < {len(pairs)} (the file's animated "
                         f"skins), got {animation}")
    clip = asset.clip(*pairs[animation])
    meshes = [m for m in asset.meshes if m.skin == clip.skin]
    mesh = meshes[0] if meshes else None
    detail = f"animation {animation} of {len(pairs)}"
    if mesh is not None:
        detail += f", mesh {mesh.name}"
    return clip, mesh, asset.skins[clip.skin].inverse_bind, detail


def _scaled(clip: Any, mesh: Any, inverse_bind: Any, scale: float) -> tuple[Any, Any, Any]:
    """The clip, mesh and inverse bind matrices with every length multiplied by scale."""
    if scale == 1.0:
        return clip, mesh, inverse_bind
    import dataclasses

    local = clip.local.copy()
    local[..., 4:7] *= scale
    rest = clip.skeleton.rest
    if rest is not None:
        rest = rest.copy()
        if rest.ndim == 2:
            rest[:, 4:7] *= scale
        else:
            rest[..., 3] *= scale
    skel = type(clip.skeleton)(clip.skeleton.parents, clip.skeleton.names, rest)
    out = type(clip)(skel, local, clip.frame_time, name=clip.name)
    if mesh is not None:
        mesh = dataclasses.replace(mesh, positions=mesh.positions * scale)
    if inverse_bind is not None:
        inverse_bind = inverse_bind.copy()
        inverse_bind[..., 3] *= scale
    return out, mesh, inverse_bind


def cmd_convert(args: argparse.Namespace) -> int:
    src = _suffix(args.input, _MOTION + _GLTF + _USD)
    dst = _suffix(args.output, _GLTF + _USD + (".bvh",))
    if src is None or dst is None or _family(src) == _family(dst):
        print(f"error: expected IN .bvh, .bvh.gz, .skc, .gltf, .glb, .usd, .usda, .usdc or "
              f".usdz and OUT .bvh, .gltf, .glb, .usd, .usda, .usdc or .usdz of another format "
              f"(motion capture, glTF, USD); got {args.input!r} -> {args.output!r}",
              file=sys.stderr)
        return 2
    if not (args.scale > 0 and args.scale < float("inf")):
        print(f"error: --scale: expected a positive finite number, got {args.scale}",
              file=sys.stderr)
        return 2
    if args.up_axis not in ("Y", "Z"):
        print(f"error: --up-axis: expected Y or Z, got {args.up_axis}", file=sys.stderr)
        return 2
    try:
        mesh: Any = None
        inverse_bind: Any = None
        meters_per_unit: float | None = None
        if _family(src) == "bvh":
            if src == ".skc":
                from .io.skc import load_skc
                clip: Any = load_skc(args.input)
            else:
                from .io.bvh import load_bvh
                clip = load_bvh(args.input, end_sites=True)
            if args.mesh and dst != ".bvh":
                from .data import example_mesh
                mesh = example_mesh(clip.skeleton)
            detail = "with a tube mesh" if mesh is not None else "skeleton and animation"
        else:
            clip, mesh, inverse_bind, detail = _read_character(args.input, _family(src),
                                                               args.animation)
            if src in _GLTF:
                meters_per_unit = 1.0 / args.scale          # glTF lengths are metres
        if dst == ".bvh":
            from .io.bvh import save_bvh
            clip, _, _ = _scaled(clip, None, None, args.scale)
            save_bvh(clip, args.output, order=args.order)
        elif dst in _GLTF:
            from .io.gltf_write import save_gltf
            save_gltf(args.output, clip, mesh=mesh, inverse_bind=inverse_bind, scale=args.scale)
        else:
            from .io.usd import save_usd
            clip, mesh, inverse_bind = _scaled(clip, mesh, inverse_bind, args.scale)
            skin = None if inverse_bind is None else {"inverse_bind": inverse_bind}
            save_usd(args.output, clip, mesh=mesh, skin=skin, up_axis=args.up_axis,
                     meters_per_unit=meters_per_unit)
    except (OSError, ValueError, TypeError, ImportError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    print(f"{args.input}: {clip.frames} frames x {len(clip.skeleton)} joints at "
          f"{clip.fps:.6g} Hz -> {args.output} ({detail})")
    return 0


def cmd_retarget(args: argparse.Namespace) -> int:
    from ._retarget_files import load_mapping, retarget_files

    scale: str | float = args.scale
    if args.scale not in ("legs", "height"):
        try:
            scale = float(args.scale)
        except ValueError:
            print(f"error: --scale: expected legs, height or a number, got {args.scale!r}",
                  file=sys.stderr)
            return 2
    feet = None if args.feet is None else (
        "auto" if args.feet == "auto" else [f for f in args.feet.split(",") if f])
    try:
        written = retarget_files(args.motion, args.character, args.output,
                                 mapping=load_mapping(args.map), feet=feet, clip_name=args.clip,
                                 scale=scale, fmt="." + args.format)
    except (OSError, ValueError, TypeError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    for src, dst, frames, joints in written:
        print(f"{src} -> {dst}: {frames} frames x {joints} joints")
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m skelsimd",
        description="skelsimd: SIMD kernels for character animation on NumPy float32 arrays.")
    parser.add_argument("--version", action="version", version=f"skelsimd {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="command")
    sub.required = True
    b = sub.add_parser("bench", help="run the headline benchmark of every kernel family",
                       description="Check every workload against its float64 reference, then time it on "
                                   "every SIMD variant, against the fastest NumPy formulation and the "
                                   "physical limit; print a table (and write JSON and a plot with --out).")
    b.add_argument("--family", action="append", help="only this kernel family (repeatable)")
    b.add_argument("--variants", nargs="+", metavar="ISA", help="only these SIMD variants")
    b.add_argument("--out", metavar="DIR", help="write bench.json, bench_speedup.png (ratio per "
                   "workload) and bench_ns_per_joint.png (ns per joint over batch size) into DIR")
    b.add_argument("--quick", action="store_true", help="short timings (smoke test; noisy ratios)")
    b.add_argument("--min-time", type=float, default=0.05, help="seconds per timing sample (default 0.05)")
    b.add_argument("--repeat", type=int, default=5, help="timing samples per measurement (default 5)")
    b.add_argument("--threads", nargs="+", type=int, metavar="N",
                   help="the threads axis instead: the large rows (walks, skin, sample_many, "
                        "euler_to_quat, search_many, the surface) and two per-frame rows at each "
                        "thread count, with the speedup over the first (e.g. --threads 1 2)")
    b.set_defaults(func=cmd_bench)
    d = sub.add_parser("demo", help="draw pictures: the embedded clip, a blend, a hanging surface",
                       description="Render PNG pictures into DIR: stick figures of the embedded "
                                   "motion-capture clip from several views, a blend between two of "
                                   "its frames, and a surface hanging from two pinned corners hit "
                                   "by an effector. Needs matplotlib (the [bench] extra).")
    d.add_argument("--out", metavar="DIR", required=True, help="directory for the PNG files")
    d.set_defaults(func=cmd_demo)
    ds = sub.add_parser("dataset", help="motion files to a Zarr store on Dask (the [dask] extra)",
                        description="Read every BVH file (.bvh, .bvh.gz) and compressed clip "
                                    "(.skc, as `compress` writes) of IN_DIR (a directory, searched "
                                    "recursively, a glob pattern or files), compute per clip the "
                                    "global joint positions and root-relative features (optionally "
                                    "resampled first) on a Dask scheduler, and write one Zarr group "
                                    "per clip (named by the file's path relative to IN_DIR, escaped to "
                                    "one safe name: local (F, J, 8), positions "
                                    "(F, J, 3), ...; attributes fps, names, parents). Files that "
                                    "fail are reported with their path (and line) as they happen and "
                                    "in the closing summary; the others are written. Exit status 0 "
                                    "when every file was written, 1 when some failed, 2 on a usage "
                                    "error, 130 when interrupted (Ctrl-C: the summary says what was "
                                    "written; --resume continues). Needs pip install "
                                    "'skelsimd[dask]'.")
    ds.add_argument("source", nargs="+", metavar="IN_DIR", help="directory, glob pattern or file")
    ds.add_argument("--out", metavar="OUT.zarr", required=True, help="the Zarr store to create")
    ds.add_argument("--workers", type=int, metavar="N",
                    help="worker processes (or threads) of the local scheduler (default: one per core)")
    ds.add_argument("--scheduler", default="processes", metavar="ADDRESS",
                    help="'processes' (default: local worker processes), 'threads', 'sync' (one "
                         "thread, for debugging), or a dask.distributed scheduler address "
                         "(tcp://host:8786) or scheduler file (.json)")
    ds.add_argument("--fps", type=float, help="resample every clip to this frame rate first")
    ds.add_argument("--compress", type=float, metavar="PRECISION",
                    help="also compress every clip to this precision (file units) and store its "
                         "bytes as the uint8 array 'compressed' (CompressedClip.from_bytes reads it)")
    ds.add_argument("--no-features", action="store_true",
                    help="only local and positions (no root-relative features)")
    ds.add_argument("--up", default="y", choices=("x", "y", "z"), help="up axis (default y)")
    ds.add_argument("--forward", default="z", choices=("x", "y", "z"),
                    help="the characters' forward axis (default z)")
    ds.add_argument("--chunk-frames", type=int, default=4096,
                    help="frames per Zarr chunk (default 4096)")
    ds.add_argument("--overwrite", action="store_true", help="replace OUT.zarr if it is a Zarr store (anything else "
                    "there is never removed)")
    ds.add_argument("--resume", action="store_true",
                    help="continue a run into an existing OUT.zarr (after Ctrl-C): complete groups "
                         "(their zarr.json written last) are skipped, incomplete ones written again")
    ds.add_argument("--no-progress", action="store_true", help="no progress bar")
    ds.set_defaults(func=cmd_dataset)
    i = sub.add_parser("info", help="print the version and the SIMD variants")
    i.set_defaults(func=cmd_info)
    c = sub.add_parser("compress", help="compress a BVH clip (skelsimd.compress)",
                       description="Compress a BVH motion clip; every decompressed frame is within "
                                   "--precision of the file in object space (virtual vertices at "
                                   "--shell-distance, file units). Writes CompressedClip.to_bytes(). "
                                   "The joints are load_bvh's (End Sites left out unless "
                                   "--end-sites), as `dataset` reads them.")
    c.add_argument("input", metavar="IN.bvh", help="BVH file (.gz too)")
    c.add_argument("output", metavar="OUT", nargs="?", help="compressed clip file to write (by "
                   "convention OUT.skc, the suffix `dataset` reads); or --out OUT")
    c.add_argument("--out", metavar="OUT", help="the same as the positional OUT")
    c.add_argument("--end-sites", action="store_true",
                   help="also keep every End Site as a leaf joint (load_bvh(end_sites=True))")
    c.add_argument("--precision", type=float, default=0.01, help="largest error (default 0.01)")
    c.add_argument("--shell-distance", type=float, default=3.0,
                   help="virtual vertex distance (default 3.0)")
    c.add_argument("--segment-length", type=int, default=16, help="frames per segment (default 16)")
    c.set_defaults(func=cmd_compress)
    dc = sub.add_parser("decompress", help="decompress a compressed clip into a BVH file",
                        description="Read a file written by `compress` and write its decompressed "
                                    "frames as BVH (the decompressed poses are within the "
                                    "precision; BVH text adds its own rounding: Euler angles "
                                    "with 6 decimals).")
    dc.add_argument("input", metavar="IN", help="compressed clip file")
    dc.add_argument("output", metavar="OUT.bvh", nargs="?", help="BVH file to write; or --out "
                    "OUT.bvh")
    dc.add_argument("--out", metavar="OUT.bvh", help="the same as the positional OUT.bvh")
    dc.add_argument("--order", default="ZYX", help="rotation channel order (default ZYX)")
    dc.set_defaults(func=cmd_decompress)
    cv = sub.add_parser("convert", help="between motion capture, glTF 2.0 and OpenUSD",
                        description="Convert between a BVH clip (.bvh, .bvh.gz; End Sites become "
                                    "joints) or a compressed clip (.skc), glTF 2.0 (.gltf: one "
                                    "JSON file with the data embedded; .glb: binary) and OpenUSD "
                                    "UsdSkel (.usda text, .usdc/.usd binary, .usdz package; needs "
                                    "pip install 'skelsimd[usd]'), in any direction. From glTF or "
                                    "USD: one animated skin (--animation) with the first mesh "
                                    "bound to it and its bind pose; from motion capture: the "
                                    "skeleton and clip, optionally a tube mesh skinned to the "
                                    "bones (--mesh).")
    cv.add_argument("input", metavar="IN", help="IN.bvh, IN.bvh.gz, IN.skc, IN.gltf/.glb or "
                    "IN.usd/.usda/.usdc/.usdz")
    cv.add_argument("output", metavar="OUT", help="OUT.bvh, OUT.gltf/.glb or "
                    "OUT.usd/.usda/.usdc/.usdz (another format than IN)")
    cv.add_argument("--scale", type=float, default=1.0,
                    help="factor on every length (0.01: centimetres to glTF's metres)")
    cv.add_argument("--mesh", action="store_true",
                    help="from motion capture: add a skinned mesh of tubes around the bones")
    cv.add_argument("--animation", type=int, default=0, metavar="I",
                    help="from glTF or USD: which animated skin to write (default 0)")
    cv.add_argument("--order", default=None, help="to BVH: rotation channel order (default ZYX)")
    cv.add_argument("--up-axis", default="Y", help="to USD: the stage's up axis, Y (default) "
                    "or Z")
    cv.set_defaults(func=cmd_convert)
    rt = sub.add_parser("retarget", help="motion onto a skinned glTF character",
                        description="Retarget motion (BVH or glTF; a directory of them gives one "
                                    "output per file) onto a skinned glTF character with "
                                    "skelsimd.Retargeter, and write the character playing it "
                                    "(.glb/.gltf: the character's whole scene with the clip as "
                                    "its animation) or the clip as BVH.")
    rt.add_argument("motion", metavar="MOTION", help="a .bvh, .bvh.gz, .gltf or .glb file, or a "
                    "directory of them")
    rt.add_argument("character", metavar="CHARACTER", help="a skinned .gltf or .glb file (its "
                    "largest skinned mesh's skin is driven)")
    rt.add_argument("output", metavar="OUT", help="OUT.glb, OUT.gltf or OUT.bvh; a directory "
                    "for a directory of motions")
    rt.add_argument("--map", metavar="MAP.json", help="joint mapping: a JSON object of humanoid "
                    "profile bone -> joint name (or [source, target] pairs), or of source joint "
                    "-> target joint (default: skelsimd.humanoid_map of both)")
    rt.add_argument("--feet", metavar="auto|JOINTS", help="keep the source's foot contacts: "
                    "'auto' (the profile's feet) or comma-separated source joints")
    rt.add_argument("--clip", metavar="NAME", help="from a glTF motion: the animation's name "
                    "(default the first)")
    rt.add_argument("--scale", default="legs", help="legs (default: the ratio of leg lengths), "
                    "height, or a number")
    rt.add_argument("--format", default="glb", choices=("glb", "gltf", "bvh"),
                    help="the outputs' format for a directory of motions (default glb)")
    rt.set_defaults(func=cmd_retarget)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    status: int = args.func(args)
    return status


if __name__ == "__main__":
    sys.exit(main())
