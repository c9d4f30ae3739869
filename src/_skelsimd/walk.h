/*
 * walk.h -- the validated arguments of a hierarchy walk over a pose batch; in walk.c.
 */
#ifndef SKS_WALK_H
#define SKS_WALK_H

#include "glue.h"
#include "hierarchy.h"

/* The validated arguments of a hierarchy walk over a pose batch (..., J, <block>): the input as
 * float32, its parents, the joint range [start, stop) and `out` (allocated when None, else
 * checked; exactly the input is allowed, for in-place walks). */
typedef struct sks_walk_args {
    PyArrayObject *in, *out;    /* new references */
    sks_parents parents;
    npy_intp joints, batch;     /* J, and the number of skeletons (product of leading dims) */
    npy_intp start, stop;
    int out_is_new;             /* out was None: freshly allocated, uninitialised */
} sks_walk_args;

/* Parses (in_obj, parents_obj, out_obj, start_obj, stop_obj) for a walk whose joints are
 * blocks of shape `block` (block_ndim dims, e.g. {3, 4}); `layout` is the expected input shape
 * for messages, e.g. "(..., J, 3, 4)". On failure everything is released and -1 returned. */
int sks_parse_walk(sks_walk_args *w, PyObject *const *args, const char *in_name,
                   const npy_intp *block, int block_ndim, const char *layout);
void sks_walk_args_release(sks_walk_args *w);

/* The scratch of a float64 walk: `doubles` doubles from PyMem_RawMalloc (the caller frees it
 * with PyMem_RawFree after the kernel), or NULL with MemoryError set and `w` released. */
double *sks_walk_scratch(sks_walk_args *w, size_t doubles);

/* With out=None and a partial range, joints outside [start, stop) start as copies of the input,
 * so the result is a copy there (no Python calls: may run with the GIL released). */
void sks_walk_prefill(const sks_walk_args *w);

/* Releases the arguments and returns out (a new reference). */
PyObject *sks_walk_finish(sks_walk_args *w);

#endif /* SKS_WALK_H */
