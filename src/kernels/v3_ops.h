/*
 * v3_ops.h -- 3-vectors of the vector vocabulary, structure of arrays: one vf per component,
 * SKS_W 3-vectors per v3 (the surface's grid vertices, the IK solvers' chains). Included by
 * family sources after target.h; one copy per target translation unit. Every operation is the
 * componentwise IEEE one in the order written (no FMA), so results are the same bits on every
 * target.
 */
#ifndef SKS_V3_OPS_H
#define SKS_V3_OPS_H

typedef struct v3 {
    vf x, y, z;
} v3;

static SKS_ALWAYS_INLINE v3 v3_add(v3 a, v3 b)
{
    v3 r = {vf_add(a.x, b.x), vf_add(a.y, b.y), vf_add(a.z, b.z)};
    return r;
}

static SKS_ALWAYS_INLINE v3 v3_sub(v3 a, v3 b)
{
    v3 r = {vf_sub(a.x, b.x), vf_sub(a.y, b.y), vf_sub(a.z, b.z)};
    return r;
}

static SKS_ALWAYS_INLINE v3 v3_scale(v3 a, vf s)
{
    v3 r = {vf_mul(a.x, s), vf_mul(a.y, s), vf_mul(a.z, s)};
    return r;
}

static SKS_ALWAYS_INLINE v3 v3_neg(v3 a)
{
    v3 r = {vf_neg(a.x), vf_neg(a.y), vf_neg(a.z)};
    return r;
}

/* (ax bx + ay by) + az bz */
static SKS_ALWAYS_INLINE vf v3_dot(v3 a, v3 b)
{
    return vf_add(vf_add(vf_mul(a.x, b.x), vf_mul(a.y, b.y)), vf_mul(a.z, b.z));
}

/* a x b, component x = ay bz - az by */
static SKS_ALWAYS_INLINE v3 v3_cross(v3 a, v3 b)
{
    v3 r = {vf_sub(vf_mul(a.y, b.z), vf_mul(a.z, b.y)), vf_sub(vf_mul(a.z, b.x), vf_mul(a.x, b.z)),
            vf_sub(vf_mul(a.x, b.y), vf_mul(a.y, b.x))};
    return r;
}

/* (m ? a : b) per component */
static SKS_ALWAYS_INLINE v3 v3_select(vm m, v3 a, v3 b)
{
    v3 r = {vf_select(m, a.x, b.x), vf_select(m, a.y, b.y), vf_select(m, a.z, b.z)};
    return r;
}

#endif /* SKS_V3_OPS_H */
