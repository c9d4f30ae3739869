/*
 * vocab_check.c -- every vocabulary operation on one target (see vocab_check.h). Compiled once
 * per target like a kernel family.
 */
#include "target.h"
#include "vocab_check.h"

#define STEP SKS_W

static vf mask_to_ones(vm m) { return vf_if(m, vf_set1(1.0f)); }

static int apply(int op, float *out, double *out64, const float *a, const float *b, const float *c,
                 size_t n)
{
    int failures = 0;
    size_t i;
    if (op == VOP_ROWS_STRIDED || op == VOP_TRANSPOSE) {
        /* rows of a 16-float block: row k of SKS_ROWS blocks per vector */
        for (i = 0; i + 16 * SKS_ROWS <= n; i += 16 * SKS_ROWS) {
            vf r0 = vf_load_rows(a + i, 16), r1 = vf_load_rows(a + i + 4, 16);
            vf r2 = vf_load_rows(a + i + 8, 16), r3 = vf_load_rows(a + i + 12, 16);
            if (op == VOP_TRANSPOSE) vf_transpose4_in_rows(&r0, &r1, &r2, &r3);
            else r0 = vf_add(r0, vf_mul(r1, r2));
            vf_store_rows(out + i, 16, r0);
            vf_store_rows(out + i + 4, 16, r1);
            vf_store_rows(out + i + 8, 16, r2);
            vf_store_rows(out + i + 12, 16, r3);
        }
        return 0;
    }
    if (op == VOP_LOAD_ROWS2) {
        /* blocks of 64 floats: rows of 8 floats 16 apart; the first c = block % 3 rows loaded as
         * halves (SKS_ROWS at a time, the last group partial) and stored as (2 lo, lo + hi), the
         * rest of out = b */
        for (i = 0; i + 64 <= n; i += 64) {
            const size_t c_rows = (i / 64) % 3;
            size_t r0;
            memcpy(out + i, b + i, 64 * sizeof(float));
            for (r0 = 0; r0 < 2; r0 += SKS_ROWS) {
                const size_t cnt = c_rows > r0 ? (c_rows - r0 < SKS_ROWS ? c_rows - r0 : SKS_ROWS) : 0;
                float tmp[2][SKS_W];
                size_t l;
                vf lo, hi;
                vf_load_rows2_count(a + i + 16 * r0, 16, &lo, &hi, cnt);
                vf_store(tmp[0], lo);
                vf_store(tmp[1], hi);
                for (l = 4 * cnt; l < SKS_W; l++) failures += tmp[0][l] != 0.0f || tmp[1][l] != 0.0f;
                vf_store_rows2_count(out + i + 16 * r0, 16, vf_add(lo, lo), vf_add(lo, hi), cnt);
            }
        }
        return failures;
    }
    if (op == VOP_HSUM4) {
        /* chunks of 16 floats per row: the 4 rows of 4 of row slot r summed pairwise, the sums
         * stored as that slot's first row, the rest of out = b (target-independent layout) */
        for (i = 0; i + 16 * SKS_ROWS <= n; i += 16 * SKS_ROWS) {
            const vf r0 = vf_load_rows(a + i, 16), r1 = vf_load_rows(a + i + 4, 16);
            const vf r2 = vf_load_rows(a + i + 8, 16), r3 = vf_load_rows(a + i + 12, 16);
            memcpy(out + i, b + i, 16 * SKS_ROWS * sizeof(float));
            vf_store_rows(out + i, 16, vf_hsum4_in_rows(r0, r1, r2, r3));
        }
        return 0;
    }
    if (op == VOP_ROWS_N) {
        /* a 12-float joint: rows packed into vectors, each vector's rows doubled */
        for (i = 0; i + 12 <= n; i += 12) {
            size_t k;
            for (k = 0; k < 3; k += SKS_ROWS) {
                const size_t rows = 3 - k < SKS_ROWS ? 3 - k : SKS_ROWS;
                const vf v = vf_load_rows_n(a + i + 4 * k, rows);
                vf_store_rows_n(out + i + 4 * k, vf_add(v, v), rows);
            }
        }
        return 0;
    }
    if (op == VOP_LOAD_N || op == VOP_FIRST_N || op == VOP_FIRST_ITEMS) {
        /* chunks of 8 floats (the widest vector) with k = chunk % 10 valid elements, so every
         * target sees the same tails: out = b, then its first k elements 3 a (LOAD_N), or 1 in
         * the lanes of vm_first_n (FIRST_N); loaded lanes past k must be +0.0 */
        for (i = 0; i + 8 <= n; i += 8) {
            const size_t k = (i / 8) % 10;
            size_t v;
            memcpy(out + i, b + i, 8 * sizeof(float));
            for (v = 0; v < 8; v += STEP) {
                const size_t kv = k > v ? k - v : 0, kl = kv < STEP ? kv : STEP;
                if (op == VOP_FIRST_N) {
                    vf_store(out + i + v, mask_to_ones(vm_first_n(kv)));
                } else if (op == VOP_FIRST_ITEMS) {
                    vf_store_items(out + i + v, mask_to_ones(vm_first_items(kv)));
                } else {
                    const vf x = vf_load_n(a + i + v, kl);
                    float tmp[SKS_W];
                    size_t l;
                    vf_store(tmp, x);
                    for (l = kl; l < SKS_W; l++) failures += tmp[l] != 0.0f || 1.0f / tmp[l] < 0.0f;
                    vf_store_n(out + i + v, vf_mul(x, vf_set1(3.0f)), kl);
                }
            }
        }
        return failures;
    }
    if (op == VOP_ROWS_COUNT) {
        /* blocks of 64 floats: rows of 4 floats 8 apart; the first c = block % 3 rows doubled
         * (SKS_ROWS at a time, the last group partial), the rest of out = b */
        for (i = 0; i + 64 <= n; i += 64) {
            const size_t c_rows = (i / 64) % 3;
            size_t r0;
            memcpy(out + i, b + i, 64 * sizeof(float));
            for (r0 = 0; r0 < 2; r0 += SKS_ROWS) {
                const size_t cnt = c_rows > r0 ? (c_rows - r0 < SKS_ROWS ? c_rows - r0 : SKS_ROWS) : 0;
                const vf v = vf_load_rows_count(a + i + 8 * r0, 8, cnt);
                float tmp[SKS_W];
                size_t l;
                vf_store(tmp, v);
                for (l = 4 * cnt; l < SKS_W; l++) failures += tmp[l] != 0.0f;
                vf_store_rows_count(out + i + 8 * r0, 8, vf_add(v, v), cnt);
            }
        }
        return failures;
    }
    if (op == VOP_ROWS_XYZ) {
        /* blocks of 48 floats: 3-vectors 6 floats apart, then from float 24 on 3 floats apart;
         * the first c = block % 3 doubled plus lane 3 (which must load as 0), the rest of
         * out = b; in blocks with c = 2 also the four 3-vectors from float 36 on, loaded and
         * stored two row steps at a time */
        for (i = 0; i + 48 <= n; i += 48) {
            const size_t c_rows = (i / 48) % 3;
            size_t r0;
            memcpy(out + i, b + i, 48 * sizeof(float));
            for (r0 = 0; r0 < 2; r0 += SKS_ROWS) {
                const size_t cnt = c_rows > r0 ? (c_rows - r0 < SKS_ROWS ? c_rows - r0 : SKS_ROWS) : 0;
                const vf v = vf_load_rows_xyz(a + i + 6 * r0, 6, cnt);
                vf_store_rows_xyz(out + i + 6 * r0, 6, vf_add(vf_add(v, v), vf_splat_in_rows(v, 3)), cnt);
            }
            /* the same on contiguous 3-vectors (stride 3, a constant) from float 24 on */
            for (r0 = 0; r0 < 2; r0 += SKS_ROWS) {
                const size_t cnt = c_rows > r0 ? (c_rows - r0 < SKS_ROWS ? c_rows - r0 : SKS_ROWS) : 0;
                const vf v = vf_load_rows_xyz(a + i + 24 + 3 * r0, 3, cnt);
                vf_store_rows_xyz(out + i + 24 + 3 * r0, 3, vf_add(vf_add(v, v), vf_splat_in_rows(v, 3)), cnt);
            }
            /* four contiguous 3-vectors from float 36 on, 2 SKS_ROWS at a time
             * (vf_load_rows_xyz2 / vf_store_rows_xyz2), in blocks with c = 2 */
            if (c_rows == 2) {
                for (r0 = 0; r0 < 4; r0 += 2 * SKS_ROWS) {
                    vf v, u;
                    vf_load_rows_xyz2(a + i + 36 + 3 * r0, &v, &u);
                    vf_store_rows_xyz2(out + i + 36 + 3 * r0,
                                       vf_add(vf_add(v, v), vf_splat_in_rows(v, 3)),
                                       vf_add(vf_add(u, u), vf_splat_in_rows(u, 3)));
                }
            }
        }
        return 0;
    }
    if (op == VOP_ITEMS_SOA || op == VOP_ITEMS_N) {
        /* chunks of 8 quaternions (32 floats), SKS_W at a time: to SoA by rows + transpose,
         * component m scaled by (t + m) with t the item's float (b[item]) loaded in item order,
         * then back. Target-independent iff the orders agree. VOP_ITEMS_N: the first
         * k = chunk % 9 items' t only (the others 0), the x components stored with _n over c. */
        for (i = 0; i + 32 <= n; i += 32) {
            const size_t k8 = (i / 32) % 9;
            size_t sub;
            if (op == VOP_ITEMS_N) memcpy(out + i / 4, c + i / 4, 8 * sizeof(float));
            for (sub = 0; sub < 8; sub += SKS_W) {
                const size_t item0 = i / 4 + sub;
                const size_t k = k8 > sub ? (k8 - sub < SKS_W ? k8 - sub : SKS_W) : 0;
                vf q[4], t;
                int m;
                for (m = 0; m < 4; m++) q[m] = vf_load_rows(a + i + 4 * sub + 4 * SKS_ROWS * m, 4);
                vf_transpose4_in_rows(&q[0], &q[1], &q[2], &q[3]);
                t = op == VOP_ITEMS_N ? vf_load_items_n(b + item0, k) : vf_load_items(b + item0);
                for (m = 0; m < 4; m++) q[m] = vf_mul(q[m], vf_add(t, vf_set1((float)m)));
                if (op == VOP_ITEMS_N) {
                    vf_store_items_n(out + item0, q[0], k);
                } else {
                    vf_transpose4_in_rows(&q[0], &q[1], &q[2], &q[3]);
                    for (m = 0; m < 4; m++) vf_store_rows(out + i + 4 * sub + 4 * SKS_ROWS * m, 4, q[m]);
                }
            }
        }
        return 0;
    }
    if (op == VOP_F64_QTS) {
        /* 16-float blocks as four 4-float groups 4 apart, loaded transposed and
         * widened; sub, div and select_gt on the lanes; stored as doubles and transposed back
         * as floats (stride 8 across two blocks for the second half) */
        for (i = 0; i + 32 <= n; i += 32) {
            int k, h;
            for (h = 0; h < 2; h++) {
                const ptrdiff_t stride = h ? 8 : 4;
                const float *src = h ? a + i + 4 : a + i;
                vd4 v[4], w[4];
                vd4_load_floats_transposed(v, src, stride);
                for (k = 0; k < 4; k++) {
                    const vd4 d = vd4_div(v[k], vd4_sub(v[(k + 1) & 3], v[(k + 2) & 3]));
                    w[k] = vd4_select_gt(v[k], v[(k + 3) & 3], d, vd4_sub(v[k], vd4_set1(0.25)));
                    vd4_store(out64 + i + 16 * h + 4 * k, w[k]);
                }
                vd4_store_floats_transposed(out + i + (h ? 4 : 0), stride, w);
            }
        }
        return 0;
    }
    if (op == VOP_F64) {
        for (i = 0; i + 4 <= n; i += 4) {
            const double p[4] = {(double)b[i], (double)b[i + 1] * 1e-3, (double)c[i], (double)c[i + 3]};
            const vd4 x = vd4_from_floats(a + i);
            vd4 r = vd4_add(vd4_mul(vd4_broadcast(p), x), vd4_mul(vd4_set1(p[1]), x));
            r = vd4_add(r, vd4_add(vd4_lane3(p[2]), vd4_lane3_of(p + 3)));
            vd4_store(out64 + i, vd4_add(r, vd4_load(out64 + i)));
            vd4_store_floats(out + i, r);
        }
        return 0;
    }
    if (op == VOP_U8) {
        /* bytes from the bits of a, in chunks of 8 with k = chunk % 10 valid (vi_load_u8_n; the
         * whole vector with vi_load_u8): the int32 lanes, plus 1 where the byte is nonzero */
        unsigned char bytes[8];
        for (i = 0; i + 8 <= n; i += 8) {
            const size_t k = (i / 8) % 10;
            size_t v, l;
            for (l = 0; l < 8; l++) {
                uint32_t u;
                memcpy(&u, a + i + l, sizeof u);
                bytes[l] = (unsigned char)(l % 3 == 0 ? 0u : u >> 11);
            }
            for (v = 0; v < 8; v += STEP) {
                const size_t kv = k > v ? k - v : 0, kl = kv < STEP ? kv : STEP;
                const vi x = kl == STEP ? vi_load_u8(bytes + v) : vi_load_u8_n(bytes + v, kl);
                vf_store(out + i + v, vf_add(vf_from_vi(x), mask_to_ones(vi_gt(x, vi_set1(0)))));
            }
        }
        return 0;
    }
    /* ---- rows of one item, row transposes ---- */
    if (op == VOP_SET1_ROWS) {
        /* items of 16 floats, one per row slot: a float of each broadcast in its row; strides
         * 16, 0 (every row slot on one item) and -16 */
        for (i = 0; i + 16 * SKS_ROWS <= n; i += 16 * SKS_ROWS) {
            const size_t last = i + 16 * (SKS_ROWS - 1);
            size_t l;
            vf_store_rows(out + i, 16, vf_mul(vf_set1_rows(a + i + 1, 16), vf_load_rows(b + i, 16)));
            for (l = 0; l < SKS_ROWS; l++)
                vf_store_rows_count(out + i + 16 * l + 4, 16, vf_set1_rows(b + i + 16 * l + 9, 0), 1);
            vf_store_rows(out + last + 8, -16,
                          vf_add(vf_set1_rows(c + last + 3, -16), vf_load_rows(a + last + 8, -16)));
        }
        return 0;
    }
    if (op == VOP_TRANSPOSE_ROWS) {
        /* items of 16 floats (4 rows) packed into vectors, transposed to one item per row
         * slot, times row k of b, stored back in place: out row k of an item = a row k * b row k */
        for (i = 0; i + 16 * SKS_ROWS <= n; i += 16 * SKS_ROWS) {
            vf pk[SKS_ROWS][4 / SKS_ROWS];
            size_t s, q, u;
            for (s = 0; s < SKS_ROWS; s++)
                for (q = 0; q < 4 / SKS_ROWS; q++) pk[s][q] = vf_load(a + i + 16 * s + SKS_W * q);
            for (q = 0; q < 4 / SKS_ROWS; q++) {
                vf t[SKS_ROWS];
                for (s = 0; s < SKS_ROWS; s++) t[s] = pk[s][q];
                vf_transpose_rows(t);
                for (u = 0; u < SKS_ROWS; u++) {
                    const size_t k = q * SKS_ROWS + u;
                    vf_store_rows(out + i + 4 * k, 16, vf_mul(t[u], vf_broadcast_row(b + 4 * k)));
                }
            }
        }
        return 0;
    }
    if (op == VOP_NSUM) {
        /* a running vnsum over a, with the finite values made multiples of 1/64 below 1e4 in
         * magnitude (every order of the float64 additions is then exact) and infinities and
         * NaN kept (the same result in every order): out64[i] = the value after a[0..i+15] */
        vnsum s = vnsum_zero();
        for (i = 0; i + STEP <= n; i += STEP) {
            const vf x = vf_load(a + i);
            const vm small = vf_lt(vf_abs(x), vf_set1(1e4f));
            const vm keep = vm_or(vf_unordered(x, x), vf_gt(vf_abs(x), vf_set1(3.40282347e38f)));
            const vf q = vf_div(vf_from_vi(vi_from_vf_trunc(vf_mul(vf_if(small, x), vf_set1(64.0f)))),
                                vf_set1(64.0f));
            s = vnsum_sub(s, vf_select(keep, x, q));
            if ((i + STEP) % 16 == 0) out64[i + STEP - 16] = vnsum_value(s);
        }
        return 0;
    }
    for (i = 0; i + STEP <= n; i += STEP) {
        const vf x = vf_load(a + i), y = vf_load(b + i), z = vf_load(c + i);
        vf r;
        switch (op) {
        case VOP_ADD: r = vf_add(x, y); break;
        case VOP_SUB: r = vf_sub(x, y); break;
        case VOP_MUL: r = vf_mul(x, y); break;
        case VOP_DIV: r = vf_div(x, y); break;
        case VOP_SQRT: r = vf_sqrt(x); break;
        case VOP_MIN: r = vf_min(x, y); break;
        case VOP_MAX: r = vf_max(x, y); break;
        case VOP_NEG: r = vf_neg(x); break;
        case VOP_ABS: r = vf_abs(x); break;
        case VOP_AND: r = vf_and(x, y); break;
        case VOP_OR: r = vf_or(x, y); break;
        case VOP_XOR: r = vf_xor(x, y); break;
        case VOP_ANDNOT: r = vf_andnot(x, y); break;
        case VOP_LT: r = mask_to_ones(vf_lt(x, y)); break;
        case VOP_LE: r = mask_to_ones(vf_le(x, y)); break;
        case VOP_GT: r = mask_to_ones(vf_gt(x, y)); break;
        case VOP_GE: r = mask_to_ones(vf_ge(x, y)); break;
        case VOP_EQ: r = mask_to_ones(vf_eq(x, y)); break;
        case VOP_NEQ: r = mask_to_ones(vf_neq(x, y)); break;
        case VOP_UNORD: r = mask_to_ones(vf_unordered(x, y)); break;
        case VOP_SELECT: r = vf_select(vf_lt(x, y), x, z); break;
        case VOP_IF: r = vf_if(vf_gt(x, z), y); break;
        case VOP_IFNOT: r = vf_ifnot(vf_gt(x, z), y); break;
        case VOP_MASK_LOGIC: {
            const vm p = vf_lt(x, y), q = vf_lt(y, z);
            r = vf_add(vf_add(mask_to_ones(vm_and(p, q)), vf_mul(vf_set1(2.0f), mask_to_ones(vm_or(p, q)))),
                       vf_add(vf_mul(vf_set1(4.0f), mask_to_ones(vm_andnot(p, q))),
                              vf_mul(vf_set1(8.0f), mask_to_ones(vm_not(p)))));
            break;
        }
        case VOP_BITS: {
            const vm m = vf_lt(x, y);
            const unsigned bits = vm_bits(m);
            float lanes[SKS_W];
            size_t l;
            failures += vm_any(m) != (bits != 0);
            failures += vm_all(m) != (bits == (1u << SKS_W) - 1u);
            for (l = 0; l < SKS_W; l++) lanes[l] = (float)((bits >> l) & 1u);
            r = vf_load(lanes);
            break;
        }
        case VOP_SPLAT0: r = vf_splat_in_rows(x, 0); break;
        case VOP_SPLAT1: r = vf_splat_in_rows(x, 1); break;
        case VOP_SPLAT2: r = vf_splat_in_rows(x, 2); break;
        case VOP_SPLAT3: r = vf_splat_in_rows(x, 3); break;
        case VOP_SHUFFLE_YZX: r = vf_shuffle_in_rows(x, 1, 2, 0, 3); break;
        case VOP_SHUFFLE_WZYX: r = vf_shuffle_in_rows(x, 3, 2, 1, 0); break;
        case VOP_KEEP3: r = vf_keep_lane3(x); break;
        case VOP_ROUND:   /* fractions, or ties (round(2x) / 2: k + 0.5 goes to even) */
            r = vf_select(vf_lt(x, y), vf_round(vf_mul(x, vf_set1(0.37f))),
                          vf_round(vf_mul(vf_round(vf_add(x, x)), vf_set1(0.5f))));
            break;
        case VOP_CLEAR3: r = vf_clear_lane3(x); break;
        case VOP_SHUFFLE2:  
            r = vf_add(vf_shuffle2_in_rows(x, y, 3, 0, 2, 1), vf_mul(vf_shuffle2_in_rows(y, z, 1, 1, 0, 3), z));
            break;
        case VOP_BLEND_ROWS:  
            r = vf_add(vf_blend_in_rows(x, y, 5), vf_mul(vf_blend_in_rows(y, z, 8), vf_blend_in_rows(z, x, 3)));
            break;
        case VOP_BROADCAST_ROW: r = vf_mul(vf_broadcast_row(b + (i & ~(size_t)7)), x); break;
        case VOP_INT_ROUNDTRIP: {
            /* in range only: |x| * 1000 < 2^31 for the inputs used */
            const vf big = vf_mul(vf_min(vf_max(x, vf_set1(-1e6f)), vf_set1(1e6f)), vf_set1(1000.0f));
            const vi t = vi_from_vf_trunc(vf_if(vm_not(vf_unordered(big, big)), big));
            r = vf_from_vi(t);
            break;
        }
        case VOP_INT_ARITH: {
            const vi u = vi_bits_from_vf(x), v = vi_bits_from_vf(y);
            vi t = vi_add(vi_shr(u, 7), vi_and(v, vi_set1(0x7FFFF)));
            t = vi_sub(vi_or(t, vi_shl(v, 3)), vi_set1(12345));
            t = vi_and(t, vi_set1(0x3FFFFFFF));
            r = vf_add(vf_bits_from_vi(vi_and(t, vi_set1(0x3F7FFFFF))),
                       mask_to_ones(vm_or(vi_eq(u, v), vi_gt(u, v))));
            {
                int32_t tmp[SKS_W];
                vi_store(tmp, t);
                r = vf_add(r, vf_from_vi(vi_load(tmp)));
            }
            break;
        }
        default: return 1;
        }
        vf_store(out + i, r);
        {   /* aligned load/store and vf_first agree with the unaligned ones */
            SKS_ALIGNED(SKS_VEC_ALIGN) float tmp[SKS_W];
            vf_store_aligned(tmp, r);
            failures += memcmp(tmp, out + i, sizeof tmp) != 0;
            failures += memcmp(&(float){vf_first(vf_load_aligned(tmp))}, out + i, sizeof(float)) != 0;
        }
    }
    return failures;
}

SKS_ROW(vocab) = {apply};
