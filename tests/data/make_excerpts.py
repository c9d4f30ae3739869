"""How the clips in tests/data and skelsimd/data were cut from the original motion-capture files
(their origins and terms are in tests/data/README.md and skelsimd/data/README.md).

    python tests/data/make_excerpts.py DIRECTORY_WITH_THE_ORIGINAL_BVH_FILES

Each excerpt keeps the original bytes: the whole header (line endings, tabs and all), the
number of the 'Frames:' line replaced by the excerpt's, and a contiguous run of the original frame lines.
"""
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


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(sys.argv[1])
