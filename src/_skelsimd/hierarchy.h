/*
 * hierarchy.h -- parents arrays, Skeletons and index subsets, validated into private copies the
 * kernels read; in hierarchy.c (the Skeleton type itself is in skeleton.c).
 */
#ifndef SKS_HIERARCHY_H
#define SKS_HIERARCHY_H

#include "glue.h"

typedef struct sks_parents {
    const int32_t *data;     /* `count` validated indices */
    PyArrayObject *holder;   /* a Skeleton's immutable parents (new reference) or NULL */
    int32_t *owned;          /* the private copy `data` points to (PyMem), or NULL */
    npy_intp count;
} sks_parents;

/* Validates obj as the parents array of `njoints` joints: a 1-D integer array (list, tuple or
 * ndarray of any integer dtype) with -1 <= parents[j] < j. `joints_from` names where J came
 * from, for the message (e.g. "local.shape[-3]"). njoints < 0 accepts any length.
 *
 * Thread safety: the kernels run with the GIL released, so another thread may change the
 * caller's array while they read it. Every value is therefore read once, into a private int32
 * copy (out->owned), and the copy is what is validated and what the kernel reads: a concurrent
 * change is either seen before the copy (and validated) or not at all. About 20 ns on a
 * 96-joint int32 array.
 *
 * A skelsimd.Skeleton (an instance of sks_skeleton_type) is accepted without re-validation and
 * without a copy: its parents were validated when it was built and live in an immutable bytes
 * object (not writeable, and NumPy refuses to make a view of it writeable), the joint count is
 * a C field no Python code can set, and out->holder keeps the array alive for the call. So only
 * its joint count is checked and its cached int32 array is used (a pointer read: per-call cost
 * ~0). */
int sks_parse_parents(PyObject *obj, npy_intp njoints, const char *joints_from, sks_parents *out);
void sks_parents_release(sks_parents *p);

/* The C base of skelsimd.Skeleton (type in skeleton.c): a validated, read-only, C-contiguous
 * int32 parents array (its memory belongs to an immutable bytes object, so NumPy refuses to
 * make it writeable again) and its length. */
typedef struct sks_skeleton_object {
    PyObject_HEAD
    PyArrayObject *parents;
    npy_intp njoints;
} sks_skeleton_object;

extern PyTypeObject sks_skeleton_type;

/* Its methods local_to_global and global_to_local (the joint family's walks, in joints.c). */
extern PyMethodDef sks_skeleton_walk_methods[];

/* An index array into n items: a 1-D integer array (list, tuple or ndarray) of distinct values
 * 0 <= index[k] < n, in any order; `n_from` names where n came from (e.g. "joints.shape[-2]").
 * TypeError for a non-integer dtype, ValueError naming the first out-of-range or repeated entry.
 * Gives out->count int32 indices in a private copy (out->owned, validated after copying, as for
 * parents; release with sks_parents_release). */
int sks_parse_indices(PyObject *obj, const char *name, npy_intp n, const char *n_from,
                      sks_parents *out);

#endif /* SKS_HIERARCHY_H */
