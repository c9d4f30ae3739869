/*
 * blend.c (glue) -- Python entry points of the interpolation and blending family. The public
 * wrappers with their documentation are in skelsimd/blend.py; kernels in src/kernels/blend.c.
 *
 * Positional arguments only (the Python wrappers forward keywords):
 *   slerp(q0, q1, t, out, method)      nlerp(q0, q1, t, out)
 *   blend_joints(joints, blend, t, index, method, out)
 *       each takes the per-call fast path of the common form first: float32 C-contiguous
 *       ndarrays of one shape, t a number (or, for slerp and nlerp, a float32 C-contiguous
 *       array of the batch shape), no index, out None or such an array of that shape that is
 *       exactly an input or overlaps none (blend_joints: not blend); one flat run of the
 *       kernel, the bits of the general path. Anything else converts, broadcasts and checks by
 *       the general rules (which raise the errors).
 *   blend_layers(layers, weights, out[, additive[, direct]])
 *       additive: a sequence of (delta, weight, mask) layers as checked by skelsimd.blend's
 *       wrapper (delta float32 of one pose (J, 8) or of the result's shape, weight a float in
 *       [-1, 1], mask None or (J,) in [0, 1]; checked again here), applied in one fused pass.
 *       direct true: the wrapper's per-call fast path; the user's own list or tuple of
 *       (delta, weight[, mask]) layers, taken when every layer is already in that form, else
 *       None is returned (nothing written) and the wrapper checks and converts them.
 */
#include "args.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "../kernels/blend.h"

static const char *const slerp_methods[] = {"fast", "exact", NULL};
static const char *const blend_methods[] = {"fast", "exact", "nlerp", NULL};

/* A Python or NumPy float or int t (the per-frame case) is read directly instead of through a 0-d array
 * (that conversion cost about 0.4 us per call): returns 1 and sets *t, 0 when t is something else
 * (array_like, converted as an operand), -1 on error. */
static int scalar_t(PyObject *obj, float *t)
{
    double v;
    if (!PyFloat_Check(obj) && !PyLong_CheckExact(obj) && !PyArray_IsScalar(obj, Floating) &&
        !PyArray_IsScalar(obj, Integer))
        return 0;
    v = PyFloat_AsDouble(obj);
    if (v == -1.0 && PyErr_Occurred()) {
        PyErr_Clear();
        PyErr_SetString(PyExc_ValueError, "t: expected a number that fits a float, got a larger int");
        return -1;
    }
    *t = (float)v;
    return 1;
}

/* q0 (..., 4), q1 (..., 4), t (...) broadcast -> out (..., 4); out may be exactly q0 or q1. */
static const sks_signature interp_sig = {
    "slerp", 3,   /* nlerp's too: the drivers used here never print func */
    {{"q0", "(..., 4)", 1, {4}, 1}, {"q1", "(..., 4)", 1, {4}, 1}, {"t", "(...)", 0, {0}, 0}},
    1, {4}};

/* slerp / nlerp divided over the pool: items [begin, end) of the broadcast per chunk (bc NULL:
 * the fast path's one flat run, t stepping by t_step). */
typedef struct interp_job {
    sks_interp_fn kernel;
    const sks_broadcast *bc;
    npy_intp inner;
    size_t t_step;
    float *o;
    const float *a, *b, *t;
} interp_job;

static void interp_piece(void *ctx, npy_intp it, const npy_intp *off, const npy_intp *step,
                         npy_intp i0, npy_intp i1, size_t slot)
{
    const interp_job *j = (const interp_job *)ctx;
    (void)slot;
    j->kernel(j->o + (it * j->inner + i0) * 4, j->a + (off[0] + i0 * step[0]) * 4,
              (size_t)step[0], j->b + (off[1] + i0 * step[1]) * 4, (size_t)step[1],
              j->t + off[2] + i0 * step[2], (size_t)step[2], (size_t)(i1 - i0));
}

static void interp_chunk(void *ctx, size_t begin, size_t end, size_t slot)
{
    const interp_job *j = (const interp_job *)ctx;
    if (j->bc != NULL) {
        sks_broadcast_pieces(j->bc, begin, end, interp_piece, ctx, slot);
    } else {
        j->kernel(j->o + begin * 4, j->a + begin * 4, 1, j->b + begin * 4, 1,
                  j->t + begin * j->t_step, j->t_step, end - begin);
    }
}

/* The fast path's operand test: an exact ndarray, native float32, C-contiguous and aligned, of
 * ndim >= min_ndim (else NULL). */
static PyArrayObject *fast_array(PyObject *obj, int min_ndim)
{
    PyArrayObject *a;
    if (!PyArray_CheckExact(obj)) return NULL;
    a = (PyArrayObject *)obj;
    if (PyArray_TYPE(a) != NPY_FLOAT32 || !PyArray_ISNOTSWAPPED(a) || PyArray_NDIM(a) < min_ndim ||
        !PyArray_IS_C_CONTIGUOUS(a) || !PyArray_ISALIGNED(a))
        return NULL;
    return a;
}

static int fast_same_shape(PyArrayObject *a, PyArrayObject *b, int drop)
{
    const int nd = PyArray_NDIM(a) - drop;
    /* a 0-d array's dims may be NULL: memcmp is never given it (its length 0 or not) */
    return PyArray_NDIM(b) == nd &&
           (nd == 0 ||
            memcmp(PyArray_DIMS(a), PyArray_DIMS(b), (size_t)nd * sizeof(npy_intp)) == 0);
}

/* out and in (both C-contiguous) share no byte, or (allow_exact) cover exactly the same ones. */
static int fast_apart(PyArrayObject *out, PyArrayObject *in, int allow_exact)
{
    const char *o = PyArray_BYTES(out), *i = PyArray_BYTES(in);
    const npy_intp on = PyArray_NBYTES(out), in_n = PyArray_NBYTES(in);
    if (on == 0 || in_n == 0 || o + on <= i || i + in_n <= o) return 1;
    return allow_exact && o == i && on == in_n;
}

/* out on the fast path: None gives a new array shaped like `like` (NULL with an exception when
 * that fails); an array must be fast_array, writeable, of like's shape (else NULL without an
 * exception: the general path checks it). */
static PyArrayObject *fast_out(PyObject *obj, PyArrayObject *like)
{
    PyArrayObject *o;
    if (obj == Py_None)
        return (PyArrayObject *)PyArray_SimpleNew(PyArray_NDIM(like), PyArray_DIMS(like),
                                                  NPY_FLOAT32);
    o = fast_array(obj, 0);
    if (o == NULL || !PyArray_ISWRITEABLE(o) || !fast_same_shape(like, o, 0)) return NULL;
    Py_INCREF(o);
    return o;
}

/* The fast path of slerp and nlerp (top of this file): the kernel run over the whole batch with
 * steps of one quaternion, as the general path runs it on these operands. Returns 1 with *result
 * set (NULL with an exception on failure), or 0 (nothing written) when the operands need the
 * general path. */
static int interp_fast(PyObject *const *args, int t_is_scalar, float t_value,
                       sks_interp_fn kernel, PyObject **result)
{
    PyArrayObject *a = fast_array(args[0], 1), *b = fast_array(args[1], 1), *ta = NULL, *out;
    const float *t = &t_value;
    size_t t_step = 0;
    npy_intp n;
    if (a == NULL || b == NULL || PyArray_DIM(a, PyArray_NDIM(a) - 1) != 4 ||
        !fast_same_shape(a, b, 0))
        return 0;
    if (!t_is_scalar) {
        ta = fast_array(args[2], 0);
        if (ta == NULL || !fast_same_shape(a, ta, 1)) return 0;
        t = (const float *)PyArray_DATA(ta);
        t_step = 1;
    }
    out = fast_out(args[3], a);
    if (out == NULL) {
        *result = NULL;
        return PyErr_Occurred() != NULL;
    }
    if (args[3] != Py_None && (!fast_apart(out, a, 1) || !fast_apart(out, b, 1) ||
                               (ta != NULL && !fast_apart(out, ta, 0)))) {
        Py_DECREF(out);
        return 0;
    }
    n = PyArray_SIZE(a) / 4;
    if (n > 0) {
        interp_job j;
        j.kernel = kernel;
        j.bc = NULL;
        j.inner = n;
        j.t_step = t_step;
        j.o = (float *)PyArray_DATA(out);
        j.a = (const float *)PyArray_DATA(a);
        j.b = (const float *)PyArray_DATA(b);
        j.t = t;
        Py_BEGIN_ALLOW_THREADS
        sks_parallel_for((size_t)n, SKS_NS_INTERP, interp_chunk, &j);
        Py_END_ALLOW_THREADS
    }
    *result = (PyObject *)out;
    return 1;
}

static PyObject *interp_call(PyObject *const *args, PyObject *out_obj, sks_interp_fn kernel)
{
    sks_call c;
    PyObject *result;
    float t_value = 0.0f;
    int nops, ok = 0;
    const int t_is_scalar = scalar_t(args[2], &t_value);
    if (t_is_scalar < 0) return NULL;
    if (interp_fast(args, t_is_scalar, t_value, kernel, &result)) return result;
    nops = t_is_scalar ? 2 : 3;   /* a number t is read directly, not as an operand */
    memset(c.ops, 0, sizeof c.ops);
    c.out = NULL;
    if (sks_call_operands(&c, &interp_sig, nops, args) < 0) goto done;
    if (sks_call_prepare(&c, &interp_sig, nops, out_obj) < 0) goto done;
    if (PyArray_SIZE(c.out) > 0) {
        interp_job j;
        j.kernel = kernel;
        j.bc = &c.bc;
        j.inner = sks_broadcast_inner(&c.bc);
        j.o = (float *)PyArray_DATA(c.out);
        j.a = (const float *)PyArray_DATA(c.ops[0]);
        j.b = (const float *)PyArray_DATA(c.ops[1]);
        j.t = t_is_scalar ? &t_value : (const float *)PyArray_DATA(c.ops[2]);
        Py_BEGIN_ALLOW_THREADS
        sks_parallel_for((size_t)(j.inner * sks_broadcast_outer(&c.bc)), SKS_NS_INTERP,
                         interp_chunk, &j);
        Py_END_ALLOW_THREADS
    }
    ok = 1;
done:
    return sks_call_finish(&c, ok);
}

static PyObject *py_slerp(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    const sks_blend_kernels *k = SKS_KERNELS(blend);
    int method;
    (void)self;
    if (!sks_check_nargs("slerp", nargs, 5)) return NULL;
    method = sks_parse_choice(args[4], "method", slerp_methods, 0);
    if (method < 0) return NULL;
    return interp_call(args, args[3], method == SKS_INTERP_EXACT ? k->slerp_exact : k->slerp_fast);
}

static PyObject *py_nlerp(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    if (!sks_check_nargs("nlerp", nargs, 4)) return NULL;
    return interp_call(args, args[3], SKS_KERNELS(blend)->nlerp);
}

/* blend_joints divided over the pool: poses [begin, end) of the broadcast per chunk (bc NULL: the
 * fast path, whose units are joints of one flat run). Where every joint of a run blends alike
 * (no index, one t) and both operands advance pose by pose, a piece is one flat run of its
 * poses' joints, so the SIMD blocks cross pose boundaries. */
typedef struct blend_job {
    const sks_blend_kernels *k;
    const sks_broadcast *bc;
    npy_intp inner;
    size_t njoints, nindex;
    const int32_t *index;
    int method, flat;
    float *o;
    const float *a, *b, *t;
} blend_job;

static void blend_piece(void *ctx, npy_intp it, const npy_intp *off, const npy_intp *step,
                        npy_intp i0, npy_intp i1, size_t slot)
{
    const blend_job *j = (const blend_job *)ctx;
    const size_t pose = j->njoints * 8;
    float *o = j->o + (size_t)(it * j->inner + i0) * pose;
    const float *a = j->a + (size_t)(off[0] + i0 * step[0]) * pose;
    const float *b = j->b + (size_t)(off[1] + i0 * step[1]) * pose;
    (void)slot;
    if (j->flat && step[0] == 1 && step[1] == 1) {
        /* J = 31 poses measured 9.3 ns per joint pose by pose, 3.3 flat */
        j->k->blend_joints(o, a, 1, b, 1, j->t, 0, 1, (size_t)(i1 - i0) * j->njoints, NULL, 0,
                           j->method);
    } else {
        j->k->blend_joints(o, a, (size_t)step[0], b, (size_t)step[1], j->t + off[2] + i0 * step[2],
                           (size_t)step[2], (size_t)(i1 - i0), j->njoints, j->index, j->nindex,
                           j->method);
    }
}

static void blend_chunk(void *ctx, size_t begin, size_t end, size_t slot)
{
    const blend_job *j = (const blend_job *)ctx;
    if (j->bc != NULL) {
        sks_broadcast_pieces(j->bc, begin, end, blend_piece, ctx, slot);
    } else {
        j->k->blend_joints(j->o + begin * 8, j->a + begin * 8, 1, j->b + begin * 8, 1, j->t, 0, 1,
                           end - begin, NULL, 0, j->method);
    }
}

/* The fast path of blend_joints (top of this file): every joint of the batch blends alike with
 * one t, one flat run of joints, as the general path runs this form. Returns 1 with *result set
 * (NULL with an exception on failure), or 0 (nothing written) when the operands need the general
 * path. */
static int blend_joints_fast(PyObject *const *args, float t, int method, PyObject **result)
{
    PyArrayObject *a = fast_array(args[0], 2), *b = fast_array(args[1], 2), *out;
    npy_intp njoints;
    if (a == NULL || b == NULL || PyArray_DIM(a, PyArray_NDIM(a) - 1) != 8 ||
        !fast_same_shape(a, b, 0))
        return 0;
    out = fast_out(args[5], a);
    if (out == NULL) {
        *result = NULL;
        return PyErr_Occurred() != NULL;
    }
    if (args[5] != Py_None && (!fast_apart(out, a, 1) || !fast_apart(out, b, 0))) {
        Py_DECREF(out);
        return 0;
    }
    njoints = PyArray_SIZE(a) / 8;
    if (njoints > 0) {
        blend_job j;
        j.k = SKS_KERNELS(blend);
        j.bc = NULL;
        j.o = (float *)PyArray_DATA(out);
        j.a = (const float *)PyArray_DATA(a);
        j.b = (const float *)PyArray_DATA(b);
        j.t = &t;
        j.njoints = 1;
        j.index = NULL;
        j.nindex = 0;
        j.method = method;
        j.flat = 1;
        Py_BEGIN_ALLOW_THREADS
        sks_parallel_for((size_t)njoints, SKS_NS_INTERP, blend_chunk, &j);
        Py_END_ALLOW_THREADS
    }
    *result = (PyObject *)out;
    return 1;
}

static PyObject *py_blend_joints(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    static const char *const names[3] = {"joints", "blend", "t"};
    static const int trailing[3] = {2, 2, 0};
    PyArrayObject *ops[3] = {NULL, NULL, NULL}, *out = NULL;
    PyObject *result;
    sks_parents index = {NULL, NULL, NULL, 0};
    npy_intp shape[NPY_MAXDIMS], njoints, want[2];
    sks_broadcast bc;
    float t_value = 0.0f;
    int i, method, t_is_scalar, nops;
    (void)self;
    if (!sks_check_nargs("blend_joints", nargs, 6)) return NULL;
    method = sks_parse_choice(args[4], "method", blend_methods, 0);
    if (method < 0) return NULL;
    t_is_scalar = scalar_t(args[2], &t_value);
    if (t_is_scalar < 0) return NULL;
    if (t_is_scalar && args[3] == Py_None && blend_joints_fast(args, t_value, method, &result))
        return result;
    nops = t_is_scalar ? 2 : 3;
    for (i = 0; i < nops; i++) {
        ops[i] = sks_as_float32(args[i], names[i]);
        if (ops[i] == NULL) goto fail;
    }
    want[1] = 8;
    if (sks_check_shape(ops[0], "joints", 2, want + 1, 1, "(..., J, 8)") < 0) goto fail;
    njoints = want[0] = PyArray_DIM(ops[0], PyArray_NDIM(ops[0]) - 2);
    if (sks_check_shape(ops[1], "blend", 2, want, 2, "(..., J, 8) with J = joints.shape[-2]") < 0)
        goto fail;
    if (sks_broadcast_leading(&bc, nops, ops, names, trailing) < 0) goto fail;
    if (args[3] != Py_None &&
        sks_parse_indices(args[3], "index", njoints, "the number of joints, joints.shape[-2]",
                          &index) < 0)
        goto fail;
    if (sks_check_rank(bc.out_ndim + 2, nops == 3 ? "joints, blend and t" : "joints and blend") < 0)
        goto fail;
    memcpy(shape, bc.out_shape, bc.out_ndim * sizeof(npy_intp));
    shape[bc.out_ndim] = njoints;
    shape[bc.out_ndim + 1] = 8;
    out = sks_prepare_out(args[5], "out", bc.out_ndim + 2, shape);
    if (out == NULL) goto fail;
    for (i = 0; i < nops; i++) {
        if (sks_check_overlap(out, "out", ops[i], names[i], i == 0) < 0) goto fail;
    }
    if (PyArray_SIZE(out) > 0) {
        blend_job j;
        j.k = SKS_KERNELS(blend);
        j.bc = &bc;
        j.inner = sks_broadcast_inner(&bc);
        j.njoints = (size_t)njoints;
        j.index = index.data;
        j.nindex = (size_t)index.count;
        j.method = method;
        j.flat = index.data == NULL && t_is_scalar;
        j.o = (float *)PyArray_DATA(out);
        j.a = (const float *)PyArray_DATA(ops[0]);
        j.b = (const float *)PyArray_DATA(ops[1]);
        j.t = t_is_scalar ? &t_value : (const float *)PyArray_DATA(ops[2]);
        Py_BEGIN_ALLOW_THREADS
        sks_parallel_for((size_t)(j.inner * sks_broadcast_outer(&bc)),
                         SKS_NS_INTERP * (double)(index.data ? index.count : njoints),
                         blend_chunk, &j);
        Py_END_ALLOW_THREADS
    }
    sks_parents_release(&index);
    for (i = 0; i < 3; i++) Py_XDECREF(ops[i]);
    return (PyObject *)out;
fail:
    sks_parents_release(&index);
    for (i = 0; i < 3; i++) Py_XDECREF(ops[i]);
    Py_XDECREF(out);
    return NULL;
}

/* blend_layers divided over the pool by poses [begin, end); the additive layers of a chunk
 * start at its first pose (per-pose deltas advanced in the slot's copy of the layer list). */
typedef struct layers_job {
    const sks_blend_kernels *k;
    float *o;
    const float *x, *w;
    size_t nlayers, njoints, layer_stride, joint_step, nadd;
    const sks_additive_layer *add;
    sks_additive_layer *slot_add;   /* plan.slots copies of add, when divided */
} layers_job;

static void layers_chunk(void *ctx, size_t begin, size_t end, size_t slot)
{
    const layers_job *j = (const layers_job *)ctx;
    const size_t pose = j->njoints * 8;
    float *o = j->o + begin * pose;
    const float *x = j->x + begin * j->nlayers * pose;
    if (j->nadd) {
        const sks_additive_layer *add = j->add;
        if (j->slot_add != NULL) {
            sks_additive_layer *mine = j->slot_add + slot * j->nadd;
            size_t a;
            for (a = 0; a < j->nadd; a++) {
                mine[a] = j->add[a];
                mine[a].delta = j->add[a].delta + begin * j->add[a].delta_step * pose;
            }
            add = mine;
        }
        j->k->blend_layers_additive(o, x, end - begin, j->nlayers, j->njoints, j->w,
                                    j->layer_stride, j->joint_step, add, j->nadd);
    } else {
        j->k->blend_layers(o, x, end - begin, j->nlayers, j->njoints, j->w, j->layer_stride,
                           j->joint_step);
    }
}

/* weights (L,) or (L, J): finite, >= 0, and every joint needs a positive weight. */
static int check_layer_weights(PyArrayObject *w, npy_intp nlayers, npy_intp njoints)
{
    const float *x = (const float *)PyArray_DATA(w);
    const int per_joint = PyArray_NDIM(w) == 2;
    const npy_intp cols = per_joint ? njoints : 1;
    npy_intp l, j;
    for (l = 0; l < nlayers; l++) {
        for (j = 0; j < cols; j++) {
            const float v = x[l * cols + j];
            if (!(v >= 0.0f) || !isfinite(v)) {
                char at[64], val[64];
                if (per_joint) {
                    snprintf(at, sizeof at, "[%ld, %ld]", (long)l, (long)j);
                } else {
                    snprintf(at, sizeof at, "[%ld]", (long)l);
                }
                snprintf(val, sizeof val, "%g", (double)v);
                PyErr_Format(PyExc_ValueError, "weights%s = %s: expected finite weights >= 0", at, val);
                return -1;
            }
        }
    }
    for (j = 0; j < (per_joint ? njoints : (njoints > 0 ? 1 : 0)); j++) {
        for (l = 0; l < nlayers; l++) {
            if (x[l * cols + j] > 0.0f) break;
        }
        if (l == nlayers) {
            if (per_joint) {
                PyErr_Format(PyExc_ValueError, "weights[:, %ld]: every joint needs a positive "
                             "weight, joint %ld has none (all %ld weights are 0)", (long)j, (long)j,
                             (long)nlayers);
            } else {
                PyErr_Format(PyExc_ValueError, "weights: expected at least one positive weight, "
                             "all %ld weights are 0", (long)nlayers);
            }
            return -1;
        }
    }
    return 0;
}

/* The additive layers of blend_layers (see the top of this file) into add[0 .. nadd), their
 * arrays into refs (new references, 2 per layer: delta and mask or NULL). `shape` (ndim
 * dimensions) is the result's. With `direct`, a layer may also be a (delta, weight) pair and
 * anything not already in the checked form (a tuple or list of a float32 ndarray delta of one
 * pose or of exactly the result's shape, a Python float weight in [-1, 1], None or a float32
 * ndarray mask (J,) in [0, 1]) makes it return 1 with no exception set, so that the wrapper checks,
 * converts and broadcasts the layers by the general rules; -1 on error, 0 when parsed. */
static int parse_additive(PyObject *seq, int ndim, const npy_intp *shape, npy_intp npose,
                          sks_additive_layer *add, PyArrayObject **refs, Py_ssize_t nadd, int direct)
{
    const npy_intp njoints = shape[ndim - 2];
    Py_ssize_t a;
    for (a = 0; a < nadd; a++) {
        PyObject *item = PySequence_Fast_GET_ITEM(seq, a), *dobj, *wobj, *mobj;
        PyArrayObject *d, *m = NULL;
        double wt;
        npy_intp size;
        Py_ssize_t len;
        if (direct) {
            if (!PyTuple_CheckExact(item) && !PyList_CheckExact(item)) return 1;
            len = PySequence_Fast_GET_SIZE(item);
            if (len != 2 && len != 3) return 1;
            dobj = PySequence_Fast_GET_ITEM(item, 0);
            wobj = PySequence_Fast_GET_ITEM(item, 1);
            mobj = len == 3 ? PySequence_Fast_GET_ITEM(item, 2) : Py_None;
            if (!PyArray_CheckExact(dobj) || PyArray_TYPE((PyArrayObject *)dobj) != NPY_FLOAT32 ||
                !PyArray_ISNOTSWAPPED((PyArrayObject *)dobj) || !PyFloat_CheckExact(wobj) ||
                (mobj != Py_None && (!PyArray_CheckExact(mobj) ||
                                     PyArray_TYPE((PyArrayObject *)mobj) != NPY_FLOAT32 ||
                                     !PyArray_ISNOTSWAPPED((PyArrayObject *)mobj))))
                return 1;
            d = (PyArrayObject *)dobj;
            if (!(PyArray_NDIM(d) == 2 || (PyArray_NDIM(d) == ndim && memcmp(
                      PyArray_DIMS(d), shape, (size_t)ndim * sizeof *shape) == 0)))
                return 1;
        } else {
            if (!PyTuple_Check(item) || PyTuple_GET_SIZE(item) != 3) {
                PyErr_Format(PyExc_TypeError, "additive[%zd]: expected a (delta, weight, mask) "
                             "tuple", a);
                return -1;
            }
            dobj = PyTuple_GET_ITEM(item, 0);
            wobj = PyTuple_GET_ITEM(item, 1);
            mobj = PyTuple_GET_ITEM(item, 2);
        }
        d = refs[2 * a] = sks_as_float32(dobj, "additive: delta");
        if (d == NULL) return -1;
        size = PyArray_SIZE(d);
        if (PyArray_NDIM(d) < 2 || PyArray_DIM(d, PyArray_NDIM(d) - 1) != 8 ||
            PyArray_DIM(d, PyArray_NDIM(d) - 2) != njoints ||
            !(size == njoints * 8 || size == npose * njoints * 8)) {
            if (direct) return 1;
            PyErr_Format(PyExc_ValueError, "additive[%zd]: delta: expected one pose (%ld, 8) or "
                         "%ld poses of %ld joints", a, (long)njoints, (long)npose, (long)njoints);
            return -1;
        }
        wt = PyFloat_AsDouble(wobj);
        if (wt == -1.0 && PyErr_Occurred()) return -1;
        if (!(wt >= -1.0 && wt <= 1.0)) {
            if (direct) return 1;
            PyErr_Format(PyExc_ValueError, "additive[%zd]: weight: expected a number in [-1, 1], "
                         "got %g", a, wt);
            return -1;
        }
        if (mobj != Py_None) {
            const float *mv;
            npy_intp j;
            m = refs[2 * a + 1] = sks_as_float32(mobj, "additive: mask");
            if (m == NULL) return -1;
            if (PyArray_NDIM(m) != 1 || PyArray_DIM(m, 0) != njoints) {
                if (direct) return 1;
                PyErr_Format(PyExc_ValueError, "additive[%zd]: mask: expected shape (%ld,)", a,
                             (long)njoints);
                return -1;
            }
            mv = (const float *)PyArray_DATA(m);
            for (j = 0; j < njoints; j++) {
                if (!(mv[j] >= 0.0f && mv[j] <= 1.0f)) {
                    if (direct) return 1;
                    PyErr_Format(PyExc_ValueError, "additive[%zd]: mask[%ld] = %g: expected "
                                 "per-joint weights in [0, 1]", a, (long)j, (double)mv[j]);
                    return -1;
                }
            }
        }
        add[a].delta = (const float *)PyArray_DATA(d);
        add[a].delta_step = size == njoints * 8 ? 0 : 1;
        add[a].weight = (float)wt;
        add[a].mask = m ? (const float *)PyArray_DATA(m) : NULL;
    }
    return 0;
}

static PyObject *py_blend_layers(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    PyArrayObject *layers = NULL, *w = NULL, *out = NULL, **refs = NULL;
    PyObject *seq = NULL, *result = NULL;
    sks_additive_layer *add = NULL;
    Py_ssize_t nadd = 0, a;
    static const npy_intp qts = 8;
    npy_intp shape[NPY_MAXDIMS], nlayers, njoints, npose_all;
    int ndim, d, direct = 0, parsed;
    (void)self;
    if (nargs != 4 && nargs != 5 && !sks_check_nargs("blend_layers", nargs, 3)) return NULL;
    if (nargs == 5 && (direct = PyObject_IsTrue(args[4])) < 0) return NULL;
    layers = sks_as_float32(args[0], "layers");
    if (layers == NULL) goto done;
    if (sks_check_shape(layers, "layers", 3, &qts, 1, "(..., L, J, 8)") < 0) goto done;
    ndim = PyArray_NDIM(layers);
    nlayers = PyArray_DIM(layers, ndim - 3);
    njoints = PyArray_DIM(layers, ndim - 2);
    w = sks_as_float32(args[1], "weights");
    if (w == NULL) goto done;
    if (!((PyArray_NDIM(w) == 1 && PyArray_DIM(w, 0) == nlayers) ||
          (PyArray_NDIM(w) == 2 && PyArray_DIM(w, 0) == nlayers && PyArray_DIM(w, 1) == njoints))) {
        char got[256];
        sks_format_shape(got, sizeof got, PyArray_NDIM(w), PyArray_DIMS(w));
        PyErr_Format(PyExc_ValueError, "weights: expected shape (L,) = (%ld,) or (L, J) = (%ld, %ld) "
                     "for layers of shape (..., L, J, 8), got %s", (long)nlayers, (long)nlayers,
                     (long)njoints, got);
        goto done;
    }
    if (check_layer_weights(w, nlayers, njoints) < 0) goto done;
    for (d = 0; d < ndim - 3; d++) shape[d] = PyArray_DIM(layers, d);
    shape[ndim - 3] = njoints;
    shape[ndim - 2] = 8;
    npose_all = 1;
    for (d = 0; d < ndim - 3; d++) npose_all *= shape[d];
    if (nargs >= 4 && args[3] != Py_None) {
        if (direct && !PyTuple_CheckExact(args[3]) && !PyList_CheckExact(args[3])) goto decline;
        seq = PySequence_Fast(args[3], "additive: expected a sequence of (delta, weight, mask)");
        if (seq == NULL) goto done;
        nadd = PySequence_Fast_GET_SIZE(seq);
        if (nadd > 0) {
            add = PyMem_Calloc((size_t)nadd, sizeof *add);
            refs = PyMem_Calloc(2 * (size_t)nadd, sizeof *refs);
            if (add == NULL || refs == NULL) {
                PyErr_NoMemory();
                goto done;
            }
            parsed = parse_additive(seq, ndim - 1, shape, npose_all, add, refs, nadd, direct);
            if (parsed < 0) goto done;
            if (parsed > 0) goto decline;
        }
    }
    out = sks_prepare_out(args[2], "out", ndim - 1, shape);
    if (out == NULL) goto done;
    if (sks_check_overlap(out, "out", layers, "layers", 0) < 0) goto done;
    if (sks_check_overlap(out, "out", w, "weights", 0) < 0) goto done;
    for (a = 0; a < 2 * nadd; a++)
        if (refs[a] && sks_check_overlap(out, "out", refs[a], a % 2 ? "an additive mask" :
                                         "an additive delta", 0) < 0)
            goto done;
    if (PyArray_SIZE(out) > 0) {
        layers_job j;
        const int per_joint = PyArray_NDIM(w) == 2;
        sks_pool_plan plan;
        j.k = SKS_KERNELS(blend);
        j.o = (float *)PyArray_DATA(out);
        j.x = (const float *)PyArray_DATA(layers);
        j.w = (const float *)PyArray_DATA(w);
        j.nlayers = (size_t)nlayers;
        j.njoints = (size_t)njoints;
        j.layer_stride = per_joint ? (size_t)njoints : 1;
        j.joint_step = per_joint ? 1 : 0;
        j.add = add;
        j.nadd = (size_t)nadd;
        plan = sks_parallel_plan((size_t)(PyArray_SIZE(out) / (njoints * 8)),
                                 SKS_NS_INTERP * (double)(njoints * (nlayers + nadd)));
        j.slot_add = NULL;
        if (nadd && plan.chunks > 1) {
            j.slot_add = PyMem_Calloc(plan.slots * (size_t)nadd, sizeof *add);
            if (j.slot_add == NULL) {
                PyErr_NoMemory();
                goto done;
            }
        }
        Py_BEGIN_ALLOW_THREADS
        sks_pool_run(&plan, layers_chunk, &j);
        Py_END_ALLOW_THREADS
        PyMem_Free(j.slot_add);
    }
    result = (PyObject *)out;
    out = NULL;
    goto done;
decline:   /* the direct form only: nothing written, the wrapper takes the general path */
    Py_INCREF(Py_None);
    result = Py_None;
done:
    Py_XDECREF(layers);
    Py_XDECREF(w);
    Py_XDECREF(out);
    if (refs)
        for (a = 0; a < 2 * nadd; a++) Py_XDECREF(refs[a]);
    PyMem_Free(refs);
    PyMem_Free(add);
    Py_XDECREF(seq);
    return result;
}

PyMethodDef sks_blend_methods[] = {
    SKS_METHOD(slerp, "(q0, q1, t, out, method)"),
    SKS_METHOD(nlerp, "(q0, q1, t, out)"),
    SKS_METHOD(blend_joints, "(joints, blend, t, index, method, out)"),
    SKS_METHOD(blend_layers, "(layers, weights, out[, additive[, direct]])"),
    {NULL, NULL, 0, NULL}};
