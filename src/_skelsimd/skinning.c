/*
 * skinning.c (glue) -- Python entry points of the skinning family. The public wrappers with
 * their documentation are in skelsimd/skinning.py; kernels in src/kernels/skinning.c.
 *
 * Positional arguments only (the Python wrappers forward keywords):
 *   skinning_palette(local, parents, inverse_bind, out)
 *   skin(positions, joint_indices, weights, palette, out, normals, normals_out)
 *   normalize_weights(weights, out)
 */
#include "args.h"

#include "../kernels/skinning.h"

#include <stdio.h>

/* Scratch memory for one call, 64-byte aligned (released with PyMem_Free on `raw`). */
typedef struct scratch_block {
    void *raw;
    float *data;
} scratch_block;

static int scratch_alloc(scratch_block *s, size_t floats)
{
    s->raw = PyMem_Malloc(floats * sizeof(float) + 64);
    if (s->raw == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    s->data = (float *)(((uintptr_t)s->raw + 63) & ~(uintptr_t)63);
    return 0;
}

/* "(..., J, 3, 4) with J = 96 (<joints_from>)": the expected shape of a pose batch of J joints. */
static int check_pose_shape(PyArrayObject *arr, const char *name, npy_intp joints,
                            const char *joints_from)
{
    const npy_intp trailing[3] = {joints, 3, 4};
    char layout[128];
    snprintf(layout, sizeof layout, "(..., %ld, 3, 4) (J = %s)", (long)joints, joints_from);
    return sks_check_shape(arr, name, 3, trailing, 3, layout);
}

static PyObject *py_skinning_palette(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    static const char *const names[2] = {"local", "inverse_bind"};
    static const int trailing[2] = {3, 3};
    static const npy_intp joint_shape[2] = {3, 4};
    PyArrayObject *ops[2] = {NULL, NULL}, *out = NULL;
    sks_parents parents = {NULL, NULL};
    scratch_block scratch = {NULL, NULL};
    npy_intp shape[NPY_MAXDIMS], joints;
    sks_broadcast bc;
    int i;
    (void)self;
    if (!sks_check_nargs("skinning_palette", nargs, 4)) return NULL;
    ops[0] = sks_as_float32(args[0], "local");
    if (ops[0] == NULL) goto fail;
    if (sks_check_shape(ops[0], "local", 3, joint_shape, 2, "(..., J, 3, 4)") < 0) goto fail;
    joints = PyArray_DIM(ops[0], PyArray_NDIM(ops[0]) - 3);
    if (sks_parse_parents(args[1], joints, "local.shape[-3]", &parents) < 0) goto fail;
    ops[1] = sks_as_float32(args[2], "inverse_bind");
    if (ops[1] == NULL) goto fail;
    if (check_pose_shape(ops[1], "inverse_bind", joints, "local.shape[-3]") < 0) goto fail;
    if (sks_broadcast_leading(&bc, 2, ops, names, trailing) < 0) goto fail;
    memcpy(shape, bc.out_shape, bc.out_ndim * sizeof(npy_intp));
    shape[bc.out_ndim] = joints;
    shape[bc.out_ndim + 1] = 3;
    shape[bc.out_ndim + 2] = 4;
    out = sks_prepare_out(args[3], "out", bc.out_ndim + 3, shape);
    if (out == NULL) goto fail;
    for (i = 0; i < 2; i++) {
        if (sks_check_overlap(out, "out", ops[i], names[i], 1) < 0) goto fail;
    }
    if (PyArray_SIZE(out) > 0) {
        const sks_skinning_kernels *k = &sks_skinning_variants[sks_active_isa];
        const npy_intp inner = sks_broadcast_inner(&bc), outer = sks_broadcast_outer(&bc);
        const size_t stride = (size_t)joints * 12;
        float *o = (float *)PyArray_DATA(out);
        const float *l = (const float *)PyArray_DATA(ops[0]);
        const float *ib = (const float *)PyArray_DATA(ops[1]);
        npy_intp it;
        if (scratch_alloc(&scratch, SKS_PALETTE_SCRATCH_FLOATS(joints)) < 0) goto fail;
        Py_BEGIN_ALLOW_THREADS
        for (it = 0; it < outer; it++) {
            npy_intp off[2], step[2];
            sks_broadcast_offsets(&bc, it, off, step);
            k->skinning_palette(o + (size_t)(it * inner) * stride, l + (size_t)off[0] * stride,
                                (size_t)step[0], ib + (size_t)off[1] * stride, (size_t)step[1],
                                parents.data, (size_t)inner, (size_t)joints, scratch.data);
        }
        Py_END_ALLOW_THREADS
        PyMem_Free(scratch.raw);
    }
    sks_parents_release(&parents);
    Py_DECREF(ops[0]);
    Py_DECREF(ops[1]);
    return (PyObject *)out;
fail:
    sks_parents_release(&parents);
    Py_XDECREF(ops[0]);
    Py_XDECREF(ops[1]);
    Py_XDECREF(out);
    return NULL;
}

/* The operands of skin, validated. */
typedef struct skin_args {
    PyArrayObject *positions, *indices, *weights, *palette, *normals, *out, *normals_out;
} skin_args;

static void skin_args_release(skin_args *s)
{
    Py_CLEAR(s->positions);
    Py_CLEAR(s->indices);
    Py_CLEAR(s->weights);
    Py_CLEAR(s->palette);
    Py_CLEAR(s->normals);
    Py_CLEAR(s->out);
    Py_CLEAR(s->normals_out);
}

/* Validates the mesh operands: positions (..., V, 3), joint_indices and weights (V, K) with
 * 1 <= K <= SKS_SKIN_MAX_INFLUENCES, palette (..., J, 3, 4) and every index in [0, J). */
static int parse_mesh(skin_args *s, PyObject *const *args)
{
    static const npy_intp point_shape[1] = {3}, joint_shape[2] = {3, 4};
    static const char *const axis_names[2] = {"vertex", "influence"};
    npy_intp vertices, influences, joints;
    char from[64];
    s->positions = sks_as_float32(args[0], "positions");
    if (s->positions == NULL) return -1;
    if (sks_check_shape(s->positions, "positions", 2, point_shape, 1, "(..., V, 3)") < 0) return -1;
    vertices = PyArray_DIM(s->positions, PyArray_NDIM(s->positions) - 2);
    s->indices = sks_as_int32(args[1], "joint_indices");
    if (s->indices == NULL) return -1;
    influences = PyArray_NDIM(s->indices) == 2 ? PyArray_DIM(s->indices, 1) : 0;
    if (PyArray_NDIM(s->indices) != 2 || PyArray_DIM(s->indices, 0) != vertices) {
        char got[128];
        sks_format_shape(got, sizeof got, PyArray_NDIM(s->indices), PyArray_DIMS(s->indices));
        PyErr_Format(PyExc_ValueError, "joint_indices: expected shape (V, K) with V = %ld "
                     "(positions.shape[-2]), got %s", (long)vertices, got);
        return -1;
    }
    if (influences < 1 || influences > SKS_SKIN_MAX_INFLUENCES) {
        PyErr_Format(PyExc_ValueError, "joint_indices: expected 1 <= K <= %d influences per "
                     "vertex (shape (V, K)), got K = %ld", SKS_SKIN_MAX_INFLUENCES,
                     (long)influences);
        return -1;
    }
    s->weights = sks_as_float32(args[2], "weights");
    if (s->weights == NULL) return -1;
    if (PyArray_NDIM(s->weights) != 2 || PyArray_DIM(s->weights, 0) != vertices ||
        PyArray_DIM(s->weights, 1) != influences) {
        char got[128];
        sks_format_shape(got, sizeof got, PyArray_NDIM(s->weights), PyArray_DIMS(s->weights));
        PyErr_Format(PyExc_ValueError, "weights: expected shape (%ld, %ld) (the shape of "
                     "joint_indices), got %s", (long)vertices, (long)influences, got);
        return -1;
    }
    s->palette = sks_as_float32(args[3], "palette");
    if (s->palette == NULL) return -1;
    if (sks_check_shape(s->palette, "palette", 3, joint_shape, 2, "(..., J, 3, 4)") < 0) return -1;
    joints = PyArray_DIM(s->palette, PyArray_NDIM(s->palette) - 3);
    snprintf(from, sizeof from, "J = palette.shape[-3] = %ld", (long)joints);
    return sks_check_index_range(s->indices, "joint_indices", joints, from, axis_names);
}

static PyObject *py_skin(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    static const char *const names[2] = {"positions", "palette"};
    static const int trailing[2] = {2, 3};
    skin_args s = {NULL, NULL, NULL, NULL, NULL, NULL, NULL};
    scratch_block scratch = {NULL, NULL};
    PyObject *normals_obj, *normals_out_obj;
    npy_intp shape[NPY_MAXDIMS];
    sks_broadcast bc;
    PyArrayObject *ops[2];
    int has_normals;
    (void)self;
    if (!sks_check_nargs("skin", nargs, 7)) return NULL;
    normals_obj = args[5];
    normals_out_obj = args[6];
    has_normals = normals_obj != Py_None;
    if (parse_mesh(&s, args) < 0) goto fail;
    if (has_normals) {
        s.normals = sks_as_float32(normals_obj, "normals");
        if (s.normals == NULL) goto fail;
        if (PyArray_NDIM(s.normals) != PyArray_NDIM(s.positions) ||
            memcmp(PyArray_DIMS(s.normals), PyArray_DIMS(s.positions),
                   PyArray_NDIM(s.positions) * sizeof(npy_intp))) {
            char want[128], got[128];
            sks_format_shape(want, sizeof want, PyArray_NDIM(s.positions), PyArray_DIMS(s.positions));
            sks_format_shape(got, sizeof got, PyArray_NDIM(s.normals), PyArray_DIMS(s.normals));
            PyErr_Format(PyExc_ValueError, "normals: expected shape %s (the shape of positions), "
                         "got %s", want, got);
            goto fail;
        }
    } else if (normals_out_obj != Py_None) {
        PyErr_SetString(PyExc_ValueError,
                        "normals_out: expected None when normals is None (nothing to write)");
        goto fail;
    }
    ops[0] = s.positions;
    ops[1] = s.palette;
    if (sks_broadcast_leading(&bc, 2, ops, names, trailing) < 0) goto fail;
    memcpy(shape, bc.out_shape, bc.out_ndim * sizeof(npy_intp));
    shape[bc.out_ndim] = PyArray_DIM(s.positions, PyArray_NDIM(s.positions) - 2);
    shape[bc.out_ndim + 1] = 3;
    s.out = sks_prepare_out(args[4], "out", bc.out_ndim + 2, shape);
    if (s.out == NULL) goto fail;
    if (sks_check_overlap(s.out, "out", s.positions, "positions", 1) < 0 ||
        sks_check_overlap(s.out, "out", s.weights, "weights", 0) < 0 ||
        sks_check_overlap(s.out, "out", s.palette, "palette", 0) < 0 ||
        sks_check_overlap(s.out, "out", s.indices, "joint_indices", 0) < 0)
        goto fail;
    if (has_normals) {
        s.normals_out = sks_prepare_out(normals_out_obj, "normals_out", bc.out_ndim + 2, shape);
        if (s.normals_out == NULL) goto fail;
        if (sks_check_overlap(s.out, "out", s.normals, "normals", 0) < 0 ||
            sks_check_overlap(s.normals_out, "normals_out", s.normals, "normals", 1) < 0 ||
            sks_check_overlap(s.normals_out, "normals_out", s.out, "out", 0) < 0 ||
            sks_check_overlap(s.normals_out, "normals_out", s.positions, "positions", 0) < 0 ||
            sks_check_overlap(s.normals_out, "normals_out", s.weights, "weights", 0) < 0 ||
            sks_check_overlap(s.normals_out, "normals_out", s.palette, "palette", 0) < 0 ||
            sks_check_overlap(s.normals_out, "normals_out", s.indices, "joint_indices", 0) < 0)
            goto fail;
    }
    if (PyArray_SIZE(s.out) > 0) {
        const sks_skinning_kernels *k = &sks_skinning_variants[sks_active_isa];
        const npy_intp inner = sks_broadcast_inner(&bc), outer = sks_broadcast_outer(&bc);
        const npy_intp vertices = PyArray_DIM(s.indices, 0), influences = PyArray_DIM(s.indices, 1);
        const npy_intp joints = PyArray_DIM(s.palette, PyArray_NDIM(s.palette) - 3);
        const size_t mesh = (size_t)vertices * 3, pal = (size_t)joints * 12;
        float *op = (float *)PyArray_DATA(s.out);
        float *on = has_normals ? (float *)PyArray_DATA(s.normals_out) : NULL;
        const float *p = (const float *)PyArray_DATA(s.positions);
        const float *n = has_normals ? (const float *)PyArray_DATA(s.normals) : NULL;
        const int32_t *idx = (const int32_t *)PyArray_DATA(s.indices);
        const float *w = (const float *)PyArray_DATA(s.weights);
        const float *palette = (const float *)PyArray_DATA(s.palette);
        npy_intp it, i;
        if (scratch_alloc(&scratch, SKS_SKIN_SCRATCH_FLOATS(joints)) < 0) goto fail;
        Py_BEGIN_ALLOW_THREADS
        for (it = 0; it < outer; it++) {
            npy_intp off[2], step[2];
            sks_broadcast_offsets(&bc, it, off, step);
            for (i = 0; i < inner; i++) {
                const size_t dst = (size_t)(it * inner + i) * mesh;
                const size_t src = (size_t)(off[0] + i * step[0]) * mesh;
                k->skin(op + dst, on ? on + dst : NULL, p + src, n ? n + src : NULL, idx, w,
                        (size_t)vertices, (size_t)influences,
                        palette + (size_t)(off[1] + i * step[1]) * pal, (size_t)joints,
                        scratch.data);
            }
        }
        Py_END_ALLOW_THREADS
        PyMem_Free(scratch.raw);
    }
    {
        PyObject *result;
        if (has_normals) {
            result = PyTuple_Pack(2, (PyObject *)s.out, (PyObject *)s.normals_out);
        } else {
            result = (PyObject *)s.out;
            Py_INCREF(result);
        }
        skin_args_release(&s);
        return result;
    }
fail:
    skin_args_release(&s);
    return NULL;
}

static PyObject *py_normalize_weights(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    PyArrayObject *w = NULL, *out = NULL;
    (void)self;
    if (!sks_check_nargs("normalize_weights", nargs, 2)) return NULL;
    w = sks_as_float32(args[0], "weights");
    if (w == NULL) goto fail;
    if (sks_check_shape(w, "weights", 1, NULL, 0, "(..., K)") < 0) goto fail;
    out = sks_prepare_out(args[1], "out", PyArray_NDIM(w), PyArray_DIMS(w));
    if (out == NULL) goto fail;
    if (sks_check_overlap(out, "out", w, "weights", 1) < 0) goto fail;
    {
        const sks_skinning_kernels *k = &sks_skinning_variants[sks_active_isa];
        const npy_intp influences = PyArray_DIM(w, PyArray_NDIM(w) - 1);
        const npy_intp rows = influences ? PyArray_SIZE(w) / influences : 0;
        float *o = (float *)PyArray_DATA(out);
        const float *x = (const float *)PyArray_DATA(w);
        Py_BEGIN_ALLOW_THREADS
        k->normalize_weights(o, x, (size_t)rows, (size_t)influences);
        Py_END_ALLOW_THREADS
    }
    Py_DECREF(w);
    return (PyObject *)out;
fail:
    Py_XDECREF(w);
    Py_XDECREF(out);
    return NULL;
}

PyMethodDef sks_skinning_methods[] = {
    {"skinning_palette", (PyCFunction)(void (*)(void))py_skinning_palette, METH_FASTCALL,
     "skinning_palette(local, parents, inverse_bind, out): see skelsimd.skinning_palette"},
    {"skin", (PyCFunction)(void (*)(void))py_skin, METH_FASTCALL,
     "skin(positions, joint_indices, weights, palette, out, normals, normals_out): see "
     "skelsimd.skin"},
    {"normalize_weights", (PyCFunction)(void (*)(void))py_normalize_weights, METH_FASTCALL,
     "normalize_weights(weights, out): see skelsimd.normalize_weights"},
    {NULL, NULL, 0, NULL}};
