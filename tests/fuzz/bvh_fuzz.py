"""A mutation fuzzer for the BVH reader (skelsimd.load_bvh, its C MOTION reader) and writer.

Seeds: the real files in tests/data and the package's embedded clip, each also cut to a few
frames. Each case applies 1 to 4 random mutations (byte flips and inserts, deleted, duplicated
and swapped lines, numbers replaced by huge, tiny, NaN, empty or non-numeric tokens, Frames and
CHANNELS counts changed, keywords swapped, braces dropped, joint blocks duplicated or nested
deeper, names with non-UTF-8 bytes, mixed line endings, truncation) and checks:

* load_bvh returns a Clip or raises ValueError (UnicodeDecodeError included), within a time
  bound, with a bounded peak of traced memory (several times the file's size; NumPy's arrays
  are traced);
* a loaded clip saves (save_bvh) and loads back with the same joints (names and parents,
  End Sites aside) and frames: the writer accepts everything the reader produces, except a
  clip of 0 frames, which every writer refuses with a ValueError;
* no crash and no hang (the runner, tests/fuzz/run.py, runs this in a child process).

Case i of seed s replays alone: ``python tests/fuzz/bvh_fuzz.py --seed S --case I --show``.
"""
import glob
import io
import os
import sys
import traceback
import warnings

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
if ROOT not in sys.path:     # last: a PYTHONPATH entry (the sanitizer build) comes first
    sys.path.append(ROOT)

import driver  # noqa: E402
import skelsimd  # noqa: E402

SECONDS_PER_CASE = 10.0          # a failure, not a timing: cases take milliseconds
MEMORY_PER_BYTE = 64             # traced peak allowed per byte of file ...
MEMORY_FLOOR = 32 << 20          # ... and at least this much


def seeds():
    files = sorted(glob.glob(os.path.join(ROOT, "tests", "data", "*.bvh")))
    files.append(skelsimd.data.example_path())
    out = []
    for path in files:
        with open(path, "rb") as f:
            data = f.read()
        out.append(data)
        head, sep, motion = data.partition(b"MOTION")
        lines = motion.splitlines(keepends=True)
        # the same header with 3 frames (cases run faster on small files)
        short = head + sep + b"".join(lines[:1]) + b"Frames: 3" + (b"\r\n" if b"\r\n" in data else b"\n")
        short += b"".join(lines[3:7])
        out.append(short)
    return out


SEEDS = None

TOKENS = [b"1e39", b"-1e39", b"1e400", b"nan", b"inf", b"-0.0", b"", b"x", b"1,5", b"0x10",
          b"99999999999999999999999999", b"1e-400", b".", b"-", b"+.5e-3", b"4294967296",
          b"9223372036854775808", b"-1", b"{", b"}", b"\x00", b"\xff\xfe", b"1_000", b"\t\t"]
KEYWORDS = [b"ROOT", b"JOINT", b"End Site", b"OFFSET", b"CHANNELS", b"MOTION", b"Frames:",
            b"Frame Time:", b"HIERARCHY", b"{", b"}", b"Xrotation", b"Yposition", b"CHANNELS 0",
            b"CHANNELS 99", b"End", b"Site"]


def mutate(data, rng):
    """One random mutation of the bytes `data`."""
    lines = data.splitlines(keepends=True) or [b""]
    kind = int(rng.integers(14))
    pick = lambda seq: seq[int(rng.integers(len(seq)))]  # noqa: E731
    i = int(rng.integers(len(lines)))
    if kind == 0 and data:                                # flip bytes
        b = bytearray(data)
        for _ in range(int(rng.integers(1, 5))):
            b[int(rng.integers(len(b)))] = int(rng.integers(256))
        return bytes(b)
    if kind == 1:                                         # delete lines
        k = int(rng.integers(1, 4))
        return b"".join(lines[:i] + lines[i + k:])
    if kind == 2:                                         # duplicate a run of lines
        k = int(rng.integers(1, 12))
        return b"".join(lines[:i + k] + lines[i:i + k] * int(rng.integers(1, 4)) + lines[i + k:])
    if kind == 3:                                         # swap two lines
        j = int(rng.integers(len(lines)))
        lines[i], lines[j] = lines[j], lines[i]
        return b"".join(lines)
    if kind == 4:                                         # replace a token
        toks = lines[i].split()
        if toks:
            toks[int(rng.integers(len(toks)))] = pick(TOKENS + KEYWORDS)
            end = b"\r\n" if lines[i].endswith(b"\r\n") else b"\n"
            lines[i] = b" ".join(toks) + end
        return b"".join(lines)
    if kind == 5:                                         # the Frames count
        n = pick([b"0", b"1", b"2", b"100", b"-3", b"4294967296", b"1000000000000",
                  b"9223372036854775808", b"1e3", b"", b"3.5", b"\xff"])
        return b"".join(l if not l.strip().lower().startswith(b"frames") else b"Frames: " + n + b"\n"
                        for l in lines)
    if kind == 6:                                         # a CHANNELS count or list
        idx = [k for k, l in enumerate(lines) if b"CHANNELS" in l]
        if idx:
            k = pick(idx)
            toks = lines[k].split()
            r = int(rng.integers(3))
            if r == 0 and len(toks) > 1:
                toks[1] = pick([b"0", b"7", b"-1", b"2", b"x"])
            elif r == 1 and len(toks) > 2:
                del toks[-1]
            else:
                toks.append(pick([b"Xrotation", b"Zposition", b"Wrotation"]))
            lines[k] = b"\t" + b" ".join(toks) + b"\n"
        return b"".join(lines)
    if kind == 7:                                         # insert random bytes
        pos = int(rng.integers(len(data) + 1))
        return data[:pos] + bytes(rng.integers(0, 256, int(rng.integers(1, 16)), np.uint8)) + data[pos:]
    if kind == 8:                                         # truncate
        return data[:int(rng.integers(len(data) + 1))]
    if kind == 9:                                         # a name with odd bytes
        idx = [k for k, l in enumerate(lines) if l.strip().startswith((b"JOINT", b"ROOT"))]
        if idx:
            k = pick(idx)
            name = pick([b"\xff\xfe", b"a b", b"", b"\xe9t\xe9", b"x" * 300, b"Hips", b"{", b"a{",
                         b"\xed\xa0\x80", b"\x00"])
            lines[k] = lines[k].rstrip(b"\r\n").split()[0] + b" " + name + b"\n"
        return b"".join(lines)
    if kind == 10:                                        # line endings
        return data.replace(b"\r\n", b"\n").replace(b"\n", pick([b"\r", b"\r\n", b"\n\n", b"\n"]))
    if kind == 11:                                        # drop or add a brace
        idx = [k for k, l in enumerate(lines) if l.strip() in (b"{", b"}")]
        if idx:
            k = pick(idx)
            if rng.random() < 0.5:
                del lines[k]
            else:
                lines.insert(k, lines[k])
        return b"".join(lines)
    if kind == 12:                                        # nest a joint block deeper, many times
        starts = [k for k, l in enumerate(lines) if l.strip().startswith(b"JOINT")]
        if starts:
            k = pick(starts)
            block = [b"JOINT deep\n", b"{\n", b"OFFSET 0 1 0\n", b"CHANNELS 1 Zrotation\n"]
            depth = int(rng.integers(1, 200))
            lines[k:k] = block * depth
            ends = [m for m, l in enumerate(lines) if l.strip() == b"}"]
            if ends:
                m = pick(ends)
                lines[m:m] = [b"}\n"] * depth
        return b"".join(lines)
    # a number in the MOTION data
    head, sep, motion = data.partition(b"MOTION")
    toks = motion.split(b" ")
    if len(toks) > 4:
        toks[int(rng.integers(4, len(toks)))] = pick(TOKENS)
    return head + sep + b" ".join(toks)


def build_case(seed, index):
    global SEEDS
    if SEEDS is None:
        SEEDS = seeds()
    rng = np.random.default_rng([seed, index])
    data = SEEDS[int(rng.integers(len(SEEDS)))]
    for _ in range(int(rng.choice([1, 1, 1, 2, 3, 4]))):
        data = mutate(data, rng)
    end_sites = bool(rng.integers(2))
    return data, end_sites


def run_case(seed, index):
    """(outcome, failure or None) of one case."""
    data, end_sites = build_case(seed, index)
    outcome, clip, failure = driver.bounded(
        "load_bvh", lambda: skelsimd.load_bvh(data, end_sites=end_sites), ok="loaded",
        expected={ValueError: "ValueError"}, seconds=SECONDS_PER_CASE,
        peak_bytes=max(MEMORY_FLOOR, MEMORY_PER_BYTE * len(data)), on=f" on {len(data)} bytes",
        quiet=True)
    if failure:
        return outcome, failure
    if clip is None:
        return outcome, None
    if clip.frames == 0:       # loads (a skeleton alone); the writers refuse 0 frames
        try:
            skelsimd.save_bvh(clip, io.StringIO())
        except ValueError:
            return outcome, None
        return outcome, "save_bvh wrote a clip of 0 frames"
    try:
        buf = io.StringIO()
        skelsimd.save_bvh(clip, buf)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            back = skelsimd.load_bvh(text=buf.getvalue())
    except Exception as exc:  # noqa: BLE001
        return outcome, f"save_bvh/load_bvh of a loaded clip: {type(exc).__name__}: {exc}\n" + \
            traceback.format_exc(limit=5)
    # the joints that are not End Sites come back with their names and hierarchy (the writer
    # adds zero-offset End Sites to leaves that had none, as the format wants)
    keep = np.flatnonzero(~clip.end_site)
    remap = np.full(len(clip.skeleton), -1)
    remap[keep] = np.arange(keep.size)
    kept_parents = clip.skeleton.parents[keep]
    expect_parents = np.where(kept_parents >= 0, remap[np.maximum(kept_parents, 0)], -1)
    expect_names = tuple(clip.skeleton.names[j] for j in keep)
    if back.skeleton.names != expect_names or back.frames != clip.frames or \
            not np.array_equal(back.skeleton.parents, expect_parents):
        return outcome, (f"the saved clip loads back with other joints or frames: "
                         f"{len(clip.skeleton)} -> {len(back.skeleton)} joints, {clip.frames} -> "
                         f"{back.frames} frames")
    return outcome, None


def replay(seed, case, show):
    data, end_sites = build_case(seed, case)
    if show:
        print(f"case {seed}:{case}: {len(data)} bytes, end_sites={end_sites}")
        print(data[:3000].decode("latin-1"))
    print(run_case(seed, case))


def main(argv=None):
    args = driver.arguments(__doc__.split("\n")[0], argv)
    return driver.run("bvh", args, lambda seed, i: (None, *run_case(seed, i)), replay)


if __name__ == "__main__":
    sys.exit(main())
