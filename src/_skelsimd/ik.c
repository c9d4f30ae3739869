/*
 * ik.c (glue) -- Python entry points of the inverse kinematics family. The public wrappers with
 * their documentation (and the broadcasting of the leading dimensions) are in skelsimd/ik.py;
 * kernels in src/kernels/ik.c.
 *
 * Positional arguments only, every operand a float32 array of n items or of one item (then
 * shared by every chain), items of a fixed number of floats:
 *   ik_two_bone(n, start, mid, end, target, pole, mid_axis, twist_sin, twist_cos, soften, weight)
 *   ik_aim(n, joint, target, pole, forward, up, offset, twist_sin, twist_cos, weight)
 * Both return (corrections..., reached): float32 (n, 4) arrays and a bool (n,) array.
 */
#include "args.h"

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
} ik_kernel;

#define FIELD(a, at, T) (*(T *)((char *)(a) + (at)))

static void run_two_bone(const void *a) { SKS_KERNELS(ik)->two_bone((const sks_ik_two_bone_args *)a); }
static void run_aim(const void *a) { SKS_KERNELS(ik)->aim((const sks_ik_aim_args *)a); }

/* The driver of both entry points: n, then each operand a float32 array of width or n * width
 * floats; returns (quaternions..., reached). Everything is checked before the kernel runs. */
static PyObject *ik_call(const ik_kernel *k, PyObject *const *args, Py_ssize_t nargs)
{
    PyArrayObject *arrs[16] = {NULL}, *outs[3] = {NULL, NULL, NULL};
    union {
        sks_ik_two_bone_args two_bone;
        sks_ik_aim_args aim;
    } a;
    PyObject *result = NULL;
    npy_intp n, shape[2];
    int i;
    if (!sks_check_nargs(k->func, nargs, k->nops + 1)) return NULL;
    n = PyLong_AsSsize_t(args[0]);
    if (n == -1 && PyErr_Occurred()) return NULL;
    if (n < 0) {
        PyErr_SetString(PyExc_ValueError, "n: expected a count >= 0");
        return NULL;
    }
    memset(&a, 0, sizeof a);
    for (i = 0; i < k->nops; i++) {
        const ik_operand *op = &k->ops[i];
        npy_intp size;
        arrs[i] = sks_as_float32(args[i + 1], op->name);
        if (arrs[i] == NULL) goto done;
        size = PyArray_SIZE(arrs[i]);
        if (size != op->width && size != n * op->width) {
            PyErr_Format(PyExc_ValueError, "%s: expected %ld or %ld * %ld floats, got %ld", op->name,
                         (long)op->width, (long)n, (long)op->width, (long)size);
            goto done;
        }
        FIELD(&a, op->data_at, const float *) = (const float *)PyArray_DATA(arrs[i]);
        FIELD(&a, op->step_at, size_t) = size == op->width ? 0 : 1;
    }
    shape[0] = n;
    shape[1] = 4;
    for (i = 0; i < k->nquats; i++) {
        outs[i] = (PyArrayObject *)PyArray_SimpleNew(2, shape, NPY_FLOAT32);
        if (outs[i] == NULL) goto done;
        FIELD(&a, k->quat_at[i], float *) = (float *)PyArray_DATA(outs[i]);
    }
    outs[k->nquats] = (PyArrayObject *)PyArray_SimpleNew(1, &n, NPY_BOOL);
    if (outs[k->nquats] == NULL) goto done;
    FIELD(&a, k->reached_at, unsigned char *) = (unsigned char *)PyArray_DATA(outs[k->nquats]);
    FIELD(&a, k->n_at, size_t) = (size_t)n;
    if (n > 0) {
        Py_BEGIN_ALLOW_THREADS
        k->run(&a);
        Py_END_ALLOW_THREADS
    }
    result = PyTuple_New(k->nquats + 1);
    if (result == NULL) goto done;
    for (i = 0; i <= k->nquats; i++) {
        PyTuple_SET_ITEM(result, i, (PyObject *)outs[i]);   /* steals the reference */
        outs[i] = NULL;
    }
done:
    for (i = 0; i < k->nops; i++) Py_XDECREF(arrs[i]);
    for (i = 0; i < 3; i++) Py_XDECREF(outs[i]);
    return result;
}

/* A kernel's description: its operand table (the IK_OP rows after `run`) and outputs. */
#define IK_KERNEL(var, S, func, nquats, q0, q1, run, ...)                                     \
    static const ik_operand var##_ops[] = {__VA_ARGS__};                                      \
    static const ik_kernel var = {func, var##_ops, (int)(sizeof var##_ops / sizeof *var##_ops), \
                                  nquats, {offsetof(S, q0), offsetof(S, q1)},                  \
                                  offsetof(S, reached), offsetof(S, n), run}

#define TB sks_ik_two_bone_args
IK_KERNEL(two_bone_kernel, TB, "ik_two_bone", 2, start_correction, mid_correction, run_two_bone,
          IK_OP(TB, start, "start", 12), IK_OP(TB, mid, "mid", 12), IK_OP(TB, end, "end", 12),
          IK_OP(TB, target, "target", 3), IK_OP(TB, pole, "pole", 3), IK_OP(TB, mid_axis, "mid_axis", 3),
          IK_OP(TB, twist_sin, "twist", 1), IK_OP(TB, twist_cos, "twist", 1),
          IK_OP(TB, soften, "soften", 1), IK_OP(TB, weight, "weight", 1));
#define AIM sks_ik_aim_args
IK_KERNEL(aim_kernel, AIM, "ik_aim", 1, correction, correction, run_aim,
          IK_OP(AIM, joint, "joint", 12), IK_OP(AIM, target, "target", 3), IK_OP(AIM, pole, "pole", 3),
          IK_OP(AIM, forward, "forward", 3), IK_OP(AIM, up, "up", 3), IK_OP(AIM, offset, "offset", 3),
          IK_OP(AIM, twist_sin, "twist", 1), IK_OP(AIM, twist_cos, "twist", 1),
          IK_OP(AIM, weight, "weight", 1));

static PyObject *py_ik_two_bone(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    return ik_call(&two_bone_kernel, args, nargs);
}

static PyObject *py_ik_aim(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    return ik_call(&aim_kernel, args, nargs);
}

PyMethodDef sks_ik_methods[] = {
    {"ik_two_bone", (PyCFunction)(void (*)(void))py_ik_two_bone, METH_FASTCALL,
     "ik_two_bone(n, start, mid, end, target, pole, mid_axis, twist_sin, twist_cos, soften, "
     "weight): see skelsimd.ik_two_bone"},
    {"ik_aim", (PyCFunction)(void (*)(void))py_ik_aim, METH_FASTCALL,
     "ik_aim(n, joint, target, pole, forward, up, offset, twist_sin, twist_cos, weight): see "
     "skelsimd.ik_aim"},
    {NULL, NULL, 0, NULL}};
