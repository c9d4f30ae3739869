"""Float64 NumPy references of the spring-grid surface, written for clarity, plus the
fastest NumPy float32 step the benchmarks race against.

The reference works on an explicit list of springs (pairs of flat vertex indices) and scatters
each spring's force to both ends with ``np.add.at``: a different formulation from the kernels'
row-by-row walk, so the tests compare two independent constructions.

Arrays are ``(3, rows, cols)`` (x, y, z planes) like ``Surface.positions``.
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, cast

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .._typing import Float32Array, Float64Array, _SurfaceModel

if TYPE_CHECKING:
    from ..surface import Surface

_Pairs = tuple[NDArray[np.intp], NDArray[np.intp]]
_Slice = tuple[slice, slice, slice]

__all__ = ["springs", "rest_state", "internal_forces", "elastic_energy", "step", "shadow_energy",
           "damped_shadow_energy", "normals", "effectors", "laplacian", "static_equilibrium",
           "ReferenceSurface", "NumpyStep"]


def springs(rows: int, cols: int, wrap: bool = False) -> _Pairs:
    """(owner, other) flat vertex indices of every spring: east, south, south-east, with the
    last column wrapping to column 0 when ``wrap`` (cylinder)."""
    idx = np.arange(rows * cols).reshape(rows, cols)
    east_of = np.roll(idx, -1, axis=1)          # (r, c + 1 mod cols)
    ncols = cols if wrap else cols - 1          # columns that own an east / south-east spring
    owner = np.concatenate([idx[:, :ncols].ravel(), idx[:-1, :].ravel(), idx[:-1, :ncols].ravel()])
    other = np.concatenate([east_of[:, :ncols].ravel(), idx[1:, :].ravel(),
                            east_of[1:, :ncols].ravel()])
    return owner.astype(np.intp), other.astype(np.intp)


def _flat(x: ArrayLike) -> Float64Array:
    x = np.asarray(x, np.float64)
    return x.reshape(3, -1)


def rest_state(xyz: ArrayLike, spring_pairs: _Pairs, model: _SurfaceModel = "offset") -> Float64Array:
    """Rest vectors (3, S) or rest lengths (S,) of the springs, from relaxed positions."""
    P = _flat(xyz)
    d = P[:, spring_pairs[1]] - P[:, spring_pairs[0]]
    if model == "length":
        lengths: Float64Array = np.sqrt((d * d).sum(axis=0))
        return lengths
    return d


def _spring_forces(P: Float64Array, spring_pairs: _Pairs, rest: Float64Array, model: _SurfaceModel,
                   E: float) -> Float64Array:
    d = P[:, spring_pairs[1]] - P[:, spring_pairs[0]]
    if model == "length":
        length = np.sqrt((d * d).sum(axis=0))
        c: Float64Array = np.zeros_like(length)
        ok = length > 0
        c[ok] = E * (length[ok] - rest[ok]) / length[ok]
        return c * d
    return E * (d - rest)


def internal_forces(xyz: ArrayLike, spring_pairs: _Pairs, rest: Float64Array,
                    model: _SurfaceModel = "offset", E: float = 1.0) -> Float64Array:
    """Total spring force on every vertex, (3, rows, cols): +f on the owner, -f on the other."""
    P = _flat(xyz)
    f = _spring_forces(P, spring_pairs, rest, model, E)
    F = np.zeros_like(P)
    for c in range(3):
        np.add.at(F[c], spring_pairs[0], f[c])
        np.add.at(F[c], spring_pairs[1], -f[c])
    return F.reshape(np.shape(xyz))


def elastic_energy(xyz: ArrayLike, spring_pairs: _Pairs, rest: Float64Array,
                   model: _SurfaceModel = "offset", E: float = 1.0) -> float:
    """E(S): 1/2 E sum |d - rest|^2 (offset) or 1/2 E sum (|d| - L0)^2 (length)."""
    P = _flat(xyz)
    d = P[:, spring_pairs[1]] - P[:, spring_pairs[0]]
    if model == "length":
        return 0.5 * E * float(((np.sqrt((d * d).sum(axis=0)) - rest) ** 2).sum())
    return 0.5 * E * float(((d - rest) ** 2).sum())


def step(pos: ArrayLike, vel: ArrayLike, pinned: ArrayLike, *, spring_pairs: _Pairs,
         rest: Float64Array, model: _SurfaceModel = "offset", E: float = 1.0,
         damping: float = 1.0, dt: float = 0.1, mass: ArrayLike = 1.0,
         gravity: ArrayLike = (0.0, 0.0, 0.0), ext: ArrayLike | None = None,
         n: int = 1) -> tuple[Float64Array, Float64Array]:
    """n substeps of symplectic Euler with damping in float64; returns new (pos, vel).

    a = (F + ext) / m + g (ext in the first substep only); v' = v + a dt; s' = s + v' dt;
    v = d v'; pinned vertices keep s and v."""
    S = np.array(pos, np.float64)
    V = np.array(vel, np.float64)
    free = ~np.asarray(pinned, bool)
    m = np.broadcast_to(np.asarray(mass, np.float64), free.shape)
    g = np.asarray(gravity, np.float64).reshape(3, 1, 1)
    for it in range(n):
        F = internal_forces(S, spring_pairs, rest, model, E)
        if ext is not None and it == 0:
            F = F + np.asarray(ext, np.float64)
        a = F / m + g
        v1 = V + a * dt
        p1 = S + v1 * dt
        S = np.where(free, p1, S)
        V = np.where(free, damping * v1, V)
    return S, V


def damped_shadow_energy(pos: ArrayLike, vel: ArrayLike, pinned: ArrayLike, *, spring_pairs: _Pairs,
                         rest: Float64Array, dt: float, damping: float = 1.0,
                         model: _SurfaceModel = "offset", E: float = 1.0, mass: ArrayLike = 1.0,
                         gravity: ArrayLike = (0.0, 0.0, 0.0)) -> float:
    """H_d = 1/2 sum m |v|^2 + (1 + d)/2 U(S) + dt/2 sum v . F(S) over the free vertices,
    U = E(S) - sum m g . S, F the total force. Never increases under a damped step inside the
    stability bound; equals the shadow energy H for d = 1."""
    free = ~np.asarray(pinned, bool)
    m = np.broadcast_to(np.asarray(mass, np.float64), free.shape)
    P = np.asarray(pos, np.float64)
    V = np.where(free, np.asarray(vel, np.float64), 0.0)
    g = np.asarray(gravity, np.float64).reshape(3, 1, 1)
    F = internal_forces(P, spring_pairs, rest, model, E) + m * g
    U = elastic_energy(P, spring_pairs, rest, model, E) - float((m * (g * P).sum(axis=0))[free].sum())
    kinetic = 0.5 * float((m * (V * V).sum(axis=0)).sum())
    return kinetic + 0.5 * (1.0 + damping) * U + 0.5 * dt * float((V * F).sum())


def shadow_energy(pos: ArrayLike, vel: ArrayLike, pinned: ArrayLike, *, spring_pairs: _Pairs,
                  rest: Float64Array, dt: float, **kw: Any) -> float:
    """H = 1/2 sum m |v|^2 + E(S) + dt/2 sum v . F(S): conserved by the undamped symplectic
    Euler step of the (linear) offset model."""
    kw.pop("damping", None)
    return damped_shadow_energy(pos, vel, pinned, spring_pairs=spring_pairs, rest=rest, dt=dt,
                                damping=1.0, **kw)


def laplacian(rows: int, cols: int, wrap: bool = False,
              pinned: ArrayLike | None = None) -> Float64Array:
    """The grid's graph Laplacian (n x n, dense) restricted to the free vertices."""
    a, b = springs(rows, cols, wrap)
    n = rows * cols
    L = np.zeros((n, n))
    np.add.at(L, (a, a), 1.0)
    np.add.at(L, (b, b), 1.0)
    np.add.at(L, (a, b), -1.0)
    np.add.at(L, (b, a), -1.0)
    if pinned is not None:
        free = ~np.asarray(pinned, bool).ravel()
        L = L[np.ix_(free, free)]
    return L


def static_equilibrium(xyz: ArrayLike, pinned: ArrayLike, *, E: float, mass: ArrayLike,
                       gravity: Sequence[float], wrap: bool = False) -> Float64Array:
    """Offset model at rest under gravity: solve E L u = m g for the free vertices' displacement
    u from the relaxed positions xyz (pinned vertices fixed). Returns positions (3, rows, cols)."""
    P = np.array(xyz, np.float64)
    _, rows, cols = P.shape
    pin = np.asarray(pinned, bool)
    free = ~pin.ravel()
    L = laplacian(rows, cols, wrap, pin)
    m = np.broadcast_to(np.asarray(mass, np.float64), pin.shape).ravel()[free]
    out = P.reshape(3, -1).copy()
    for c in range(3):
        u = np.linalg.solve(E * L, m * gravity[c])
        out[c, free] += u
    return out.reshape(P.shape)


def normals(xyz: ArrayLike, wrap: bool = False) -> Float64Array:
    """Unit area-weighted vertex normals (3, rows, cols); triangles (P, E, SE) and (P, SE, S) of
    every quad; zero where all adjacent triangles have zero area."""
    P = np.asarray(xyz, np.float64)
    _, rows, cols = P.shape
    if wrap:
        Q = np.concatenate([P, P[:, :, :1]], axis=2)
    else:
        Q = P
    N = np.zeros((3, rows, Q.shape[2]))
    c, e, s, se = Q[:, :-1, :-1], Q[:, :-1, 1:], Q[:, 1:, :-1], Q[:, 1:, 1:]
    upper = np.cross(se - c, e - c, axis=0)
    lower = np.cross(s - c, se - c, axis=0)
    for tri, corners in ((upper, [(0, 0), (0, 1), (1, 1)]), (lower, [(0, 0), (1, 1), (1, 0)])):
        for dr, dc in corners:
            N[:, dr:rows - 1 + dr, dc:Q.shape[2] - 1 + dc] += tri
    if wrap:
        N[:, :, 0] += N[:, :, -1]
        N = N[:, :, :-1]
    length = np.sqrt((N * N).sum(axis=0))
    return np.where(length > 0, N / np.where(length > 0, length, 1.0), 0.0)


def effectors(xyz: ArrayLike, centers: ArrayLike, radius: ArrayLike,
              strength: ArrayLike) -> tuple[Float64Array, Float64Array]:
    """(force (3, rows, cols), reaction (K, 3)) of particle effectors applied in order:
    F = strength (C - S) / |C - S| where 0 < |C - S| < radius."""
    P = _flat(xyz)
    C = np.atleast_2d(np.asarray(centers, np.float64))
    R = np.broadcast_to(np.asarray(radius, np.float64), C.shape[:1])
    K = np.broadcast_to(np.asarray(strength, np.float64), C.shape[:1])
    force = np.zeros_like(P)
    reaction = np.zeros_like(C)
    for k, c in enumerate(C):
        d = c[:, None] - P
        dist = np.sqrt((d * d).sum(axis=0))
        inside = (dist < R[k]) & (dist > 0)
        f = np.where(inside, K[k] * d / np.where(inside, dist, 1.0), 0.0)
        force += f
        reaction[k] = -f.sum(axis=1)
    return force.reshape(np.shape(xyz)), reaction


class ReferenceSurface:
    """A float64 mirror of a skelsimd.Surface: same parameters, rest state captured in float64
    from the same relaxed float32 positions, its own state arrays."""

    def __init__(self, rest_positions: ArrayLike, *, model: _SurfaceModel = "offset",
                 topology: str = "plane", E: float = 1.0, damping: float = 1.0,
                 mass: ArrayLike = 1.0) -> None:
        P = np.asarray(rest_positions, np.float64)
        _, self.rows, self.cols = P.shape
        self.wrap = topology == "cylinder"
        self.model, self.E, self.damping, self.mass = model, E, damping, mass
        self.pairs = springs(self.rows, self.cols, self.wrap)
        self.rest = rest_state(P, self.pairs, model)
        self.pos = P.copy()
        self.vel = np.zeros_like(P)
        self.pinned = np.zeros((self.rows, self.cols), bool)

    @classmethod
    def like(cls, surface: Surface, rest_positions: ArrayLike) -> ReferenceSurface:
        r = cls(rest_positions, model=cast(_SurfaceModel, surface.model), topology=surface.topology,
                E=surface.elasticity, damping=surface.damping, mass=surface.mass)
        r.pos = np.array(surface.positions, np.float64)
        r.vel = np.array(surface.velocities, np.float64)
        r.pinned = np.array(surface.pinned)
        return r

    def step(self, dt: float, n: int = 1, gravity: ArrayLike = (0.0, 0.0, 0.0),
             ext: ArrayLike | None = None) -> Float64Array:
        self.pos, self.vel = step(self.pos, self.vel, self.pinned, spring_pairs=self.pairs,
                                  rest=self.rest, model=self.model, E=self.E,
                                  damping=self.damping, dt=dt, mass=self.mass, gravity=gravity,
                                  ext=ext, n=n)
        return self.pos

    def forces(self, pos: ArrayLike | None = None) -> Float64Array:
        return internal_forces(self.pos if pos is None else pos, self.pairs, self.rest,
                               self.model, self.E)

    def energy(self, pos: ArrayLike | None = None) -> float:
        return elastic_energy(self.pos if pos is None else pos, self.pairs, self.rest,
                              self.model, self.E)

    def shadow(self, pos: ArrayLike, vel: ArrayLike, pinned: ArrayLike, dt: float,
               damping: float = 1.0, gravity: ArrayLike = (0.0, 0.0, 0.0)) -> float:
        return damped_shadow_energy(pos, vel, pinned, spring_pairs=self.pairs, rest=self.rest,
                                    dt=dt, damping=damping, model=self.model, E=self.E,
                                    mass=self.mass, gravity=gravity)


class NumpyStep:
    """The fastest NumPy formulation of the surface step we found, in float32: preallocated
    planes, spring forces by slicing (no index arrays, no np.add.at), every operation in place.
    The benchmarks race it (same job: plane topology, pins, external force, gravity, damping).
    model "offset" or "length"."""

    def __init__(self, xyz: ArrayLike, *, E: float, damping: float, mass: float = 1.0,
                 model: _SurfaceModel = "offset") -> None:
        P = np.ascontiguousarray(xyz, np.float32)
        self.model = model
        self.P = P.copy()
        self.V = np.zeros_like(P)
        self.F = np.zeros_like(P)
        self.ext = np.zeros_like(P)
        self.free = np.ones(P.shape[1:], np.float32)
        self.E, self.d = np.float32(E), np.float32(damping)
        self.inv_m = np.float32(1.0 / mass)
        self.pairs: list[tuple[_Slice, _Slice, Float32Array, Float32Array, Float32Array]] = []
        for a, b in ((np.s_[:, :, :-1], np.s_[:, :, 1:]), (np.s_[:, :-1, :], np.s_[:, 1:, :]),
                     (np.s_[:, :-1, :-1], np.s_[:, 1:, 1:])):
            d = P[b] - P[a]
            rest = np.sqrt((d[0] * d[0] + d[1] * d[1]) + d[2] * d[2]) if model == "length" else d
            self.pairs.append((a, b, rest, np.empty_like(d), np.empty_like(d[0])))
        self.tmp = np.empty_like(P)

    def _spring(self, a: _Slice, b: _Slice, rest: Float32Array, t: Float32Array,
                c: Float32Array) -> None:
        """t = force of the spring a -> b on a (F[a] += t, F[b] -= t)."""
        np.subtract(self.P[b], self.P[a], out=t)
        if self.model == "length":
            np.multiply(t[0], t[0], out=c)
            c += t[1] * t[1]
            c += t[2] * t[2]
            np.sqrt(c, out=c)
            np.divide(rest, c, out=c)        # L0 / |d|
            np.subtract(1, c, out=c)         # (|d| - L0) / |d|
            c *= self.E
            t *= c
        else:
            t -= rest
            t *= self.E
        self.F[a] += t
        self.F[b] -= t

    def step(self, dt: float, n: int = 1, gravity: ArrayLike = (0.0, 0.0, 0.0)) -> Float32Array:
        P, V, F, tmp = self.P, self.V, self.F, self.tmp
        dt32 = np.float32(dt)
        g = np.asarray(gravity, np.float32).reshape(3, 1, 1)
        for _ in range(n):
            F[...] = self.ext
            self.ext[...] = 0
            for a, b, rest, t, c in self.pairs:
                self._spring(a, b, rest, t, c)
            F *= self.inv_m
            F += g
            F *= self.free          # pinned: no acceleration (and no motion: V stays 0 there)
            F *= dt32
            V += F
            np.multiply(V, dt, out=tmp)
            P += tmp
            V *= self.d
        return P
