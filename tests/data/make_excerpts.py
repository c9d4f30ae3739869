"""How the clips in tests/data and skelsimd/data were cut from the original motion-capture files
(their origins and terms are in tests/data/README.md and skelsimd/data/README.md).

    python tests/data/make_excerpts.py DIRECTORY_WITH_THE_ORIGINAL_BVH_FILES

Each excerpt keeps the original bytes: the whole header (line endings, tabs and all), the
number of the 'Frames:' line replaced by the excerpt's, and a contiguous run of the original frame lines.
The decimated copies (DECIMATED: every 4th frame of a whole take, for the motion-matching example)
keep the header and every 4th original frame line unchanged; the 'Frames:' count and the
'Frame Time:' (4 times the original's, written to 7 decimals) are replaced; gzip-compressed
(mtime 0, so the bytes are reproducible).
"""
import gzip
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
EXCERPTS = [
    # (source, first frame, frames, destination)
    ("131_01.bvh", 200, 240, os.path.join(HERE, "..", "..", "skelsimd", "data", "cmu_131_01_excerpt.bvh")),
    ("01_01.bvh", 1120, 60, os.path.join(HERE, "cmu_01_01_beyond_180.bvh")),
    ("20tab_freebvh.bvh", 0, 30, os.path.join(HERE, "20tab_freebvh_excerpt.bvh")),
    ("20tab_mocapbank.bvh", 200, 60, os.path.join(HERE, "20tab_mocapbank_excerpt.bvh")),
]

DECIMATED = [
    # (source, keep one frame in, destination)
    ("131_01.bvh", 4, os.path.join(HERE, "..", "..", "skelsimd", "data", "cmu_131_01_30fps.bvh.gz")),
    ("131_02.bvh", 4, os.path.join(HERE, "..", "..", "skelsimd", "data", "cmu_131_02_30fps.bvh.gz")),
]


def decimate(data, step):
    lines = re.findall(rb"[^\r\n]*(?:\r\n|\r|\n|$)", data)
    lines = [ln for ln in lines if ln]
    frames_at = next(i for i, ln in enumerate(lines) if ln.lstrip().upper().startswith(b"FRAMES:"))
    body = [ln for ln in lines[frames_at + 2:] if ln.strip()][::step]
    frames_line = re.sub(rb"\d+", b"%d" % len(body), lines[frames_at], count=1)
    old_time = float(lines[frames_at + 1].split(b":")[1])
    time_line = re.sub(rb"[-+0-9.eE]+(?=\s*$)", b"%.7f" % (old_time * step),
                       lines[frames_at + 1].rstrip(b"\r\n")) + \
        lines[frames_at + 1][len(lines[frames_at + 1].rstrip(b"\r\n")):]
    return b"".join(lines[:frames_at] + [frames_line, time_line] + body)


def excerpt(data, first, count):
    lines = re.findall(rb"[^\r\n]*(?:\r\n|\r|\n|$)", data)
    lines = [ln for ln in lines if ln]
    frames_at = next(i for i, ln in enumerate(lines) if ln.lstrip().upper().startswith(b"FRAMES:"))
    frames_line = re.sub(rb"\d+", b"%d" % count, lines[frames_at], count=1)  # keeps tabs, endings
    head = lines[:frames_at] + [frames_line, lines[frames_at + 1]]
    body = lines[frames_at + 2 + first:frames_at + 2 + first + count]
    assert len(body) == count
    return b"".join(head + body)


def main(source_dir):
    for name, first, count, dest in EXCERPTS:
        with open(os.path.join(source_dir, name), "rb") as f:
            data = f.read()
        with open(dest, "wb") as f:
            f.write(excerpt(data, first, count))
        print(f"{dest}: frames {first}..{first + count - 1} of {name}")
    for name, step, dest in DECIMATED:
        with open(os.path.join(source_dir, name), "rb") as f:
            data = f.read()
        with open(dest, "wb") as f:
            f.write(gzip.compress(decimate(data, step), mtime=0))
        print(f"{dest}: every {step}th frame of {name}")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(sys.argv[1])
