/*
 * check_retarget.c -- the retargeting family (src/kernels/retarget.c) of a target against the
 * scalar target, bit for bit: the remap on random hierarchies (chains, branches, several roots;
 * a chain, a star, all roots) of 1 to 96 target joints from 1 to 40 source joints, every mix of
 * mapped, unmapped and placed joints (none, some, all), frame counts 0..17 (every tail of the
 * side-by-side groups) and larger, with zero, tiny and huge quaternions, scales and
 * translations and NaN/inf mixed in; and first_nonfinite (the same index as a plain loop) on
 * every length up to 200 with a special value at every kind of position.
 */
#include "check.h"
#include "cpu.h"
#include "retarget.h"

static int check_remap(const sks_retarget_kernels *k, const sks_retarget_kernels *ref,
                       const char *name, check_rng *r)
{
    static const size_t targets[] = {1, 2, 5, 17, 43, 96};
    static const size_t sources[] = {1, 3, 31, 40};
    static const double mixes[] = {0.0, 0.3, 0.8, 1.0};
    int failures = 0, kind, specials, mi;
    size_t ti, si, nf, j;
    for (ti = 0; ti < sizeof targets / sizeof targets[0]; ti++) {
        const size_t jt = targets[ti];
        int32_t *parents = check_alloc(jt * sizeof(int32_t));
        int32_t *index = check_alloc(jt * sizeof(int32_t));
        unsigned char *placed = check_alloc(jt);
        float *offsets = check_alloc(4 * jt * sizeof(float));
        float *rest = check_alloc(8 * jt * sizeof(float));
        void *scratch = check_alloc(sks_retarget_scratch_bytes(jt));
        for (si = 0; si < sizeof sources / sizeof sources[0]; si++) {
            const size_t js = sources[si];
            for (kind = 0; kind < 4; kind++) {
                if (kind > 0 && jt < 5) continue;
                check_parents_of_kind(parents, jt, kind, r);
                for (mi = 0; mi < 4; mi++) {
                    for (specials = 0; specials < 2; specials++) {
                        for (nf = 0; nf <= 19; nf++) {
                            /* 0..17, then larger counts with a rest */
                            const size_t frames = nf < 18 ? nf : (nf == 18 ? 37 : 64 + rng_below(r, 8));
                            float *src = check_alloc(8 * frames * js * sizeof(float) + 64);
                            float *got = check_alloc(8 * frames * jt * sizeof(float) + 64);
                            float *want = check_alloc(8 * frames * jt * sizeof(float) + 64);
                            sks_retarget_args a;
                            char what[160];
                            if (jt > 40 && frames > 20 && (specials || si > 1)) {   /* keep qemu short */
                                free(src); free(got); free(want);
                                continue;
                            }
                            for (j = 0; j < jt; j++) {
                                index[j] = rng_unit(r) < mixes[mi] ? (int32_t)rng_below(r, js) : -1;
                                placed[j] = (unsigned char)(rng_unit(r) < mixes[mi] ? 1 + rng_below(r, 2) : 0);
                                random_quat(offsets + 4 * j, r);
                            }
                            check_qts_joints(rest, jt, r, specials);
                            check_qts_joints(src, frames * js, r, specials);
                            if (specials) sprinkle_specials(offsets, 4 * jt, 0.05, r);
                            memset(got, 0xAB, 8 * frames * jt * sizeof(float));
                            memset(want, 0xAB, 8 * frames * jt * sizeof(float));
                            a.source = src;
                            a.src_index = index;
                            a.offsets = offsets;
                            a.parents = parents;
                            a.rest = rest;
                            a.placed = placed;
                            a.frames = frames;
                            a.targets = jt;
                            a.sources = js;
                            a.scratch = scratch;
                            a.out = got;
                            k->remap(&a);
                            a.out = want;
                            ref->remap(&a);
                            snprintf(what, sizeof what, "remap targets=%zu sources=%zu kind=%d mix=%.1f frames=%zu%s",
                                     jt, js, kind, mixes[mi], frames, specials ? " specials" : "");
                            failures += check_same(what, name, got, want, 8 * frames * jt);
                            free(src); free(got); free(want);
                        }
                    }
                }
            }
        }
        free(parents); free(index); free(placed); free(offsets); free(rest); free(scratch);
    }
    return failures;
}

static int check_first_nonfinite(const sks_retarget_kernels *k, const char *name, check_rng *r)
{
    static const float bad[] = {NAN, -NAN, INFINITY, -INFINITY};
    float *x = check_alloc(200 * sizeof(float));
    int failures = 0, b;
    size_t n, at;
    for (n = 0; n <= 200; n++) {
        for (at = 0; at <= n; at += (n < 40 ? 1 : 7)) {
            for (b = 0; b < 4; b++) {
                size_t got, want = n;
                fill_uniform(x, n, -3.4e38f, 3.4e38f, r);
                sprinkle_specials(x, n, 0.02, r);
                if (at < n) x[at] = bad[b];
                for (want = 0; want < n && isfinite(x[want]); want++) {
                }
                got = k->first_nonfinite(x, n);
                if (got != want) {
                    printf("MISMATCH first_nonfinite [%s] n=%zu: %zu != %zu\n", name, n, got, want);
                    failures++;
                }
                if (at == n) break;
            }
        }
    }
    free(x);
    return failures;
}

int check_retarget(enum sks_isa isa, uint64_t seed)
{
    const sks_retarget_kernels *k = sks_retarget_variants[isa];
    const sks_retarget_kernels *ref = sks_retarget_variants[SKS_ISA_SCALAR];
    check_rng r = {seed * 6364136223846793005ull + 29u};
    const char *name = sks_isa_name(isa);
    return check_remap(k, ref, name, &r) + check_first_nonfinite(k, name, &r)
           + check_first_nonfinite(ref, "scalar", &r);
}
