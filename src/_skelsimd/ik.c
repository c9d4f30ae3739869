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


typedef struct ik_operand {
    const char *name;
    npy_intp width;      /* floats per item */
    PyArrayObject *arr;  /* new reference */
    size_t step;         /* 0: one item for all, 1: n items */
} ik_operand;

/* Converts and checks the operands: each holds width or n * width floats. */
static int ik_parse(ik_operand *ops, int nops, PyObject *const *args, npy_intp n)
{
    int i;
    for (i = 0; i < nops; i++) {
        npy_intp size;
        ops[i].arr = sks_as_float32(args[i], ops[i].name);
        if (ops[i].arr == NULL) return -1;
        size = PyArray_SIZE(ops[i].arr);
        if (size == ops[i].width) {
            ops[i].step = 0;
        } else if (size == n * ops[i].width) {
            ops[i].step = 1;
        } else {
            PyErr_Format(PyExc_ValueError, "%s: expected %ld or %ld * %ld floats, got %ld",
                         ops[i].name, (long)ops[i].width, (long)n, (long)ops[i].width, (long)size);
            return -1;
        }
    }
    return 0;
}

static void ik_release(ik_operand *ops, int nops)
{
    int i;
    for (i = 0; i < nops; i++) Py_XDECREF(ops[i].arr);
}

#define OP_DATA(k) ((const float *)PyArray_DATA(ops[k].arr))

static PyArrayObject *new_quats(npy_intp n)
{
    npy_intp shape[2];
    shape[0] = n;
    shape[1] = 4;
    return (PyArrayObject *)PyArray_SimpleNew(2, shape, NPY_FLOAT32);
}

static npy_intp parse_n(PyObject *obj)
{
    npy_intp n = PyLong_AsSsize_t(obj);
    if (n == -1 && PyErr_Occurred()) return -1;
    if (n < 0) {
        PyErr_SetString(PyExc_ValueError, "n: expected a count >= 0");
        return -1;
    }
    return n;
}

static PyObject *py_ik_two_bone(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    ik_operand ops[10] = {{"start", 12, NULL, 0},   {"mid", 12, NULL, 0},
                          {"end", 12, NULL, 0},     {"target", 3, NULL, 0},
                          {"pole", 3, NULL, 0},     {"mid_axis", 3, NULL, 0},
                          {"twist", 1, NULL, 0},    {"twist", 1, NULL, 0},
                          {"soften", 1, NULL, 0},   {"weight", 1, NULL, 0}};
    PyArrayObject *qs = NULL, *qm = NULL, *reached = NULL;
    npy_intp n;
    (void)self;
    if (!sks_check_nargs("ik_two_bone", nargs, 11)) return NULL;
    n = parse_n(args[0]);
    if (n < 0) return NULL;
    if (ik_parse(ops, 10, args + 1, n) < 0) goto fail;
    qs = new_quats(n);
    qm = new_quats(n);
    reached = (PyArrayObject *)PyArray_SimpleNew(1, &n, NPY_BOOL);
    if (qs == NULL || qm == NULL || reached == NULL) goto fail;
    if (n > 0) {
        sks_ik_two_bone_args a;
        a.start = OP_DATA(0);
        a.mid = OP_DATA(1);
        a.end = OP_DATA(2);
        a.target = OP_DATA(3);
        a.pole = OP_DATA(4);
        a.mid_axis = OP_DATA(5);
        a.twist_sin = OP_DATA(6);
        a.twist_cos = OP_DATA(7);
        a.soften = OP_DATA(8);
        a.weight = OP_DATA(9);
        a.start_step = ops[0].step;
        a.mid_step = ops[1].step;
        a.end_step = ops[2].step;
        a.target_step = ops[3].step;
        a.pole_step = ops[4].step;
        a.mid_axis_step = ops[5].step;
        a.twist_sin_step = ops[6].step;
        a.twist_cos_step = ops[7].step;
        a.soften_step = ops[8].step;
        a.weight_step = ops[9].step;
        a.start_correction = (float *)PyArray_DATA(qs);
        a.mid_correction = (float *)PyArray_DATA(qm);
        a.reached = (unsigned char *)PyArray_DATA(reached);
        a.n = (size_t)n;
        {
            const sks_ik_kernels *k = SKS_KERNELS(ik);
            Py_BEGIN_ALLOW_THREADS
            k->two_bone(&a);
            Py_END_ALLOW_THREADS
        }
    }
    ik_release(ops, 10);
    return Py_BuildValue("NNN", qs, qm, reached);
fail:
    ik_release(ops, 10);
    Py_XDECREF(qs);
    Py_XDECREF(qm);
    Py_XDECREF(reached);
    return NULL;
}

static PyObject *py_ik_aim(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    ik_operand ops[9] = {{"joint", 12, NULL, 0},  {"target", 3, NULL, 0}, {"pole", 3, NULL, 0},
                         {"forward", 3, NULL, 0}, {"up", 3, NULL, 0},     {"offset", 3, NULL, 0},
                         {"twist", 1, NULL, 0},   {"twist", 1, NULL, 0},  {"weight", 1, NULL, 0}};
    PyArrayObject *q = NULL, *reached = NULL;
    npy_intp n;
    (void)self;
    if (!sks_check_nargs("ik_aim", nargs, 10)) return NULL;
    n = parse_n(args[0]);
    if (n < 0) return NULL;
    if (ik_parse(ops, 9, args + 1, n) < 0) goto fail;
    q = new_quats(n);
    reached = (PyArrayObject *)PyArray_SimpleNew(1, &n, NPY_BOOL);
    if (q == NULL || reached == NULL) goto fail;
    if (n > 0) {
        sks_ik_aim_args a;
        a.joint = OP_DATA(0);
        a.target = OP_DATA(1);
        a.pole = OP_DATA(2);
        a.forward = OP_DATA(3);
        a.up = OP_DATA(4);
        a.offset = OP_DATA(5);
        a.twist_sin = OP_DATA(6);
        a.twist_cos = OP_DATA(7);
        a.weight = OP_DATA(8);
        a.joint_step = ops[0].step;
        a.target_step = ops[1].step;
        a.pole_step = ops[2].step;
        a.forward_step = ops[3].step;
        a.up_step = ops[4].step;
        a.offset_step = ops[5].step;
        a.twist_sin_step = ops[6].step;
        a.twist_cos_step = ops[7].step;
        a.weight_step = ops[8].step;
        a.correction = (float *)PyArray_DATA(q);
        a.reached = (unsigned char *)PyArray_DATA(reached);
        a.n = (size_t)n;
        {
            const sks_ik_kernels *k = SKS_KERNELS(ik);
            Py_BEGIN_ALLOW_THREADS
            k->aim(&a);
            Py_END_ALLOW_THREADS
        }
    }
    ik_release(ops, 9);
    return Py_BuildValue("NN", q, reached);
fail:
    ik_release(ops, 9);
    Py_XDECREF(q);
    Py_XDECREF(reached);
    return NULL;
}

PyMethodDef sks_ik_methods[] = {
    {"ik_two_bone", (PyCFunction)(void (*)(void))py_ik_two_bone, METH_FASTCALL,
     "ik_two_bone(n, start, mid, end, target, pole, mid_axis, twist_sin, twist_cos, soften, "
     "weight): see skelsimd.ik_two_bone"},
    {"ik_aim", (PyCFunction)(void (*)(void))py_ik_aim, METH_FASTCALL,
     "ik_aim(n, joint, target, pole, forward, up, offset, twist_sin, twist_cos, weight): see "
     "skelsimd.ik_aim"},
    {NULL, NULL, 0, NULL}};
