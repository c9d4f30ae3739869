/*
 * mm.c (glue) -- Python entry point of the motion-matching search. The public class with its
 * documentation is skelsimd.MotionDatabase (skelsimd/motion_matching.py), which builds the
 * layout described in src/kernels/mm.h; the kernel is in src/kernels/mm.c.
 *
 * Positional arguments only:
 *   mm_search(rows, small_lo, small_hi, large_lo, large_hi, n, queries, ranges, offsets, prune)
 *             name)
 *     -> (index int64 (Q,), cost float64 (Q,))
 *   rows (4 L, D, 16), small_* (L, D, 4), large_* (ceil(L / 16), D, 16) float32 with
 *   L = ceil(n / 64); queries (Q, D) finite with |x| <= 1e15; ranges None or int64 (R, 2);
 *   offsets None or int64 (Q + 1,) nondecreasing from 0 to R (query k: ranges offsets[k] ..
 *   offsets[k + 1] - 1); name None, or the str naming a single query (Q = 1) in messages.
 */
#include "args.h"

#include <math.h>
#include <stdio.h>

#include "../kernels/mm.h"

static PyArrayObject *as_int64(PyObject *obj, const char *name)
{
    PyArrayObject *a = (PyArrayObject *)PyArray_FROMANY(obj, NPY_INT64, 0, 0,
                                                       NPY_ARRAY_IN_ARRAY | NPY_ARRAY_FORCECAST);
    if (a == NULL) return NULL;
    (void)name;
    return a;
}

static int check_dims(PyArrayObject *a, const char *name, npy_intp d0, npy_intp d1, npy_intp d2)
{
    if (PyArray_NDIM(a) != 3 || PyArray_DIM(a, 0) != d0 || PyArray_DIM(a, 1) != d1 ||
        PyArray_DIM(a, 2) != d2) {
        char got[256];
        sks_format_shape(got, sizeof got, PyArray_NDIM(a), PyArray_DIMS(a));
        PyErr_Format(PyExc_ValueError, "%s: expected shape (%ld, %ld, %ld), got %s", name,
                     (long)d0, (long)d1, (long)d2, got);
        return -1;
    }
    return 0;
}

/* A search divided over the pool by queries: each chunk answers its queries (their rows of
 * offsets index the one ranges array). */
typedef struct search_job {
    const sks_mm_kernels *k;
    const sks_mm_db *db;
    const float *queries;
    const int64_t *ranges, *offsets;
    int prune;
    int64_t *index;
    double *cost;
} search_job;

static void search_chunk(void *ctx, size_t begin, size_t end, size_t slot)
{
    const search_job *j = (const search_job *)ctx;
    (void)slot;
    j->k->search(j->db, j->queries + begin * j->db->dim, end - begin, j->ranges,
                 j->offsets ? j->offsets + begin : NULL, j->prune, j->index + begin,
                 j->cost + begin);
}

static PyObject *py_mm_search(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    static const char *const names[5] = {"rows", "small_lo", "small_hi", "large_lo", "large_hi"};
    PyArrayObject *a[5] = {NULL, NULL, NULL, NULL, NULL}, *q = NULL, *ranges = NULL,
                  *offsets = NULL, *index = NULL, *cost = NULL;
    PyObject *result = NULL;
    npy_intp n, dim, nlarge, ngroups, nq, nr = 0, i;
    int prune;
    (void)self;
    if (!sks_check_nargs("mm_search", nargs, 11)) return NULL;
    for (i = 0; i < 5; i++) {
        a[i] = sks_as_float32(args[i], names[i]);
        if (a[i] == NULL) goto done;
    }
    n = PyLong_AsSsize_t(args[5]);
    if (n == -1 && PyErr_Occurred()) goto done;
    if (n < 1) {
        PyErr_Format(PyExc_ValueError, "n: expected at least one row, got %ld", (long)n);
        goto done;
    }
    if (PyArray_NDIM(a[0]) != 3 || PyArray_DIM(a[0], 1) < 1) {
        PyErr_SetString(PyExc_ValueError, "rows: expected shape (blocks, D, 16) with D >= 1");
        goto done;
    }
    dim = PyArray_DIM(a[0], 1);
    nlarge = (n + 63) / 64;
    ngroups = (nlarge + 15) / 16;
    if (check_dims(a[0], "rows", 4 * nlarge, dim, 16) < 0 ||
        check_dims(a[1], "small_lo", nlarge, dim, 4) < 0 ||
        check_dims(a[2], "small_hi", nlarge, dim, 4) < 0 ||
        check_dims(a[3], "large_lo", ngroups, dim, 16) < 0 ||
        check_dims(a[4], "large_hi", ngroups, dim, 16) < 0)
        goto done;
    q = sks_as_float32(args[6], PyUnicode_Check(args[10]) ? PyUnicode_AsUTF8(args[10]) : "queries");
    if (q == NULL) goto done;
    if (PyArray_NDIM(q) != 2 || PyArray_DIM(q, 1) != dim) {
        char got[256];
        sks_format_shape(got, sizeof got, PyArray_NDIM(q), PyArray_DIMS(q));
        PyErr_Format(PyExc_ValueError, "queries: expected shape (Q, %ld), got %s", (long)dim, got);
        goto done;
    }
    nq = PyArray_DIM(q, 0);
    {
        const float *x = (const float *)PyArray_DATA(q);
        for (i = 0; i < nq * dim; i++) {
            if (!(fabsf(x[i]) <= 1e15f)) {
                char val[64];
                snprintf(val, sizeof val, "%g", (double)x[i]);
                if (PyUnicode_Check(args[10]))
                    PyErr_Format(PyExc_ValueError, "%U[%ld]: expected a finite value of magnitude "
                                 "<= 1e15, got %s", args[10], (long)(i % dim), val);
                else
                    PyErr_Format(PyExc_ValueError, "queries[%ld, %ld]: expected a finite value of "
                                 "magnitude <= 1e15, got %s", (long)(i / dim), (long)(i % dim), val);
                goto done;
            }
        }
    }
    if ((args[7] == Py_None) != (args[8] == Py_None)) {
        PyErr_SetString(PyExc_ValueError, "ranges and offsets: expected both or neither");
        goto done;
    }
    if (args[7] != Py_None) {
        const int64_t *o;
        ranges = as_int64(args[7], "ranges");
        if (ranges == NULL) goto done;
        offsets = as_int64(args[8], "offsets");
        if (offsets == NULL) goto done;
        if (PyArray_NDIM(ranges) != 2 || PyArray_DIM(ranges, 1) != 2) {
            PyErr_SetString(PyExc_ValueError, "ranges: expected shape (R, 2)");
            goto done;
        }
        nr = PyArray_DIM(ranges, 0);
        if (PyArray_NDIM(offsets) != 1 || PyArray_DIM(offsets, 0) != nq + 1) {
            PyErr_Format(PyExc_ValueError, "offsets: expected shape (%ld,)", (long)(nq + 1));
            goto done;
        }
        o = (const int64_t *)PyArray_DATA(offsets);
        if (o[0] != 0 || o[nq] != nr) goto bad_offsets;
        for (i = 0; i < nq; i++)
            if (o[i + 1] < o[i]) goto bad_offsets;
    }
    prune = PyObject_IsTrue(args[9]);
    if (prune < 0) goto done;
    index = (PyArrayObject *)PyArray_SimpleNew(1, &nq, NPY_INT64);
    cost = (PyArrayObject *)PyArray_SimpleNew(1, &nq, NPY_FLOAT64);
    if (index == NULL || cost == NULL) goto done;
    {
        const sks_mm_kernels *k = SKS_KERNELS(mm);
        sks_mm_db db;
        const float *qd = (const float *)PyArray_DATA(q);
        const int64_t *rd = ranges ? (const int64_t *)PyArray_DATA(ranges) : NULL;
        const int64_t *od = offsets ? (const int64_t *)PyArray_DATA(offsets) : NULL;
        int64_t *id = (int64_t *)PyArray_DATA(index);
        double *cd = (double *)PyArray_DATA(cost);
        db.rows = (const float *)PyArray_DATA(a[0]);
        db.small_lo = (const float *)PyArray_DATA(a[1]);
        db.small_hi = (const float *)PyArray_DATA(a[2]);
        db.large_lo = (const float *)PyArray_DATA(a[3]);
        db.large_hi = (const float *)PyArray_DATA(a[4]);
        db.n = (size_t)n;
        db.dim = (size_t)dim;
        db.nlarge = (size_t)nlarge;
        search_job j;
        j.k = k;
        j.db = &db;
        j.queries = qd;
        j.ranges = rd;
        j.offsets = od;
        j.prune = prune;
        j.index = id;
        j.cost = cd;
        Py_BEGIN_ALLOW_THREADS
        sks_parallel_for((size_t)nq, SKS_NS_SEARCH_ROW * (double)n * (double)dim, search_chunk, &j);
        Py_END_ALLOW_THREADS
    }
    result = PyTuple_Pack(2, (PyObject *)index, (PyObject *)cost);
    goto done;
bad_offsets:
    PyErr_SetString(PyExc_ValueError, "offsets: expected nondecreasing values from 0 to len(ranges)");
done:
    for (i = 0; i < 5; i++) Py_XDECREF(a[i]);
    Py_XDECREF(q);
    Py_XDECREF(ranges);
    Py_XDECREF(offsets);
    Py_XDECREF(index);
    Py_XDECREF(cost);
    return result;
}

PyMethodDef sks_mm_methods[] = {
    {"mm_search", (PyCFunction)(void (*)(void))py_mm_search, METH_FASTCALL,
     "mm_search(rows, small_lo, small_hi, large_lo, large_hi, n, queries, ranges, offsets, "
     "prune, name): see skelsimd.MotionDatabase.search"},
    {NULL, NULL, 0, NULL}};
