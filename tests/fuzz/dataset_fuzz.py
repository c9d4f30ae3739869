"""A fuzzer for the dataset command (skelsimd.dask.dataset.build_dataset, what
``python -m skelsimd dataset`` runs) over hostile input trees, and for the readers' expansion
bounds (BVH ``.gz`` text, compressed clips declaring millions of frames).

Each case builds a small tree of motion files in a temporary directory: hostile names (``...bvh``,
``..bvh``, ``zarr.json.bvh``, ``CON.bvh``, ``%2e%2e.bvh``, line breaks, non-ASCII, names that
differ only in case, 200-character names), nested directories with repeated file names,
symbolic links (to a parent: a cycle; dangling; to a file outside the tree; to the store),
unreadable directories and files (when not running as root), broken files, a ``.bvh.gz``
expanding beyond its bound and ``.skc`` files declaring 10^6 frames. It writes the dataset with
the synchronous scheduler and checks:

* build_dataset returns a report (or FileNotFoundError when nothing is a motion file): no other
  exception, within a time bound and a bound on the traced peak memory (the bombs are refused
  before they are expanded);
* nothing outside the store is created, changed or removed (a snapshot of the directory
  holding the tree and the store, before and after);
* the store's groups are exactly the clips reported written, each complete (its zarr.json);
* every motion file reachable without links is reported, written or failed: none is skipped
  without a word.

Case i of seed s replays alone: ``python tests/fuzz/dataset_fuzz.py --seed S --case I --show``.
"""
import gzip
import json
import os
import shutil
import stat
import struct
import sys
import tempfile
import zlib

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
if ROOT not in sys.path:     # last: a PYTHONPATH entry (the sanitizer build) comes first
    sys.path.append(ROOT)

import driver  # noqa: E402
import skelsimd  # noqa: E402

DATA = os.path.join(ROOT, "tests", "data")
SECONDS_PER_CASE = 120.0           # a failure, not a timing: cases take about a second
PEAK_BYTES = 320 << 20             # the .gz bomb's text bound is 256 MiB
NAMES = ["...bvh", "..bvh", ".bvh", "zarr.json.bvh", "ZARR.JSON.bvh", "CON.bvh", "nul.bvh",
         "%2e%2e.bvh", "%41.bvh", "a\nb.bvh", "a\tb.bvh", "ü.bvh", "日本.bvh", "__x.bvh",
         "a b.bvh", "x" * 200 + ".bvh", "A.bvh", "a.bvh", "walk.bvh", "walk.BVH", "walk.bvh.gz",
         "w.skc", "-.bvh", "a:b.bvh", "a%2fb.bvh", "a\\b.bvh", " .bvh", "~.bvh"]
SMALL = os.path.join(DATA, "cmu_01_01_beyond_180.bvh")
BOMB_HEADER = (b"HIERARCHY\nROOT a\n{\nOFFSET 0 0 0\nCHANNELS 1 Xposition\n}\nMOTION\n"
               b"Frames: 1\nFrame Time: 0.01\n")


def skc_bomb(frames=10**6):
    """A valid compressed clip file (a few KiB) of a static clip declaring `frames` frames:
    about frames * 31 * 32 bytes once decoded."""
    clip = skelsimd.data.load_example()[:1]
    local = np.repeat(clip.local, 2, axis=0)
    c = skelsimd.compress(local, clip.skeleton, sample_rate=120.0)
    data = bytearray(c._data)
    struct.pack_into("<I", data, 4, frames)       # F
    struct.pack_into("<I", data, 12, frames)      # L (one segment: allowed without animation)
    struct.pack_into("<I", data, 16, 1)           # G
    try:
        bomb = type(c)(bytes(data), c.skeleton, precision=c.precision,
                       shell_distance=c.shell_distance, max_error=0.0)
    except ValueError:
        return c.to_bytes()
    return bomb.to_bytes()


def gz_bomb(path, expanded):
    z = zlib.compressobj(1, zlib.DEFLATED, 31)
    piece = b"0 " * (1 << 19)
    with open(path, "wb") as f:
        f.write(z.compress(BOMB_HEADER))
        for _ in range(expanded // len(piece)):
            f.write(z.compress(piece))
        f.write(z.flush())


def build_tree(seed, index, base):
    """The input tree of case (seed, index) under base/in; returns a description."""
    rng = np.random.default_rng([seed, index])
    src = os.path.join(base, "in")
    os.makedirs(src)
    with open(SMALL, "rb") as f:
        good = f.read()
    what = []
    dirs = [src]
    for _ in range(int(rng.integers(0, 4))):
        d = os.path.join(dirs[int(rng.integers(len(dirs)))], str(rng.choice(["a", "b", "A", "sub", "..x"])))
        os.makedirs(d, exist_ok=True)
        dirs.append(d)
    for _ in range(int(rng.integers(1, 7))):
        d = dirs[int(rng.integers(len(dirs)))]
        name = str(rng.choice(NAMES))
        path = os.path.join(d, name)
        kind = str(rng.choice(["good", "good", "good", "broken", "empty", "skc", "skc_bomb",
                               "skc_garbage", "gz", "gz_bomb"], p=[.25, .15, .1, .1, .05, .1,
                                                                   .08, .07, .07, .03]))
        # the name's suffix follows the kind: a hostile stem, the suffix its reader wants
        stem = name[:-len(".bvh.gz")] if name.endswith(".bvh.gz") else \
            name.rsplit(".", 1)[0] if "." in name[1:] else name
        if kind.startswith("skc"):
            name = stem + ".skc"
        elif kind.startswith("gz"):
            name = stem + ".bvh.gz"
        elif name.endswith((".skc", ".gz")):
            name = stem + ".bvh"
        path = os.path.join(d, name)
        try:
            if kind == "good":
                data = good
            elif kind == "broken":
                data = good[:int(rng.integers(0, len(good)))]
            elif kind == "empty":
                data = b""
            elif kind == "skc":
                data = skelsimd.compress(skelsimd.load_bvh(SMALL), precision=0.01).to_bytes()
            elif kind == "skc_bomb":
                data = skc_bomb()
            elif kind == "skc_garbage":
                data = bytes(rng.integers(0, 256, int(rng.integers(0, 300)), np.uint8))
            elif kind == "gz":
                data = gzip.compress(good)
            if kind == "gz_bomb":
                gz_bomb(path, 300 << 20)
            else:
                with open(path, "wb") as f:
                    f.write(data)
        except OSError as exc:        # a name this file system refuses
            what.append(f"{name!r}: {exc}")
            continue
        what.append(f"{os.path.relpath(path, src)!r} ({kind})")
    links = rng.integers(0, 3)
    for _ in range(int(links)):
        d = dirs[int(rng.integers(len(dirs)))]
        target = str(rng.choice(["..", ".", "missing", os.path.join(base, "outside.bvh"),
                                 os.path.join(base, "out.zarr"), src]))
        link = os.path.join(d, f"link{int(rng.integers(100))}" + str(rng.choice(["", ".bvh"])))
        if not os.path.lexists(link):
            os.symlink(target, link)
            what.append(f"link {os.path.relpath(link, src)!r} -> {target!r}")
    if os.geteuid() != 0 and rng.random() < 0.3 and len(dirs) > 1:
        d = dirs[int(rng.integers(1, len(dirs)))]
        os.chmod(d, 0)
        what.append(f"unreadable {os.path.relpath(d, src)!r}")
    return src, what


def snapshot(base, store):
    """{path: (kind, size, mtime)} of everything under base except the store."""
    out = {}
    for d, subdirs, files in os.walk(base, followlinks=False):
        subdirs[:] = [s for s in subdirs if os.path.join(d, s) != store]
        for n in subdirs + files:
            p = os.path.join(d, n)
            st = os.lstat(p)
            out[p] = (stat.S_IFMT(st.st_mode), st.st_size if stat.S_ISREG(st.st_mode) else 0,
                      st.st_mtime_ns if stat.S_ISREG(st.st_mode) else 0)
    return out


def motion_files(src):
    """The motion files reachable without following links, in readable directories."""
    found = []
    for d, subdirs, files in os.walk(src, followlinks=False):
        for n in files:
            p = os.path.join(d, n)
            if os.path.islink(p):
                continue
            low = n.lower()
            if low.endswith((".bvh", ".bvh.gz", ".skc")):
                found.append(p)
    return found


def restore_permissions(base):
    """Every directory readable again (os.walk descends after the chmod of its parent's
    turn), so the tree can be removed."""
    for d, subdirs, files in os.walk(base):
        for n in subdirs:
            p = os.path.join(d, n)
            if not os.path.islink(p):
                os.chmod(p, 0o755)


def run_case(seed, index):
    """(outcome, failure or None) of one case."""
    from skelsimd.dask import dataset as ds

    base = tempfile.mkdtemp(prefix="skelsimd-dsfuzz-")
    try:
        with open(os.path.join(base, "outside.bvh"), "wb") as f:
            f.write(b"not a clip of the tree")
        src, what = build_tree(seed, index, base)
        store = os.path.join(base, "out.zarr")
        before = snapshot(base, store)
        expected = motion_files(src)
        outcome, report, failure = driver.bounded(
            "build_dataset", lambda: ds.build_dataset(src, store, scheduler="sync", progress=False),
            ok=lambda report: "ok" if report.ok else "failures",
            expected={FileNotFoundError: "no files"}, seconds=SECONDS_PER_CASE,
            peak_bytes=PEAK_BYTES)
        if failure:
            return outcome, failure
        after = snapshot(base, store)
        if after != before:
            changed = sorted(set(after.items()) ^ set(before.items()))[:5]
            return outcome, f"files outside the store changed: {changed}"
        if report is None:
            if expected:
                return outcome, f"no report, but motion files exist: {expected[:3]}"
            return outcome, None
        groups = sorted(n for n in os.listdir(store)
                        if os.path.isdir(os.path.join(store, n)))
        complete = [n for n in groups if os.path.isfile(os.path.join(store, n, "zarr.json"))]
        written = sorted(s.name for s in report.written)
        if groups != written or complete != written:
            return outcome, (f"store groups {groups[:5]} (complete {complete[:5]}) differ from "
                             f"the clips written {written[:5]}")
        reported = {os.path.realpath(s.path) for s in report.written} | \
            {os.path.realpath(f.path) for f in report.failed}
        missing = [p for p in expected if os.path.realpath(p) not in reported]
        if missing:
            return outcome, f"motion files not reported: {missing[:3]} (tree: {what})"
        return outcome, None
    finally:
        restore_permissions(base)
        shutil.rmtree(base, ignore_errors=True)


def replay(seed, case, show):
    if show:
        base = tempfile.mkdtemp()
        try:
            print("\n".join(build_tree(seed, case, base)[1]))
        finally:
            restore_permissions(base)
            shutil.rmtree(base, ignore_errors=True)
    print(run_case(seed, case))


def main(argv=None):
    args = driver.arguments(__doc__.split("\n")[0], argv)
    try:
        import skelsimd.dask.dataset  # noqa: F401
    except ImportError as exc:
        print(f"dataset fuzz: skipped ({exc})")
        if args.report:
            with open(args.report, "w") as f:
                json.dump({"seed": args.seed, "cases": 0, "failures": [], "skipped": str(exc)}, f)
        return 0
    return driver.run("dataset", args, lambda seed, i: (None, *run_case(seed, i)), replay)


if __name__ == "__main__":
    sys.exit(main())
