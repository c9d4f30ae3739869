/*
 * walk.c -- the arguments of a hierarchy walk (see walk.h).
 */
#include "args.h"

#include <string.h>

int sks_parse_walk(sks_walk_args *w, PyObject *const *args, const char *in_name,
                   const npy_intp *block, int block_ndim, const char *layout)
{
    char joints_from[64];
    npy_intp block_size = 1;
    int ndim, d;
    memset(w, 0, sizeof *w);
    w->in = sks_as_float32(args[0], in_name);
    if (w->in == NULL) goto fail;
    if (sks_check_shape(w->in, in_name, block_ndim + 1, block, block_ndim, layout) < 0) goto fail;
    ndim = PyArray_NDIM(w->in);
    w->joints = PyArray_DIM(w->in, ndim - block_ndim - 1);
    {
        /* "<in_name>.shape[-<block_ndim + 1>]" for the parents message, built without snprintf:
         * it runs on every call and snprintf alone cost about 100 ns of a 500 ns call. */
        size_t n = strlen(in_name);
        if (n > sizeof joints_from - 12) n = sizeof joints_from - 12;
        memcpy(joints_from, in_name, n);
        memcpy(joints_from + n, ".shape[-", 8);
        joints_from[n + 8] = (char)('0' + (block_ndim + 1) % 10);
        joints_from[n + 9] = ']';
        joints_from[n + 10] = '\0';
    }
    if (sks_parse_parents(args[1], w->joints, joints_from, &w->parents) < 0) goto fail;
    if (sks_parse_joint_range(args[3], args[4], w->joints, &w->start, &w->stop) < 0) goto fail;
    w->out_is_new = args[2] == NULL || args[2] == Py_None;
    w->out = sks_prepare_out(args[2], "out", ndim, PyArray_DIMS(w->in));
    if (w->out == NULL) goto fail;
    if (sks_check_overlap(w->out, "out", w->in, in_name, 1) < 0) goto fail;
    for (d = 0; d < block_ndim; d++) block_size *= block[d];
    w->batch = w->joints ? PyArray_SIZE(w->in) / (w->joints * block_size) : 0;
    return 0;
fail:
    sks_walk_args_release(w);
    return -1;
}

void sks_walk_prefill(const sks_walk_args *w)
{
    if (w->out_is_new && (w->start > 0 || w->stop < w->joints)) {
        memcpy(PyArray_DATA(w->out), PyArray_DATA(w->in), (size_t)PyArray_NBYTES(w->in));
    }
}

PyObject *sks_walk_finish(sks_walk_args *w)
{
    PyObject *result = (PyObject *)w->out;
    w->out = NULL;
    sks_walk_args_release(w);
    return result;
}

void sks_walk_args_release(sks_walk_args *w)
{
    sks_parents_release(&w->parents);
    Py_CLEAR(w->in);
    Py_CLEAR(w->out);
}

double *sks_walk_scratch(sks_walk_args *w, size_t doubles)
{
    double *scratch = (double *)PyMem_RawMalloc(doubles * sizeof(double));
    if (scratch == NULL) {
        sks_walk_args_release(w);
        PyErr_NoMemory();
    }
    return scratch;
}
