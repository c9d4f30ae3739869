/*
 * check_joints.c -- the joint-matrix family (src/kernels/joints.c) of a target against the
 * scalar target, bit for bit: local_to_global (float32 and float64 walks, ranges, in place),
 * global_to_local (general and rigid), multiply_joints (broadcast steps), invert_joints, on
 * random hierarchies (chains and branches, several roots), batch sizes 0..9 and, every other
 * pair of rounds, 0..19 (every remainder of the side-by-side walks, one or two blocks of SKS_W
 * skeletons and their tails) and inputs with special values.
 */
#include "check.h"
#include "cpu.h"
#include "joints.h"

#define JF SKS_JOINT_FLOATS

/* Random joints: rotation-like 3x3 blocks with translations in [-tscale, tscale]. */
static void random_joints(float *m, size_t n, float tscale, check_rng *r)
{
    size_t i;
    fill_uniform(m, n * JF, -1.0f, 1.0f, r);
    for (i = 0; i < n; i++) {
        m[JF * i + 3] *= tscale;
        m[JF * i + 7] *= tscale;
        m[JF * i + 11] *= tscale;
    }
}

int check_joints(enum sks_isa isa, uint64_t seed)
{
    const sks_joints_kernels *k = sks_joints_variants[isa], *ref = sks_joints_variants[SKS_ISA_SCALAR];
    const char *name = sks_isa_name(isa);
    check_rng r = {seed * 1000003u + 5u};
    int failures = 0, round;
    for (round = 0; round < 60; round++) {
        const size_t joints = 1 + rng_below(&r, round < 30 ? 12 : 100);
        const size_t batch = rng_below(&r, round % 4 >= 2 ? 20 : 10);
        const size_t total = batch * joints * JF;
        const size_t start = rng_below(&r, joints), stop = start + 1 + rng_below(&r, joints - start);
        const int specials = round % 3 == 2, rigid = round % 2;
        int32_t *parents = check_alloc(joints * sizeof(int32_t));
        float *local = check_alloc(total * sizeof(float) + 64);
        float *got = check_alloc(total * sizeof(float) + 64), *want = check_alloc(total * sizeof(float) + 64);
        double *scratch = check_alloc(SKS_L2G_F64_SCRATCH_DOUBLES(joints) * sizeof(double));
        char what[96];
        size_t n;
        random_parents(parents, joints, &r);
        random_joints(local, batch * joints, round % 4 == 3 ? 100.0f : 1.0f, &r);
        if (specials) sprinkle_specials(local, total, 0.02, &r);

        snprintf(what, sizeof what, "local_to_global J=%zu B=%zu [%zu,%zu)", joints, batch, start, stop);
        memcpy(got, local, total * sizeof(float));
        memcpy(want, local, total * sizeof(float));
        k->local_to_global(got, local, parents, batch, joints, start, stop, batch);
        ref->local_to_global(want, local, parents, batch, joints, start, stop, batch);
        failures += check_same(what, name, got, want, total);

        /* the same batch as a chunk of a call that streams from memory (one skeleton at a
         * time), against the scalar row's walk of the whole batch */
        snprintf(what, sizeof what, "local_to_global chunk of a large call J=%zu B=%zu", joints,
                 batch);
        memcpy(got, local, total * sizeof(float));
        k->local_to_global(got, local, parents, batch, joints, start, stop, (size_t)1 << 30);
        failures += check_same(what, name, got, want, total);

        snprintf(what, sizeof what, "local_to_global in place J=%zu B=%zu", joints, batch);
        memcpy(got, local, total * sizeof(float));
        memcpy(want, local, total * sizeof(float));
        k->local_to_global(got, got, parents, batch, joints, 0, joints, batch);
        ref->local_to_global(want, want, parents, batch, joints, 0, joints, batch);
        failures += check_same(what, name, got, want, total);

        snprintf(what, sizeof what, "local_to_global_f64 J=%zu B=%zu [%zu,%zu)", joints, batch, start, stop);
        memcpy(got, local, total * sizeof(float));
        memcpy(want, local, total * sizeof(float));
        k->local_to_global_f64(got, local, parents, batch, joints, start, stop, scratch);
        ref->local_to_global_f64(want, local, parents, batch, joints, start, stop, scratch);
        failures += check_same(what, name, got, want, total);

        snprintf(what, sizeof what, "global_to_local rigid=%d J=%zu B=%zu", rigid, joints, batch);
        memcpy(got, local, total * sizeof(float));
        memcpy(want, local, total * sizeof(float));
        k->global_to_local(got, local, parents, batch, joints, start, stop, rigid);
        ref->global_to_local(want, local, parents, batch, joints, start, stop, rigid);
        failures += check_same(what, name, got, want, total);

        snprintf(what, sizeof what, "global_to_local in place rigid=%d J=%zu B=%zu", rigid, joints, batch);
        memcpy(got, local, total * sizeof(float));
        memcpy(want, local, total * sizeof(float));
        k->global_to_local(got, got, parents, batch, joints, start, stop, rigid);
        ref->global_to_local(want, want, parents, batch, joints, start, stop, rigid);
        failures += check_same(what, name, got, want, total);

        n = batch * joints;
        snprintf(what, sizeof what, "invert_joints rigid=%d n=%zu", rigid, n);
        k->invert_joints(got, local, n, rigid);
        ref->invert_joints(want, local, n, rigid);
        failures += check_same(what, name, got, want, n * JF);

        if (n > 0) {
            const size_t a_step = round % 3 != 0, b_step = round % 3 != 1;
            snprintf(what, sizeof what, "multiply_joints steps %zu %zu n=%zu", a_step, b_step, n);
            k->multiply_joints(got, local, a_step, local + JF * (n - 1) * (1 - b_step), b_step, n);
            ref->multiply_joints(want, local, a_step, local + JF * (n - 1) * (1 - b_step), b_step, n);
            failures += check_same(what, name, got, want, n * JF);
        }
        free(parents); free(local); free(got); free(want); free(scratch);
    }
    return failures;
}
