"""Joint-name matching: the left/right counterparts of joint names, behind
:func:`skelsimd.skeleton.mirror_pairs` (a leaf module: the pictures use it too without importing
the model types)."""
from __future__ import annotations

import re
from collections.abc import Iterable

__all__ = ["mirror_pairs"]


def _swap_case(found: str, replacement: str) -> str:
    """`replacement` written in the letter case of `found` (Left -> Right, LEFT -> RIGHT)."""
    if found.isupper():
        return replacement.upper()
    if found[:1].isupper():
        return replacement[:1].upper() + replacement[1:].lower()
    return replacement.lower()


_WORD = re.compile(r"left|right", re.IGNORECASE)
# A lone L / R: at the start or after a separator, and followed by the end, a separator, an
# uppercase letter or a digit (LHipJoint, L_Hip, hip_l, upper_arm.L, Bip01 L Thigh, mixamo:L...);
# or an uppercase L / R ending a camel-case name (ThighL).
_LETTER = re.compile(r"(?:(?<=^)|(?<=[_.\-: |]))[LlRr](?=$|[^a-z])|(?<=[a-z])[LR]$")
# A lowercase l / r starting a lowercase name (lhand, rfoot): tried last.
_PREFIX = re.compile(r"^[lr](?=[a-z])")


def _mirror_candidates(name: str) -> list[tuple[str, bool]]:
    """(name of the other side's joint, whether `name` is the left one) for every rule that
    applies to `name`, most specific rule first."""
    out: list[tuple[str, bool]] = []
    for m in _WORD.finditer(name):
        is_left = m.group().lower() == "left"
        other = "right" if is_left else "left"
        out.append((name[:m.start()] + _swap_case(m.group(), other) + name[m.end():], is_left))
    for rule in (_LETTER, _PREFIX):
        for m in rule.finditer(name):
            c = m.group()
            swapped = {"l": "r", "r": "l", "L": "R", "R": "L"}[c]
            out.append((name[:m.start()] + swapped + name[m.end():], c in "lL"))
    return out


def mirror_pairs(joint_names: Iterable[str]) -> list[tuple[int, int]]:
    """``(left, right)`` index pairs of the joint names (see
    :func:`skelsimd.skeleton.mirror_pairs`).

    Examples
    --------
    >>> from skelsimd._names import mirror_pairs
    >>> mirror_pairs(["Hips", "LeftUpLeg", "RightUpLeg", "hand_r", "hand_l"])
    [(1, 2), (4, 3)]
    """
    names = list(joint_names)
    index: dict[str, int] = {}
    for j, name in enumerate(names):
        index.setdefault(name, j)
    partner: dict[int, tuple[int, bool]] = {}
    for j, name in enumerate(names):
        for cand, is_left in _mirror_candidates(name):
            k = index.get(cand)
            if k is not None and k != j:
                partner[j] = (k, is_left)
                break
    pairs: list[tuple[int, int]] = []
    for j, (k, is_left) in partner.items():
        if j < k and partner.get(k, (None,))[0] == j:
            pairs.append((j, k) if is_left else (k, j))
    return sorted(pairs, key=min)
