/*
 * check_qts.c -- the QTS walk family (src/kernels/qts.c) of a target against the scalar target,
 * bit for bit: the four walks (float32 / float64, QTS / matrix output) on random hierarchies
 * (chains, branches, several roots; a chain, a star, all roots), batches 0..17 (every remainder
 * of the side-by-side walk and of the float64 walk's groups of four, the within-joint walk for a
 * lone skeleton) and larger, full passes, ranges (parents before start read from out) and in
 * place, with zero, tiny and huge quaternions and scales and NaN/inf mixed in. Also, on each
 * target, the matrix walk against the quat family's qts_to_matrix of the QTS walk.
 */
#include "check.h"
#include "cpu.h"
#include "qts.h"
#include "quat.h"

typedef void (*walk_fn)(const sks_qts_kernels *k, float *out, const float *local,
                        const int32_t *parents, size_t batch, size_t joints, size_t start,
                        size_t stop, float *scratch, double *scratch64);

static void run_l2g(const sks_qts_kernels *k, float *o, const float *l, const int32_t *p, size_t b,
                    size_t n, size_t start, size_t stop, float *s, double *s64)
{
    (void)s64;
    k->local_to_global(o, l, p, b, n, start, stop, s);
}
static void run_l2g_matrix(const sks_qts_kernels *k, float *o, const float *l, const int32_t *p,
                           size_t b, size_t n, size_t start, size_t stop, float *s, double *s64)
{
    (void)s64;
    k->local_to_global_matrix(o, l, p, b, n, start, stop, s);
}
static void run_l2g_f64(const sks_qts_kernels *k, float *o, const float *l, const int32_t *p,
                        size_t b, size_t n, size_t start, size_t stop, float *s, double *s64)
{
    (void)s;
    k->local_to_global_f64(o, l, p, b, n, start, stop, s64);
}
static void run_l2g_matrix_f64(const sks_qts_kernels *k, float *o, const float *l,
                               const int32_t *p, size_t b, size_t n, size_t start, size_t stop,
                               float *s, double *s64)
{
    (void)s;
    k->local_to_global_matrix_f64(o, l, p, b, n, start, stop, s64);
}

static const struct {
    const char *name;
    walk_fn run;
    int matrix;
} walks[] = {{"qts_local_to_global", run_l2g, 0},
             {"qts_local_to_global_matrix", run_l2g_matrix, 1},
             {"qts_local_to_global f64", run_l2g_f64, 0},
             {"qts_local_to_global_matrix f64", run_l2g_matrix_f64, 1}};

int check_qts(enum sks_isa isa, uint64_t seed)
{
    static const size_t sizes[] = {1, 2, 3, 7, 40, 96};
    const sks_qts_kernels *k = sks_qts_variants[isa], *ref = sks_qts_variants[SKS_ISA_SCALAR];
    const char *name = sks_isa_name(isa);
    check_rng r = {seed * 6364136223846793005ull + 11u};
    int failures = 0;
    size_t si, batch;
    int kind, specials, w;
    for (si = 0; si < sizeof sizes / sizeof sizes[0]; si++) {
        const size_t n = sizes[si];
        int32_t *parents = check_alloc(n * sizeof(int32_t));
        for (kind = 0; kind < 4; kind++) {
            if (kind > 0 && n < 7) continue;
            check_parents_of_kind(parents, n, kind, &r);
            for (specials = 0; specials < 2; specials++) {
                for (batch = 0; batch <= 19; batch++) {
                    /* 0..17, then one larger batch with a rest */
                    const size_t nb = batch < 18 ? batch : (batch == 18 ? 37 : 64 + rng_below(&r, 8));
                    const size_t total = nb * n;
                    float *local = check_alloc(8 * total * sizeof(float) + 64);
                    float *pre = check_alloc(12 * total * sizeof(float) + 64);
                    float *got = check_alloc(12 * total * sizeof(float) + 64);
                    float *want = check_alloc(12 * total * sizeof(float) + 64);
                    float *scratch = check_alloc(sks_qts_scratch_floats(n) * sizeof(float));
                    double *scratch64 = check_alloc(sks_qts_f64_scratch_doubles(n) * sizeof(double));
                    char what[160];
                    if (n > 40 && nb > 20 && specials) {   /* keep the qemu run short */
                        free(local); free(pre); free(got); free(want); free(scratch); free(scratch64);
                        continue;
                    }
                    check_qts_joints(local, total, &r, specials);
                    fill_uniform(pre, 12 * total, -1.5f, 1.5f, &r);
                    if (specials) sprinkle_specials(pre, 12 * total, 0.01, &r);
                    for (w = 0; w < 4; w++) {
                        const size_t of = walks[w].matrix ? 12 : 8;
                        const size_t ranges[3][2] = {{0, n}, {n / 3, n}, {n / 4, (3 * n) / 4 + 1}};
                        int ri;
                        for (ri = 0; ri < 3; ri++) {
                            const size_t start = ranges[ri][0];
                            const size_t stop = ranges[ri][1] < n ? ranges[ri][1] : n;
                            if (ri > 0 && (n < 3 || start >= stop)) continue;
                            memcpy(got, pre, of * total * sizeof(float));
                            memcpy(want, pre, of * total * sizeof(float));
                            walks[w].run(k, got, local, parents, nb, n, start, stop, scratch, scratch64);
                            walks[w].run(ref, want, local, parents, nb, n, start, stop, scratch, scratch64);
                            snprintf(what, sizeof what, "%s joints=%zu kind=%d batch=%zu range=%zu..%zu%s",
                                     walks[w].name, n, kind, nb, start, stop, specials ? " specials" : "");
                            failures += check_same(what, name, got, want, of * total);
                        }
                        if (!walks[w].matrix) {   /* in place: out == local */
                            const size_t start = n > 2 ? n / 2 : 0;
                            memcpy(got, local, 8 * total * sizeof(float));
                            memcpy(want, local, 8 * total * sizeof(float));
                            walks[w].run(k, got, got, parents, nb, n, start, n, scratch, scratch64);
                            walks[w].run(ref, want, want, parents, nb, n, start, n, scratch, scratch64);
                            snprintf(what, sizeof what, "%s in place joints=%zu kind=%d batch=%zu start=%zu%s",
                                     walks[w].name, n, kind, nb, start, specials ? " specials" : "");
                            failures += check_same(what, name, got, want, 8 * total);
                        }
                    }
                    /* the matrix walk is qts_to_matrix of the QTS walk, bit for bit (same target) */
                    k->local_to_global(want, local, parents, nb, n, 0, n, scratch);
                    sks_quat_variants[isa]->qts_to_matrix(pre, want, total);
                    k->local_to_global_matrix(got, local, parents, nb, n, 0, n, scratch);
                    snprintf(what, sizeof what, "matrix walk == qts_to_matrix(walk) joints=%zu kind=%d batch=%zu%s",
                             n, kind, nb, specials ? " specials" : "");
                    failures += check_same(what, name, got, pre, 12 * total);
                    free(local); free(pre); free(got); free(want); free(scratch); free(scratch64);
                }
            }
        }
        free(parents);
    }
    return failures;
}
