/*
 * check_inertialize.c -- the inertialize family (src/kernels/inertialize.c) of a target against
 * the scalar target, bit for bit: update (half-lives and steps from 0 to fully decayed, rotation
 * offsets up to many turns so that some lanes take the double sine and cosine, in place) and
 * transition (with and without carried offsets), every tail of a block, with special values
 * (NaN, inf, zero, tiny and huge) sprinkled into some inputs.
 */
#include <math.h>

#include "check.h"
#include "cpu.h"
#include "inertialize.h"

static void random_qts_joints(float *x, size_t n, check_rng *r, int specials)
{
    size_t i;
    for (i = 0; i < n; i++) {
        random_quat(x + 8 * i, r);
        if (rng_below(r, 4) == 0) x[8 * i + 3] = -x[8 * i + 3];
        fill_uniform(x + 8 * i + 4, 3, -2.0f, 2.0f, r);
        x[8 * i + 7] = rng_uniform(r, 0.5f, 2.0f);
        if (specials) sprinkle_specials(x + 8 * i, 8, 0.03, r);
    }
}

static void random_offsets(float *x, size_t n, check_rng *r, int specials)
{
    size_t i;
    fill_uniform(x, 6 * n, -2.0f, 2.0f, r);
    for (i = 0; i < n; i++) {
        if (rng_below(r, 16) == 0) x[6 * i + rng_below(r, 3)] = rng_uniform(r, -9000.0f, 9000.0f);
        if (rng_below(r, 32) == 0) x[6 * i + rng_below(r, 3)] = rng_uniform(r, -3e4f, 3e4f);
    }
    if (specials) sprinkle_specials(x, 6 * n, 0.03, r);
}

static sks_inertialize_decay constants(double halflife, double dt)
{
    const double y = 2.0 * log(2.0) / halflife, e = exp(-y * dt);
    sks_inertialize_decay c;
    c.y = (float)y;
    c.e = (float)e;
    c.dt = c.e == 0.0f ? 0.0f : (float)dt;
    c.ydt = c.e == 0.0f ? 0.0f : (float)(y * dt);
    return c;
}

static int check_one(const sks_inertialize_kernels *k, const sks_inertialize_kernels *ref,
                     const char *name, check_rng *r, size_t n, int specials)
{
    static const double steps[][2] = {{0.1, 0.0}, {0.1, 1.0 / 60}, {0.01, 0.005}, {0.3, 0.5},
                                      {0.05, 100.0}, {2.0, 1e-4}};
    float *pose = check_alloc(8 * n * sizeof(float)), *tgt = check_alloc(8 * n * sizeof(float));
    float *off = check_alloc(6 * n * sizeof(float)), *vel = check_alloc(6 * n * sizeof(float));
    float *sv = check_alloc(6 * n * sizeof(float)), *tv = check_alloc(6 * n * sizeof(float));
    float *got[3], *want[3];
    char what[160];
    int failures = 0, i, carried;
    size_t s;
    for (i = 0; i < 3; i++) {
        got[i] = check_alloc((i ? 6 : 8) * n * sizeof(float));
        want[i] = check_alloc((i ? 6 : 8) * n * sizeof(float));
    }
    random_qts_joints(pose, n, r, specials);
    random_qts_joints(tgt, n, r, specials);
    random_offsets(off, n, r, specials);
    random_offsets(vel, n, r, specials);
    random_offsets(sv, n, r, specials);
    random_offsets(tv, n, r, specials);
    for (s = 0; s < sizeof steps / sizeof steps[0]; s++) {
        const sks_inertialize_decay c = constants(steps[s][0], steps[s][1]);
        snprintf(what, sizeof what, "update n=%zu halflife=%g dt=%g specials %d", n, steps[s][0],
                 steps[s][1], specials);
        k->update(got[0], got[1], got[2], pose, off, vel, n, &c);
        ref->update(want[0], want[1], want[2], pose, off, vel, n, &c);
        failures += check_same(what, name, got[0], want[0], 8 * n);
        failures += check_same(what, name, got[1], want[1], 6 * n);
        failures += check_same(what, name, got[2], want[2], 6 * n);
        memcpy(got[0], pose, 8 * n * sizeof(float));   /* in place */
        memcpy(got[1], off, 6 * n * sizeof(float));
        memcpy(got[2], vel, 6 * n * sizeof(float));
        k->update(got[0], got[1], got[2], got[0], got[1], got[2], n, &c);
        failures += check_same("update in place", name, got[0], want[0], 8 * n);
        failures += check_same("update in place", name, got[1], want[1], 6 * n);
        failures += check_same("update in place", name, got[2], want[2], 6 * n);
    }
    for (carried = 0; carried < 2; carried++) {
        snprintf(what, sizeof what, "transition n=%zu carried %d specials %d", n, carried, specials);
        k->transition(got[1], got[2], pose, sv, tgt, tv, carried ? off : NULL, carried ? vel : NULL, n);
        ref->transition(want[1], want[2], pose, sv, tgt, tv, carried ? off : NULL, carried ? vel : NULL, n);
        failures += check_same(what, name, got[1], want[1], 6 * n);
        failures += check_same(what, name, got[2], want[2], 6 * n);
    }
    free(pose); free(tgt); free(off); free(vel); free(sv); free(tv);
    for (i = 0; i < 3; i++) {
        free(got[i]);
        free(want[i]);
    }
    return failures;
}

int check_inertialize(enum sks_isa isa, uint64_t seed)
{
    const sks_inertialize_kernels *k = sks_inertialize_variants[isa];
    const sks_inertialize_kernels *ref = sks_inertialize_variants[SKS_ISA_SCALAR];
    const char *name = sks_isa_name(isa);
    check_rng r = {seed * 6364136223846793005ull + 41u};
    int failures = 0;
    size_t round;
    for (round = 0; round < 100; round++) {
        const int specials = (int)(round % 2);
        const size_t n = round < 60 ? 1 + round / 2 : 1 + rng_below(&r, 300);
        failures += check_one(k, ref, name, &r, n, specials);
    }
    return failures;
}
