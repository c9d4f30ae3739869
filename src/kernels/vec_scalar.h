/*
 * vec_scalar.h -- the vector vocabulary in portable C: vf is four float lanes, one row per
 * vector. This is the reference target, built on every platform, and its operations define the
 * vocabulary's results (each one the scalar IEEE operation, lane by lane).
 *
 * With GCC or clang the lanes are a generic vector (vector_size(16)): plain C operators the
 * compiler maps onto whatever vector unit the baseline of the platform has, or onto scalar code.
 * Other compilers (MSVC), or -DSKS_NO_GENERIC_VECTORS, get a struct of four floats and loops. Either way the results are those
 * of the scalar operations (no contraction: -ffp-contract=off). See vec.h for the meaning of every
 * operation.
 */
#ifndef SKS_VEC_IMPL_H
#define SKS_VEC_IMPL_H

#include <math.h>

#define SKS_W 4
#define SKS_ROWS 1
#define SKS_VEC_ALIGN 16

#define SKS_V static SKS_ALWAYS_INLINE

#if (defined(__GNUC__) || defined(__clang__)) && !defined(SKS_NO_GENERIC_VECTORS)
/* ---------------------------------------------------------------- generic vectors ---- */
#define SKS_GENERIC_VECTORS 1
typedef float vf __attribute__((vector_size(16)));
typedef int32_t vi __attribute__((vector_size(16)));
typedef int32_t vm __attribute__((vector_size(16)));   /* 0 or -1 per lane */
typedef double sks_vd2 __attribute__((vector_size(16)));
typedef struct vd4 {
    sks_vd2 lo, hi;
} vd4;
#define SKS_LANE(v, i) ((v)[i])
#define SKS_MASK_LANE(m, i) ((uint32_t)(m)[i])
#if defined(__clang__) || (defined(__GNUC__) && __GNUC__ >= 12)
#define SKS_SHUFFLE4(v, i0, i1, i2, i3) __builtin_shufflevector((v), (v), i0, i1, i2, i3)
#define SKS_SHUFFLE4X2(a, b, i0, i1, i2, i3) __builtin_shufflevector((a), (b), i0, i1, i2, i3)
#else
#define SKS_SHUFFLE4(v, i0, i1, i2, i3) __builtin_shuffle((v), (vi){i0, i1, i2, i3})
#define SKS_SHUFFLE4X2(a, b, i0, i1, i2, i3) __builtin_shuffle((a), (b), (vi){i0, i1, i2, i3})
#endif
#else
/* ---------------------------------------------------------------- structs ---- */
#define SKS_GENERIC_VECTORS 0
typedef struct vf {
    float v[4];
} vf;
typedef struct vi {
    int32_t v[4];
} vi;
typedef struct vm {
    int32_t v[4];   /* 0 or -1 per lane */
} vm;
typedef struct vd4 {
    double v[4];
} vd4;
#define SKS_LANE(x, i) ((x).v[i])
#define SKS_MASK_LANE(x, i) ((uint32_t)(x).v[i])
#endif

#define SKS_LANES(i) for ((i) = 0; (i) < 4; (i)++)

SKS_V uint32_t sks_bits_of(float x)
{
    uint32_t u;
    memcpy(&u, &x, sizeof u);
    return u;
}
SKS_V float sks_float_of(uint32_t u)
{
    float x;
    memcpy(&x, &u, sizeof x);
    return x;
}

/* Lane-wise definitions: `expr` may use lane i of a and b (floats A, B; masks M). */
#define SKS_VF_MAP2(name, expr)                                     \
    SKS_V vf name(vf a, vf b)                                       \
    {                                                               \
        vf r;                                                       \
        int i;                                                      \
        SKS_LANES(i)                                                \
        {                                                           \
            const float A = SKS_LANE(a, i), B = SKS_LANE(b, i);     \
            SKS_LANE(r, i) = (expr);                                \
        }                                                           \
        return r;                                                   \
    }
#define SKS_VF_CMP(name, expr)                                      \
    SKS_V vm name(vf a, vf b)                                       \
    {                                                               \
        vm r;                                                       \
        int i;                                                      \
        SKS_LANES(i)                                                \
        {                                                           \
            const float A = SKS_LANE(a, i), B = SKS_LANE(b, i);     \
            SKS_LANE(r, i) = (expr) ? -1 : 0;                       \
        }                                                           \
        return r;                                                   \
    }

/* ---- memory ---- */
SKS_V vf vf_load(const float *p)
{
    vf r;
    memcpy(&r, p, sizeof r);
    return r;
}
SKS_V vf vf_load_aligned(const float *p) { return vf_load(p); }
SKS_V void vf_store(float *p, vf v) { memcpy(p, &v, sizeof v); }
SKS_V void vf_store_aligned(float *p, vf v) { vf_store(p, v); }
SKS_V vf vf_load_n(const float *p, size_t n)
{
    float tmp[4] = {0.0f, 0.0f, 0.0f, 0.0f};
    memcpy(tmp, p, (n < 4 ? n : 4) * sizeof(float));
    return vf_load(tmp);
}
SKS_V void vf_store_n(float *p, vf v, size_t n) { memcpy(p, &v, (n < 4 ? n : 4) * sizeof(float)); }

/* ---- construction ---- */
#if SKS_GENERIC_VECTORS
SKS_V vf vf_set1(float x) { return (vf){x, x, x, x}; }   /* one shuffle, no stack */
#else
SKS_V vf vf_set1(float x)
{
    vf r;
    int i;
    SKS_LANES(i) SKS_LANE(r, i) = x;
    return r;
}
#endif
SKS_V vf vf_zero(void) { return vf_set1(0.0f); }
SKS_V float vf_first(vf v) { return SKS_LANE(v, 0); }

/* ---- arithmetic ---- */
#if SKS_GENERIC_VECTORS
SKS_V vf vf_add(vf a, vf b) { return a + b; }
SKS_V vf vf_sub(vf a, vf b) { return a - b; }
SKS_V vf vf_mul(vf a, vf b) { return a * b; }
SKS_V vf vf_div(vf a, vf b) { return a / b; }
#else
SKS_VF_MAP2(vf_add, A + B)
SKS_VF_MAP2(vf_sub, A - B)
SKS_VF_MAP2(vf_mul, A * B)
SKS_VF_MAP2(vf_div, A / B)
#endif
SKS_VF_MAP2(vf_min, A < B ? A : B)   /* b when either is NaN (x86) */
SKS_VF_MAP2(vf_max, A > B ? A : B)
SKS_V vf vf_sqrt(vf a)
{
    vf r = a;   /* every lane overwritten (initialised: GCC's -Wmaybe-uninitialized) */
    int i;
    SKS_LANES(i) SKS_LANE(r, i) = sqrtf(SKS_LANE(a, i));
    return r;
}

/* ---- bits ---- */
#if SKS_GENERIC_VECTORS
SKS_V vf vf_and(vf a, vf b) { return (vf)((vi)a & (vi)b); }
SKS_V vf vf_or(vf a, vf b) { return (vf)((vi)a | (vi)b); }
SKS_V vf vf_xor(vf a, vf b) { return (vf)((vi)a ^ (vi)b); }
SKS_V vf vf_andnot(vf a, vf b) { return (vf)(~(vi)a & (vi)b); }
SKS_V vf vf_neg(vf a) { return (vf)((vi)a ^ (vi){INT32_MIN, INT32_MIN, INT32_MIN, INT32_MIN}); }
SKS_V vf vf_abs(vf a) { return (vf)((vi)a & (vi){INT32_MAX, INT32_MAX, INT32_MAX, INT32_MAX}); }
#else
SKS_VF_MAP2(vf_and, sks_float_of(sks_bits_of(A) & sks_bits_of(B)))
SKS_VF_MAP2(vf_or, sks_float_of(sks_bits_of(A) | sks_bits_of(B)))
SKS_VF_MAP2(vf_xor, sks_float_of(sks_bits_of(A) ^ sks_bits_of(B)))
SKS_VF_MAP2(vf_andnot, sks_float_of(~sks_bits_of(A) & sks_bits_of(B)))
SKS_V vf vf_neg(vf a) { return vf_xor(a, vf_set1(-0.0f)); }
SKS_V vf vf_abs(vf a) { return vf_andnot(vf_set1(-0.0f), a); }
#endif

/* ---- comparisons and masks ---- */
SKS_VF_CMP(vf_lt, A < B)
SKS_VF_CMP(vf_le, A <= B)
SKS_VF_CMP(vf_gt, A > B)
SKS_VF_CMP(vf_ge, A >= B)
SKS_VF_CMP(vf_eq, A == B)
SKS_VF_CMP(vf_neq, !(A == B))
SKS_VF_CMP(vf_unordered, A != A || B != B)
#if SKS_GENERIC_VECTORS
SKS_V vm vm_and(vm a, vm b) { return a & b; }
SKS_V vm vm_or(vm a, vm b) { return a | b; }
SKS_V vm vm_andnot(vm a, vm b) { return ~a & b; }
SKS_V vm vm_not(vm a) { return ~a; }
SKS_V vf vf_select(vm m, vf a, vf b) { return (vf)((m & (vi)a) | (~m & (vi)b)); }
SKS_V vf vf_if(vm m, vf a) { return (vf)(m & (vi)a); }
SKS_V vf vf_ifnot(vm m, vf a) { return (vf)(~m & (vi)a); }
#else
#define SKS_VM_MAP2(name, expr)                                     \
    SKS_V vm name(vm a, vm b)                                       \
    {                                                               \
        vm r;                                                       \
        int i;                                                      \
        SKS_LANES(i) SKS_LANE(r, i) = (expr);                       \
        return r;                                                   \
    }
SKS_VM_MAP2(vm_and, SKS_LANE(a, i) & SKS_LANE(b, i))
SKS_VM_MAP2(vm_or, SKS_LANE(a, i) | SKS_LANE(b, i))
SKS_VM_MAP2(vm_andnot, ~SKS_LANE(a, i) & SKS_LANE(b, i))
#undef SKS_VM_MAP2
SKS_V vm vm_not(vm a)
{
    vm r;
    int i;
    SKS_LANES(i) SKS_LANE(r, i) = ~SKS_LANE(a, i);
    return r;
}
SKS_V vf vf_select(vm m, vf a, vf b)
{
    vf r;
    int i;
    SKS_LANES(i)
    SKS_LANE(r, i) = sks_float_of((SKS_MASK_LANE(m, i) & sks_bits_of(SKS_LANE(a, i)))
                                  | (~SKS_MASK_LANE(m, i) & sks_bits_of(SKS_LANE(b, i))));
    return r;
}
SKS_V vf vf_if(vm m, vf a) { return vf_select(m, a, vf_zero()); }
SKS_V vf vf_ifnot(vm m, vf a) { return vf_select(m, vf_zero(), a); }
#endif
SKS_V unsigned vm_bits(vm m)
{
    unsigned bits = 0;
    int i;
    SKS_LANES(i) bits |= (unsigned)(SKS_MASK_LANE(m, i) >> 31) << i;
    return bits;
}
SKS_V int vm_any(vm m) { return vm_bits(m) != 0; }
SKS_V int vm_all(vm m) { return vm_bits(m) == 0xFu; }
SKS_V vm vm_first_n(size_t n)
{
    vm r;
    int i;
    SKS_LANES(i) SKS_LANE(r, i) = (size_t)i < n ? -1 : 0;
    return r;
}

/* ---- rows: one group of 4 lanes ---- */
SKS_V vf vf_load_rows(const float *p, ptrdiff_t stride) { (void)stride; return vf_load(p); }
SKS_V void vf_store_rows(float *p, ptrdiff_t stride, vf v) { (void)stride; vf_store(p, v); }
SKS_V vf vf_load_rows_n(const float *p, size_t n) { (void)n; return vf_load(p); }
SKS_V void vf_store_rows_n(float *p, vf v, size_t n) { (void)n; vf_store(p, v); }
SKS_V vf vf_broadcast_row(const float *p) { return vf_load(p); }
#if SKS_GENERIC_VECTORS
#define vf_shuffle_in_rows(v, i0, i1, i2, i3) SKS_SHUFFLE4(v, i0, i1, i2, i3)
#define vf_splat_in_rows(v, i) SKS_SHUFFLE4(v, i, i, i, i)
#else
SKS_V vf sks_shuffle4(vf v, int i0, int i1, int i2, int i3)
{
    vf r;
    r.v[0] = v.v[i0];
    r.v[1] = v.v[i1];
    r.v[2] = v.v[i2];
    r.v[3] = v.v[i3];
    return r;
}
#define vf_shuffle_in_rows(v, i0, i1, i2, i3) sks_shuffle4((v), (i0), (i1), (i2), (i3))
#define vf_splat_in_rows(v, i) sks_shuffle4((v), (i), (i), (i), (i))
#endif
SKS_V vf vf_keep_lane3(vf v)
{
    vf r = vf_zero();
    SKS_LANE(r, 3) = SKS_LANE(v, 3);
    return r;
}
SKS_V vf vf_clear_lane3(vf v)
{
    SKS_LANE(v, 3) = 0.0f;
    return v;
}
SKS_V void vf_transpose4_in_rows(vf *a, vf *b, vf *c, vf *d)
{
#if SKS_GENERIC_VECTORS
    const vf t0 = SKS_SHUFFLE4X2(*a, *b, 0, 4, 1, 5), t1 = SKS_SHUFFLE4X2(*a, *b, 2, 6, 3, 7);
    const vf t2 = SKS_SHUFFLE4X2(*c, *d, 0, 4, 1, 5), t3 = SKS_SHUFFLE4X2(*c, *d, 2, 6, 3, 7);
    *a = SKS_SHUFFLE4X2(t0, t2, 0, 1, 4, 5);
    *b = SKS_SHUFFLE4X2(t0, t2, 2, 3, 6, 7);
    *c = SKS_SHUFFLE4X2(t1, t3, 0, 1, 4, 5);
    *d = SKS_SHUFFLE4X2(t1, t3, 2, 3, 6, 7);
#else
    const vf x = *a, y = *b, z = *c, w = *d;
    int i;
    SKS_LANES(i)
    {
        const float l[4] = {SKS_LANE(x, i), SKS_LANE(y, i), SKS_LANE(z, i), SKS_LANE(w, i)};
        vf *dst = i == 0 ? a : i == 1 ? b : i == 2 ? c : d;
        *dst = vf_load(l);
    }
#endif
}

/* ---- 32-bit integer lanes (wrapping arithmetic, logical shifts) ---- */
SKS_V vi vi_load(const int32_t *p)
{
    vi r;
    memcpy(&r, p, sizeof r);
    return r;
}
SKS_V void vi_store(int32_t *p, vi v) { memcpy(p, &v, sizeof v); }
SKS_V vi vi_set1(int32_t x)
{
    vi r;
    int i;
    SKS_LANES(i) SKS_LANE(r, i) = x;
    return r;
}
#define SKS_VI_MAP2(name, expr)                                     \
    SKS_V vi name(vi a, vi b)                                       \
    {                                                               \
        vi r;                                                       \
        int i;                                                      \
        SKS_LANES(i)                                                \
        {                                                           \
            const uint32_t A = (uint32_t)SKS_LANE(a, i);            \
            const uint32_t B = (uint32_t)SKS_LANE(b, i);            \
            SKS_LANE(r, i) = (int32_t)(expr);                       \
        }                                                           \
        return r;                                                   \
    }
SKS_VI_MAP2(vi_add, A + B)
SKS_VI_MAP2(vi_sub, A - B)
SKS_VI_MAP2(vi_and, A & B)
SKS_VI_MAP2(vi_or, A | B)
#undef SKS_VI_MAP2
SKS_V vi sks_vi_shl(vi a, int n)
{
    vi r;
    int i;
    SKS_LANES(i) SKS_LANE(r, i) = (int32_t)((uint32_t)SKS_LANE(a, i) << n);
    return r;
}
SKS_V vi sks_vi_shr(vi a, int n)
{
    vi r;
    int i;
    SKS_LANES(i) SKS_LANE(r, i) = (int32_t)((uint32_t)SKS_LANE(a, i) >> n);
    return r;
}
#define vi_shl(v, n) sks_vi_shl((v), (n))
#define vi_shr(v, n) sks_vi_shr((v), (n))
SKS_V vm vi_eq(vi a, vi b)
{
    vm r;
    int i;
    SKS_LANES(i) SKS_LANE(r, i) = SKS_LANE(a, i) == SKS_LANE(b, i) ? -1 : 0;
    return r;
}
SKS_V vm vi_gt(vi a, vi b)
{
    vm r;
    int i;
    SKS_LANES(i) SKS_LANE(r, i) = SKS_LANE(a, i) > SKS_LANE(b, i) ? -1 : 0;
    return r;
}
SKS_V vf vf_from_vi(vi v)
{
    vf r;
    int i;
    SKS_LANES(i) SKS_LANE(r, i) = (float)SKS_LANE(v, i);
    return r;
}
SKS_V vi vi_from_vf_trunc(vf v)
{
    vi r;
    int i;
    SKS_LANES(i)
    {
        const float x = SKS_LANE(v, i);
        SKS_LANE(r, i) = (x > -2147483904.0f && x < 2147483648.0f) ? (int32_t)x : INT32_MIN;
    }
    return r;
}
SKS_V vf vf_bits_from_vi(vi v)
{
    vf r;
    memcpy(&r, &v, sizeof r);
    return r;
}
SKS_V vi vi_bits_from_vf(vf v)
{
    vi r;
    memcpy(&r, &v, sizeof r);
    return r;
}

/* ---- item order (SoA blocks): identity with one row per vector ---- */
SKS_V vf vf_load_rows_count(const float *p, ptrdiff_t stride, size_t count)
{
    (void)stride;
    return count ? vf_load(p) : vf_zero();
}
SKS_V void vf_store_rows_count(float *p, ptrdiff_t stride, vf v, size_t count)
{
    (void)stride;
    if (count) vf_store(p, v);
}
SKS_V vf vf_load_rows_xyz(const float *p, ptrdiff_t stride, size_t count)
{
    vf r = vf_zero();
    (void)stride;
    if (count) {
        SKS_LANE(r, 0) = p[0];
        SKS_LANE(r, 1) = p[1];
        SKS_LANE(r, 2) = p[2];
    }
    return r;
}
SKS_V void vf_store_rows_xyz(float *p, ptrdiff_t stride, vf v, size_t count)
{
    (void)stride;
    if (count) {
        p[0] = SKS_LANE(v, 0);
        p[1] = SKS_LANE(v, 1);
        p[2] = SKS_LANE(v, 2);
    }
}
SKS_V void vf_load_rows_xyz2(const float *p, vf *a, vf *b)
{
    *a = vf_load_rows_xyz(p, 3, 1);
    *b = vf_load_rows_xyz(p + 3, 3, 1);
}
SKS_V void vf_store_rows_xyz2(float *p, vf a, vf b)
{
    vf_store_rows_xyz(p, 3, a, 1);
    vf_store_rows_xyz(p + 3, 3, b, 1);
}
SKS_V vm vm_first_items(size_t n) { return vm_first_n(n); }
SKS_V vf vf_load_items(const float *p) { return vf_load(p); }
SKS_V vf vf_load_items_n(const float *p, size_t n) { return vf_load_n(p, n); }
SKS_V void vf_store_items(float *p, vf v) { vf_store(p, v); }
SKS_V void vf_store_items_n(float *p, vf v, size_t n) { vf_store_n(p, v, n); }

/* ---- a row of four doubles ---- */
#if SKS_GENERIC_VECTORS
SKS_V vd4 vd4_from_floats(const float *p)
{
    vd4 r;
    r.lo = (sks_vd2){(double)p[0], (double)p[1]};
    r.hi = (sks_vd2){(double)p[2], (double)p[3]};
    return r;
}
SKS_V vd4 vd4_load(const double *p)
{
    vd4 r;
    memcpy(&r.lo, p, sizeof r.lo);
    memcpy(&r.hi, p + 2, sizeof r.hi);
    return r;
}
SKS_V void vd4_store(double *p, vd4 v)
{
    memcpy(p, &v.lo, sizeof v.lo);
    memcpy(p + 2, &v.hi, sizeof v.hi);
}
SKS_V void vd4_store_floats(float *p, vd4 v)
{
    p[0] = (float)v.lo[0];
    p[1] = (float)v.lo[1];
    p[2] = (float)v.hi[0];
    p[3] = (float)v.hi[1];
}
SKS_V vd4 vd4_set1(double x)
{
    vd4 r;
    r.lo = r.hi = (sks_vd2){x, x};
    return r;
}
SKS_V vd4 vd4_lane3(double x)
{
    vd4 r;
    r.lo = (sks_vd2){0.0, 0.0};
    r.hi = (sks_vd2){0.0, x};
    return r;
}
SKS_V vd4 vd4_add(vd4 a, vd4 b)
{
    vd4 r;
    r.lo = a.lo + b.lo;
    r.hi = a.hi + b.hi;
    return r;
}
SKS_V vd4 vd4_mul(vd4 a, vd4 b)
{
    vd4 r;
    r.lo = a.lo * b.lo;
    r.hi = a.hi * b.hi;
    return r;
}
#else
SKS_V vd4 vd4_from_floats(const float *p)
{
    vd4 r;
    int i;
    SKS_LANES(i) r.v[i] = (double)p[i];
    return r;
}
SKS_V vd4 vd4_load(const double *p)
{
    vd4 r;
    memcpy(r.v, p, sizeof r.v);
    return r;
}
SKS_V void vd4_store(double *p, vd4 v) { memcpy(p, v.v, sizeof v.v); }
SKS_V void vd4_store_floats(float *p, vd4 v)
{
    int i;
    SKS_LANES(i) p[i] = (float)v.v[i];
}
SKS_V vd4 vd4_set1(double x)
{
    vd4 r;
    int i;
    SKS_LANES(i) r.v[i] = x;
    return r;
}
SKS_V vd4 vd4_lane3(double x)
{
    vd4 r;
    r.v[0] = r.v[1] = r.v[2] = 0.0;
    r.v[3] = x;
    return r;
}
SKS_V vd4 vd4_add(vd4 a, vd4 b)
{
    vd4 r;
    int i;
    SKS_LANES(i) r.v[i] = a.v[i] + b.v[i];
    return r;
}
SKS_V vd4 vd4_mul(vd4 a, vd4 b)
{
    vd4 r;
    int i;
    SKS_LANES(i) r.v[i] = a.v[i] * b.v[i];
    return r;
}
#endif
SKS_V vd4 vd4_broadcast(const double *p) { return vd4_set1(*p); }
SKS_V vd4 vd4_lane3_of(const double *p) { return vd4_lane3(*p); }

#undef SKS_VF_MAP2
#undef SKS_VF_CMP
/* ---- bytes and float64 sums ---- */
/* The first n <= 4 bytes at p, zero-extended to int32 lanes (lanes >= n are 0; reads p[0..n-1]). */
SKS_V vi vi_load_u8_n(const unsigned char *p, size_t n)
{
    vi r;
    int i;
    SKS_LANES(i) SKS_LANE(r, i) = (size_t)i < n ? (int32_t)p[i] : 0;
    return r;
}
SKS_V vi vi_load_u8(const unsigned char *p) { return vi_load_u8_n(p, 4); }

/* A negated float64 sum: one double, every lane subtracted in lane order (the definition). */
typedef double vnsum;
SKS_V vnsum vnsum_zero(void) { return 0.0; }
SKS_V vnsum vnsum_sub(vnsum s, vf v)
{
    int i;
    SKS_LANES(i) s = s - (double)SKS_LANE(v, i);
    return s;
}
SKS_V double vnsum_value(vnsum s) { return s; }

/* ---- rounding, per-item sums, rows of 8 floats ---- */
/* Round to the nearest integer, ties to even (IEEE roundToIntegralTiesToEven; -0.3 -> -0.0). */
SKS_V vf vf_round(vf a)
{
    vf r = a;
    int i;
    SKS_LANES(i) SKS_LANE(r, i) = rintf(SKS_LANE(a, i));
    return r;
}
/* Lane k of the result = (v_k[0] + v_k[2]) + (v_k[1] + v_k[3]) of the k-th argument. */
SKS_V vf vf_hsum4_in_rows(vf a, vf b, vf c, vf d)
{
#if SKS_GENERIC_VECTORS
    const vf ab = SKS_SHUFFLE4X2(a, b, 0, 1, 4, 5) + SKS_SHUFFLE4X2(a, b, 2, 3, 6, 7);
    const vf cd = SKS_SHUFFLE4X2(c, d, 0, 1, 4, 5) + SKS_SHUFFLE4X2(c, d, 2, 3, 6, 7);
    return SKS_SHUFFLE4X2(ab, cd, 0, 2, 4, 6) + SKS_SHUFFLE4X2(ab, cd, 1, 3, 5, 7);
#else
    const vf *v[4];
    vf r;
    int i;
    v[0] = &a;
    v[1] = &b;
    v[2] = &c;
    v[3] = &d;
    SKS_LANES(i)
    SKS_LANE(r, i) = (SKS_LANE(*v[i], 0) + SKS_LANE(*v[i], 2)) + (SKS_LANE(*v[i], 1) + SKS_LANE(*v[i], 3));
    return r;
#endif
}
/* Row slots of 8 contiguous floats: the first count <= SKS_ROWS at p, p + stride, ...; floats
 * 0-3 of slot r in its row of *a, 4-7 in its row of *b (loaded slots >= count are 0). */
SKS_V void vf_load_rows2_count(const float *p, ptrdiff_t stride, vf *a, vf *b, size_t count)
{
    (void)stride;
    *a = count ? vf_load(p) : vf_zero();
    *b = count ? vf_load(p + 4) : vf_zero();
}
SKS_V void vf_store_rows2_count(float *p, ptrdiff_t stride, vf a, vf b, size_t count)
{
    (void)stride;
    if (count) {
        vf_store(p, a);
        vf_store(p + 4, b);
    }
}

/* ---- rows of one item, row transposes ---- */
SKS_V vf vf_set1_rows(const float *p, ptrdiff_t stride)
{
    (void)stride;
    return vf_set1(*p);
}
SKS_V void vf_transpose_rows(vf *v) { (void)v; }
/* ---- two-source row shuffles and blends, float64 rows ---- */
/* Two-source shuffle within rows (SHUFPS): lanes 0, 1 from a, lanes 2, 3 from b. */
#if SKS_GENERIC_VECTORS
#define vf_shuffle2_in_rows(a, b, i0, i1, i2, i3) SKS_SHUFFLE4X2(a, b, i0, i1, (i2) + 4, (i3) + 4)
#define vf_blend_in_rows(a, b, mask)                                                          \
    SKS_SHUFFLE4X2(a, b, ((mask) & 1) ? 4 : 0, ((mask) & 2) ? 5 : 1, ((mask) & 4) ? 6 : 2,     \
                   ((mask) & 8) ? 7 : 3)
#else
SKS_V vf sks_shuffle2(vf a, vf b, int i0, int i1, int i2, int i3)
{
    vf r;
    r.v[0] = a.v[i0];
    r.v[1] = a.v[i1];
    r.v[2] = b.v[i2];
    r.v[3] = b.v[i3];
    return r;
}
SKS_V vf sks_blend(vf a, vf b, int mask)
{
    int i;
    SKS_LANES(i) if ((mask >> i) & 1) a.v[i] = b.v[i];
    return a;
}
#define vf_shuffle2_in_rows(a, b, i0, i1, i2, i3) sks_shuffle2((a), (b), (i0), (i1), (i2), (i3))
#define vf_blend_in_rows(a, b, mask) sks_blend((a), (b), (mask))
#endif

#if SKS_GENERIC_VECTORS
#define SKS_VD4_LANEWISE(name, op)                                                            \
    SKS_V vd4 name(vd4 a, vd4 b)                                                              \
    {                                                                                         \
        vd4 r;                                                                                \
        r.lo = a.lo op b.lo;                                                                  \
        r.hi = a.hi op b.hi;                                                                  \
        return r;                                                                             \
    }
#else
#define SKS_VD4_LANEWISE(name, op)                                                            \
    SKS_V vd4 name(vd4 a, vd4 b)                                                              \
    {                                                                                         \
        int i;                                                                                \
        SKS_LANES(i) a.v[i] = a.v[i] op b.v[i];                                               \
        return a;                                                                             \
    }
#endif
SKS_VD4_LANEWISE(vd4_sub, -)
SKS_VD4_LANEWISE(vd4_div, /)
#undef SKS_VD4_LANEWISE
#if SKS_GENERIC_VECTORS
typedef int64_t sks_vl2 __attribute__((vector_size(16)));
SKS_V vd4 vd4_select_gt(vd4 a, vd4 b, vd4 x, vd4 y)
{
    const sks_vl2 mlo = (sks_vl2)(a.lo > b.lo), mhi = (sks_vl2)(a.hi > b.hi);
    vd4 r;
    r.lo = (sks_vd2)((mlo & (sks_vl2)x.lo) | (~mlo & (sks_vl2)y.lo));
    r.hi = (sks_vd2)((mhi & (sks_vl2)x.hi) | (~mhi & (sks_vl2)y.hi));
    return r;
}
#else
SKS_V vd4 vd4_select_gt(vd4 a, vd4 b, vd4 x, vd4 y)
{
    int i;
    SKS_LANES(i) if (!(a.v[i] > b.v[i])) x.v[i] = y.v[i];
    return x;
}
#endif
/* r[c] lane l = (double)p[l * stride + c] (c, l < 4): four 4-float groups transposed. */
SKS_V void vd4_load_floats_transposed(vd4 r[4], const float *p, ptrdiff_t stride)
{
    int c;
    for (c = 0; c < 4; c++) {
#if SKS_GENERIC_VECTORS
        r[c].lo = (sks_vd2){(double)p[c], (double)p[stride + c]};
        r[c].hi = (sks_vd2){(double)p[2 * stride + c], (double)p[3 * stride + c]};
#else
        int l;
        for (l = 0; l < 4; l++) r[c].v[l] = (double)p[l * stride + c];
#endif
    }
}
/* p[l * stride + c] = (float)(r[c] lane l): the inverse, rounded to float32. */
SKS_V void vd4_store_floats_transposed(float *p, ptrdiff_t stride, const vd4 r[4])
{
    int c;
    for (c = 0; c < 4; c++) {
#if SKS_GENERIC_VECTORS
        p[c] = (float)r[c].lo[0];
        p[stride + c] = (float)r[c].lo[1];
        p[2 * stride + c] = (float)r[c].hi[0];
        p[3 * stride + c] = (float)r[c].hi[1];
#else
        int l;
        for (l = 0; l < 4; l++) p[l * stride + c] = (float)r[c].v[l];
#endif
    }
}

#endif /* SKS_VEC_IMPL_H */
