"""Benchmark workloads of every kernel family, for `python -m skelsimd bench`.

Each family module provides `headline()`, the list of its workloads at their headline sizes;
FAMILIES maps the family's name to that function. A family may also provide
`report(out, quick) -> (text, data)`, printed after the timing table (and `data` stored in
bench.json): REPORTS maps the family's name to it.
"""
from collections.abc import Callable, Sequence
from typing import Any

from .core import Workload
from . import compress, convert, joints, mat4, quat, skeleton, skinning, surface
from . import track

FAMILIES: dict[str, Callable[[], list[Workload]]] = {
    "joints": joints.headline,
    "quat": quat.headline,
    "mat4": mat4.headline,
    "skinning": skinning.headline,
    "surface": surface.headline,
    "skeleton": skeleton.headline,
    "convert": convert.headline,
    "compress": compress.headline,
    "track": track.headline,
}

from . import runtime  # noqa: E402  (the engine runtime: additive layers and IK)

FAMILIES["runtime"] = runtime.headline

from . import retarget  # noqa: E402  (retargeting between skeletons)

FAMILIES["retarget"] = retarget.headline

REPORTS: dict[str, Callable[[str | None, bool], tuple[str, Any]]] = {
    "compress": compress.report,
}


def headline_workloads(families: Sequence[str] | None = None) -> list[Workload]:
    names = families or list(FAMILIES)
    unknown = [n for n in names if n not in FAMILIES]
    if unknown:
        raise ValueError(f"unknown benchmark family {unknown[0]!r}; expected one of {', '.join(FAMILIES)}")
    workloads = []
    for n in names:
        workloads.extend(FAMILIES[n]())
    return workloads
