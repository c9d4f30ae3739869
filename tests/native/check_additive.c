/*
 * check_additive.c -- the additive family (src/kernels/additive.c) of a target against the scalar
 * target, bit for bit: make_additive (one reference per run of frames, every tail of a pose) and
 * apply_additive (weights in [-1, 1] including 0 and +-1, masks with 0 and 1, one delta for all
 * poses or one per pose, in place), with special values (NaN, inf, zero, tiny and huge) sprinkled
 * into some inputs.
 */
#include "check.h"
#include "cpu.h"
#include "additive.h"

/* n QTS joints: unit quaternions, translations in [-2, 2], scales in [0.5, 2]. */
static void random_qts_joints(float *x, size_t n, check_rng *r, int specials)
{
    size_t i;
    for (i = 0; i < n; i++) {
        random_quat(x + 8 * i, r);
        fill_uniform(x + 8 * i + 4, 3, -2.0f, 2.0f, r);
        x[8 * i + 7] = rng_uniform(r, 0.5f, 2.0f);
        if (rng_below(r, 4) == 0) x[8 * i + 3] = -x[8 * i + 3];   /* both hemispheres */
        if (specials) sprinkle_specials(x + 8 * i, 8, 0.03, r);
    }
}

static int check_one(const sks_additive_kernels *k, const sks_additive_kernels *ref,
                     const char *name, check_rng *r, size_t njoints, int specials)
{
    static const float weights[] = {1.0f, -1.0f, 0.0f, -0.0f, 0.5f, -0.25f, 1e-7f, 0.999f};
    const size_t nref = 1 + rng_below(r, 3), frames = 1 + rng_below(r, 4);
    const size_t npose = nref * frames, n = npose * njoints;
    float *x = check_alloc(8 * n * sizeof(float)), *refp = check_alloc(8 * nref * njoints * sizeof(float));
    float *got = check_alloc(8 * n * sizeof(float)), *want = check_alloc(8 * n * sizeof(float));
    float *mask = check_alloc((njoints + 1) * sizeof(float));
    char what[160];
    int failures = 0;
    size_t j, wi;
    random_qts_joints(x, n, r, specials);
    random_qts_joints(refp, nref * njoints, r, specials);
    for (j = 0; j < njoints; j++) {
        mask[j] = rng_uniform(r, 0.0f, 1.0f);
        if (rng_below(r, 4) == 0) mask[j] = (float)rng_below(r, 2);
    }
    snprintf(what, sizeof what, "make_additive R=%zu F=%zu J=%zu specials %d", nref, frames, njoints, specials);
    k->make_additive(got, x, refp, nref, frames, njoints);
    ref->make_additive(want, x, refp, nref, frames, njoints);
    failures += check_same(what, name, got, want, 8 * n);
    memcpy(got, x, 8 * n * sizeof(float));   /* in place */
    k->make_additive(got, got, refp, nref, frames, njoints);
    failures += check_same("make_additive in place", name, got, want, 8 * n);
    for (wi = 0; wi < sizeof weights / sizeof weights[0]; wi++) {
        int masked, step;
        for (masked = 0; masked < 2; masked++)
            for (step = 0; step < 2; step++) {
                snprintf(what, sizeof what, "apply_additive P=%zu J=%zu w=%g mask %d step %d specials %d",
                         npose, njoints, (double)weights[wi], masked, step, specials);
                k->apply_additive(got, x, step ? x : refp, (size_t)step, npose, njoints, weights[wi],
                                  masked ? mask : NULL);
                ref->apply_additive(want, x, step ? x : refp, (size_t)step, npose, njoints, weights[wi],
                                    masked ? mask : NULL);
                failures += check_same(what, name, got, want, 8 * n);
            }
    }
    free(x); free(refp); free(got); free(want); free(mask);
    return failures;
}

int check_additive(enum sks_isa isa, uint64_t seed)
{
    const sks_additive_kernels *k = sks_additive_variants[isa];
    const sks_additive_kernels *ref = sks_additive_variants[SKS_ISA_SCALAR];
    const char *name = sks_isa_name(isa);
    check_rng r = {seed * 6364136223846793005ull + 23u};
    int failures = 0;
    size_t round;
    for (round = 0; round < 120; round++) {
        const int specials = (int)(round % 2);
        const size_t joints = round < 80 ? 1 + round / 2 : 1 + rng_below(&r, 130);
        failures += check_one(k, ref, name, &r, joints, specials);
    }
    return failures;
}
