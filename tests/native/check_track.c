/*
 * check_track.c -- the track family (src/kernels/track.c) of a target against the scalar target,
 * bit for bit: sample (step, linear, cubic; 1 to 4 components; clamped and looping; with and
 * without normalisation), segments, edges and motion_blend (step and linear, with and without the seam) on every
 * key count 1..40 and sample count 0..40 (every tail of every vector width) and larger ones,
 * keys on uneven spacings, sample times inside, at and outside the keys, NaN and inf, in order
 * and shuffled.
 */
#include "check.h"
#include "cpu.h"
#include "track.h"

static void random_keys(float *kt, float *v, size_t nkeys, size_t ncomp, check_rng *r)
{
    size_t i;
    float t = rng_uniform(r, -5.0f, 5.0f);
    for (i = 0; i < nkeys; i++) {
        kt[i] = t;
        t += (float)(1 + rng_below(r, 64)) / 32.0f;
    }
    fill_uniform(v, nkeys * ncomp, -1.0f, 1.0f, r);
    if (rng_below(r, 3) == 0)   /* plateaus and exact threshold hits */
        for (i = 0; i < nkeys * ncomp; i++) v[i] = (float)(int)(v[i] * 2.0f) / 2.0f;
}

static void random_times(float *t, size_t n, const float *kt, size_t nkeys, check_rng *r)
{
    static const float odd[] = {NAN, INFINITY, -INFINITY, 1e30f, -1e30f, 0.0f, -0.0f};
    const float lo = kt[0], hi = kt[nkeys - 1], span = hi - lo + 1.0f;
    const int sorted = rng_below(r, 2) == 0;
    size_t i;
    for (i = 0; i < n; i++) {
        t[i] = sorted ? lo - span + 4.0f * span * (float)i / (float)(n ? n : 1)
                      : rng_uniform(r, lo - 3.0f * span, hi + 3.0f * span);
        switch (rng_below(r, 10)) {
        case 0: t[i] = kt[rng_below(r, nkeys)]; break;
        case 1: t[i] = odd[rng_below(r, sizeof odd / sizeof odd[0])]; break;
        default: break;
        }
    }
}

static int check_one(const sks_track_kernels *k, const sks_track_kernels *ref, const char *name,
                     check_rng *r, size_t nkeys, size_t n)
{
    float *kt = check_alloc(nkeys * sizeof(float)), *v = check_alloc(4 * nkeys * sizeof(float));
    float *m = check_alloc(4 * nkeys * sizeof(float)), *t = check_alloc(n * sizeof(float) + 4);
    float *got = check_alloc(8 * n * sizeof(float) + 4), *want = check_alloc(8 * n * sizeof(float) + 4);
    float *ga = check_alloc((n + nkeys) * sizeof(float) + 4), *wa = check_alloc((n + nkeys) * sizeof(float) + 4);
    int8_t *gd = check_alloc(nkeys + 1), *wd = check_alloc(nkeys + 1);
    char what[128];
    int failures = 0, interp, loop, norm, step, wrap;
    size_t ncomp, gc, wc;
    for (ncomp = 1; ncomp <= 4; ncomp++) {
        random_keys(kt, v, nkeys, ncomp, r);
        fill_uniform(m, nkeys * ncomp, -3.0f, 3.0f, r);
        random_times(t, n, kt, nkeys, r);
        for (interp = 0; interp < 3; interp++)
            for (loop = 0; loop < 2; loop++)
                for (norm = 0; norm < (ncomp == 4 ? 2 : 1); norm++) {
                    snprintf(what, sizeof what, "track sample K=%zu C=%zu n=%zu interp %d loop %d norm %d",
                             nkeys, ncomp, n, interp, loop, norm);
                    k->sample(got, kt, v, m, nkeys, ncomp, t, n, interp, loop, norm);
                    ref->sample(want, kt, v, m, nkeys, ncomp, t, n, interp, loop, norm);
                    failures += check_same(what, name, got, want, ncomp * n);
                }
    }
    for (loop = 0; loop < 2; loop++) {
        snprintf(what, sizeof what, "track segments K=%zu n=%zu loop %d", nkeys, n, loop);
        k->segments(got, got + 4 * n, ga, kt, v, nkeys, 4, t, n, loop);
        ref->segments(want, want + 4 * n, wa, kt, v, nkeys, 4, t, n, loop);
        failures += check_same(what, name, ga, wa, n);
        failures += check_same(what, name, got, want, 8 * n);
    }
    random_keys(kt, v, nkeys, 1, r);
    for (step = 0; step < 2; step++)
        for (wrap = 0; wrap < 2; wrap++) {
            const float thr = rng_below(r, 2) ? 0.0f : rng_uniform(r, -1.0f, 1.0f);
            snprintf(what, sizeof what, "track edges K=%zu step %d wrap %d", nkeys, step, wrap);
            gc = k->edges(ga, gd, kt, v, nkeys, thr, step, wrap);
            wc = ref->edges(wa, wd, kt, v, nkeys, thr, step, wrap);
            if (gc != wc || (gc && memcmp(gd, wd, gc) != 0)) {
                printf("MISMATCH %s [%s]: %zu edges != scalar %zu (or directions differ)\n", what,
                       name, gc, wc);
                failures++;
            } else {
                failures += check_same(what, name, ga, wa, gc);
            }
        }
    {   /* motion blending: n outputs of (nkeys % 7) layers, shared or per-output weights */
        const size_t nl = nkeys % 7, shared = (size_t)rng_below(r, 2);
        float *x = check_alloc((8 * nl * n + 1) * sizeof(float)), *w = check_alloc((nl * n + 1) * sizeof(float));
        float *o1 = check_alloc((8 * n + 1) * sizeof(float)), *o2 = check_alloc((8 * n + 1) * sizeof(float));
        size_t i;
        for (i = 0; i < n * nl; i++) {
            random_quat(x + 8 * i, r);
            fill_uniform(x + 8 * i + 4, 3, -1.0f, 1.0f, r);
            x[8 * i + 7] = 1.0f;
            if (rng_below(r, 8) == 0) memset(x + 8 * i + 4, 0, 3 * sizeof(float));
            if (rng_below(r, 16) == 0) sprinkle_specials(x + 8 * i, 8, 0.3, r);
        }
        fill_uniform(w, nl * n, -0.5f, 1.0f, r);
        for (i = 0; i < nl * n; i++) if (rng_below(r, 10) == 0) w[i] = i % 2 ? 0.0f : NAN;
        snprintf(what, sizeof what, "motion_blend n=%zu L=%zu shared %zu", n, nl, shared);
        k->motion_blend(o1, x, w, n, nl, shared ? 0 : nl);
        ref->motion_blend(o2, x, w, n, nl, shared ? 0 : nl);
        failures += check_same(what, name, o1, o2, 8 * n);
        free(x); free(w); free(o1); free(o2);
    }
    free(kt); free(v); free(m); free(t); free(got); free(want); free(ga); free(wa);  free(gd); free(wd);
    return failures;
}

int check_track(enum sks_isa isa, uint64_t seed)
{
    const sks_track_kernels *k = sks_track_variants[isa], *ref = sks_track_variants[SKS_ISA_SCALAR];
    const char *name = sks_isa_name(isa);
    check_rng r = {seed * 6364136223846793005ull + 23u};
    int failures = 0;
    size_t round;
    for (round = 0; round < 120; round++) {
        const size_t nkeys = round < 80 ? 1 + round % 40 : 41 + rng_below(&r, 400);
        const size_t n = round < 80 ? (round * 7) % 41 : rng_below(&r, 1000);
        failures += check_one(k, ref, name, &r, nkeys, n);
    }
    return failures;
}
