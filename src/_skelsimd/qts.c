/*
 * qts.c (glue) -- Python entry points of the QTS hierarchy walks. The public wrappers with their
 * documentation are in skelsimd/qts.py; kernels in src/kernels/qts.c.
 *
 * Positional arguments only (the Python wrappers forward keywords):
 *   qts_local_to_global(local, parents, out, start, stop, precision)
 *   qts_local_to_global_matrix(local, parents, out, start, stop, precision)
 */
#include "args.h"

#include "../kernels/qts.h"
#include "../kernels/quat.h"

/* The precision of the global poses carried down the hierarchy (the output is float32). */
static const char *const precisions[] = {"float32", "float64", NULL};

/* A walk divided over the pool by characters: skeletons [begin, end) per chunk, each slot with
 * its own scratch (slot_size floats, or doubles for the float64 walk). */
typedef struct qts_job {
    const sks_qts_kernels *k;
    int matrix;
    const int32_t *parents;
    size_t joints, start, stop, batch, slot_size;
    float *o, *scratch;
    const float *x;
    double *scratch64;
} qts_job;

static void qts_chunk(void *ctx, size_t begin, size_t end, size_t slot)
{
    const qts_job *j = (const qts_job *)ctx;
    float *o = j->o + begin * j->joints * (j->matrix ? 12 : 8);
    const float *x = j->x + begin * j->joints * 8;
    if (j->scratch != NULL) {
        (j->matrix ? j->k->local_to_global_matrix : j->k->local_to_global)(
            o, x, j->parents, end - begin, j->joints, j->start, j->stop,
            j->scratch + slot * j->slot_size);
    } else {
        (j->matrix ? j->k->local_to_global_matrix_f64 : j->k->local_to_global_f64)(
            o, x, j->parents, end - begin, j->joints, j->start, j->stop,
            j->scratch64 + slot * j->slot_size);
    }
}

/* Validates (local (..., J, 8), parents, range, out, precision), then runs the walk with the GIL
 * released. matrix: out is (..., J, 3, 4) (never in place); otherwise (..., J, 8) and out may be
 * local. With out=None and a partial range, the joints outside it start as copies of local (as
 * matrices: qts_to_matrix(local)), and parents before start are read from there. precision
 * "float64": the float64-accumulating walk with a float64 scratch (PyMem_RawMalloc, allocated
 * before the GIL is released). */
static PyObject *walk_call(PyObject *const *args, int matrix)
{
    static const npy_intp qts = 8;
    PyArrayObject *in = NULL, *out = NULL;
    sks_parents parents = {NULL, NULL, NULL, 0};
    npy_intp start, stop, njoints, shape[NPY_MAXDIMS];
    float *scratch = NULL;
    double *scratch64 = NULL;
    int ndim, d, precision64;
    PyObject *out_obj = args[2];
    precision64 = sks_parse_choice(args[5], "precision", precisions, 0);
    if (precision64 < 0) return NULL;
    in = sks_as_float32(args[0], "local");
    if (in == NULL) goto fail;
    if (sks_check_shape(in, "local", 2, &qts, 1, "(..., J, 8)") < 0) goto fail;
    ndim = PyArray_NDIM(in);
    njoints = PyArray_DIM(in, ndim - 2);
    if (sks_parse_parents(args[1], njoints, "local.shape[-2]", &parents) < 0) goto fail;
    if (sks_parse_joint_range(args[3], args[4], njoints, &start, &stop) < 0) goto fail;
    if (sks_check_rank(matrix ? ndim + 1 : ndim, "local") < 0) goto fail;
    for (d = 0; d < ndim - 1; d++) shape[d] = PyArray_DIM(in, d);
    if (matrix) {
        shape[ndim - 1] = 3;
        shape[ndim] = 4;
    } else {
        shape[ndim - 1] = 8;
    }
    out = sks_prepare_out(out_obj, "out", matrix ? ndim + 1 : ndim, shape);
    if (out == NULL) goto fail;
    if (sks_check_overlap(out, "out", in, "local", !matrix) < 0) goto fail;
    {
        qts_job j;
        sks_pool_plan plan;
        const int fresh = out_obj == NULL || out_obj == Py_None;
        j.k = SKS_KERNELS(qts);
        j.matrix = matrix;
        j.parents = parents.data;
        j.joints = (size_t)njoints;
        j.start = (size_t)start;
        j.stop = (size_t)stop;
        j.batch = njoints ? (size_t)(PyArray_SIZE(in) / (njoints * 8)) : 0;
        j.o = (float *)PyArray_DATA(out);
        j.x = (const float *)PyArray_DATA(in);
        j.scratch = NULL;
        j.scratch64 = NULL;
        plan = sks_parallel_plan(j.batch, SKS_NS_WALK_JOINT * (double)(stop - start));
        if (PyArray_SIZE(out) > 0 && stop > start && precision64) {
            j.slot_size = sks_qts_f64_scratch_doubles((size_t)stop);
            scratch64 = (double *)PyMem_RawMalloc(plan.slots * j.slot_size * sizeof(double));
            if (scratch64 == NULL) {
                PyErr_NoMemory();
                goto fail;
            }
            j.scratch64 = scratch64;
        } else if (PyArray_SIZE(out) > 0 && stop > start) {
            j.slot_size = sks_qts_scratch_floats((size_t)njoints);
            scratch = (float *)PyMem_Malloc(plan.slots * j.slot_size * sizeof(float));
            if (scratch == NULL) {
                PyErr_NoMemory();
                goto fail;
            }
            j.scratch = scratch;
        }
        Py_BEGIN_ALLOW_THREADS
        if (fresh && (start > 0 || stop < njoints)) {
            if (matrix) {
                SKS_KERNELS(quat)->qts_to_matrix(j.o, j.x, j.batch * (size_t)njoints);
            } else {
                memcpy(j.o, j.x, (size_t)PyArray_NBYTES(in));
            }
        }
        if (scratch != NULL || scratch64 != NULL) sks_pool_run(&plan, qts_chunk, &j);
        Py_END_ALLOW_THREADS
    }
    PyMem_Free(scratch);
    PyMem_RawFree(scratch64);
    sks_parents_release(&parents);
    Py_DECREF(in);
    return (PyObject *)out;
fail:
    PyMem_Free(scratch);
    PyMem_RawFree(scratch64);
    sks_parents_release(&parents);
    Py_XDECREF(in);
    Py_XDECREF(out);
    return NULL;
}

static PyObject *py_qts_local_to_global(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    if (!sks_check_nargs("qts_local_to_global", nargs, 6)) return NULL;
    return walk_call(args, 0);
}

static PyObject *py_qts_local_to_global_matrix(PyObject *self, PyObject *const *args,
                                               Py_ssize_t nargs)
{
    (void)self;
    if (!sks_check_nargs("qts_local_to_global_matrix", nargs, 6)) return NULL;
    return walk_call(args, 1);
}

PyMethodDef sks_qts_methods[] = {
    SKS_METHOD(qts_local_to_global, "(local, parents, out, start, stop, precision)"),
    SKS_METHOD(qts_local_to_global_matrix, "(local, parents, out, start, stop, precision)"),
    {NULL, NULL, 0, NULL}};
