"""Embedded example data: a short real motion-capture clip (see README.md beside this file for
its origin and terms).

    clip = skelsimd.data.load_example()       # 240 frames at 120 fps, 31 joints
"""
import os

__all__ = ["EXAMPLE_BVH", "example_path", "load_example", "ORIGIN"]

EXAMPLE_BVH = "cmu_131_01_excerpt.bvh"

ORIGIN = ("CMU Graphics Lab Motion Capture Database, subject 131 trial 01, frames 200-439. "
          "The data used in this project was obtained from mocap.cs.cmu.edu. The database was "
          "created with funding from NSF EIA-0196217. Free for research and commercial use; the "
          "data itself may not be resold.")


def example_path():
    """The path of the embedded BVH clip."""
    return os.path.join(os.path.dirname(os.path.abspath(__file__)), EXAMPLE_BVH)


def load_example(*, end_sites=False):
    """The embedded clip as a :class:`skelsimd.Clip` (``load_bvh(example_path())``)."""
    from ..io.bvh import load_bvh

    return load_bvh(example_path(), end_sites=end_sites)
