/*
 * ik.c (glue) -- Python entry points of the inverse kinematics family. The public wrappers with
 * their documentation (and the broadcasting of the leading dimensions) are in skelsimd/ik.py;
 * kernels in src/kernels/ik.c.
 *
 * Positional arguments only, each operand array_like of items of a fixed number of floats with
 * leading dimensions that broadcast by NumPy's rules:
 *   ik_two_bone(start, mid, end, target, pole, mid_axis, twist_sin, twist_cos, soften, weight)
 *   ik_aim(joint, target, pole, forward, up, offset, twist_sin, twist_cos, weight)
 * Both return (corrections..., reached): float32 (..., 4) arrays and a bool (...) array, shaped
 * by the broadcast leading dimensions. Each takes a fast path first for the common per-frame
 * calls: every operand a float32 ndarray with no leading dimensions or the same ones as the
 * others, a Python number or a tuple or list of three; anything else is converted, checked and
 * broadcast by the general path (which raises the errors, naming the operand).
 *   ik_look_at(n, chain, target, ...): every operand of 1 or n items (see below).
 */
#include "args.h"
#include "parallel.h"

#include "../kernels/ik.h"

#include <stddef.h>
#include <string.h>

/* One input operand of a kernel's argument struct: its Python name, floats per item, and where
 * its data pointer and step (0: one item for all, 1: n items) go in the struct. */
typedef struct ik_operand {
    const char *name;
    npy_intp width;
    size_t data_at, step_at; /* offsetof the struct's fields */
} ik_operand;

#define IK_OP(S, field, name, width) {name, width, offsetof(S, field), offsetof(S, field##_step)}

/* A kernel: its operands, its outputs (nquats quaternion arrays and the reached flags) and the
 * count, by offset in its argument struct, and the call of its row's entry. */
typedef struct ik_kernel {
    const char *func;
    const ik_operand *ops;
    int nops, nquats;
    size_t quat_at[2], reached_at, n_at;
    void (*run)(const void *args);
    double ns_per_chain; /* the estimated single-thread cost of one chain (parallel.h) */
} ik_kernel;

#define FIELD(a, at, T) (*(T *)((char *)(a) + (at)))

static void run_two_bone(const void *a) { SKS_KERNELS(ik)->two_bone((const sks_ik_two_bone_args *)a); }
static void run_aim(const void *a) { SKS_KERNELS(ik)->aim((const sks_ik_aim_args *)a); }
static void run_look_at(const void *a) { SKS_KERNELS(ik)->look_at((const sks_ik_look_at_args *)a); }

typedef union ik_args {
    sks_ik_two_bone_args two_bone;
    sks_ik_aim_args aim;
    sks_ik_look_at_args look_at;
} ik_args;

/* A call divided over the pool by chains: each chunk runs the kernel on a copy of the argument
 * struct whose per-chain operands (step 1) and outputs start at the chunk's first chain, and
 * whose count is the chunk's. Every chain is solved by the same code whatever chunk holds it
 * (chunks start on whole 8-chain blocks), so the bytes are those of one call. */
typedef struct ik_split {
    const ik_args *a;
    void (*run)(const void *args);
    const ik_operand *ops;
    int nops, nquats;
    size_t quat_at[2], reached_at, n_at; /* reached_at SIZE_MAX: no flags (look_at) */
    size_t per_chain;                    /* quaternions per chain: 1, or look_at's c */
} ik_split;

static void ik_chunk(void *ctx, size_t begin, size_t end, size_t slot)
{
    const ik_split *j = (const ik_split *)ctx;
    ik_args a = *j->a;
    int i;
    (void)slot;
    for (i = 0; i < j->nops; i++) {
        const ik_operand *op = &j->ops[i];
        FIELD(&a, op->data_at, const float *) += FIELD(&a, op->step_at, size_t) * begin *
                                                 (size_t)op->width;
    }
    for (i = 0; i < j->nquats; i++) FIELD(&a, j->quat_at[i], float *) += 4 * begin * j->per_chain;
    if (j->reached_at != (size_t)-1) FIELD(&a, j->reached_at, unsigned char *) += begin;
    FIELD(&a, j->n_at, size_t) = end - begin;
    j->run(&a);
}

/* Runs split->run on its n chains of ns_per_chain estimated nanoseconds, divided over the pool
 * when that pays. */
static void ik_run(ik_split *split, size_t n, double ns_per_chain)
{
    sks_parallel_for(n, ns_per_chain, ik_chunk, split);
}

/* Creates the outputs (quaternions of shape lead + (4,), reached of shape lead, n items), runs
 * the kernel on the filled-in operands of `a` and returns (quaternions..., reached). */
static PyObject *ik_finish(const ik_kernel *k, void *a, npy_intp n, int lead_nd,
                           const npy_intp *lead)
{
    PyArrayObject *outs[3] = {NULL, NULL, NULL};
    PyObject *result = NULL;
    npy_intp shape[NPY_MAXDIMS];
    int i;
    for (i = 0; i < lead_nd; i++) shape[i] = lead[i];
    shape[lead_nd] = 4;
    for (i = 0; i < k->nquats; i++) {
        outs[i] = (PyArrayObject *)PyArray_SimpleNew(lead_nd + 1, shape, NPY_FLOAT32);
        if (outs[i] == NULL) goto done;
        FIELD(a, k->quat_at[i], float *) = (float *)PyArray_DATA(outs[i]);
    }
    outs[k->nquats] = (PyArrayObject *)PyArray_SimpleNew(lead_nd, shape, NPY_BOOL);
    if (outs[k->nquats] == NULL) goto done;
    FIELD(a, k->reached_at, unsigned char *) = (unsigned char *)PyArray_DATA(outs[k->nquats]);
    FIELD(a, k->n_at, size_t) = (size_t)n;
    if (n > 0) {
        ik_split split;
        split.a = (const ik_args *)a;
        split.run = k->run;
        split.ops = k->ops;
        split.nops = k->nops;
        split.nquats = k->nquats;
        split.quat_at[0] = k->quat_at[0];
        split.quat_at[1] = k->quat_at[1];
        split.reached_at = k->reached_at;
        split.n_at = k->n_at;
        split.per_chain = 1;
        Py_BEGIN_ALLOW_THREADS
        ik_run(&split, (size_t)n, k->ns_per_chain);
        Py_END_ALLOW_THREADS
    }
    result = PyTuple_New(k->nquats + 1);
    if (result == NULL) goto done;
    for (i = 0; i <= k->nquats; i++) {
        PyTuple_SET_ITEM(result, i, (PyObject *)outs[i]);   /* steals the reference */
        outs[i] = NULL;
    }
done:
    for (i = 0; i < 3; i++) Py_XDECREF(outs[i]);
    return result;
}

/* The general entries' first argument, n >= 0; 0 with an exception set otherwise. */
static int ik_count(PyObject *obj, npy_intp *n)
{
    *n = PyLong_AsSsize_t(obj);
    if (*n == -1 && PyErr_Occurred()) return 0;
    if (*n < 0) {
        PyErr_SetString(PyExc_ValueError, "n: expected a count >= 0");
        return 0;
    }
    return 1;
}

/* One operand of the general entries: `obj` as a float32 array of op->width or n * op->width
 * floats, its data and step stored in the kernel's argument struct `a`. Returns the array (a new
 * reference), or NULL with a ValueError naming the operand. */
static PyArrayObject *ik_operand_load(const ik_operand *op, PyObject *obj, npy_intp n, void *a)
{
    PyArrayObject *arr = sks_as_float32(obj, op->name);
    npy_intp size;
    if (arr == NULL) return NULL;
    size = PyArray_SIZE(arr);
    if (size != op->width && size != n * op->width) {
        PyErr_Format(PyExc_ValueError, "%s: expected %ld or %ld * %ld floats, got %ld", op->name,
                     (long)op->width, (long)n, (long)op->width, (long)size);
        Py_DECREF(arr);
        return NULL;
    }
    FIELD(a, op->data_at, const float *) = (const float *)PyArray_DATA(arr);
    FIELD(a, op->step_at, size_t) = size == op->width ? 0 : 1;
    return arr;
}

/* A Python int or float as a float32, converted as NumPy converts it (an int exactly, when
 * |v| <= 2^24); 0 when it is anything else or an int out of that range. */
static int ik_number(PyObject *obj, float *v)
{
    if (PyFloat_CheckExact(obj)) {
        *v = (float)PyFloat_AS_DOUBLE(obj);
        return 1;
    }
    if (PyLong_CheckExact(obj)) {
        int overflow = 0;
        const long long x = PyLong_AsLongLongAndOverflow(obj, &overflow);
        if (overflow || x < -(1LL << 24) || x > (1LL << 24)) {
            if (x == -1 && PyErr_Occurred()) PyErr_Clear();
            return 0;
        }
        *v = (float)x;
        return 1;
    }
    return 0;
}

/* The fast path: each operand a float32 ndarray whose leading dimensions are either none or the
 * same as every other such operand's, a Python number (for the one-float operands) or a tuple or
 * list of three Python numbers (for the vectors). Returns 1 with *result set (NULL with an
 * exception on failure), or 0 (nothing run) when an operand needs the general path. */
static int ik_fast(const ik_kernel *k, PyObject *const *args, PyObject **result)
{
    PyArrayObject *arrs[16] = {NULL};
    float items[16][3];
    ik_args a;
    const npy_intp *lead = NULL;
    npy_intp n = 1;
    int lead_nd = 0, i, j, fallback = 0;
    *result = NULL;
    memset(&a, 0, sizeof a);
    for (i = 0; i < k->nops && !fallback; i++) {
        const ik_operand *op = &k->ops[i];
        PyObject *obj = args[i];
        const float *data = items[i];
        size_t step = 0;
        if (PyArray_CheckExact(obj)) {
            PyArrayObject *arr = (PyArrayObject *)obj;
            const int trail = op->width == 12 ? 2 : op->width == 3 ? 1 : 0;
            const int nd = PyArray_NDIM(arr) - trail;
            const npy_intp *dims = PyArray_DIMS(arr);
            if (PyArray_TYPE(arr) != NPY_FLOAT32 || !PyArray_ISNOTSWAPPED(arr) || nd < 0 ||
                (trail == 2 && (dims[nd] != 3 || dims[nd + 1] != 4)) ||
                (trail == 1 && dims[nd] != 3)) {
                fallback = 1;
                break;
            }
            if (nd > 0) {
                if (lead == NULL) {
                    if (nd >= NPY_MAXDIMS) {
                        fallback = 1;
                        break;
                    }
                    lead = dims;
                    lead_nd = nd;
                    for (j = 0; j < nd; j++) n *= dims[j];
                } else if (nd != lead_nd || memcmp(dims, lead, (size_t)nd * sizeof *dims) != 0) {
                    fallback = 1;
                    break;
                }
                step = 1;
            }
            arrs[i] = sks_as_float32(obj, op->name);   /* a contiguous copy only when needed */
            if (arrs[i] == NULL) goto done;
            data = (const float *)PyArray_DATA(arrs[i]);
        } else if (op->width == 1) {
            fallback = !ik_number(obj, &items[i][0]);
        } else if (op->width == 3 && (PyTuple_CheckExact(obj) || PyList_CheckExact(obj)) &&
                   PySequence_Fast_GET_SIZE(obj) == 3) {
            for (j = 0; j < 3 && !fallback; j++) {
                fallback = !ik_number(PySequence_Fast_GET_ITEM(obj, j), &items[i][j]);
            }
        } else {
            fallback = 1;
        }
        FIELD(&a, op->data_at, const float *) = data;
        FIELD(&a, op->step_at, size_t) = step;
    }
    if (!fallback) *result = ik_finish(k, &a, n, lead_nd, lead);
done:
    for (i = 0; i < k->nops; i++) Py_XDECREF(arrs[i]);
    return !fallback;
}

/* One operand of the general path as NumPy converts it: a C-contiguous float32 array (new
 * reference); TypeError naming it for a dtype that is not bool, integer or real. */
static PyArrayObject *ik_general_operand(PyObject *obj, const char *name)
{
    PyArrayObject *arr = (PyArrayObject *)PyArray_FROM_O(obj), *res;
    if (arr == NULL) return NULL;
    if (strchr("biuf", PyArray_DESCR(arr)->kind) == NULL) {
        PyErr_Format(PyExc_TypeError, "%s: expected a real numeric array, got dtype %S", name,
                     (PyObject *)PyArray_DESCR(arr));
        Py_DECREF(arr);
        return NULL;
    }
    res = (PyArrayObject *)PyArray_FROM_OTF((PyObject *)arr, NPY_FLOAT32,
                                            NPY_ARRAY_C_CONTIGUOUS | NPY_ARRAY_ALIGNED |
                                                NPY_ARRAY_NOTSWAPPED | NPY_ARRAY_FORCECAST);
    Py_DECREF(arr);
    return res;
}

/* ", ".join of "<name> <shape>" of every operand, for the broadcast errors. */
static PyObject *ik_shapes_text(const ik_kernel *k, PyArrayObject *const *arrs)
{
    PyObject *parts = PyList_New(0), *sep = NULL, *text = NULL;
    int i;
    if (parts == NULL) return NULL;
    for (i = 0; i < k->nops; i++) {
        PyObject *shape = PyObject_GetAttrString((PyObject *)arrs[i], "shape"), *item;
        if (shape == NULL) goto done;
        item = PyUnicode_FromFormat("%s %S", k->ops[i].name, shape);
        Py_DECREF(shape);
        if (item == NULL || PyList_Append(parts, item) < 0) {
            Py_XDECREF(item);
            goto done;
        }
        Py_DECREF(item);
    }
    sep = PyUnicode_FromString(", ");
    if (sep != NULL) text = PyUnicode_Join(sep, parts);
done:
    Py_XDECREF(sep);
    Py_DECREF(parts);
    return text;
}

/* The general path: every operand converted to float32, its trailing shape checked, the leading
 * dimensions broadcast by NumPy's rules (an operand of one item is shared by every chain, any
 * other one that does not have the result's leading shape is copied to it), then the kernel. */
static PyObject *ik_general(const ik_kernel *k, PyObject *const *args)
{
    static const char *const layouts[] = {"a number or (...)", "(..., 3)", "(..., 3, 4)"};
    PyArrayObject *arrs[16] = {NULL};
    ik_args a;
    PyObject *result = NULL;
    npy_intp shape[NPY_MAXDIMS], n = 1;
    int lead_nd[16], trail[16], nd = 0, longest = -1, same = 1, i, d;
    memset(&a, 0, sizeof a);
    for (i = 0; i < k->nops; i++) {
        const ik_operand *op = &k->ops[i];
        const npy_intp *dims;
        arrs[i] = ik_general_operand(args[i], op->name);
        if (arrs[i] == NULL) goto done;
        trail[i] = op->width == 12 ? 2 : op->width == 3 ? 1 : 0;
        lead_nd[i] = PyArray_NDIM(arrs[i]) - trail[i];
        dims = PyArray_DIMS(arrs[i]);
        if (lead_nd[i] < 0 ||
            (trail[i] == 2 && (dims[lead_nd[i]] != 3 || dims[lead_nd[i] + 1] != 4)) ||
            (trail[i] == 1 && dims[lead_nd[i]] != 3)) {
            PyObject *got = PyObject_GetAttrString((PyObject *)arrs[i], "shape");
            if (got != NULL) {
                PyErr_Format(PyExc_ValueError, "%s: expected shape %s, got %S", op->name,
                             layouts[trail[i]], got);
                Py_DECREF(got);
            }
            goto done;
        }
        if (lead_nd[i] > nd) {
            nd = lead_nd[i];
            longest = i;
        }
    }
    /* the leading shape: the longest operand's when every other one has it or none */
    for (i = 0; i < k->nops && longest >= 0; i++) {
        if (lead_nd[i] != 0 && (lead_nd[i] != nd ||
                                memcmp(PyArray_DIMS(arrs[i]), PyArray_DIMS(arrs[longest]),
                                       (size_t)nd * sizeof(npy_intp)) != 0))
            same = 0;
    }
    if (!same || nd + 1 > NPY_MAXDIMS) {   /* NumPy's rules; the results get one more dimension */
        PyObject *got;
        const char *why = NULL;
        for (d = 0; d < nd; d++) shape[d] = 1;
        for (i = 0; i < k->nops && why == NULL; i++) {
            for (d = 0; d < lead_nd[i]; d++) {
                const npy_intp v = PyArray_DIM(arrs[i], d), at = nd - lead_nd[i] + d;
                if (v == 1) continue;
                if (shape[at] != 1 && shape[at] != v) {
                    why = "broadcast";
                    break;
                }
                shape[at] = v;
            }
        }
        if (why != NULL || nd + 1 > NPY_MAXDIMS) {
            PyObject *leads = PyList_New(0), *sep = NULL, *joined = NULL;
            got = ik_shapes_text(k, arrs);
            if (leads == NULL || got == NULL) {
                /* the exception of the failed allocation is set */
            } else if (why != NULL) {
                for (i = 0; i < k->nops; i++) {
                    PyObject *t = PyTuple_New(lead_nd[i]), *r;
                    if (t == NULL) break;
                    for (d = 0; d < lead_nd[i]; d++) {
                        PyObject *v = PyLong_FromSsize_t(PyArray_DIM(arrs[i], d));
                        if (v == NULL) break;
                        PyTuple_SET_ITEM(t, d, v);
                    }
                    r = d == lead_nd[i] ? PyObject_Str(t) : NULL;
                    Py_DECREF(t);
                    if (r == NULL || PyList_Append(leads, r) < 0) {
                        Py_XDECREF(r);
                        break;
                    }
                    Py_DECREF(r);
                }
                sep = PyUnicode_FromString(", ");
                if (sep != NULL && !PyErr_Occurred()) joined = PyUnicode_Join(sep, leads);
                if (joined != NULL)
                    PyErr_Format(PyExc_ValueError, "%s: leading (batch) shapes %U do not "
                                 "broadcast: %U", k->func, joined, got);
            } else {
                PyErr_Format(PyExc_ValueError, "%s: the result would have %d dimensions, more "
                             "than NumPy's limit of %d: %U", k->func, nd + 1, NPY_MAXDIMS, got);
            }
            Py_XDECREF(leads);
            Py_XDECREF(sep);
            Py_XDECREF(joined);
            Py_XDECREF(got);
            goto done;
        }
    } else if (longest >= 0) {
        memcpy(shape, PyArray_DIMS(arrs[longest]), (size_t)nd * sizeof(npy_intp));
    }
    for (d = 0; d < nd; d++) n *= shape[d];
    for (i = 0; i < k->nops; i++) {
        const ik_operand *op = &k->ops[i];
        const int full = lead_nd[i] == nd &&
                         (nd == 0 || memcmp(PyArray_DIMS(arrs[i]), shape,
                                            (size_t)nd * sizeof(npy_intp)) == 0);
        if (!full && PyArray_SIZE(arrs[i]) != op->width) {   /* copied to the result's shape */
            npy_intp full_shape[NPY_MAXDIMS];
            PyArrayObject *copy;
            if (nd + trail[i] > NPY_MAXDIMS) {   /* as NumPy's broadcast_to refuses it */
                PyErr_Format(PyExc_ValueError, "maximum supported dimension for an ndarray is "
                             "currently %d, found %d", NPY_MAXDIMS, nd + trail[i]);
                goto done;
            }
            memcpy(full_shape, shape, (size_t)nd * sizeof(npy_intp));
            for (d = 0; d < trail[i]; d++)
                full_shape[nd + d] = PyArray_DIM(arrs[i], lead_nd[i] + d);
            copy = (PyArrayObject *)PyArray_SimpleNew(nd + trail[i], full_shape, NPY_FLOAT32);
            if (copy == NULL) goto done;
            if (PyArray_CopyInto(copy, arrs[i]) < 0) {
                Py_DECREF(copy);
                goto done;
            }
            Py_SETREF(arrs[i], copy);
        }
        FIELD(&a, op->data_at, const float *) = (const float *)PyArray_DATA(arrs[i]);
        FIELD(&a, op->step_at, size_t) = PyArray_SIZE(arrs[i]) == op->width ? 0 : 1;
    }
    result = ik_finish(k, &a, n, nd, shape);
done:
    for (i = 0; i < k->nops; i++) Py_XDECREF(arrs[i]);
    return result;
}

/* ik_two_bone and ik_aim: the fast path, else the general path. */
static PyObject *ik_call(const ik_kernel *k, PyObject *const *args, Py_ssize_t nargs)
{
    PyObject *result;
    if (!sks_check_nargs(k->func, nargs, k->nops)) return NULL;
    if (ik_fast(k, args, &result)) return result;
    return ik_general(k, args);
}

/* ik_look_at(n, chain, target, pole, forward, up, offset, twist_sin, twist_cos, weights): c =
 * weights.size chain joints (at least one), chain c * 12 or n * c * 12 floats, the vectors 3 or
 * n * 3, the twists 1 or n; returns the corrections, float32 (n, c, 4). */
static PyObject *py_ik_look_at(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    static const ik_operand ops[] = {
        IK_OP(sks_ik_look_at_args, target, "target", 3), IK_OP(sks_ik_look_at_args, pole, "pole", 3),
        IK_OP(sks_ik_look_at_args, forward, "forward", 3), IK_OP(sks_ik_look_at_args, up, "up", 3),
        IK_OP(sks_ik_look_at_args, offset, "offset", 3),
        IK_OP(sks_ik_look_at_args, twist_sin, "twist", 1),
        IK_OP(sks_ik_look_at_args, twist_cos, "twist", 1)};
    enum { NOPS = (int)(sizeof ops / sizeof *ops) };
    PyArrayObject *arrs[NOPS + 2] = {NULL}, *out = NULL;
    sks_ik_look_at_args a;
    npy_intp n, c, size, shape[3];
    int i;
    (void)self;
    if (!sks_check_nargs("ik_look_at", nargs, NOPS + 3)) return NULL;
    if (!ik_count(args[0], &n)) return NULL;
    memset(&a, 0, sizeof a);
    arrs[NOPS + 1] = sks_as_float32(args[NOPS + 2], "weights");
    if (arrs[NOPS + 1] == NULL) goto done;
    c = PyArray_SIZE(arrs[NOPS + 1]);
    if (c < 1) {
        PyErr_SetString(PyExc_ValueError, "weights: expected one weight per chain joint (at least one)");
        goto done;
    }
    arrs[NOPS] = sks_as_float32(args[1], "chain");
    if (arrs[NOPS] == NULL) goto done;
    size = PyArray_SIZE(arrs[NOPS]);
    if (size != 12 * c && (n == 0 ? size != 0 : size % n != 0 || size / n != 12 * c)) {
        PyErr_Format(PyExc_ValueError, "chain: expected %ld or %ld * %ld floats (12 per chain joint), "
                     "got %ld", (long)(12 * c), (long)n, (long)(12 * c), (long)size);
        goto done;
    }
    a.chain = (const float *)PyArray_DATA(arrs[NOPS]);
    a.chain_step = size == 12 * c ? 0 : 1;
    for (i = 0; i < NOPS; i++) {
        arrs[i] = ik_operand_load(&ops[i], args[i + 2], n, &a);
        if (arrs[i] == NULL) goto done;
    }
    a.weights = (const float *)PyArray_DATA(arrs[NOPS + 1]);
    shape[0] = n;
    shape[1] = c;
    shape[2] = 4;
    out = (PyArrayObject *)PyArray_SimpleNew(3, shape, NPY_FLOAT32);
    if (out == NULL) goto done;
    a.correction = (float *)PyArray_DATA(out);
    a.n = (size_t)n;
    a.c = (size_t)c;
    if (n > 0) {
        /* the chain matrices are split by hand (12 c floats per character): not an operand */
        static const ik_operand chain_op = IK_OP(sks_ik_look_at_args, chain, "chain", 0);
        ik_operand all[NOPS + 1];
        ik_split split;
        ik_args any;
        memcpy(all, ops, sizeof ops);
        all[NOPS] = chain_op;
        all[NOPS].width = 12 * c;
        any.look_at = a;
        split.a = &any;
        split.run = run_look_at;
        split.ops = all;
        split.nops = NOPS + 1;
        split.nquats = 1;
        split.quat_at[0] = offsetof(sks_ik_look_at_args, correction);
        split.quat_at[1] = 0;
        split.reached_at = (size_t)-1;
        split.n_at = offsetof(sks_ik_look_at_args, n);
        split.per_chain = (size_t)c;
        Py_BEGIN_ALLOW_THREADS
        ik_run(&split, (size_t)n, SKS_NS_IK_AIM * (double)c);
        Py_END_ALLOW_THREADS
    }
done:
    for (i = 0; i < NOPS + 2; i++) Py_XDECREF(arrs[i]);
    if (PyErr_Occurred()) Py_CLEAR(out);
    return (PyObject *)out;
}

/* A kernel's description: its operand table (the IK_OP rows after `run`) and outputs. */
#define IK_KERNEL(var, S, func, nquats, q0, q1, run, ns, ...)                                 \
    static const ik_operand var##_ops[] = {__VA_ARGS__};                                      \
    static const ik_kernel var = {func, var##_ops, (int)(sizeof var##_ops / sizeof *var##_ops), \
                                  nquats, {offsetof(S, q0), offsetof(S, q1)},                  \
                                  offsetof(S, reached), offsetof(S, n), run, ns}

#define TB sks_ik_two_bone_args
IK_KERNEL(two_bone_kernel, TB, "ik_two_bone", 2, start_correction, mid_correction, run_two_bone,
          SKS_NS_IK_TWO_BONE,
          IK_OP(TB, start, "start", 12), IK_OP(TB, mid, "mid", 12), IK_OP(TB, end, "end", 12),
          IK_OP(TB, target, "target", 3), IK_OP(TB, pole, "pole", 3), IK_OP(TB, mid_axis, "mid_axis", 3),
          IK_OP(TB, twist_sin, "twist", 1), IK_OP(TB, twist_cos, "twist", 1),
          IK_OP(TB, soften, "soften", 1), IK_OP(TB, weight, "weight", 1));
#define AIM sks_ik_aim_args
IK_KERNEL(aim_kernel, AIM, "ik_aim", 1, correction, correction, run_aim, SKS_NS_IK_AIM,
          IK_OP(AIM, joint, "joint", 12), IK_OP(AIM, target, "target", 3), IK_OP(AIM, pole, "pole", 3),
          IK_OP(AIM, forward, "forward", 3), IK_OP(AIM, up, "up", 3), IK_OP(AIM, offset, "offset", 3),
          IK_OP(AIM, twist_sin, "twist", 1), IK_OP(AIM, twist_cos, "twist", 1),
          IK_OP(AIM, weight, "weight", 1));

/* The Python entry points: each a driver applied to a kernel's description. */
#define IK_ENTRY(name, driver, kernel)                                                        \
    static PyObject *name(PyObject *self, PyObject *const *args, Py_ssize_t nargs)          \
    {                                                                                       \
        (void)self;                                                                         \
        return driver(&kernel, args, nargs);                                                \
    }
IK_ENTRY(py_ik_two_bone, ik_call, two_bone_kernel)
IK_ENTRY(py_ik_aim, ik_call, aim_kernel)

PyMethodDef sks_ik_methods[] = {
    {"ik_two_bone", (PyCFunction)(void (*)(void))py_ik_two_bone, METH_FASTCALL,
     "ik_two_bone(start, mid, end, target, pole, mid_axis, twist_sin, twist_cos, soften, "
     "weight): see skelsimd.ik_two_bone"},
    {"ik_aim", (PyCFunction)(void (*)(void))py_ik_aim, METH_FASTCALL,
     "ik_aim(joint, target, pole, forward, up, offset, twist_sin, twist_cos, weight): see "
     "skelsimd.ik_aim"},
    {"ik_look_at", (PyCFunction)(void (*)(void))py_ik_look_at, METH_FASTCALL,
     "ik_look_at(n, chain, target, pole, forward, up, offset, twist_sin, twist_cos, weights): "
     "see skelsimd.Skeleton.look_at"},
    {NULL, NULL, 0, NULL}};
