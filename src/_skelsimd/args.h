/*
 * args.h -- the shared CPython/NumPy glue toolkit every kernel family's glue includes: one
 * header per concern, each with its source file of the same name.
 *
 *   glue.h       Python, NumPy's C API, the active variant, sks_add_type
 *   parsing.h    plain arguments: counts, truth values, choices, joint ranges; the rank limit
 *   interop.h    arrays of other libraries (DLPack, __array__); _as_array, _as_float32
 *   arrays.h     float32 / int32 inputs, shapes, out and overlaps
 *   hierarchy.h  parents arrays, Skeletons, index subsets
 *   walk.h       the arguments of a hierarchy walk
 *   broadcast.h  leading dimensions broadcast by NumPy rules
 *   call.h       the one-, two- and N-operand drivers, described by an sks_signature
 *   parallel.h   dividing a call over the thread pool
 *
 * Rules they implement (docs/guide/conventions.md):
 *   - inputs are array_like, converted once to C-contiguous aligned float32 (a copy only when
 *     needed); non-numeric dtypes are a TypeError naming the argument;
 *   - `out` must be a float32, C-contiguous, writeable ndarray of exactly the result shape
 *     (TypeError for type/dtype, ValueError for the rest); it may be exactly an input where the
 *     function documents in-place operation, never a partial overlap;
 *   - parents: 1-D integer, one entry per joint, -1 <= parents[j] < j; the first bad joint is
 *     named;
 *   - everything is validated before anything is written.
 * Every helper returns NULL / -1 with a Python exception set on failure.
 */
#ifndef SKS_ARGS_H
#define SKS_ARGS_H

#include "glue.h"
#include "parsing.h"
#include "interop.h"
#include "arrays.h"
#include "hierarchy.h"
#include "walk.h"
#include "broadcast.h"
#include "call.h"
#include "parallel.h"

#endif /* SKS_ARGS_H */
