/*
 * check_ik.c -- the IK family (src/kernels/ik.c) of a target against the scalar target, bit for
 * bit: two_bone, aim and look_at (chains of 1 to 5 joints) on every batch size 0..40 (every tail
 * of 4- and 8-lane blocks) and larger, each operand either one per chain or shared (step 0),
 * random chains (rotations with scales, targets inside and beyond reach, soften, weights around 0
 * and 1, twists) and degenerate ones: special values in any input, singular matrices, zero-length
 * bones, targets at the joint, poles parallel to the chain.
 */
#include "check.h"
#include "cpu.h"
#include "ik.h"

/* A random joint matrix: a rotation times a scale in [0.5, 2], translation in [-1, 1]. */
static void random_matrix(float *m, check_rng *r)
{
    float q[4];
    double x, y, z, w, s;
    int i;
    random_quat(q, r);
    x = q[0]; y = q[1]; z = q[2]; w = q[3];
    s = rng_uniform(r, 0.5f, 2.0f);
    m[0] = (float)(s * (1 - 2 * (y * y + z * z))); m[1] = (float)(s * 2 * (x * y - z * w)); m[2] = (float)(s * 2 * (x * z + y * w));
    m[4] = (float)(s * 2 * (x * y + z * w)); m[5] = (float)(s * (1 - 2 * (x * x + z * z))); m[6] = (float)(s * 2 * (y * z - x * w));
    m[8] = (float)(s * 2 * (x * z - y * w)); m[9] = (float)(s * 2 * (y * z + x * w)); m[10] = (float)(s * (1 - 2 * (x * x + y * y)));
    for (i = 0; i < 3; i++) m[4 * i + 3] = rng_uniform(r, -1.0f, 1.0f);
}

/* Fills `count` items of `width` floats (count 1: a shared operand). */
static void fill_items(float *p, size_t count, size_t width, check_rng *r, float lo, float hi, int specials)
{
    size_t i;
    for (i = 0; i < count; i++) {
        if (width == 12) random_matrix(p + 12 * i, r);
        else fill_uniform(p + width * i, width, lo, hi, r);
    }
    if (specials) sprinkle_specials(p, count * width, 0.01, r);
}

/* Degenerate chains among the first ones: equal points, singular matrices, targets at the start. */
static void degenerate(float *start, float *mid, float *end, float *target, float *pole, size_t n,
                       check_rng *r)
{
    size_t i, c;
    for (i = 0; i < n; i++) {
        switch (rng_below(r, 10)) {
        case 0: for (c = 0; c < 3; c++) mid[12 * i + 4 * c + 3] = start[12 * i + 4 * c + 3]; break;
        case 1: for (c = 0; c < 3; c++) end[12 * i + 4 * c + 3] = mid[12 * i + 4 * c + 3]; break;
        case 2: memset(start + 12 * i, 0, 12 * sizeof(float)); break;
        case 3: for (c = 0; c < 3; c++) target[3 * i + c] = start[12 * i + 4 * c + 3]; break;
        case 4: for (c = 0; c < 3; c++) pole[3 * i + c] = target[3 * i + c] - start[12 * i + 4 * c + 3]; break;
        case 5: memset(pole + 3 * i, 0, 3 * sizeof(float)); break;
        default: break;
        }
    }
}

#define NOPS 10

static int check_two_bone(const sks_ik_kernels *k, const sks_ik_kernels *ref, const char *name,
                          check_rng *r, size_t n, int specials)
{
    static const size_t width[NOPS] = {12, 12, 12, 3, 3, 3, 1, 1, 1, 1};
    float *op[NOPS], *qs[2], *qm[2];
    unsigned char *reached[2];
    size_t steps[NOPS], i, v;
    char what[160];
    int failures = 0;
    for (i = 0; i < NOPS; i++) {
        steps[i] = rng_below(r, 4) == 0 ? 0 : 1;
        op[i] = check_alloc((n + 1) * width[i] * sizeof(float));
    }
    fill_items(op[0], steps[0] ? n : 1, 12, r, 0, 0, specials);
    fill_items(op[1], steps[1] ? n : 1, 12, r, 0, 0, specials);
    fill_items(op[2], steps[2] ? n : 1, 12, r, 0, 0, specials);
    fill_items(op[3], steps[3] ? n : 1, 3, r, -3.0f, 3.0f, specials);
    fill_items(op[4], steps[4] ? n : 1, 3, r, -1.0f, 1.0f, specials);
    fill_items(op[5], steps[5] ? n : 1, 3, r, -1.0f, 1.0f, specials);
    fill_items(op[6], steps[6] ? n : 1, 1, r, -1.0f, 1.0f, specials);   /* twist sin */
    fill_items(op[7], steps[7] ? n : 1, 1, r, -1.0f, 1.0f, specials);   /* twist cos */
    fill_items(op[8], steps[8] ? n : 1, 1, r, 0.5f, 1.2f, specials);    /* soften */
    fill_items(op[9], steps[9] ? n : 1, 1, r, -0.2f, 1.3f, specials);   /* weight */
    if (steps[0] && steps[1] && steps[2] && steps[3] && steps[4]) degenerate(op[0], op[1], op[2], op[3], op[4], n, r);
    for (v = 0; v < 2; v++) {
        const sks_ik_kernels *kk = v ? ref : k;
        sks_ik_two_bone_args a;
        qs[v] = check_alloc((4 * n + 1) * sizeof(float));
        qm[v] = check_alloc((4 * n + 1) * sizeof(float));
        reached[v] = check_alloc(n + 1);
        a.start = op[0]; a.mid = op[1]; a.end = op[2]; a.target = op[3]; a.pole = op[4];
        a.mid_axis = op[5]; a.twist_sin = op[6]; a.twist_cos = op[7]; a.soften = op[8]; a.weight = op[9];
        a.start_step = steps[0]; a.mid_step = steps[1]; a.end_step = steps[2]; a.target_step = steps[3];
        a.pole_step = steps[4]; a.mid_axis_step = steps[5]; a.twist_sin_step = steps[6];
        a.twist_cos_step = steps[7]; a.soften_step = steps[8]; a.weight_step = steps[9];
        a.start_correction = qs[v]; a.mid_correction = qm[v]; a.reached = reached[v]; a.n = n;
        kk->two_bone(&a);
    }
    snprintf(what, sizeof what, "ik two_bone n=%zu specials %d", n, specials);
    failures += check_same(what, name, qs[0], qs[1], 4 * n);
    failures += check_same(what, name, qm[0], qm[1], 4 * n);
    if (memcmp(reached[0], reached[1], n)) {
        printf("MISMATCH %s [%s]: reached flags differ\n", what, name);
        failures++;
    }
    for (i = 0; i < NOPS; i++) free(op[i]);
    for (v = 0; v < 2; v++) { free(qs[v]); free(qm[v]); free(reached[v]); }
    return failures;
}

/* The operands an aim shares with look_at, in the argument structs' order: target, pole,
 * forward, up, offset, twist_sin, twist_cos (n items each, or 1 where the step is 0). */
static void fill_aim_operands(float *const *op, const size_t *steps, size_t n, check_rng *r,
                              int specials)
{
    static const float range[7][2] = {{-3.0f, 3.0f}, {-1.0f, 1.0f}, {-1.0f, 1.0f}, {-1.0f, 1.0f},
                                      {-0.5f, 0.5f}, {-1.0f, 1.0f}, {-1.0f, 1.0f}};
    size_t i;
    for (i = 0; i < 7; i++)
        fill_items(op[i], steps[i] ? n : 1, i < 5 ? 3 : 1, r, range[i][0], range[i][1], specials);
}

static int check_aim(const sks_ik_kernels *k, const sks_ik_kernels *ref, const char *name,
                     check_rng *r, size_t n, int specials)
{
    static const size_t width[9] = {12, 3, 3, 3, 3, 3, 1, 1, 1};
    float *op[9], *q[2];
    unsigned char *reached[2];
    size_t steps[9], i, v;
    char what[160];
    int failures = 0;
    for (i = 0; i < 9; i++) {
        steps[i] = rng_below(r, 4) == 0 ? 0 : 1;
        op[i] = check_alloc((n + 1) * width[i] * sizeof(float));
    }
    fill_items(op[0], steps[0] ? n : 1, 12, r, 0, 0, specials);
    fill_aim_operands(op + 1, steps + 1, n, r, specials);
    fill_items(op[8], steps[8] ? n : 1, 1, r, -0.2f, 1.3f, specials);
    if (steps[3]) {   /* unit forward vectors, some opposite the target */
        for (i = 0; i < n; i++) {
            float *f = op[3] + 3 * i;
            const double l = sqrt((double)f[0] * f[0] + (double)f[1] * f[1] + (double)f[2] * f[2]);
            size_t c;
            for (c = 0; c < 3 && l > 0; c++) f[c] = (float)(f[c] / l);
        }
    }
    for (v = 0; v < 2; v++) {
        const sks_ik_kernels *kk = v ? ref : k;
        sks_ik_aim_args a;
        q[v] = check_alloc((4 * n + 1) * sizeof(float));
        reached[v] = check_alloc(n + 1);
        a.joint = op[0]; a.target = op[1]; a.pole = op[2]; a.forward = op[3]; a.up = op[4];
        a.offset = op[5]; a.twist_sin = op[6]; a.twist_cos = op[7]; a.weight = op[8];
        a.joint_step = steps[0]; a.target_step = steps[1]; a.pole_step = steps[2];
        a.forward_step = steps[3]; a.up_step = steps[4]; a.offset_step = steps[5];
        a.twist_sin_step = steps[6]; a.twist_cos_step = steps[7]; a.weight_step = steps[8];
        a.correction = q[v]; a.reached = reached[v]; a.n = n;
        kk->aim(&a);
    }
    snprintf(what, sizeof what, "ik aim n=%zu specials %d", n, specials);
    failures += check_same(what, name, q[0], q[1], 4 * n);
    if (memcmp(reached[0], reached[1], n)) {
        printf("MISMATCH %s [%s]: reached flags differ\n", what, name);
        failures++;
    }
    for (i = 0; i < 9; i++) free(op[i]);
    for (v = 0; v < 2; v++) { free(q[v]); free(reached[v]); }
    return failures;
}

/* look_at: n characters of c chain joints (the matrices one chain per character or shared), with
 * singular joints among them (which make the rest of their chain the identity). */
static int check_look_at(const sks_ik_kernels *k, const sks_ik_kernels *ref, const char *name,
                         check_rng *r, size_t n, size_t c, int specials)
{
    static const size_t width[7] = {3, 3, 3, 3, 3, 1, 1};
    float *op[7], *chain, *weights, *q[2];
    size_t steps[7], chain_step, i, v;
    char what[160];
    int failures = 0;
    chain_step = rng_below(r, 4) == 0 ? 0 : 1;
    chain = check_alloc(((chain_step ? n : 1) * c + 1) * 12 * sizeof(float));
    fill_items(chain, (chain_step ? n : 1) * c, 12, r, 0, 0, specials);
    for (i = 0; i < (chain_step ? n : 1) * c; i++)
        if (rng_below(r, 16) == 0) memset(chain + 12 * i, 0, 9 * sizeof(float));
    weights = check_alloc((c + 1) * sizeof(float));
    fill_uniform(weights, c, -0.2f, 1.3f, r);
    for (i = 0; i < 7; i++) {
        steps[i] = rng_below(r, 4) == 0 ? 0 : 1;
        op[i] = check_alloc((n + 1) * width[i] * sizeof(float));
    }
    fill_aim_operands(op, steps, n, r, specials);
    for (v = 0; v < 2; v++) {
        const sks_ik_kernels *kk = v ? ref : k;
        sks_ik_look_at_args a;
        q[v] = check_alloc((4 * n * c + 1) * sizeof(float));
        a.chain = chain; a.chain_step = chain_step;
        a.target = op[0]; a.pole = op[1]; a.forward = op[2]; a.up = op[3]; a.offset = op[4];
        a.twist_sin = op[5]; a.twist_cos = op[6]; a.weights = weights;
        a.target_step = steps[0]; a.pole_step = steps[1]; a.forward_step = steps[2];
        a.up_step = steps[3]; a.offset_step = steps[4]; a.twist_sin_step = steps[5];
        a.twist_cos_step = steps[6];
        a.correction = q[v]; a.n = n; a.c = c;
        kk->look_at(&a);
    }
    snprintf(what, sizeof what, "ik look_at n=%zu c=%zu specials %d", n, c, specials);
    failures += check_same(what, name, q[0], q[1], 4 * n * c);
    for (i = 0; i < 7; i++) free(op[i]);
    free(chain);
    free(weights);
    for (v = 0; v < 2; v++) free(q[v]);
    return failures;
}

int check_ik(enum sks_isa isa, uint64_t seed)
{
    const sks_ik_kernels *k = sks_ik_variants[isa], *ref = sks_ik_variants[SKS_ISA_SCALAR];
    const char *name = sks_isa_name(isa);
    check_rng r = {seed * 6364136223846793005ull + 29u};
    int failures = 0;
    size_t round;
    for (round = 0; round < 122; round++) {
        const int specials = (int)(round % 2);
        const size_t n = round < 82 ? round / 2 : 41 + rng_below(&r, 400);
        failures += check_two_bone(k, ref, name, &r, n, specials);
        failures += check_aim(k, ref, name, &r, n, specials);
        failures += check_look_at(k, ref, name, &r, n, 1 + round % 5, specials);
    }
    return failures;
}
