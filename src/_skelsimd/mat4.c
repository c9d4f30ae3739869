/*
 * mat4.c (glue) -- Python entry points of the 4x4 matrix family. The public wrappers with their
 * documentation are in skelsimd/mat4.py; kernels in src/kernels/mat4.c.
 *
 * Positional arguments only (the Python wrappers forward keywords):
 *   matmul4(a, b, out)
 *   mat4_local_to_global(local, parents, out, start, stop)
 *   transform_points(m, points, out)
 */
#include "args.h"

#include "../kernels/mat4.h"

static const npy_intp mat4_shape[2] = {4, 4};

static PyObject *py_matmul4(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    PyArrayObject *ops[2] = {NULL, NULL}, *out = NULL;
    static const char *const names[2] = {"a", "b"};
    static const int trailing[2] = {2, 2};
    npy_intp shape[NPY_MAXDIMS];
    sks_broadcast bc;
    int i;
    (void)self;
    if (!sks_check_nargs("matmul4", nargs, 3)) return NULL;
    for (i = 0; i < 2; i++) {
        ops[i] = sks_as_float32(args[i], names[i]);
        if (ops[i] == NULL) goto fail;
        if (sks_check_shape(ops[i], names[i], 2, mat4_shape, 2, "(..., 4, 4)") < 0) goto fail;
    }
    if (sks_broadcast_leading(&bc, 2, ops, names, trailing) < 0) goto fail;
    memcpy(shape, bc.out_shape, bc.out_ndim * sizeof(npy_intp));
    shape[bc.out_ndim] = 4;
    shape[bc.out_ndim + 1] = 4;
    out = sks_prepare_out(args[2], "out", bc.out_ndim + 2, shape);
    if (out == NULL) goto fail;
    for (i = 0; i < 2; i++) {
        if (sks_check_overlap(out, "out", ops[i], names[i], 1) < 0) goto fail;
    }
    if (PyArray_SIZE(out) > 0) {
        const sks_mat4_kernels *k = &sks_mat4_variants[sks_active_isa];
        const npy_intp inner = sks_broadcast_inner(&bc), outer = sks_broadcast_outer(&bc);
        float *o = (float *)PyArray_DATA(out);
        const float *a = (const float *)PyArray_DATA(ops[0]);
        const float *b = (const float *)PyArray_DATA(ops[1]);
        npy_intp it;
        Py_BEGIN_ALLOW_THREADS
        for (it = 0; it < outer; it++) {
            npy_intp off[2], step[2];
            sks_broadcast_offsets(&bc, it, off, step);
            k->matmul4(o + it * inner * SKS_MAT4_FLOATS, a + off[0] * SKS_MAT4_FLOATS,
                       (size_t)step[0], b + off[1] * SKS_MAT4_FLOATS, (size_t)step[1],
                       (size_t)inner);
        }
        Py_END_ALLOW_THREADS
    }
    Py_DECREF(ops[0]);
    Py_DECREF(ops[1]);
    return (PyObject *)out;
fail:
    Py_XDECREF(ops[0]);
    Py_XDECREF(ops[1]);
    Py_XDECREF(out);
    return NULL;
}

static PyObject *py_mat4_local_to_global(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    sks_walk_args w;
    PyObject *result;
    (void)self;
    if (!sks_check_nargs("mat4_local_to_global", nargs, 5)) return NULL;
    if (sks_parse_walk(&w, args, "local", mat4_shape, 2, "(..., J, 4, 4)") < 0) return NULL;
    {
        const sks_mat4_kernels *k = &sks_mat4_variants[sks_active_isa];
        float *o = (float *)PyArray_DATA(w.out);
        const float *x = (const float *)PyArray_DATA(w.in);
        Py_BEGIN_ALLOW_THREADS
        if (w.out_is_new && (w.start > 0 || w.stop < w.joints)) {
            memcpy(o, x, (size_t)PyArray_NBYTES(w.in));
        }
        if (w.batch > 0 && w.stop > w.start) {
            k->mat4_local_to_global(o, x, w.parents.data, (size_t)w.batch, (size_t)w.joints,
                                    (size_t)w.start, (size_t)w.stop);
        }
        Py_END_ALLOW_THREADS
    }
    result = (PyObject *)w.out;
    w.out = NULL;
    sks_walk_args_release(&w);
    return result;
}

static PyObject *py_transform_points(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    PyArrayObject *ops[2] = {NULL, NULL}, *out = NULL;
    static const char *const names[2] = {"m", "points"};
    static const int trailing[2] = {2, 1};
    static const npy_intp point_shape[1] = {3};
    npy_intp shape[NPY_MAXDIMS], rows;
    sks_broadcast bc;
    int i;
    (void)self;
    if (!sks_check_nargs("transform_points", nargs, 3)) return NULL;
    ops[0] = sks_as_float32(args[0], "m");
    if (ops[0] == NULL) goto fail;
    {
        const int nd = PyArray_NDIM(ops[0]);
        rows = nd >= 2 ? PyArray_DIM(ops[0], nd - 2) : 0;
        if (nd < 2 || PyArray_DIM(ops[0], nd - 1) != 4 || (rows != 3 && rows != 4)) {
            static const npy_intp joint_shape[2] = {3, 4};
            sks_check_shape(ops[0], "m", 2, joint_shape, 2, "(..., 3, 4) or (..., 4, 4)");
            goto fail;
        }
    }
    ops[1] = sks_as_float32(args[1], "points");
    if (ops[1] == NULL) goto fail;
    if (sks_check_shape(ops[1], "points", 1, point_shape, 1, "(..., 3)") < 0) goto fail;
    if (sks_broadcast_leading(&bc, 2, ops, names, trailing) < 0) goto fail;
    memcpy(shape, bc.out_shape, bc.out_ndim * sizeof(npy_intp));
    shape[bc.out_ndim] = 3;
    out = sks_prepare_out(args[2], "out", bc.out_ndim + 1, shape);
    if (out == NULL) goto fail;
    if (sks_check_overlap(out, "out", ops[0], "m", 0) < 0) goto fail;
    if (sks_check_overlap(out, "out", ops[1], "points", 1) < 0) goto fail;
    if (PyArray_SIZE(out) > 0) {
        const sks_mat4_kernels *k = &sks_mat4_variants[sks_active_isa];
        const npy_intp inner = sks_broadcast_inner(&bc), outer = sks_broadcast_outer(&bc);
        const npy_intp mfloats = 4 * rows;
        float *o = (float *)PyArray_DATA(out);
        const float *m = (const float *)PyArray_DATA(ops[0]);
        const float *p = (const float *)PyArray_DATA(ops[1]);
        npy_intp it;
        Py_BEGIN_ALLOW_THREADS
        for (it = 0; it < outer; it++) {
            npy_intp off[2], step[2];
            sks_broadcast_offsets(&bc, it, off, step);
            k->transform_points(o + it * inner * 3, m + off[0] * mfloats, (size_t)step[0],
                                (size_t)rows, p + off[1] * 3, (size_t)step[1], (size_t)inner);
        }
        Py_END_ALLOW_THREADS
    }
    for (i = 0; i < 2; i++) Py_DECREF(ops[i]);
    return (PyObject *)out;
fail:
    Py_XDECREF(ops[0]);
    Py_XDECREF(ops[1]);
    Py_XDECREF(out);
    return NULL;
}

PyMethodDef sks_mat4_methods[] = {
    {"matmul4", (PyCFunction)(void (*)(void))py_matmul4, METH_FASTCALL,
     "matmul4(a, b, out): see skelsimd.matmul4"},
    {"mat4_local_to_global", (PyCFunction)(void (*)(void))py_mat4_local_to_global, METH_FASTCALL,
     "mat4_local_to_global(local, parents, out, start, stop): see skelsimd.mat4_local_to_global"},
    {"transform_points", (PyCFunction)(void (*)(void))py_transform_points, METH_FASTCALL,
     "transform_points(m, points, out): see skelsimd.transform_points"},
    {NULL, NULL, 0, NULL}};
