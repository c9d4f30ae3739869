/*
 * joints.c (glue) -- Python entry points of the joint-matrix family. The public wrappers with
 * their documentation are in skelsimd/joints.py; kernels in src/kernels/joints.c.
 *
 * Positional arguments only (the Python wrappers forward keywords):
 *   local_to_global(local, parents, out, start, stop)
 *   global_to_local(global_, parents, out, start, stop, rigid)
 *   multiply_joints(a, b, out)
 *   invert_joints(m, out, rigid)
 */
#include "args.h"

#include "../kernels/joints.h"

static const npy_intp joint_shape[2] = {3, 4};

/* Shared by local_to_global and global_to_local: validates (pose batch, parents, range, out),
 * then runs `walk` with the GIL released. Joints outside [start, stop) of a freshly allocated
 * out are copies of the input; a caller's out keeps its values there. */
static PyObject *hierarchy_call(PyObject *const *args, const char *in_name, int is_inverse,
                                int rigid)
{
    PyArrayObject *in = NULL, *out = NULL;
    sks_parents parents = {NULL, NULL};
    npy_intp start, stop, njoints, batch;
    int ndim;
    PyObject *out_obj = args[2];
    const sks_joints_kernels *k = &sks_joints_variants[sks_active_isa];

    in = sks_as_float32(args[0], in_name);
    if (in == NULL) goto fail;
    if (sks_check_shape(in, in_name, 3, joint_shape, 2, "(..., J, 3, 4)") < 0) goto fail;
    ndim = PyArray_NDIM(in);
    njoints = PyArray_DIM(in, ndim - 3);
    if (sks_parse_parents(args[1], njoints,
                          is_inverse ? "global_.shape[-3]" : "local.shape[-3]", &parents) < 0)
        goto fail;
    if (sks_parse_joint_range(args[3], args[4], njoints, &start, &stop) < 0) goto fail;
    out = sks_prepare_out(out_obj, "out", ndim, PyArray_DIMS(in));
    if (out == NULL) goto fail;
    if (sks_check_overlap(out, "out", in, in_name, 1) < 0) goto fail;
    batch = njoints ? PyArray_SIZE(in) / (njoints * SKS_JOINT_FLOATS) : 0;

    Py_BEGIN_ALLOW_THREADS
    float *o = (float *)PyArray_DATA(out);
    const float *x = (const float *)PyArray_DATA(in);
    if ((out_obj == NULL || out_obj == Py_None) && (start > 0 || stop < njoints)) {
        memcpy(o, x, (size_t)PyArray_NBYTES(in));
    }
    if (batch > 0 && stop > start) {
        if (is_inverse) {
            k->global_to_local(o, x, parents.data, (size_t)batch, (size_t)njoints, (size_t)start,
                               (size_t)stop, rigid);
        } else {
            k->local_to_global(o, x, parents.data, (size_t)batch, (size_t)njoints, (size_t)start,
                               (size_t)stop);
        }
    }
    Py_END_ALLOW_THREADS

    sks_parents_release(&parents);
    Py_DECREF(in);
    return (PyObject *)out;
fail:
    sks_parents_release(&parents);
    Py_XDECREF(in);
    Py_XDECREF(out);
    return NULL;
}

static PyObject *py_local_to_global(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    if (!sks_check_nargs("local_to_global", nargs, 5)) return NULL;
    return hierarchy_call(args, "local", 0, 0);
}

static PyObject *py_global_to_local(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    int rigid;
    (void)self;
    if (!sks_check_nargs("global_to_local", nargs, 6)) return NULL;
    rigid = sks_parse_bool(args[5], "rigid", 0);
    if (rigid < 0) return NULL;
    return hierarchy_call(args, "global_", 1, rigid);
}

static PyObject *py_multiply_joints(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    PyArrayObject *ops[2] = {NULL, NULL}, *out = NULL;
    static const char *const names[2] = {"a", "b"};
    static const int trailing[2] = {2, 2};
    npy_intp shape[NPY_MAXDIMS];
    sks_broadcast bc;
    int i;
    (void)self;
    if (!sks_check_nargs("multiply_joints", nargs, 3)) return NULL;
    for (i = 0; i < 2; i++) {
        ops[i] = sks_as_float32(args[i], names[i]);
        if (ops[i] == NULL) goto fail;
        if (sks_check_shape(ops[i], names[i], 2, joint_shape, 2, "(..., 3, 4)") < 0) goto fail;
    }
    if (sks_broadcast_leading(&bc, 2, ops, names, trailing) < 0) goto fail;
    memcpy(shape, bc.out_shape, bc.out_ndim * sizeof(npy_intp));
    shape[bc.out_ndim] = 3;
    shape[bc.out_ndim + 1] = 4;
    out = sks_prepare_out(args[2], "out", bc.out_ndim + 2, shape);
    if (out == NULL) goto fail;
    for (i = 0; i < 2; i++) {
        if (sks_check_overlap(out, "out", ops[i], names[i], 1) < 0) goto fail;
    }
    {
        const sks_joints_kernels *k = &sks_joints_variants[sks_active_isa];
        const npy_intp inner = sks_broadcast_inner(&bc), outer = sks_broadcast_outer(&bc);
        float *o = (float *)PyArray_DATA(out);
        const float *a = (const float *)PyArray_DATA(ops[0]);
        const float *b = (const float *)PyArray_DATA(ops[1]);
        npy_intp it;
        if (PyArray_SIZE(out) > 0) {
            Py_BEGIN_ALLOW_THREADS
            for (it = 0; it < outer; it++) {
                npy_intp off[2], step[2];
                sks_broadcast_offsets(&bc, it, off, step);
                k->multiply_joints(o + it * inner * SKS_JOINT_FLOATS,
                                   a + off[0] * SKS_JOINT_FLOATS, (size_t)step[0],
                                   b + off[1] * SKS_JOINT_FLOATS, (size_t)step[1], (size_t)inner);
            }
            Py_END_ALLOW_THREADS
        }
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

static PyObject *py_invert_joints(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    PyArrayObject *m = NULL, *out = NULL;
    int rigid;
    (void)self;
    if (!sks_check_nargs("invert_joints", nargs, 3)) return NULL;
    rigid = sks_parse_bool(args[2], "rigid", 0);
    if (rigid < 0) return NULL;
    m = sks_as_float32(args[0], "m");
    if (m == NULL) goto fail;
    if (sks_check_shape(m, "m", 2, joint_shape, 2, "(..., 3, 4)") < 0) goto fail;
    out = sks_prepare_out(args[1], "out", PyArray_NDIM(m), PyArray_DIMS(m));
    if (out == NULL) goto fail;
    if (sks_check_overlap(out, "out", m, "m", 1) < 0) goto fail;
    {
        const sks_joints_kernels *k = &sks_joints_variants[sks_active_isa];
        const size_t n = (size_t)(PyArray_SIZE(m) / SKS_JOINT_FLOATS);
        float *o = (float *)PyArray_DATA(out);
        const float *x = (const float *)PyArray_DATA(m);
        Py_BEGIN_ALLOW_THREADS
        k->invert_joints(o, x, n, rigid);
        Py_END_ALLOW_THREADS
    }
    Py_DECREF(m);
    return (PyObject *)out;
fail:
    Py_XDECREF(m);
    Py_XDECREF(out);
    return NULL;
}

PyMethodDef sks_joints_methods[] = {
    {"local_to_global", (PyCFunction)(void (*)(void))py_local_to_global, METH_FASTCALL,
     "local_to_global(local, parents, out, start, stop): see skelsimd.local_to_global"},
    {"global_to_local", (PyCFunction)(void (*)(void))py_global_to_local, METH_FASTCALL,
     "global_to_local(global_, parents, out, start, stop, rigid): see skelsimd.global_to_local"},
    {"multiply_joints", (PyCFunction)(void (*)(void))py_multiply_joints, METH_FASTCALL,
     "multiply_joints(a, b, out): see skelsimd.multiply_joints"},
    {"invert_joints", (PyCFunction)(void (*)(void))py_invert_joints, METH_FASTCALL,
     "invert_joints(m, out, rigid): see skelsimd.invert_joints"},
    {NULL, NULL, 0, NULL}};
