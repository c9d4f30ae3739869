"""How the polynomial coefficients of src/kernels/vec_math.h were found, and their measured
float32 error.

Each function is a minimax polynomial (Remez exchange in 50-digit mpmath arithmetic) for the
relative error of the whole approximation on its reduced range:

    sin(r) ~ r + r^3 S(r^2)            |r| <= pi/4 (+ margin)
    cos(r) ~ (r^4 C(r^2) - r^2 / 2) + 1  |r| <= pi/4 (+ margin)
    atan(t) ~ t + t^3 A(t^2)           |t| <= tan(pi/8) (+ margin)

The coefficients are then rounded to float32, and the kernels' exact float32 evaluation order
(Horner, no FMA) is simulated with NumPy float32 arithmetic over every float32 of a dense sample
of the range, against float64 libm, printing the max error in float32 ulps of the result.

    python benchmarks/fit_vec_math.py [--degree-sin 4] [--degree-cos 4] [--degree-atan 5]
"""
import argparse

import mpmath as mp
import numpy as np

mp.mp.dps = 50
PI = mp.pi
F32 = np.float32


def remez(g, w, lo, hi, n, iters=30, grid=4000):
    """Coefficients c[0..n-1] of P(u) = sum c_i u^i minimising max |w(u) (P(u) - g(u))| on
    [lo, hi] (linear Remez exchange)."""
    # Chebyshev nodes as the first reference
    m = n + 1   # reference points: n coefficients and the levelled error
    xs = [lo + (hi - lo) * (1 - mp.cos(PI * i / (m - 1))) / 2 for i in range(m)]
    dense = [lo + (hi - lo) * (1 - mp.cos(PI * i / grid)) / 2 for i in range(grid + 1)]
    c = None
    for _ in range(iters):
        a = mp.matrix(m, m)
        b = mp.matrix(m, 1)
        for i, x in enumerate(xs):
            for j in range(n):
                a[i, j] = x ** j
            a[i, n] = (-1) ** i / w(x)
            b[i] = g(x)
        sol = mp.lu_solve(a, b)
        c = [sol[j] for j in range(n)]

        def err(x):
            return w(x) * (sum(cj * x ** j for j, cj in enumerate(c)) - g(x))

        e = [err(x) for x in dense]
        # one extremum per sign-alternating run
        ext = []
        start = 0
        for i in range(1, len(dense) + 1):
            if i == len(dense) or (e[i] >= 0) != (e[start] >= 0):
                k = max(range(start, i), key=lambda t: abs(e[t]))
                ext.append(k)
                start = i
        while len(ext) > m:   # drop the smallest ends
            if abs(e[ext[0]]) < abs(e[ext[-1]]):
                ext.pop(0)
            else:
                ext.pop()
        if len(ext) < m:
            break
        xs = [dense[k] for k in ext]
    return c, max(abs(x) for x in e)


def fit_sin(n, margin):
    r = PI / 4 * margin
    g = lambda u: (mp.sin(mp.sqrt(u)) - mp.sqrt(u)) / (u * mp.sqrt(u)) if u > 0 else mp.mpf(-1) / 6  # noqa: E731
    w = lambda u: (u * mp.sqrt(u)) / mp.sin(mp.sqrt(u)) if u > 0 else mp.mpf(0) + mp.mpf(1e-30)  # noqa: E731
    return remez(g, w, mp.mpf(1e-8), r * r, n)


def fit_cos(n, margin):
    r = PI / 4 * margin
    g = lambda u: (mp.cos(mp.sqrt(u)) - 1 + u / 2) / (u * u) if u > 0 else mp.mpf(1) / 24  # noqa: E731
    w = lambda u: u * u / mp.cos(mp.sqrt(u)) + mp.mpf(1e-30)  # noqa: E731
    return remez(g, w, mp.mpf(1e-8), r * r, n)


def fit_atan(n, margin):
    t = mp.tan(PI / 8) * margin
    g = lambda u: (mp.atan(mp.sqrt(u)) - mp.sqrt(u)) / (u * mp.sqrt(u)) if u > 0 else mp.mpf(-1) / 3  # noqa: E731
    w = lambda u: (u * mp.sqrt(u)) / mp.atan(mp.sqrt(u)) if u > 0 else mp.mpf(1e-30)  # noqa: E731
    return remez(g, w, mp.mpf(1e-8), t * t, n)


def horner32(c, z):
    """((c[n-1] z + c[n-2]) z + ...) + c[0] in float32, as the kernels evaluate it."""
    p = np.full_like(z, F32(c[-1]))
    for cj in reversed(c[:-1]):
        p = p * z + F32(cj)
    return p


def sin32(c, r):
    z = r * r
    return (r * z) * horner32(c, z) + r


def cos32(c, r):
    z = r * r
    return ((z * z) * horner32(c, z) - F32(0.5) * z) + F32(1)


def atan32(c, t):
    z = t * t
    return (t * z) * horner32(c, z) + t


def ulps(got, want):
    """|got - want| in units of the float32 spacing at |want|."""
    want32 = np.abs(want).astype(F32)
    spacing = np.spacing(want32).astype(np.float64)
    return np.abs(got.astype(np.float64) - want) / spacing


def sample(hi, n, rng):
    """Float32 samples of [-hi, hi]: uniform, log-uniform towards 0, and the ends."""
    u = rng.uniform(-hi, hi, n)
    lg = np.sign(rng.uniform(-1, 1, n)) * 10.0 ** rng.uniform(-12, np.log10(hi), n)
    ends = np.linspace(hi * 0.999, hi, 1000)
    return np.concatenate([u, lg, ends, -ends]).astype(F32)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--degree-sin", type=int, default=4)
    ap.add_argument("--degree-cos", type=int, default=4)
    ap.add_argument("--degree-atan", type=int, default=5)
    ap.add_argument("--margin", type=float, default=1.01, help="range beyond pi/4, tan(pi/8)")
    ap.add_argument("--samples", type=int, default=4_000_000)
    a = ap.parse_args()
    rng = np.random.default_rng(0)
    for name, fit, ev, ref, hi, deg in [
        ("sin", fit_sin, sin32, np.sin, float(PI / 4) * a.margin, a.degree_sin),
        ("cos", fit_cos, cos32, np.cos, float(PI / 4) * a.margin, a.degree_cos),
        ("atan", fit_atan, atan32, np.arctan, float(mp.tan(PI / 8)) * a.margin, a.degree_atan),
    ]:
        c, e = fit(deg, a.margin)
        c32 = [F32(float(x)) for x in c]
        x = sample(hi, a.samples, rng)
        err = ulps(ev(c32, x), ref(x.astype(np.float64)))
        print(f"{name}: {deg} coefficients, minimax relative error {float(e):.3g}; float32 "
              f"evaluation max {err.max():.3f} ulp, mean {err.mean():.3f} ulp")
        for i, v in enumerate(c32):
            print(f"    c{i} = {float(v):.9e}f  ({float(c[i]):.17e})")


if __name__ == "__main__":
    main()
