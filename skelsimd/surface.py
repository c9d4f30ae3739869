"""Spring-grid surfaces: water, cloth and rubber ("2D Surface Deformation").

A :class:`Surface` is a ``rows x cols`` grid of particles. Every vertex is joined by springs to
its east ``(r, c+1)``, south ``(r+1, c)`` and south-east ``(r+1, c+1)`` neighbours, which gives
each inner vertex six neighbours (a triangulated grid). A spring's force is added to one end
and subtracted from the other (Newton's third law). The last row and column own only the
springs that exist: ``3 rc - 2r - 2c + 1`` springs on a plane. On a cylinder the columns wrap
(the east and south-east springs of the last column reach column 0): ``3 rc - 2c`` springs.

Models
------
``"offset"`` (Fomitchev's): ``F = E * ((S_n - S) - S_rest)`` with the rest vector ``S_rest`` of
every spring captured from the relaxed positions. Linear, so waves superpose: good for water
heightfields; the grid resists rotation (it remembers directions).
``"length"``: ``F = E * (|d| - L0) * d / |d|``, ``d = S_n - S``, with the rest length ``L0``
of every spring. Rotation invariant, so cloth can fold and drape. A spring of length zero exerts
no force.

Rest vectors and lengths are computed in float32 from the relaxed positions with exactly the
operations the kernels use, so a relaxed grid has exactly zero force and stays bitwise at rest.

Integration
-----------
Each substep of :meth:`Surface.step`, for every unpinned vertex with internal force ``F``::

    a  = (F + F_ext) / m + g          # F_ext from add_force / apply_effector, first substep only
    v' = v + a dt                     # symplectic (semi-implicit) Euler ...
    s' = s + v' dt
    v  = d v'                         # ... then Fomitchev's damping, 0 <= d <= 1

Pinned vertices never move: their positions and velocities keep their bits (the SIMD steps store
whole blocks, writing a pinned vertex's own value back). They are kinematic: move them yourself
between steps, not from another thread while a step runs.

Stability
---------
For the offset model the motion of every component is ``M x'' = -E L x`` with ``L`` the grid's
graph Laplacian. One substep maps a mode of frequency ``w`` (``w^2 = E lambda / m``, ``lambda``
an eigenvalue of ``L``) by a 2 x 2 matrix with determinant ``d`` and trace ``2 + d - k``,
``k = w^2 dt^2``: it is stable exactly while ``k < 2 (1 + d)`` (the Jury conditions; with
``d = 1``, the familiar ``w dt < 2``). The largest eigenvalue of the triangulated grid's
Laplacian is below 9 on every grid (the infinite grid's symbol ``6 - 2 cos a - 2 cos b -
2 cos(a + b)`` peaks at 9 for ``a = b = 2 pi / 3``; removing vertices or edges and pinning can
only lower it), and approaches 9 on large grids. Hence the bound ``step`` enforces::

    E dt^2 / m  <  2 (1 + d) / 9          i.e.  dt <= dt_max = sqrt(2 (1 + d) m / (9 E))

(``m`` the smallest vertex mass): ``4/9`` without damping, as the issue says, and *smaller* with
damping (``2/9`` at ``d = 0``), because the article damps the velocity after moving the vertex.
The length model's springs are stiffness ``E`` along the spring and ``E |1 - L0/|d||`` across it,
so the same bound holds while every spring is longer than half its rest length.

Fomitchev's own setting, water with ``E = 1, m = 1, dt = 1``, is outside the bound on this grid:
``dt_max = 0.67`` for water.

Invariants (tested on every SIMD variant)
-----------------------------------------
* A relaxed grid stays exactly at rest; pinned vertices are bitwise unchanged.
* Internal forces sum to zero (momentum is conserved without pins and external forces).
* With ``d = 1`` the offset model conserves the shadow energy
  ``H = 1/2 sum m |v|^2 + E(S) + dt/2 sum v . F(S)`` (exactly in exact arithmetic; relative
  drift <= 1e-5 over 10,000 float32 steps: 1.2e-6 to 6.9e-6 on 20 random 16 x 20 grids centred
  at the origin with displacements of 0.2 spacing. The drift comes from rounding positions to
  float32, about 6e-8 of their magnitude, so it grows with coordinates / displacements: 1.9e-6
  to 1.05e-5 for the same grids spanning 0..20).
* With ``d < 1``, ``H`` itself can *increase* for a step (at a turning point, where ``v`` is small
  and ``v . F > 0``, scaling ``v`` by ``d`` removes a negative ``dt/2 v . F`` term). The quantity
  that never increases is ``H_d = 1/2 sum m |v|^2 + (1 + d)/2 E(S) + dt/2 sum v . F(S)``: one
  substep lowers it by ``(1 - d)/4 v'^T (2 (1 + d) M - dt^2 E L) v' >= 0``, and it is positive
  definite exactly inside the stability bound. ``H_1 = H``.

Defects of the article fixed
----------------------------
* Fomitchev's update multiplies the force by the mass (``V += F * Mass * dt``); here
  ``a = (F + F_ext) / m``.
* Fomitchev's code integrates only vertices whose ``Fixed`` flag is set; here ``pinned=True`` means the
  vertex never moves.
* Fomitchev's normal is a copy of the velocity (zero at rest); here :meth:`Surface.normals` gives
  unit area-weighted normals of the grid's triangles.
* Fomitchev's loops visit only ``rows - 1`` rows and ``cols - 1`` columns, so the last row and
  column own no east/south springs; here exactly the springs that exist are simulated.
* The article calls the effector force "inversely proportional to the distance" but its formula
  ``F = strength * DS / |DS|`` has constant magnitude; the formula is implemented.

Memory layout
-------------
The state is float32 planes (x, y, z of positions, velocities and pending external forces, rest
vectors, inverse masses and the pinned flags) in one 64-byte aligned buffer. Large NumPy arrays
all start at 16 mod 4096, so separate arrays put the same element of every plane on the same
L1 cache set; the planes here are padded so that consecutive planes start 7 cache lines apart
modulo 4 KiB (all 20 planes on different sets). ``benchmarks/sweep_surface.py`` measures both.
"""
from __future__ import annotations
import math
import operator
import sys

import numpy as np

from . import _core
from ._grid import grid_positions as _grid_positions
from ._validate import finite as _finite
from .alignment import empty_aligned
from typing import TYPE_CHECKING, Any, SupportsIndex, TypeVar, cast, overload

if TYPE_CHECKING:
    from ._typing import _ColorBy, _SurfaceModel, _Topology, _Preset
    from collections.abc import Callable
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure
    from numpy.typing import ArrayLike, NDArray
    from typing_extensions import Self
    from ._typing import BoolArray, Float32Array, Float64Array

    _Gravity = tuple[float, float, float] | tuple[float, ...] | Float64Array

__all__ = ["Surface", "PRESETS", "plot_surface"]

# (elasticity, damping) of the article's surface models.
PRESETS: dict[str, tuple[float, float]] = {
    "water": (1.0, 0.995),  # the article: elasticity = 1, damping ~ 0.995
    "cloth": (0.9, 0.9),  # the article: elasticity ~ 0.9, damping ~ 0.9
    "rubber": (2.0, 0.95),  # the article: elasticity > 1, damping < 1 (stiff: trees, stems)
}

_MODELS = {"offset": 0, "length": 1}
_TOPOLOGIES = {"plane": 0, "cylinder": 1}
_POS, _VEL, _EXT, _REST, _INV_MASS, _PINNED, _PLANES = _core.surface_layout()
_LINE = 16            # floats per 64-byte cache line
_SKEW_LINES = 7       # consecutive planes start 7 lines apart modulo 4 KiB
_NO_GRAVITY = (0.0, 0.0, 0.0)
# The supremum of the largest eigenvalue of the triangulated grid's Laplacian (see module doc).
LAPLACIAN_BOUND: float = 9.0


def padded_plane_stride(n: int) -> int:
    """Floats between consecutive planes of n floats: whole cache lines, and from 4 KiB on, a
    multiple of 64 bytes congruent to 7 cache lines modulo 4 KiB (different L1 sets)."""
    lines = max(1, -(-n // _LINE))
    if n * 4 >= 4096:
        lines += (_SKEW_LINES - lines) % 64
    return lines * _LINE


def aliased_plane_stride(n: int) -> int:
    """A plane stride that is a multiple of 4 KiB, like separate NumPy arrays: every plane's
    element i on the same L1 set (for the layout benchmark only)."""
    return max(1024, -(-n // 1024) * 1024)


_F32_MAX = float(np.finfo(np.float32).max)
_F32_TINY = float(np.finfo(np.float32).tiny)     # the smallest normal float32


def _float32_value(v: float, name: str) -> float:
    """v (a finite float) as the kernels will see it: ValueError naming `name` when it is
    beyond the float32 range or, not being 0, below its smallest normal number (it would round
    to 0 or lose its precision)."""
    if abs(v) > _F32_MAX:
        raise ValueError(f"{name}: {v!r} is beyond the float32 range (|{name}| <= {_F32_MAX:.8g})")
    if v != 0 and abs(v) < _F32_TINY:
        raise ValueError(f"{name}: {v!r} is below the smallest normal float32 ({_F32_TINY:.8g}); "
                         "use 0 or a larger value")
    return v


_Real = TypeVar("_Real", np.float32, np.float64)


def _real_array(x: object, name: str, dtype: type[_Real]) -> NDArray[_Real]:
    a = _core._as_array(x, name)
    if a.dtype.kind not in "biuf":
        raise TypeError(f"{name}: expected real numbers, got dtype {a.dtype}")
    a = a.astype(dtype, copy=False)
    if not np.isfinite(a).all():
        raise ValueError(f"{name}: expected finite values, got non-finite entries")
    return a


def _vector3(x: object, name: str) -> _Gravity:
    if isinstance(x, (tuple, list)) and len(x) == 3 and all(type(v) in (int, float) for v in x):
        return tuple(_finite(v, name) for v in x)
    a = _real_array(x, name, np.float64)
    if a.shape != (3,):
        raise ValueError(f"{name}: expected shape (3,), got {a.shape}")
    return a


class Surface:
    """A spring-grid surface simulator: water, cloth, rubber.

    Parameters
    ----------
    rows, cols : int
        Grid size (``rows, cols >= 1``; a cylinder needs ``cols >= 3``).
    spacing : float, optional
        Distance between neighbouring vertices (> 0).
    elasticity : float, optional
        Spring constant ``E >= 0`` (default: the preset's, else 1).
    damping : float, optional
        Velocity factor ``0 <= d <= 1`` applied after every substep (default: the preset's,
        else 1, no damping).
    mass : float or array_like (rows, cols), optional
        Mass of each vertex (> 0), one for all or one per vertex.
    model : {"offset", "length"}
        Spring model (see the module documentation).
    topology : {"plane", "cylinder"}
        ``"plane"``: a flat grid at ``y = 0`` (y up), x along the columns, z along the rows,
        ``(0, 0, 0)`` at vertex (0, 0). ``"cylinder"``: the columns wrap around the y axis
        (chord ``spacing``), row ``r`` at ``y = r * spacing``: a trunk or stem growing up from
        row 0. Both have normals pointing up / outwards.
    preset : {"water", "cloth", "rubber"}, optional
        Fomitchev's parameters: water (E 1, d 0.995), cloth (E 0.9, d 0.9), rubber (E 2, d 0.95).
        Explicit ``elasticity`` / ``damping`` override the preset.

    Attributes
    ----------
    positions, velocities : ndarray, float32 (3, rows, cols)
        Writeable views of the state (planes x, y, z); assigning into them changes the state.
    pinned : ndarray, bool (rows, cols)
        Writeable view; pinned vertices never move.

    Examples
    --------
    >>> import skelsimd
    >>> cloth = skelsimd.Surface(16, 16, preset="cloth", model="length")
    >>> cloth.pinned[0, [0, -1]] = True                          # hang it by two corners
    >>> _ = cloth.step(0.05, n=10, gravity=(0, -9.81, 0))   # 10 substeps in one C call
    >>> bool(cloth.positions[1].min() < 0)                       # it sags
    True
    """

    def __init__(
        self,
        rows: int,
        cols: int,
        *,
        spacing: float = 1.0,
        elasticity: float | None = None,
        damping: float | None = None,
        mass: float | ArrayLike = 1.0,
        model: _SurfaceModel = "offset",
        topology: _Topology = "plane",
        preset: _Preset | None = None,
    ) -> None:
        rows, cols = self._grid_size(rows, cols, topology)
        spacing = _finite(spacing, "spacing")
        if spacing <= 0:
            raise ValueError(f"spacing: expected a positive number, got {spacing}")
        with np.errstate(over="ignore"):   # refused just below
            xyz = _grid_positions(rows, cols, _float32_value(spacing, "spacing"), topology)
        if not np.isfinite(xyz).all():
            raise ValueError(f"spacing: {spacing!r} puts a {rows} x {cols} grid beyond the float32 "
                             "range")
        self._init_state(xyz, elasticity=elasticity,
                         damping=damping, mass=mass, model=model, topology=topology, preset=preset)

    @classmethod
    def from_positions(
        cls,
        xyz: ArrayLike,
        *,
        elasticity: float | None = None,
        damping: float | None = None,
        mass: float | ArrayLike = 1.0,
        model: _SurfaceModel = "offset",
        topology: _Topology = "plane",
        preset: _Preset | None = None,
        spacing: None = None,
    ) -> Self:
        """A surface whose relaxed state is ``xyz``, array_like ``(3, rows, cols)``.

        The other keywords are those of :class:`Surface`; ``spacing`` is implied by the
        positions (passing one is a ValueError)."""
        if spacing is not None:
            raise ValueError("spacing: not used by from_positions (the positions define the rest "
                             f"state), got {spacing!r}")
        xyz32 = _real_array(xyz, "xyz", np.float32)
        if xyz32.ndim != 3 or xyz32.shape[0] != 3:
            raise ValueError(f"xyz: expected shape (3, rows, cols), got {xyz32.shape}")
        cls._grid_size(xyz32.shape[1], xyz32.shape[2], topology)
        self = cls.__new__(cls)
        self._init_state(xyz32, elasticity=elasticity, damping=damping, mass=mass, model=model,
                         topology=topology, preset=preset)
        return self

    # -- construction ---------------------------------------------------------------------

    @staticmethod
    def _grid_size(rows: SupportsIndex, cols: SupportsIndex, topology: str) -> tuple[int, int]:
        try:
            r, c = operator.index(rows), operator.index(cols)
        except TypeError:
            raise TypeError(f"rows, cols: expected integers, got {type(rows).__name__}, "
                            f"{type(cols).__name__}") from None
        if r < 1 or c < 1:
            raise ValueError(f"rows, cols: expected >= 1, got {r} x {c}")
        if r * c > sys.maxsize // (4 * (_PLANES + 1)):
            raise ValueError(f"rows, cols: a {r} x {c} grid is more than an array can hold")
        if topology == "cylinder" and c < 3:
            raise ValueError(f"cols: a cylinder needs at least 3 columns, got {c}")
        return r, c

    def _init_state(self, xyz: Float32Array, *, elasticity: float | None, damping: float | None,
                    mass: float | ArrayLike, model: _SurfaceModel, topology: _Topology,
                    preset: _Preset | None, plane: int | None = None) -> None:
        if not isinstance(model, str) or model not in _MODELS:
            raise ValueError(f"model: expected 'offset' or 'length', got {model!r}")
        if not isinstance(topology, str) or topology not in _TOPOLOGIES:
            raise ValueError(f"topology: expected 'plane' or 'cylinder', got {topology!r}")
        if preset is not None and (not isinstance(preset, str) or preset not in PRESETS):
            raise ValueError(f"preset: expected one of {', '.join(PRESETS)} or None, got {preset!r}")
        e0, d0 = PRESETS[preset] if preset is not None else (1.0, 1.0)
        E = _finite(e0 if elasticity is None else elasticity, "elasticity")
        if E < 0:
            raise ValueError(f"elasticity: expected >= 0, got {E}")
        _float32_value(E, "elasticity")
        d = _finite(d0 if damping is None else damping, "damping")
        if not 0.0 <= d <= 1.0:
            raise ValueError(f"damping: expected 0 <= damping <= 1, got {d}")
        rows: int = xyz.shape[1]
        cols: int = xyz.shape[2]
        n = rows * cols
        m = _real_array(mass, "mass", np.float64)
        if m.shape not in ((), (rows, cols)):
            raise ValueError(f"mass: expected a number or shape ({rows}, {cols}), got {m.shape}")
        if not (m > 0).all():
            raise ValueError(f"mass: expected positive values, got min {m.min()}")
        # the kernels multiply by 1 / m in float32: it must be a finite, normal float32
        if not ((m >= 1.0 / _F32_MAX) & (m <= 1.0 / _F32_TINY)).all():
            bad = m[~((m >= 1.0 / _F32_MAX) & (m <= 1.0 / _F32_TINY))].flat[0]
            raise ValueError(f"mass: expected {1.0 / _F32_MAX:.3g} <= mass <= {1.0 / _F32_TINY:.3g} "
                             f"(1 / mass a normal float32), got {float(bad)!r}")

        self._rows, self._cols, self._n = rows, cols, n
        self._model, self._topology, self._preset = model, topology, preset
        self._model_id, self._wrap = _MODELS[model], _TOPOLOGIES[topology]
        self._elasticity, self._damping = E, d
        self._plane = plane if plane is not None else padded_plane_stride(n)
        self._buffer = empty_aligned(_PLANES * self._plane, np.float32)
        self._buffer[...] = 0
        self._positions = self._planes(_POS, 3)
        self._velocities = self._planes(_VEL, 3)
        self._ext = self._planes(_EXT, 3)
        self._pinned = np.ndarray((rows, cols), dtype=np.bool_, buffer=self._buffer,
                                  offset=4 * _PINNED * self._plane, strides=(cols, 1))
        self._ext_pending = False
        self._ext_bound: float = 0.0   # an upper bound of |component| of the pending external force
        self._positions[...] = xyz
        inv_mass = self._planes(_INV_MASS, 1)[0]
        self._mass: float | Float32Array
        if m.ndim == 0:
            inv_mass[...] = np.float32(1.0 / float(m))
            self._mass_step = 0
            self._mass = float(m)
        else:
            inv_mass[...] = (1.0 / m).astype(np.float32)
            self._mass_step = 1
            self._mass = m.astype(np.float32)
        self._m_min = float(m.min())
        self._dt_max = self.max_stable_dt
        self.capture_rest()

    def _planes(self, first: int, count: int) -> Float32Array:
        """View (count, rows, cols) of planes first .. first+count-1 of the buffer."""
        return np.ndarray((count, self._rows, self._cols), dtype=np.float32, buffer=self._buffer,
                          offset=4 * first * self._plane,
                          strides=(4 * self._plane, 4 * self._cols, 4))

    def capture_rest(self) -> Self:
        """Make the current positions the relaxed state (rest vectors or lengths, in float32,
        with the kernels' own operations: the current state then has exactly zero force)."""
        with np.errstate(over="ignore", invalid="ignore"):   # overflow is refused below
            return self._capture_rest()

    def _capture_rest(self) -> Self:
        P = self._positions
        rows, cols, wrap = self._rows, self._cols, self._wrap
        vec = {k: np.zeros((3, rows, cols), np.float32) for k in ("E", "S", "SE")}
        exists = {k: np.zeros((rows, cols), bool) for k in ("E", "S", "SE")}
        np.subtract(P[:, :, 1:], P[:, :, :-1], out=vec["E"][:, :, :-1])
        exists["E"][:, :-1] = True
        np.subtract(P[:, 1:, :], P[:, :-1, :], out=vec["S"][:, :-1, :])
        exists["S"][:-1, :] = True
        np.subtract(P[:, 1:, 1:], P[:, :-1, :-1], out=vec["SE"][:, :-1, :-1])
        exists["SE"][:-1, :-1] = True
        if wrap:
            np.subtract(P[:, :, 0], P[:, :, -1], out=vec["E"][:, :, -1])
            exists["E"][:, -1] = True
            np.subtract(P[:, 1:, 0], P[:, :-1, -1], out=vec["SE"][:, :-1, -1])
            exists["SE"][:-1, -1] = True
        fields: list[tuple[Float32Array, BoolArray]]
        if self._model == "length":
            fields = [(np.sqrt((v[0] * v[0] + v[1] * v[1]) + v[2] * v[2]), exists[k])
                      for k, v in vec.items()]
        else:
            fields = [(v[c], exists[k]) for k, v in vec.items() for c in range(3)]
        if not all(np.isfinite(f[e]).all() for f, e in fields):
            raise ValueError("positions: the vectors between neighbouring vertices overflow "
                             "float32 (coordinates too far apart); the rest state is unchanged")
        uniform = all(_uniform_value(f, e) is not None for f, e in fields)
        rest = self._planes(_REST, 9)
        rest[...] = 0
        for p, (f, e) in enumerate(fields):
            if uniform:
                rest[p] = _uniform_value(f, e)
            else:
                rest[p] = np.where(e, f, np.float32(0))
        self._rest_step = 0 if uniform else 1
        return self

    # -- state ----------------------------------------------------------------------------

    @property
    def rows(self) -> int:
        return self._rows

    @property
    def cols(self) -> int:
        return self._cols

    @property
    def shape(self) -> tuple[int, int]:
        """(rows, cols)"""
        return (self._rows, self._cols)

    @property
    def model(self) -> str:
        return self._model

    @property
    def topology(self) -> str:
        return self._topology

    @property
    def preset(self) -> str | None:
        return self._preset

    @property
    def elasticity(self) -> float:
        return self._elasticity

    @property
    def damping(self) -> float:
        return self._damping

    @property
    def mass(self) -> Any:
        """The vertex mass: a float, or a float32 (rows, cols) array when masses differ."""
        return self._mass

    @property
    def spring_count(self) -> int:
        """Springs in the grid: 3rc - 2r - 2c + 1 on a plane, 3rc - 2c on a cylinder."""
        r, c = self._rows, self._cols
        return 3 * r * c - 2 * c if self._wrap else 3 * r * c - 2 * r - 2 * c + 1

    @property
    def positions(self) -> Float32Array:
        """float32 (3, rows, cols) writeable view of the positions (planes x, y, z)."""
        return self._positions

    @positions.setter
    def positions(self, value: ArrayLike) -> None:
        self._assign(self._positions, value, "positions")

    @property
    def velocities(self) -> Float32Array:
        """float32 (3, rows, cols) writeable view of the velocities."""
        return self._velocities

    @velocities.setter
    def velocities(self, value: ArrayLike) -> None:
        self._assign(self._velocities, value, "velocities")

    @staticmethod
    def _assign(view: Float32Array, value: ArrayLike, name: str) -> None:
        v = _real_array(value, name, np.float32)
        try:
            np.broadcast_to(v, view.shape)
        except ValueError:
            raise ValueError(f"{name}: expected shape {view.shape}, got {v.shape}") from None
        view[...] = v

    @property
    def pinned(self) -> BoolArray:
        """bool (rows, cols) writeable view: pinned vertices never move."""
        return self._pinned

    @pinned.setter
    def pinned(self, value: ArrayLike) -> None:
        v = _core._as_array(value, "pinned")
        if v.dtype != np.bool_:
            raise TypeError(f"pinned: expected a bool array, got dtype {v.dtype}")
        try:
            np.broadcast_to(v, self._pinned.shape)
        except ValueError:
            raise ValueError(f"pinned: expected shape {self._pinned.shape}, got {v.shape}") from None
        self._pinned[...] = v

    @property
    def external_force(self) -> Float32Array:
        """Read-only float32 (3, rows, cols) view of the force pending for the next substep."""
        v = self._ext.view()
        v.flags.writeable = False
        return v

    @property
    def plane_stride(self) -> int:
        """Floats between consecutive planes of the state buffer."""
        return self._plane

    @property
    def max_stable_dt(self) -> float:
        """The largest dt ``step`` accepts: ``sqrt(2 (1 + d) m_min / (9 E))`` (inf for E = 0)."""
        if self._elasticity == 0:
            return math.inf
        return math.sqrt(2.0 * (1.0 + self._damping) * self._m_min / (LAPLACIAN_BOUND * self._elasticity))

    # -- simulation -----------------------------------------------------------------------

    def step(self, dt: float, n: int = 1, *, gravity: ArrayLike = _NO_GRAVITY) -> Float32Array:
        """Advance ``n`` substeps of ``dt`` in one C call (the GIL is released).

        Forces from :meth:`add_force` / :meth:`apply_effector` act during the first substep and
        are then cleared. Returns the ``positions`` view.

        Parameters
        ----------
        dt : float
            Time step, ``0 < dt <= max_stable_dt`` (else ValueError naming the largest stable dt).
        n : int, optional
            Number of substeps (>= 0).
        gravity : array_like (3,), optional
            Acceleration of every unpinned vertex, e.g. ``(0, -9.81, 0)``.

        Notes
        -----
        Up to 8 substeps run as a wavefront over the rows (a row advances as soon as its
        neighbours allow), with exactly the results of one substep per call. A large grid is
        divided over :func:`skelsimd.set_num_threads`'s threads by bands of rows, one barrier per
        group of up to 8 substeps, with the same bytes at every thread count.

        Accuracy (every SIMD variant, bit-identical to each other; tested): offset model within
        1e-5 of the float64 reference after 100 steps while coordinates and velocities stay
        within 2.5, ``4e-6 * max(|x|, |v|)`` beyond; the length model the same near rest (where
        a grid folds, its motion amplifies every rounding, float64 included).
        """
        dt = _finite(dt, "dt")
        if dt <= 0:
            raise ValueError(f"dt: expected a positive time step, got {dt}")
        _float32_value(dt, "dt")
        try:
            n = operator.index(n)
        except TypeError:
            raise TypeError(f"n: expected an integer, got {type(n).__name__}") from None
        if n < 0:
            raise ValueError(f"n: expected >= 0 substeps, got {n}")
        if n > sys.maxsize:
            raise ValueError(f"n: expected at most {sys.maxsize} substeps, got {n}")
        g: _Gravity
        if gravity is _NO_GRAVITY:
            g = _NO_GRAVITY
        else:
            g = _vector3(gravity, "gravity")
            for c in g:
                _float32_value(float(c), "gravity")
        # Gravity and the pending external force accelerate a vertex by at most `accel`, which
        # over the call's n * dt seconds moves it by about accel (n dt)^2 / 2: refuse a dt for
        # which that alone leaves the float32 range (the state would fill with inf and NaN).
        accel = max(abs(float(c)) for c in g) + self._ext_bound / self._m_min
        span = max(n, 1) * dt
        if accel * span * span > _F32_MAX / 4:
            raise ValueError(f"dt: {dt!r} over {n} substeps lets gravity and the pending external "
                             f"force (up to {accel:.3g} per unit mass) move a vertex by about "
                             f"{accel * span * span / 2:.3g}, beyond the float32 range")
        dt_max = self._dt_max
        if dt > dt_max:
            raise ValueError(
                f"dt: {dt!r} is unstable for this surface; the largest stable dt is {dt_max:.9g} "
                f"(E dt^2 / m must stay <= 2 (1 + damping) / 9 with E = {self._elasticity}, "
                f"damping = {self._damping}, smallest mass {self._m_min})")
        _core.surface_step(self._buffer, self._rows, self._cols, self._plane, self._wrap,
                           self._model_id, self._rest_step, self._mass_step, self._elasticity,
                           self._damping, dt, n, float(g[0]), float(g[1]), float(g[2]),
                           int(self._ext_pending))
        if n > 0:
            self._ext_pending = False
            self._ext_bound = 0.0
        return self._positions

    def add_force(self, f: ArrayLike) -> Float32Array:
        """Add an external force for the next substep: ``f`` of shape (3,) acts on every vertex,
        or array_like broadcastable to (3, rows, cols) per vertex (all values finite). Returns
        the pending external force (read-only view)."""
        shape = np.shape(f)
        if shape not in ((3,), self._ext.shape):
            fa = _real_array(f, "f", np.float32)
            try:
                f = np.ascontiguousarray(np.broadcast_to(fa, self._ext.shape))
            except ValueError:
                raise ValueError(f"f: expected shape (3,) or broadcastable to {self._ext.shape}, "
                                 f"got {fa.shape}") from None
        _core.surface_add_force(self._buffer, self._rows, self._cols, self._plane, self._wrap, f)
        self._ext_pending = True
        self._ext_bound += float(np.abs(np.asarray(f, np.float32)).max(initial=0.0))
        return self.external_force

    def apply_effector(
        self, center: ArrayLike, radius: float | ArrayLike, strength: float | ArrayLike
    ) -> Float64Array:
        """Fomitchev's particle effectors: every vertex S with ``0 < |C - S| < radius`` receives
        ``F = strength * (C - S) / |C - S|`` (constant magnitude; positive strength pulls the
        vertex towards C, negative pushes it away, like a colliding object) in the external force
        of the next substep.

        Parameters
        ----------
        center : array_like (3,) or (K, 3)
            One effector or K of them (e.g. wind as a stream of particles), applied in order.
        radius, strength : float or array_like (K,)
            Influence radius (> 0) and strength of each effector (broadcast to K).

        Returns
        -------
        ndarray, float32 (3,) or (K, 3)
            The reaction force on each effector, ``-sum F`` over the vertices it reached (the
            article's F_TotalEffector), summed in float64.
        """
        c = _real_array(center, "center", np.float64)
        single = c.ndim == 1
        if c.shape[-1:] != (3,) or c.ndim not in (1, 2):
            raise ValueError(f"center: expected shape (3,) or (K, 3), got {c.shape}")
        c = c.reshape(-1, 3)
        k = c.shape[0]
        r = _real_array(radius, "radius", np.float64)
        s = _real_array(strength, "strength", np.float64)
        try:
            r = np.broadcast_to(r, (k,))
            s = np.broadcast_to(s, (k,))
        except ValueError:
            raise ValueError(f"radius, strength: expected a number or shape ({k},), got "
                             f"{np.shape(radius)} and {np.shape(strength)}") from None
        if not (r > 0).all():
            raise ValueError(f"radius: expected positive values, got min {r.min()}")
        for name, v in (("center", c), ("radius", r), ("strength", s)):
            if v.size and np.abs(v).max() > _F32_MAX:
                raise ValueError(f"{name}: {float(np.abs(v).max())!r} is beyond the float32 range "
                                 f"(|{name}| <= {_F32_MAX:.8g})")
        reaction: Float64Array = _core.surface_effectors(self._buffer, self._rows, self._cols, self._plane,
                                           self._wrap, c.astype(np.float32), r.astype(np.float32),
                                           s.astype(np.float32))
        if k:
            self._ext_pending = True
            self._ext_bound += float(np.abs(s).sum())
        return reaction[0] if single else reaction

    def clear_forces(self) -> Self:
        """Drop the pending external force."""
        self._ext[...] = 0
        self._ext_pending = False
        self._ext_bound = 0.0
        return self

    def normals(self, out: Float32Array | None = None) -> Float32Array:
        """Unit area-weighted vertex normals, float32 (3, rows, cols).

        The normal of a vertex is the normalised sum of the cross products (twice the area
        times the unit normal) of the up to six triangles around it; quad (r, c) is split along
        its south-east diagonal into (P, E, SE) and (P, SE, S). A flat grid built by
        ``Surface(rows, cols)`` has normals (0, 1, 0); a vertex whose triangles all have zero
        area gets (0, 0, 0). Error: <= 1e-6 per component against float64 for well-shaped
        triangles (it grows like 1/sin of the smallest triangle angle).

        ``out``: float32 C-contiguous (3, rows, cols) array to write into (it must not overlap
        the surface's state). Returns ``out`` or a new array.
        """
        return _core.surface_normals(self._buffer, self._rows, self._cols, self._plane,
                                     self._wrap, out)

    def _repr_html_(self) -> str:
        from .plotting import surface_html
        return surface_html(self)

    @overload
    def plot(self, ax: None = None, *, color_by: _ColorBy = "y", **kwargs: Any) -> Figure: ...
    @overload
    def plot(self, ax: Axes, *, color_by: _ColorBy = "y", **kwargs: Any) -> Axes: ...
    def plot(self, ax: Axes | None = None, *, color_by: _ColorBy = "y",
             **kwargs: Any) -> Figure | Axes:
        """Draw the surface with matplotlib (imported only now). See :func:`plot_surface`."""
        return plot_surface(self, ax=ax, color_by=color_by, **kwargs)

    def __repr__(self) -> str:
        return (f"Surface({self._rows}, {self._cols}, model={self._model!r}, "
                f"topology={self._topology!r}, elasticity={self._elasticity}, "
                f"damping={self._damping})")


def _uniform_value(field: Float32Array, exists: BoolArray) -> np.float32 | None:
    """The common value of field where exists (a float32), or None when the values differ."""
    vals = field[exists]
    if vals.size == 0:
        return np.float32(0)
    first: np.float32 = vals.flat[0]
    if np.array_equal(vals, np.full_like(vals, first)) and not np.isnan(first):
        return first
    return None


@overload
def plot_surface(surface: Surface | ArrayLike, ax: None = None, *, color_by: _ColorBy = "y",
                 cmap: str = "viridis", **kwargs: Any) -> Figure: ...
@overload
def plot_surface(surface: Surface | ArrayLike, ax: Axes, *, color_by: _ColorBy = "y",
                 cmap: str = "viridis", **kwargs: Any) -> Axes: ...
def plot_surface(
    surface: Surface | ArrayLike,
    ax: Axes | None = None,
    *,
    color_by: _ColorBy = "y",
    cmap: str = "viridis",
    **kwargs: Any,
) -> Figure | Axes:
    """Draw a :class:`Surface` (or positions (3, rows, cols)) as a 3-D shaded mesh: see
    :func:`skelsimd.plotting.plot_surface` (imported when called: it needs matplotlib)."""
    from .plotting import plot_surface as draw_untyped
    # typed by its documented result whether or not plotting annotates its signature
    draw = cast("Callable[..., Figure | Axes]", draw_untyped)
    return draw(surface, ax, color_by=color_by, cmap=cmap, **kwargs)
