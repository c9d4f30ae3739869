"""Scaling of skelsimd.dask: 2 workers against 1, and the overhead of the dask path.

    python benchmarks/dask_scaling.py --clips DIR [--count 3000] [--rounds 3] [--store-dir DIR]
                                      [--out results.json]

Three measurements, every variant of one measurement interleaved within one run (the machine is
shared: ratios of one run are what to quote; the load average is printed before and after):

1. FK of 100,000 characters x 96 joints (``local_to_global`` on random local matrices) on the
   dask threaded scheduler with 1 and 2 threads and on the synchronous scheduler (one worker,
   no thread hand-off), against the in-memory call on the same arrays.
   Both write into a preallocated output (``out=``), so neither pays for page faults of a new
   460 MB array; the dask array of the inputs is made once, before the timings (recent dask's
   ``from_array`` copies its input). Two controls on plain threads say what two cores can give
   here at all (see ``hardware_controls``): the same bytes streamed without arithmetic (the
   DRAM ceiling) and FK on batches that stay in each core's cache (the kernel's own scaling).
2. The same on the 1000 x 96 army (one chunk): the fixed cost of building and running a graph.
3. The dataset pipeline (``build_dataset``: BVH parse, positions, root features, Zarr writes)
   over ``--count`` clips on the local processes scheduler with 1 and 2 worker processes. The
   clips are excerpts (100 to 600 frames, random starts) of the BVH files in ``--clips DIR``,
   cut byte for byte (header kept, the ``Frames:`` count replaced) into a temporary directory
   that is deleted afterwards.
"""
import argparse
import json
import os
import platform
import re
import shutil
import sys
import tempfile
import time

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

import dask  # noqa: E402
import dask.array as da  # noqa: E402

import skelsimd  # noqa: E402
import skelsimd.dask as sd  # noqa: E402
from skelsimd import testing  # noqa: E402
from skelsimd.dask import dataset  # noqa: E402


def load():
    return os.getloadavg()


def filesystem(path):
    """The type of the file system holding path (from /proc/mounts), or "unknown"."""
    try:
        with open("/proc/mounts") as f:
            mounts = [line.split()[1:3] for line in f]
    except OSError:
        return "unknown"
    path = os.path.realpath(path)
    best = max((m for m in mounts if path == m[0] or path.startswith(m[0].rstrip("/") + "/")),
               key=lambda m: len(m[0]), default=None)
    return best[1] if best else "unknown"


def cpu_name():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def timeit(fn, repeat):
    best = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        best.append(time.perf_counter() - t0)
    return best


def interleaved(variants, rounds, inner):
    """Run each variant `inner` times per round, rounds interleaved; {name: [seconds...]}."""
    times = {name: [] for name in variants}
    names = list(variants)
    for r in range(rounds):
        order = names if r % 2 == 0 else names[::-1]
        for name in order:
            times[name] += timeit(variants[name], inner)
    return times


# --- 1 and 2: FK on dask threads ---------------------------------------------------------------------

def bench_fk(characters, chunk, rounds, inner, controls=True):
    parents, _ = testing.humanoid_skeleton()
    rng = np.random.default_rng(0)
    local = testing.random_joints((characters, len(parents)), rng)
    out = np.empty_like(local)
    expected = skelsimd.local_to_global(local, parents)

    def in_memory():
        skelsimd.local_to_global(local, parents, out=out)

    # The dask array of the locals, made once: da.from_array copies its input (recent dask),
    # which is the cost of getting the data into dask, not of FK on it.
    x = da.from_array(local, chunks=(min(chunk, characters), len(parents), 3, 4), name=False)

    def on_dask(threads):
        def run():
            with dask.config.set(scheduler="threads", num_workers=threads):
                sd.local_to_global(x, parents, out=out)
        return run

    def on_dask_sync():
        with dask.config.set(scheduler="sync"):
            sd.local_to_global(x, parents, out=out)

    variants = {"in-memory": in_memory, "dask sync": on_dask_sync, "dask 1 thread": on_dask(1),
                "dask 2 threads": on_dask(2)}
    for name, fn in variants.items():            # warm up and check the bits
        out[...] = np.nan
        fn()
        assert np.array_equal(out, expected), name
    if controls:
        variants.update(hardware_controls(local, out, parents, chunk))
    times = interleaved(variants, rounds, inner)
    med = {k: float(np.median(v)) for k, v in times.items()}
    result = dict(characters=characters, joints=len(parents), chunk=chunk,
                  chunks=len(x.chunks[0]), median_seconds=med,
                  min_seconds={k: min(v) for k, v in times.items()},
                  overhead_1_thread=med["dask 1 thread"] / med["in-memory"] - 1,
                  overhead_sync=med["dask sync"] / med["in-memory"] - 1,
                  speedup_2_vs_1=med["dask 1 thread"] / med["dask 2 threads"],
                  speedup_2_vs_in_memory=med["in-memory"] / med["dask 2 threads"])
    low = {k: min(v) for k, v in times.items()}
    result.update(overhead_1_thread_by_min=low["dask 1 thread"] / low["in-memory"] - 1,
                  overhead_sync_by_min=low["dask sync"] / low["in-memory"] - 1,
                  speedup_2_vs_1_by_min=low["dask 1 thread"] / low["dask 2 threads"])
    if controls:
        result["pool_2_vs_1"] = med["FK pool 1 thread"] / med["FK pool 2 threads"]
        result["pool_1_thread_overhead"] = med["FK pool 1 thread"] / med["in-memory"] - 1
        result["stream_2_vs_1"] = med["stream 1 thread"] / med["stream 2 threads"]
        result["in_cache_fk_2_vs_1"] = 2 * med["in-cache FK 1 thread"] / med["in-cache FK 2 threads"]
    return result


def hardware_controls(local, out, parents, chunk):
    """Controls on plain threads (not dask), for what 2 cores can give at all:

    * FK pool: the same chunks' FK on a plain ThreadPoolExecutor of 1 and 2 threads, the
      scaling without any scheduler (and the cost of running on a worker thread at all).
    * stream: the same bytes as FK (read the locals, write out, ordinary stores) with no
      arithmetic, ``np.multiply(chunk, 1, out=...)`` per chunk on 1 and 2 threads: the DRAM
      ceiling of the big FK (a second core only helps as far as memory keeps up).
    * in-cache FK: every thread runs FK on its own 200 x 96 batch (2 x 0.9 MB, in its core's
      L2) 300 times; 2 threads do twice the work of 1, so the ratio 2 x t1 / t2 is the scaling of
      the kernel itself when memory is not the limit.
    """
    import threading
    from concurrent.futures import ThreadPoolExecutor

    pools = {1: ThreadPoolExecutor(1), 2: ThreadPoolExecutor(2)}
    regions = [slice(i, i + chunk) for i in range(0, len(local), chunk)]

    def stream(threads):
        def run():
            list(pools[threads].map(lambda r: np.multiply(local[r], 1, out=out[r]), regions))
        return run

    rng = np.random.default_rng(1)
    small = [(testing.random_joints((200, len(parents)), rng),
              np.empty((200, len(parents), 3, 4), np.float32)) for _ in range(2)]

    def in_cache(threads):
        def work(k):
            a, o = small[k]
            for _ in range(300):
                skelsimd.local_to_global(a, parents, out=o)

        def run():
            ts = [threading.Thread(target=work, args=(k,)) for k in range(threads)]
            for t in ts:
                t.start()
            for t in ts:
                t.join()
        return run

    def fk_on_pool(threads):
        def run():
            list(pools[threads].map(
                lambda r: skelsimd.local_to_global(local[r], parents, out=out[r]), regions))
        return run

    return {"FK pool 1 thread": fk_on_pool(1), "FK pool 2 threads": fk_on_pool(2),
            "stream 1 thread": stream(1), "stream 2 threads": stream(2),
            "in-cache FK 1 thread": in_cache(1), "in-cache FK 2 threads": in_cache(2)}


# --- 3: the dataset pipeline -------------------------------------------------------------------------

_LINES = re.compile(rb"[^\r\n]*(?:\r\n|\r|\n|$)")


def split_bvh(data):
    lines = [ln for ln in _LINES.findall(data) if ln]
    at = next(i for i, ln in enumerate(lines) if ln.lstrip().upper().startswith(b"FRAMES:"))
    return lines[:at], lines[at], lines[at + 1], lines[at + 2:]


def make_clips(source_dir, count, dest, rng):
    """`count` excerpts of the BVH files in source_dir, written into dest; returns total frames."""
    sources = []
    for name in sorted(os.listdir(source_dir)):
        if name.lower().endswith(".bvh"):
            with open(os.path.join(source_dir, name), "rb") as f:
                sources.append((name[:-4], split_bvh(f.read())))
    if not sources:
        raise SystemExit(f"{source_dir}: no .bvh files")
    total = 0
    for k in range(count):
        stem, (head, frames_line, time_line, body) = sources[k % len(sources)]
        n = int(rng.integers(min(100, len(body)), min(600, len(body)) + 1))
        first = int(rng.integers(0, len(body) - n + 1))
        frames = re.sub(rb"\d+", b"%d" % n, frames_line, count=1)
        with open(os.path.join(dest, f"{stem}_{k:05d}.bvh"), "wb") as f:
            f.write(b"".join(head + [frames, time_line] + body[first:first + n]))
        total += n
    return total


def bench_dataset(source_dir, count, rounds, store_dir=None):
    tmp = tempfile.mkdtemp(prefix="skelsimd-dataset-bench-", dir=store_dir)
    try:
        clips = os.path.join(tmp, "clips")
        os.mkdir(clips)
        frames = make_clips(source_dir, count, clips, np.random.default_rng(0))
        stores = []

        def run(workers):
            def go():
                store = os.path.join(tmp, f"out{len(stores)}.zarr")
                stores.append(store)
                report = dataset.build_dataset(clips, store, scheduler="processes",
                                               workers=workers, progress=False)
                assert report.ok and len(report.written) == count, report.summary()
                shutil.rmtree(store)
            return go

        variants = {"1 worker": run(1), "2 workers": run(2)}
        times = interleaved(variants, rounds, 1)
        med = {k: float(np.median(v)) for k, v in times.items()}
        return dict(clips=count, frames=frames, scheduler="processes", seconds=times,
                    directory=os.path.dirname(tmp), filesystem=filesystem(tmp),
                    median_seconds=med, clips_per_second={k: count / v for k, v in med.items()},
                    speedup_2_vs_1=med["1 worker"] / med["2 workers"])
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--clips", help="directory of BVH files to cut the dataset's clips from "
                    "(default: tests/data)")
    ap.add_argument("--count", type=int, default=3000, help="clips in the dataset (default 3000)")
    ap.add_argument("--rounds", type=int, default=3, help="interleaved rounds (default 3)")
    ap.add_argument("--characters", type=int, default=100_000)
    ap.add_argument("--chunk", type=int, default=12500,
                    help="characters per dask chunk (default 12500: 8 chunks of 58 MB)")
    ap.add_argument("--store-dir", help="directory for the dataset's clips and Zarr stores "
                    "(default: the system's temporary directory; e.g. /dev/shm for a RAM file "
                    "system, which takes the disk's file-creation cost out of the measurement)")
    ap.add_argument("--skip-dataset", action="store_true")
    ap.add_argument("--skip-fk", action="store_true")
    ap.add_argument("--out", help="write the results as JSON")
    args = ap.parse_args(argv)

    info = dict(cpu=cpu_name(), cores=os.cpu_count(), isa=skelsimd.isa(), python=platform.python_version(),
                numpy=np.__version__, dask=dask.__version__, zarr=__import__("zarr").__version__,
                load_before=load())
    print(f"{info['cpu']}, {info['cores']} cores, isa {info['isa']}, dask {info['dask']}, "
          f"zarr {info['zarr']}; load average before: {info['load_before']}")
    results = dict(machine=info)
    if not args.skip_fk:
        r = bench_fk(args.characters, args.chunk, args.rounds, 5)
        results["fk"] = r
        m = r["median_seconds"]
        print(f"FK {r['characters']} x {r['joints']} (chunks of {r['chunk']}): in-memory "
              f"{m['in-memory'] * 1e3:.1f} ms, dask synchronous {m['dask sync'] * 1e3:.1f} ms "
              f"(overhead {r['overhead_sync'] * 100:+.1f}%), dask 1 thread "
              f"{m['dask 1 thread'] * 1e3:.1f} ms (overhead {r['overhead_1_thread'] * 100:+.1f}%), "
              f"dask 2 threads "
              f"{m['dask 2 threads'] * 1e3:.1f} ms: 2 vs 1 thread {r['speedup_2_vs_1']:.2f}x, "
              f"2 threads vs in-memory {r['speedup_2_vs_in_memory']:.2f}x")
        print(f"  by the fastest run of each: overhead synchronous {r['overhead_sync_by_min'] * 100:+.1f}%, "
              f"1 thread {r['overhead_1_thread_by_min'] * 100:+.1f}%, 2 vs 1 thread "
              f"{r['speedup_2_vs_1_by_min']:.2f}x")
        print(f"  controls on plain threads: FK on a ThreadPoolExecutor, 2 vs 1 thread "
              f"{r['pool_2_vs_1']:.2f}x (1 thread {r['pool_1_thread_overhead'] * 100:+.1f}% against "
              f"in-memory); the same bytes streamed with no arithmetic, 2 vs 1 "
              f"thread {r['stream_2_vs_1']:.2f}x (the DRAM ceiling); FK in cache (200 x 96 per "
              f"thread), 2 vs 1 thread {r['in_cache_fk_2_vs_1']:.2f}x (the kernel's own scaling)")
        r = bench_fk(1000, 1000, args.rounds, 50, controls=False)
        results["army"] = r
        m = r["median_seconds"]
        print(f"army 1000 x 96 (one chunk): in-memory {m['in-memory'] * 1e6:.0f} us, dask "
              f"synchronous {m['dask sync'] * 1e6:.0f} us (+{(m['dask sync'] - m['in-memory']) * 1e6:.0f}"
              f" us per call), dask 1 thread {m['dask 1 thread'] * 1e6:.0f} us "
              f"(+{(m['dask 1 thread'] - m['in-memory']) * 1e6:.0f} us per call)")
    if not args.skip_dataset:
        src = args.clips or os.path.join(ROOT, "tests", "data")
        r = bench_dataset(src, args.count, args.rounds, args.store_dir)
        results["dataset"] = r
        m = r["median_seconds"]
        print(f"dataset {r['clips']} clips ({r['frames']} frames) on local processes, files in "
              f"{r['directory']} ({r['filesystem']}): 1 worker "
              f"{m['1 worker']:.1f} s ({r['clips_per_second']['1 worker']:.0f} clips/s), 2 workers "
              f"{m['2 workers']:.1f} s ({r['clips_per_second']['2 workers']:.0f} clips/s): "
              f"{r['speedup_2_vs_1']:.2f}x")
    info["load_after"] = load()
    print(f"load average after: {info['load_after']}")
    if args.out:
        with open(args.out, "w") as f:
            json.dump(results, f, indent=1)
        print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
