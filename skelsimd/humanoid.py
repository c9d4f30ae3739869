"""The humanoid profile: which joint of a skeleton is the hips, the head, each leg and arm bone
(the VRM 1.0 / Unity humanoid bone names), found from the joint names of the common naming
families and, where names fail, from the topology and the geometry of the rest pose.

Method
------
1. **Names.** Every joint name is normalised: the namespace (``mixamorig:``, ``Armature|``,
   three.js's sanitised ``mixamorig``), the 3ds Max ``Bip01``, VRoid ``J_Bip_C_`` /
   ``J_Bip_``, Character Creator ``CC_Base_`` and the Blender ``DEF-`` / ``ORG-`` / ``MCH-``
   prefixes are dropped; the side is read from a ``Left`` / ``Right`` word (any case), an
   ``L`` / ``R`` prefix (``LHipJoint``, ``L_Hip``), suffix (``thigh_l``, ``UpperLeg.L``,
   ``UpperLegL``) or infix (``thigh.L.001``), or a lowercase ``l`` / ``r`` before a body word
   (``lhand``); what is left, lowercase without separators, is the joint's *word* (``upleg``,
   ``thigh``, ``spine01``, ...).
2. **Limbs by names and chains.** A lower leg is a joint whose word names one (``leg``,
   ``lowerleg``, ``calf``, ``shin``, ``knee``); its upper leg is its nearest ancestor of the same
   side named as one (``upleg``, ``upperleg``, ``thigh``, ``hip``), so a CMU ``LHipJoint``
   between the hips and ``LeftUpLeg`` is skipped. The foot is the nearest descendant of the lower
   leg named ``foot`` / ``ankle``, or, for rigs whose feet are driven by IK and parented to the
   root, any joint of that side so named; the toes are the nearest descendant of the foot named
   ``toe`` / ``toes`` / ``toebase`` / ``ball`` (or a second ``foot``: SMPL's ``L_Foot`` under
   ``L_Ankle``). Arms likewise from the lower arm (``forearm``, ``lowerarm``, ``elbow``): the
   upper arm is its nearest ancestor named ``arm`` / ``upperarm`` / ``shoulder`` (a CMU
   ``LeftShoulder`` above ``LeftArm`` is therefore the shoulder, and SMPL's ``L_Shoulder``
   above ``L_Elbow`` the upper arm), the shoulder the nearest ancestor above it named
   ``shoulder`` / ``collar`` / ``clavicle``, the hand the nearest descendant named ``hand`` /
   ``wrist`` (a rig that names a hand must have it there). A head that is not named (Rigify's
   ``spine.006``) is the end of the chain leaving the upper spine upward, as in 3.
3. **Topology and rest geometry** (only where the names fail, and only with a rest pose). The
   limbs are pairs of sibling chains as long as each other (as many joints along the chain,
   lengths within 25%, subtrees within 10% or two joints of each other: a prop joint on one
   hand is allowed); the
   legs are the pair whose hub is an ancestor of the other's (the hips), the arms the pair at
   the upper spine. The head is the end of the chain that leaves the upper spine upward (the
   branch reaching highest towards the upper spine's direction from the hips), followed while
   each joint has a single child. The up axis is the direction from the hips to the head (Y-up
   or Z-up rigs alike); both legs must point down along it (within 45 degrees), which is what
   tells a standing humanoid from a quadruped. Along a leg chain the upper and lower leg are the
   two consecutive bones of greatest total length, then the foot and the toes; a leg chain that
   stops at the knee (an IK rig) takes as its foot the joint outside the hips' subtree nearest
   to where the straight leg would end. Along an arm chain the hand is the first joint (third
   or later) that ends the chain or branches (leaf children lying along the bone, twist bones,
   do not count); the two joints before it are the lower and upper arm, the one before those
   the shoulder (when the would-be upper arm is under 35% of the lower arm's length, the chain
   is read one joint further). **Sides**: the character's forward direction is the mean
   horizontal direction from the feet to the toes; left is ``up x forward`` (the rule of a
   right-handed frame: a Y-up character facing +Z has its left at +X). Without toes the rig's
   convention is taken: left is towards +X (glTF, VRM 1.0, Blender and the CMU files agree).
4. **Hips, spine, neck.** The hips are the lowest common ancestor of the upper legs and the head
   (a joint named ``Hips`` that is not the parent of the legs, as in Quaternius rigs, is not the
   hips). The joints strictly between the hips and the neck on the hips-to-head path are the
   spine joints (joints named ``hips`` / ``pelvis`` excepted): one is ``spine``, two are
   ``spine`` and ``chest``, three or more ``spine``, ``chest`` (the middle one) and
   ``upperChest`` (the last). The neck is the first joint of that path named ``neck``, else the
   first joint after the upper arms' common ancestor. Overridden hips or head move these onto
   the new path.
5. **Fingers, eyes, jaw** by names only (``thumb`` / ``index`` / ``middle`` / ``ring`` /
   ``pinky`` / ``little`` with a number or ``metacarpal`` / ``proximal`` / ``intermediate`` /
   ``distal``; ``eye``; ``jaw``), below the hand (or lower arm) and the head. Numbered finger
   joints fill, in chain order, the slots no joint names (thumb: metacarpal, proximal, distal;
   other fingers: proximal, intermediate, distal; a non-thumb metacarpal is not in the
   profile).
"""
from __future__ import annotations

import difflib
import json
import os
import re
from itertools import combinations
from typing import TYPE_CHECKING, Any, Union

import numpy as np

from .joints import local_to_global
from .qts import qts_local_to_global_matrix
from .skeleton import Skeleton

if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping
    from ._typing import Float64Array

    _Overrides = Union["Mapping[str, str | None]", str, "os.PathLike[str]", None]

__all__ = ["humanoid_map", "HUMANOID_BONES", "HUMANOID_REQUIRED"]

_FINGERS = ("Thumb", "Index", "Middle", "Ring", "Little")
_THUMB_SLOTS = ("Metacarpal", "Proximal", "Distal")
_FINGER_SLOTS = ("Proximal", "Intermediate", "Distal")


def _finger_bones(side: str) -> tuple[str, ...]:
    return tuple(f"{side}{f}{slot}" for f in _FINGERS
                 for slot in (_THUMB_SLOTS if f == "Thumb" else _FINGER_SLOTS))


#: The profile's bone names (VRM 1.0 humanoid), parents before children.
HUMANOID_BONES: tuple[str, ...] = (
    "hips", "spine", "chest", "upperChest", "neck", "head", "leftEye", "rightEye", "jaw",
    "leftUpperLeg", "leftLowerLeg", "leftFoot", "leftToes",
    "rightUpperLeg", "rightLowerLeg", "rightFoot", "rightToes",
    "leftShoulder", "leftUpperArm", "leftLowerArm", "leftHand",
    "rightShoulder", "rightUpperArm", "rightLowerArm", "rightHand",
) + _finger_bones("left") + _finger_bones("right")

#: The bones every humanoid must have (in HUMANOID_BONES order); hands are mapped where the rig
#: has them.
HUMANOID_REQUIRED: tuple[str, ...] = (
    "hips", "head",
    "leftUpperLeg", "leftLowerLeg", "leftFoot", "rightUpperLeg", "rightLowerLeg", "rightFoot",
    "leftUpperArm", "leftLowerArm", "rightUpperArm", "rightLowerArm",
)

# --- names ----------------------------------------------------------------------------------------

_NAMESPACE = re.compile(r"^.*[:|]")
_PREFIXES = re.compile(r"^(?:mixamorig\d*_?|bip\d*[ _]+|(?:def|org|mch)[-_.]|cc_base_"
                       r"|j_(?:bip|adj)_(?:c_)?)", re.IGNORECASE)
_SEP = "_.\\- "
_WORD_SIDE = re.compile(r"left|right", re.IGNORECASE)
_PREFIX_SIDE = re.compile(rf"^([LR])(?=[A-Z][a-z]|[{_SEP}])|^([lr])(?=[{_SEP}])")
_SUFFIX_SIDE = re.compile(rf"[{_SEP}]([LRlr])$")
_INFIX_SIDE = re.compile(rf"[{_SEP}]([LRlr])(?=[{_SEP}])")
_CAMEL_SIDE = re.compile(r"(?<=[a-z0-9])([LR])$")
_LOWER_PREFIX_SIDE = re.compile(r"^([lr])(?=[a-z]+$)")

_HIPS = re.compile(r"hips?|pelvis")
_UPPER_LEG = re.compile(r"up(?:per)?leg|legupper|thigh|hip|femur")
_LOWER_LEG = re.compile(r"(?:lower|low|lo)?leg|leglower|calf|shin|knee|tibia")
_FOOT = re.compile(r"foot|ankle")
_TOES = re.compile(r"toes?(?:base)?0?|ball")
_SHOULDER = re.compile(r"shoulder|collar(?:bone)?|clavicle|clav")
_UPPER_ARM = re.compile(r"(?:upper|up)?arm|armupper|shoulder|humerus")
_LOWER_ARM = re.compile(r"fore(?:arm)?|lower(?:arm)?|lowarm|loarm|armlower|elbow")
_HAND = re.compile(r"hand|wrist")
_HEAD = re.compile(r"head")
_NECK = re.compile(r"(?:lower)?neck\d*")
_EYE = re.compile(r"(?:face)?eye(?:ball)?")
_JAW = re.compile(r"jaw")
_FINGER = re.compile(r"(?:hand)?f?(thumb|index|middle|ring|pinky|little)"
                     r"(metacarpal|proximal|intermediate|distal|\d*)")
_BODY_WORDS = (_UPPER_LEG, _LOWER_LEG, _FOOT, _TOES, _SHOULDER, _UPPER_ARM, _LOWER_ARM, _HAND,
               _EYE)


def _word(s: str) -> str:
    return re.sub(r"[^a-z0-9]", "", s.lower())


def _parse(name: str) -> tuple[str | None, str]:
    """(side: "left" / "right" / None, word) of a joint name (see the module's Method, 1)."""
    s = _PREFIXES.sub("", _NAMESPACE.sub("", name.strip()))
    m = _WORD_SIDE.search(s)
    if m:
        side = m.group().lower()
        return side, _word(s[:m.start()] + s[m.end():])
    for rule in (_PREFIX_SIDE, _SUFFIX_SIDE, _INFIX_SIDE, _CAMEL_SIDE):
        m = rule.search(s)
        if m:
            letter = (m.group(1) or m.group(2) if rule is _PREFIX_SIDE else m.group(1)).lower()
            rest = _word(s[:m.start()] + " " + s[m.end():])
            return ("left" if letter == "l" else "right"), rest
    m = _LOWER_PREFIX_SIDE.search(s)
    if m and any(w.fullmatch(s[1:]) for w in _BODY_WORDS) and not any(
            w.fullmatch(s) for w in _BODY_WORDS):
        return ("left" if m.group(1) == "l" else "right"), s[1:]
    return None, _word(s)


# --- the skeleton's facts -------------------------------------------------------------------------

class _Rig:
    """Parents, children, subtree sizes, parsed names and rest positions of a skeleton."""

    def __init__(self, skeleton: Skeleton) -> None:
        self.names = skeleton.names
        self.parents = [int(p) for p in skeleton.parents]
        n = self.n = len(self.parents)
        self.children: list[list[int]] = [[] for _ in range(n)]
        for j, p in enumerate(self.parents):
            if p >= 0:
                self.children[p].append(j)
        self.size = [1] * n
        for j in range(n - 1, -1, -1):
            if self.parents[j] >= 0:
                self.size[self.parents[j]] += self.size[j]
        self.depth = [int(d) for d in skeleton.depth]
        parsed = [_parse(name) for name in self.names]
        self.side = [p[0] for p in parsed]
        self.word = [p[1] for p in parsed]
        self.pos: Float64Array | None = None
        self.scale = 1.0
        self.no_rest = "no rest pose to fall back on"
        rest = skeleton.rest
        if rest is not None:
            if rest.ndim == 2:
                g = qts_local_to_global_matrix(rest, skeleton, precision="float64")
            else:
                g = local_to_global(rest, skeleton, precision="float64")
            pos = np.asarray(g[:, :, 3], dtype=np.float64)
            self.no_rest = "the rest pose is not finite: nothing to fall back on"
            if np.isfinite(pos).all():
                self.pos = pos
                extent = float(np.ptp(pos, axis=0).max()) if n else 0.0
                self.scale = extent if extent > 0 else 1.0

    def named(self, j: int, rule: re.Pattern[str], side: str | None | bool = False) -> bool:
        """Joint j's word matches `rule` (and its side is `side`, unless side is False)."""
        return bool(rule.fullmatch(self.word[j])) and (side is False or self.side[j] == side)

    def is_ancestor(self, a: int, b: int) -> bool:
        """a is a proper ancestor of b."""
        j = self.parents[b]
        while j >= 0:
            if j == a:
                return True
            j = self.parents[j]
        return False

    def path_up(self, j: int) -> list[int]:
        """j and its ancestors, nearest first."""
        out = []
        while j >= 0:
            out.append(j)
            j = self.parents[j]
        return out

    def lca(self, joints: Iterable[int]) -> int:
        """The lowest common ancestor (or self) of the joints; -1 when they have none."""
        common: list[int] | None = None
        for j in joints:
            up = self.path_up(j)
            if common is None:
                common = up
            else:
                keep = set(up)
                common = [k for k in common if k in keep]
        return common[0] if common else -1

    def path(self, a: int, b: int) -> list[int]:
        """The joints after a down to its descendant b (b included)."""
        up = self.path_up(b)
        return up[:up.index(a)][::-1]

    def nearest_below(self, j: int, accept: Any) -> int | None:
        """The shallowest descendant k of j (breadth-first) with accept(k)."""
        level = list(self.children[j])
        while level:
            for k in level:
                if accept(k):
                    return k
            level = [c for k in level for c in self.children[k]]
        return None

    def nearest_above(self, j: int, accept: Any, through: Any) -> int | None:
        """The nearest proper ancestor k of j with accept(k), walking up through ancestors with
        through(k) only."""
        k = self.parents[j]
        while k >= 0:
            if accept(k):
                return k
            if not through(k):
                return None
            k = self.parents[k]
        return None

    def subtree(self, j: int) -> list[int]:
        out, stack = [], [j]
        while stack:
            k = stack.pop()
            out.append(k)
            stack.extend(self.children[k])
        return out

    def main_child(self, j: int) -> int | None:
        """The child with the largest subtree (ties: the farthest from j, then the first)."""
        kids = self.children[j]
        if not kids:
            return None
        pos = self.pos

        def key(c: int) -> tuple[int, float]:
            d = 0.0 if pos is None else float(np.linalg.norm(pos[c] - pos[j]))
            return self.size[c], d
        return max(kids, key=key)

    def main_chain(self, j: int) -> list[int]:
        chain = [j]
        k = self.main_child(j)
        while k is not None:
            chain.append(k)
            k = self.main_child(k)
        return chain

    def dist(self, a: int, b: int) -> float:
        assert self.pos is not None
        return float(np.linalg.norm(self.pos[b] - self.pos[a]))


# A limb: the joints of one side's leg (upperLeg, lowerLeg, foot, toes) or arm (shoulder,
# upperArm, lowerArm, hand), None where absent.
_Limb = list[Union[int, None]]


# --- limbs from names -----------------------------------------------------------------------------

def _leg_by_names(rig: _Rig, side: str) -> _Limb | None:
    for low in sorted((j for j in range(rig.n) if rig.named(j, _LOWER_LEG, side)),
                      key=lambda j: rig.depth[j]):
        up = rig.nearest_above(low, lambda k: rig.named(k, _UPPER_LEG, side),
                               lambda k: rig.side[k] == side)
        if up is None:
            continue
        foot = rig.nearest_below(low, lambda k: rig.named(k, _FOOT, side))
        if foot is None:          # IK rigs: a foot parented elsewhere (the root)
            feet = [k for k in range(rig.n) if rig.named(k, _FOOT, side)
                    and not rig.is_ancestor(k, low) and not rig.is_ancestor(low, k)]
            foot = min(feet, key=lambda k: rig.depth[k]) if feet else rig.main_child(low)
        toes = None
        if foot is not None:
            toes = rig.nearest_below(foot, lambda k: rig.side[k] in (side, None) and (
                rig.named(k, _TOES) or rig.named(k, _FOOT)))
        return [up, low, foot, toes]
    return None


def _arm_by_names(rig: _Rig, side: str) -> _Limb | None:
    for low in sorted((j for j in range(rig.n) if rig.named(j, _LOWER_ARM, side)),
                      key=lambda j: rig.depth[j]):
        same_side = lambda k: rig.side[k] == side   # noqa: E731
        up = rig.nearest_above(low, lambda k: rig.named(k, _UPPER_ARM, side), same_side)
        if up is None:
            continue
        shoulder = rig.nearest_above(up, lambda k: rig.named(k, _SHOULDER, side), same_side)
        hand = rig.nearest_below(low, lambda k: rig.side[k] in (side, None)
                                 and rig.named(k, _HAND))
        return [shoulder, up, low, hand]
    return None


def _head_by_names(rig: _Rig) -> int | None:
    heads = [j for j in range(rig.n) if rig.named(j, _HEAD, None)]
    return min(heads, key=lambda j: rig.depth[j]) if heads else None


# --- limbs from topology and rest geometry --------------------------------------------------------

def _unit(v: Float64Array) -> Float64Array | None:
    n = float(np.linalg.norm(v))
    return None if n <= 1e-9 else v / n


def _head_above(rig: _Rig, attach: int, arm_roots: tuple[int, int], hips: int) -> int | None:
    """The end of the chain that leaves `attach` (the upper spine) upward."""
    branches = [c for c in rig.children[attach] if c not in arm_roots]
    if not branches:
        return None
    if rig.pos is not None:
        up = rig.pos[attach] - rig.pos[hips]

        def height(c: int) -> float:
            assert rig.pos is not None
            return max(float((rig.pos[k] - rig.pos[attach]) @ up) for k in rig.subtree(c))
        j = max(branches, key=height)
    else:
        j = max(branches, key=lambda c: rig.size[c])
    while len(rig.children[j]) == 1:
        j = rig.children[j][0]
    return j


def _ik_foot(rig: _Rig, hips: int, up: int, low: int) -> int | None:
    """The joint outside the hips' subtree nearest to the end of the straight leg."""
    assert rig.pos is not None
    thigh = rig.pos[low] - rig.pos[up]
    guess = rig.pos[low] + thigh
    inside = set(rig.subtree(hips)) | set(rig.path_up(hips))
    best, best_d = None, float(np.linalg.norm(thigh))
    for k in range(rig.n):
        if k not in inside:
            d = float(np.linalg.norm(rig.pos[k] - guess))
            if d < best_d:
                best, best_d = k, d
    return best


def _leg_by_topology(rig: _Rig, hips: int, root: int) -> _Limb | None:
    chain = rig.main_chain(root)
    if len(chain) < 2:
        return None
    if len(chain) == 2:
        foot = _ik_foot(rig, hips, chain[0], chain[1])
        return None if foot is None else [chain[0], chain[1], foot, None]
    segs = [rig.dist(a, b) for a, b in zip(chain, chain[1:])]
    i = max(range(len(segs) - 1), key=lambda i: segs[i] + segs[i + 1])
    toes = chain[i + 3] if i + 3 < len(chain) else None
    return [chain[i], chain[i + 1], chain[i + 2], toes]


def _is_twist(rig: _Rig, j: int, leaf: int, nxt: int) -> bool:
    """`leaf` (a leaf child of j) lies along the bone from j to its child `nxt`."""
    assert rig.pos is not None
    v = rig.pos[nxt] - rig.pos[j]
    vv = float(v @ v)
    if rig.children[leaf] or vv <= 0.0:
        return False
    w = rig.pos[leaf] - rig.pos[j]
    t = float(w @ v) / vv
    return 0.05 < t < 0.95 and float(np.linalg.norm(w - t * v)) < 0.1 * vv ** 0.5


def _arm_by_topology(rig: _Rig, root: int) -> _Limb | None:
    chain = rig.main_chain(root)
    h = None
    for i in range(2, len(chain)):
        j = chain[i]
        if i + 1 == len(chain):
            h = i
            break
        nxt = chain[i + 1]
        kids = [k for k in rig.children[j] if k == nxt or not _is_twist(rig, j, k, nxt)]
        if len(kids) >= 2:
            h = i
            break
    if h is None:
        return None
    while h + 1 < len(chain) and (rig.dist(chain[h - 2], chain[h - 1])
                                  < 0.35 * rig.dist(chain[h - 1], chain[h])):
        h += 1
    shoulder = chain[h - 3] if h >= 3 else None
    return [shoulder, chain[h - 2], chain[h - 1], chain[h]]


class _Found:
    """Limbs and head found by topology, with the score of the pairing."""

    def __init__(self, legs: dict[str, _Limb], arms: dict[str, _Limb], head: int,
                 score: float) -> None:
        self.legs, self.arms, self.head, self.score = legs, arms, head, score


def _pairs(rig: _Rig) -> list[tuple[float, int, int, int]]:
    """(summed reach, hub, a, b) of the sibling chains that look like a left/right pair."""
    assert rig.pos is not None
    pos = rig.pos
    out = []
    for hub in range(rig.n):
        kids = rig.children[hub]
        if len(kids) < 2:
            continue
        chains = {c: rig.main_chain(c) for c in kids}
        reach = {c: max(float(np.linalg.norm(pos[k] - pos[hub])) for k in chains[c]) for c in kids}
        for a, b in combinations(kids, 2):
            sa, sb = rig.size[a], rig.size[b]
            if (abs(sa - sb) > max(2, max(sa, sb) // 10) or len(chains[a]) != len(chains[b])
                    or len(chains[a]) < 2):
                continue
            lo, hi = sorted((reach[a], reach[b]))
            if lo > 1e-6 * rig.scale and hi <= 1.25 * lo:
                out.append((lo + hi, hub, a, b))
    out.sort(reverse=True)
    return out[:12]


def _sides(rig: _Rig, up: Float64Array, legs: list[_Limb]) -> Float64Array | None:
    """The unit vector towards the character's left (module Method, 3)."""
    assert rig.pos is not None
    fwd = np.zeros(3)
    for leg in legs:
        foot, toes = leg[2], leg[3]
        if foot is not None and toes is not None:
            v = rig.pos[toes] - rig.pos[foot]
            fwd += v - (v @ up) * up
    f = _unit(fwd) if float(np.linalg.norm(fwd)) > 1e-6 * rig.scale else None
    if f is not None:
        return _unit(np.cross(up, f))
    x = np.array([1.0, 0.0, 0.0])
    left = _unit(x - (x @ up) * up)
    return left if left is not None else _unit(np.cross(up, np.array([0.0, 0.0, 1.0])))


def _candidate(rig: _Rig, legs_pair: tuple[float, int, int, int],
               arms_pair: tuple[float, int, int, int]) -> _Found | None:
    assert rig.pos is not None
    pos = rig.pos
    hips, attach = legs_pair[1], arms_pair[1]
    spine_dir = _unit(pos[attach] - pos[hips])
    if spine_dir is None:
        return None
    head = _head_above(rig, attach, (arms_pair[2], arms_pair[3]), hips)
    if head is None or head == attach:
        return None
    up = _unit(pos[head] - pos[hips])
    if up is None or float(spine_dir @ up) < 0.7:
        return None
    legs = [_leg_by_topology(rig, hips, c) for c in legs_pair[2:]]
    arms = [_arm_by_topology(rig, c) for c in arms_pair[2:]]
    if any(limb is None for limb in legs + arms):
        return None
    for leg in legs:
        assert leg is not None and leg[0] is not None and leg[2] is not None
        d = _unit(pos[leg[2]] - pos[leg[0]])
        if d is None or float(d @ up) > -0.7:        # a leg must point down
            return None
    left = _sides(rig, up, [leg for leg in legs if leg is not None])
    if left is None:
        return None
    def by_side(a: _Limb | None, b: _Limb | None, k: int) -> dict[str, _Limb] | None:
        """The two limbs as left and right: joint k of the left one lies further along
        `left` (both hang from the same hub)."""
        assert a is not None and b is not None and left is not None
        ja, jb = a[k], b[k]
        assert ja is not None and jb is not None
        d = float((pos[ja] - pos[jb]) @ left)
        if abs(d) <= 1e-6 * rig.scale:
            return None
        return {"left": a, "right": b} if d > 0 else {"left": b, "right": a}
    leg_sides = by_side(legs[0], legs[1], 0)
    arm_sides = by_side(arms[0], arms[1], 1)
    if leg_sides is None or arm_sides is None:
        return None
    return _Found(leg_sides, arm_sides, head, legs_pair[0] + arms_pair[0])


def _by_topology(rig: _Rig) -> _Found | None:
    pairs = _pairs(rig)
    best: _Found | None = None
    for p in pairs:
        for q in pairs:
            if rig.is_ancestor(p[1], q[1]):
                found = _candidate(rig, p, q)
                if found is not None and (best is None or found.score > best.score):
                    best = found
    return best


# --- the whole map --------------------------------------------------------------------------------

def _spine(rig: _Rig, hips: int, head: int, attach: int | None) -> dict[str, int]:
    """spine / chest / upperChest / neck along the hips-to-head path (module Method, 4)."""
    body = rig.path(hips, head)[:-1]
    out: dict[str, int] = {}
    neck_at = next((i for i, j in enumerate(body) if rig.named(j, _NECK, None)), None)
    if neck_at is None and attach is not None and attach in body:
        neck_at = body.index(attach) + 1
        if neck_at >= len(body):
            neck_at = None
    if neck_at is not None:
        out["neck"] = body[neck_at]
        body = body[:neck_at]
    spine = [j for j in body if not rig.named(j, _HIPS)]
    if spine:
        out["spine"] = spine[0]
    if len(spine) == 2:
        out["chest"] = spine[1]
    elif len(spine) >= 3:
        out["chest"] = spine[len(spine) // 2]
        out["upperChest"] = spine[-1]
    return out


def _fingers(rig: _Rig, side: str, below: int) -> dict[str, int]:
    out: dict[str, int] = {}
    chains: dict[str, list[tuple[int, str]]] = {}
    for k in rig.subtree(below):
        if k == below or rig.side[k] not in (side, None):
            continue
        m = _FINGER.fullmatch(rig.word[k])
        if m:
            finger = "Little" if m.group(1) in ("pinky", "little") else m.group(1).capitalize()
            chains.setdefault(finger, []).append((k, m.group(2)))
    for finger, joints in chains.items():
        slots = _THUMB_SLOTS if finger == "Thumb" else _FINGER_SLOTS
        named = {s.lower(): k for k, s in joints if s.isalpha()}
        taken = {slot: named[slot.lower()] for slot in slots if slot.lower() in named}
        numbered = sorted((k for k, s in joints if not s.isalpha()), key=lambda k: rig.depth[k])
        taken.update(zip([slot for slot in slots if slot not in taken], numbered))
        for slot, k in taken.items():
            out[f"{side}{finger}{slot}"] = k
    return out


def _auto(rig: _Rig) -> tuple[dict[str, int], str]:
    """The map found (joint indices) and, when the names did not give every required bone, a
    note on the topology fallback."""
    legs = {s: _leg_by_names(rig, s) for s in ("left", "right")}
    arms = {s: _arm_by_names(rig, s) for s in ("left", "right")}
    head = _head_by_names(rig)
    uppers = [arm[1] for arm in arms.values() if arm is not None and arm[1] is not None]
    thighs = [leg[0] for leg in legs.values() if leg is not None and leg[0] is not None]
    if head is None and len(uppers) == 2 and len(thighs) == 2:
        # limbs named, head not (Rigify's spine.006): the chain leaving the upper spine upward
        attach = rig.lca(uppers)
        roots = tuple(rig.path(attach, j)[0] for j in uppers if j != attach)
        if attach >= 0 and len(roots) == 2:
            head = _head_above(rig, attach, (roots[0], roots[1]), rig.lca(thighs))
    complete = head is not None and all(
        limb is not None and limb[1] is not None and limb[2] is not None
        for limb in list(legs.values()) + list(arms.values()))
    note = ""
    if not complete:
        found = _by_topology(rig) if rig.pos is not None else None
        if found is None:
            note = (rig.no_rest if rig.pos is None else
                    "the rest pose's topology and geometry show no standing humanoid either")
        else:
            used = {j for limb in list(legs.values()) + list(arms.values()) if limb
                    for j in limb if j is not None}
            for part, theirs in ((legs, found.legs), (arms, found.arms)):
                for s in ("left", "right"):
                    if part[s] is None and not used & {j for j in theirs[s] if j is not None}:
                        part[s] = theirs[s]
            if head is None:
                head = found.head
    out: dict[str, int] = {}
    leg_tops = [leg[0] for leg in legs.values() if leg is not None and leg[0] is not None]
    arm_tops = [arm[1] for arm in arms.values() if arm is not None and arm[1] is not None]
    anchors = leg_tops + ([head] if head is not None else [])
    hips = rig.lca(anchors) if anchors else -1
    if hips < 0 or hips == head or hips in leg_tops or (head is None and len(leg_tops) < 2):
        return out, note
    out["hips"] = hips
    for s in ("left", "right"):
        leg = legs[s]
        if leg is not None and leg[0] is not None and rig.is_ancestor(hips, leg[0]):
            for bone, j in zip(("UpperLeg", "LowerLeg", "Foot", "Toes"), leg):
                if j is not None:
                    out[s + bone] = j
        arm = arms[s]
        if arm is not None and arm[1] is not None and rig.is_ancestor(hips, arm[1]):
            for bone, j in zip(("Shoulder", "UpperArm", "LowerArm", "Hand"), arm):
                if j is not None:
                    out[s + bone] = j
            below = arm[3] if arm[3] is not None else arm[2]
            if below is not None:
                out.update(_fingers(rig, s, below))
    if head is not None and rig.is_ancestor(hips, head):
        out["head"] = head
        top = rig.lca(arm_tops) if len(arm_tops) == 2 else None
        out.update(_spine(rig, hips, head, top))
        for s in ("left", "right"):
            eye = rig.nearest_below(head, lambda k: rig.named(k, _EYE, s))
            if eye is not None:
                out[s + "Eye"] = eye
        jaw = rig.nearest_below(head, lambda k: rig.named(k, _JAW))
        if jaw is not None:
            out["jaw"] = jaw
    return out, note


def _read_overrides(overrides: _Overrides) -> dict[str, str | None]:
    if overrides is None:
        return {}
    if isinstance(overrides, (str, os.PathLike)):
        path = os.fspath(overrides)
        with open(path, encoding="utf-8") as f:
            try:
                data = json.load(f)
            except json.JSONDecodeError as exc:
                raise ValueError(f"overrides: {path!r} is not valid JSON: {exc}") from None
        if not isinstance(data, dict):
            raise ValueError(f"overrides: {path!r} must hold a JSON object (profile bone name -> "
                             f"joint name), got a {type(data).__name__}")
        overrides = data
    if not hasattr(overrides, "items"):
        raise TypeError("overrides: expected a dict (profile bone name -> joint name) or the path "
                        f"of a JSON file holding one, got {type(overrides).__name__}")
    out: dict[str, str | None] = {}
    for bone, joint in overrides.items():
        if bone not in HUMANOID_BONES:
            close = difflib.get_close_matches(str(bone), HUMANOID_BONES, n=3)
            hint = f"; similar: {', '.join(close)}" if close else ""
            raise ValueError(f"overrides: {bone!r} is not a bone of the humanoid profile "
                             f"(skelsimd.HUMANOID_BONES){hint}")
        if joint is not None and not isinstance(joint, str):
            raise TypeError(f"overrides[{bone!r}]: expected a joint name (str) or None, got "
                            f"{type(joint).__name__}")
        out[bone] = joint
    return out


def _skeleton_of(skeleton: Any) -> Skeleton:
    if isinstance(skeleton, Skeleton):
        return skeleton
    inner = getattr(skeleton, "skeleton", None)
    if isinstance(inner, Skeleton):
        return inner
    raise TypeError("skeleton: expected a Skeleton, a Clip or a GltfSkin, got "
                    f"{type(skeleton).__name__}")


def humanoid_map(skeleton: Any, overrides: _Overrides = None) -> dict[str, str]:
    """The humanoid profile's bones (VRM 1.0 names) mapped to a skeleton's joint names.

    The names of the common naming families are recognised, case- and separator-insensitively:
    CMU / BVH (``LeftUpLeg``, ``LHipJoint``, ``LowerBack``, ``LeftHip`` / ``LeftKnee``),
    Bandai-Namco (``UpperLeg_L``), Mixamo (``mixamorig:LeftUpLeg``), Unreal (``thigh_l``,
    ``calf_l``, ``upperarm_r``), Rigify / Quaternius / Blender (``UpperLeg.L``, ``UpperLegL``,
    ``thigh.L``, ``DEF-thigh.L``), SMPL (``L_Hip``, ``left_hip``), Godot's humanoid profile
    (``LeftUpperLeg``), 3ds Max Biped (``Bip01 L Thigh``), VRoid (``J_Bip_L_UpperLeg``) and
    Character Creator (``CC_Base_L_Thigh``). Where names fail, the legs, arms and head are
    found from the topology and the rest pose's geometry (Y-up or Z-up alike). The method is in
    this module's documentation (:mod:`skelsimd.humanoid`) and in the guide's "Joint mapping"
    section.

    Parameters
    ----------
    skeleton : Skeleton, Clip or GltfSkin
        A Clip or a GltfSkin gives its ``skeleton``. The fallback on topology and geometry needs
        its rest pose.
    overrides : dict or str or path-like, optional
        Profile bone name -> joint name (or None to leave the bone unmapped), as a dict or the
        path of a JSON file holding one object. It replaces any entry found automatically.

    Returns
    -------
    dict of str to str
        Profile bone name -> joint name, in :data:`HUMANOID_BONES` order, with every bone of
        :data:`HUMANOID_REQUIRED` (hips, head, both upper and lower legs, feet, upper and lower
        arms), the hands where the rig names a hand or wrist joint, and the optional bones
        found (spine, chest, upperChest, neck, shoulders, other hands, toes, eyes, jaw,
        fingers). A foot parented elsewhere than the lower leg (IK rigs whose feet hang from
        the root) is mapped all the same.

    Raises
    ------
    TypeError
        ``skeleton`` is not a Skeleton, Clip or GltfSkin; ``overrides`` is not a dict or a path,
        or a joint name in it is not a str.
    ValueError
        A required bone, or a hand the rig names, cannot be found (the message names the
        missing profile bones: a quadruped, a broken or partial skeleton); ``overrides``
        names a bone outside the profile or a joint the skeleton lacks, or its file is not a
        JSON object.

    Examples
    --------
    >>> import skelsimd
    >>> m = skelsimd.humanoid_map(skelsimd.data.load_example())
    >>> m["hips"], m["leftUpperLeg"], m["leftLowerArm"], m["head"]
    ('Hips', 'LeftHip', 'LeftElbow', 'Head')
    >>> skelsimd.humanoid_map(skelsimd.data.load_example(), {"leftHand": "lhand"})["leftHand"]
    'lhand'
    >>> skelsimd.humanoid_map(skelsimd.Skeleton([-1, 0, 1], names=["pelvis", "spine", "head"]))
    Traceback (most recent call last):
    ...
    ValueError: skeleton: no humanoid found: missing hips, head, leftUpperLeg, ...
    """
    sk = _skeleton_of(skeleton)
    fixed = _read_overrides(overrides)
    for bone, joint in fixed.items():
        if joint is not None and joint not in sk.names:
            raise ValueError(f"overrides[{bone!r}] = {joint!r}: no joint named {joint!r} in the "
                             f"skeleton ({len(sk)} joints)")
    rig = _Rig(sk)
    found, note = _auto(rig)
    names = {bone: rig.names[j] for bone, j in found.items()}
    spine_bones = ("spine", "chest", "upperChest", "neck")
    if any(fixed.get(b) for b in ("hips", "head")) and not any(b in fixed for b in spine_bones):
        # overridden ends: the spine follows the new hips-to-head path
        ends = {**names, **{b: j for b, j in fixed.items() if j is not None}}
        for b in spine_bones:
            names.pop(b, None)
        if "hips" in ends and "head" in ends:
            hips, head = sk.index(ends["hips"]), sk.index(ends["head"])
            if rig.is_ancestor(hips, head):
                arms = [sk.index(ends[b]) for b in ("leftUpperArm", "rightUpperArm") if b in ends]
                attach = rig.lca(arms) if len(arms) == 2 else None
                names.update({b: rig.names[j] for b, j in _spine(rig, hips, head, attach).items()})
    for bone, joint in fixed.items():
        if joint is None:
            names.pop(bone, None)
        else:
            names[bone] = joint
    missing = [b for b in HUMANOID_REQUIRED if b not in names]
    for s in ("left", "right"):         # hands, where the rig names one
        if f"{s}Hand" not in names and f"{s}Hand" not in fixed and any(
                rig.named(j, _HAND, s) for j in range(rig.n)):
            missing.append(f"{s}Hand")
    if missing:
        why = f" ({note})" if note else ""
        raise ValueError(f"skeleton: no humanoid found: missing {', '.join(missing)} among "
                         f"{len(sk)} joints{why}; name them with overrides= "
                         "(profile bone name -> joint name)")
    return {b: names[b] for b in HUMANOID_BONES if b in names}
