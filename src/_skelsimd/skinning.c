/*
 * skinning.c (glue) -- Python entry points of the skinning family. The public wrappers with
 * their documentation are in skelsimd/skinning.py; kernels in src/kernels/skinning.c.
 *
 * Positional arguments only (the Python wrappers forward keywords):
 *   skinning_palette(local, parents, inverse_bind, out, precision)
 *   skin(positions, joint_indices, weights, palette, out, normals, normals_out, renormalize)
 *   normalize_weights(weights, out)
 */
#include "args.h"

#include "../kernels/skinning.h"

#include <stdio.h>

/* Scratch memory for one call, 64-byte aligned (released with PyMem_Free on `raw`). */
typedef struct scratch_block {
    void *raw;
    float *data;
} scratch_block;

static int scratch_alloc(scratch_block *s, size_t floats)
{
    s->raw = PyMem_Malloc(floats * sizeof(float) + 64);
    if (s->raw == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    s->data = (float *)(((uintptr_t)s->raw + 63) & ~(uintptr_t)63);
    return 0;
}

/* "(..., J, 3, 4) with J = 96 (<joints_from>)": the expected shape of a pose batch of J joints. */
static int check_pose_shape(PyArrayObject *arr, const char *name, npy_intp joints,
                            const char *joints_from)
{
    const npy_intp trailing[3] = {joints, 3, 4};
    char layout[128];
    snprintf(layout, sizeof layout, "(..., %ld, 3, 4) (J = %s)", (long)joints, joints_from);
    return sks_check_shape(arr, name, 3, trailing, 3, layout);
}

/* The precision of the global poses and of the product with inverse_bind (out is float32). */
static const char *const precisions[] = {"float32", "float64", NULL};

/* skinning_palette divided over the pool by characters (items of the broadcast). */
typedef struct palette_job {
    const sks_skinning_kernels *k;
    const sks_broadcast *bc;
    const int32_t *parents;
    size_t joints, slot_floats, items;   /* items: the palettes of the whole call */
    int precision64;
    float *o, *scratch;
    const float *l, *ib;
} palette_job;

static void palette_piece(void *ctx, npy_intp it, const npy_intp *off, const npy_intp *step,
                          npy_intp i0, npy_intp i1, size_t slot)
{
    const palette_job *j = (const palette_job *)ctx;
    const size_t stride = j->joints * 12, inner = (size_t)sks_broadcast_inner(j->bc);
    float *oi = j->o + ((size_t)it * inner + (size_t)i0) * stride;
    const float *li = j->l + (size_t)(off[0] + i0 * step[0]) * stride;
    const float *ibi = j->ib + (size_t)(off[1] + i0 * step[1]) * stride;
    float *scratch = j->scratch + slot * j->slot_floats;
    if (j->precision64) {
        j->k->skinning_palette_f64(oi, li, (size_t)step[0], ibi, (size_t)step[1], j->parents,
                                   (size_t)(i1 - i0), j->joints, (double *)(void *)scratch);
    } else {
        j->k->skinning_palette(oi, li, (size_t)step[0], ibi, (size_t)step[1], j->parents,
                               (size_t)(i1 - i0), j->joints, scratch, j->items);
    }
}

static void palette_chunk(void *ctx, size_t begin, size_t end, size_t slot)
{
    sks_broadcast_pieces(((const palette_job *)ctx)->bc, begin, end, palette_piece, ctx, slot);
}

static PyObject *py_skinning_palette(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    static const char *const names[2] = {"local", "inverse_bind"};
    static const int trailing[2] = {3, 3}, in_place[2] = {1, 1};
    static const npy_intp joint_shape[2] = {3, 4};
    sks_binary w = {{NULL, NULL}, NULL, {0}};
    sks_parents parents = {NULL, NULL, NULL, 0};
    scratch_block scratch = {NULL, NULL};
    npy_intp joints;
    int ok = 0, precision;
    (void)self;
    if (!sks_check_nargs("skinning_palette", nargs, 5)) return NULL;
    precision = sks_parse_choice(args[4], "precision", precisions, 0);
    if (precision < 0) return NULL;
    w.ops[0] = sks_as_float32(args[0], "local");
    if (w.ops[0] == NULL) goto done;
    if (sks_check_shape(w.ops[0], "local", 3, joint_shape, 2, "(..., J, 3, 4)") < 0) goto done;
    joints = PyArray_DIM(w.ops[0], PyArray_NDIM(w.ops[0]) - 3);
    if (sks_parse_parents(args[1], joints, "local.shape[-3]", &parents) < 0) goto done;
    w.ops[1] = sks_as_float32(args[2], "inverse_bind");
    if (w.ops[1] == NULL) goto done;
    if (check_pose_shape(w.ops[1], "inverse_bind", joints, "local.shape[-3]") < 0) goto done;
    {
        const npy_intp out_block[3] = {joints, 3, 4};
        if (sks_binary_prepare(&w, names, trailing, args[3], out_block, 3, in_place) < 0) goto done;
    }
    if (PyArray_SIZE(w.out) > 0) {
        palette_job j;
        const npy_intp items = sks_broadcast_inner(&w.bc) * sks_broadcast_outer(&w.bc);
        const sks_pool_plan plan = sks_parallel_plan(
            (size_t)items, SKS_NS_WALK_JOINT * 2 * (double)joints);
        j.k = SKS_KERNELS(skinning);
        j.bc = &w.bc;
        j.parents = parents.data;
        j.joints = (size_t)joints;
        j.items = (size_t)items;
        j.precision64 = precision == 1;
        j.o = (float *)PyArray_DATA(w.out);
        j.l = (const float *)PyArray_DATA(w.ops[0]);
        j.ib = (const float *)PyArray_DATA(w.ops[1]);
        /* float64: the same block holds the doubles (two floats each, 64-byte aligned) */
        j.slot_floats = precision == 1
            ? 2 * SKS_PALETTE_F64_SCRATCH_DOUBLES(joints) : SKS_PALETTE_SCRATCH_FLOATS(joints);
        j.slot_floats = (j.slot_floats + 15) & ~(size_t)15;
        if (scratch_alloc(&scratch, plan.slots * j.slot_floats) < 0) goto done;
        j.scratch = scratch.data;
        Py_BEGIN_ALLOW_THREADS
        sks_pool_run(&plan, palette_chunk, &j);
        Py_END_ALLOW_THREADS
    }
    ok = 1;
done:
    PyMem_Free(scratch.raw);
    sks_parents_release(&parents);
    return sks_binary_finish(&w, ok);
}

/* The operands of skin: w.ops = (positions, palette) and out; the rest new references too. */
typedef struct skin_args {
    sks_binary w;
    PyArrayObject *indices, *weights, *normals, *normals_out;
} skin_args;

/* Validates positions (..., V, 3), joint_indices and weights (V, K) with
 * 1 <= K <= SKS_SKIN_MAX_INFLUENCES, palette (..., J, 3, 4) and every index in [0, J). */
static int parse_mesh(skin_args *s, PyObject *const *args)
{
    static const npy_intp point_shape[1] = {3}, joint_shape[2] = {3, 4};
    static const char *const axis_names[2] = {"vertex", "influence"};
    PyArrayObject *positions, *palette;
    npy_intp vertices, influences, joints;
    char from[64];
    positions = s->w.ops[0] = sks_as_float32(args[0], "positions");
    if (positions == NULL) return -1;
    if (sks_check_shape(positions, "positions", 2, point_shape, 1, "(..., V, 3)") < 0) return -1;
    vertices = PyArray_DIM(positions, PyArray_NDIM(positions) - 2);
    s->indices = sks_as_int32(args[1], "joint_indices");
    if (s->indices == NULL) return -1;
    influences = PyArray_NDIM(s->indices) == 2 ? PyArray_DIM(s->indices, 1) : 0;
    if (PyArray_NDIM(s->indices) != 2 || PyArray_DIM(s->indices, 0) != vertices) {
        char got[128];
        sks_format_shape(got, sizeof got, PyArray_NDIM(s->indices), PyArray_DIMS(s->indices));
        PyErr_Format(PyExc_ValueError, "joint_indices: expected shape (V, K) with V = %ld "
                     "(positions.shape[-2]), got %s", (long)vertices, got);
        return -1;
    }
    if (influences < 1 || influences > SKS_SKIN_MAX_INFLUENCES) {
        PyErr_Format(PyExc_ValueError, "joint_indices: expected 1 <= K <= %d influences per "
                     "vertex (shape (V, K)), got K = %ld", SKS_SKIN_MAX_INFLUENCES,
                     (long)influences);
        return -1;
    }
    s->weights = sks_as_float32(args[2], "weights");
    if (s->weights == NULL) return -1;
    if (PyArray_NDIM(s->weights) != 2 || PyArray_DIM(s->weights, 0) != vertices ||
        PyArray_DIM(s->weights, 1) != influences) {
        char got[128];
        sks_format_shape(got, sizeof got, PyArray_NDIM(s->weights), PyArray_DIMS(s->weights));
        PyErr_Format(PyExc_ValueError, "weights: expected shape (%ld, %ld) (the shape of "
                     "joint_indices), got %s", (long)vertices, (long)influences, got);
        return -1;
    }
    palette = s->w.ops[1] = sks_as_float32(args[3], "palette");
    if (palette == NULL) return -1;
    if (sks_check_shape(palette, "palette", 3, joint_shape, 2, "(..., J, 3, 4)") < 0) return -1;
    joints = PyArray_DIM(palette, PyArray_NDIM(palette) - 3);
    {
        /* every index in [0, J) exactly when the largest as uint32 is below min(J, 2**31): one
         * vectorised pass of the dispatched kernel; the error (naming the first bad index)
         * from sks_check_index_range */
        const uint32_t lim = joints > (npy_intp)INT32_MAX ? (uint32_t)INT32_MAX + 1u
                                                          : (uint32_t)joints;
        const sks_skinning_kernels *k = SKS_KERNELS(skinning);
        if (k->largest_index((const int32_t *)PyArray_DATA(s->indices),
                             (size_t)PyArray_SIZE(s->indices)) < lim)
            return 0;
    }
    snprintf(from, sizeof from, "J = palette.shape[-3] = %ld", (long)joints);
    return sks_check_index_range(s->indices, "joint_indices", joints, from, axis_names);
}

/* normals: the shape of positions. */
static int parse_normals(skin_args *s, PyObject *normals_obj)
{
    PyArrayObject *positions = s->w.ops[0];
    const int nd = PyArray_NDIM(positions);
    s->normals = sks_as_float32(normals_obj, "normals");
    if (s->normals == NULL) return -1;
    if (PyArray_NDIM(s->normals) != nd ||
        memcmp(PyArray_DIMS(s->normals), PyArray_DIMS(positions), nd * sizeof(npy_intp))) {
        char want[128], got[128];
        sks_format_shape(want, sizeof want, nd, PyArray_DIMS(positions));
        sks_format_shape(got, sizeof got, PyArray_NDIM(s->normals), PyArray_DIMS(s->normals));
        PyErr_Format(PyExc_ValueError, "normals: expected shape %s (the shape of positions), "
                     "got %s", want, got);
        return -1;
    }
    return 0;
}

/* An output must not overlap any operand except `own` (its own input, exactly: in place). */
static int check_output_overlaps(PyArrayObject *dst, const char *dst_name, PyArrayObject *own,
                                 PyArrayObject *const *others, const char *const *other_names,
                                 int n_others)
{
    int i;
    for (i = 0; i < n_others; i++) {
        if (others[i] != NULL &&
            sks_check_overlap(dst, dst_name, others[i], other_names[i], others[i] == own) < 0)
            return -1;
    }
    return 0;
}

/* skin divided over the pool by vertices: the units are (mesh, vertex) in the result's order,
 * and a chunk skins the part of each mesh it covers (the palette's columns built per piece, in
 * its slot's scratch). */
typedef struct skin_job {
    const sks_skinning_kernels *k;
    const sks_broadcast *bc;
    size_t vertices, influences, joints, slot_floats;
    int renormalize;
    float *op, *on, *scratch;
    const float *p, *n, *w, *palette;
    const int32_t *idx;
} skin_job;

static void skin_chunk(void *ctx, size_t begin, size_t end, size_t slot)
{
    const skin_job *j = (const skin_job *)ctx;
    const size_t inner = (size_t)sks_broadcast_inner(j->bc), mesh = j->vertices * 3;
    size_t u = begin;
    while (u < end) {
        const size_t item = u / j->vertices, v0 = u % j->vertices;
        const size_t v1 = end - item * j->vertices < j->vertices ? end - item * j->vertices
                                                                 : j->vertices;
        const size_t it = item / inner, i = item % inner;
        npy_intp off[SKS_MAX_OPERANDS], step[SKS_MAX_OPERANDS];
        size_t dst, src;
        sks_broadcast_offsets(j->bc, (npy_intp)it, off, step);
        dst = item * mesh + v0 * 3;
        src = ((size_t)off[0] + i * (size_t)step[0]) * mesh + v0 * 3;
        j->k->skin(j->op + dst, j->on ? j->on + dst : NULL, j->p + src, j->n ? j->n + src : NULL,
                   j->idx + v0 * j->influences, j->w + v0 * j->influences, v1 - v0,
                   j->influences, j->palette + ((size_t)off[1] + i * (size_t)step[1]) * j->joints * 12,
                   j->joints, j->scratch + slot * j->slot_floats, j->renormalize);
        u = item * j->vertices + v1;
    }
}

static PyObject *py_skin(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    static const char *const names[2] = {"positions", "palette"};
    static const int trailing[2] = {2, 3}, in_place[2] = {1, 0};
    static const char *const all_names[5] = {"positions", "palette", "joint_indices", "weights",
                                             "normals"};
    skin_args s = {{{NULL, NULL}, NULL, {0}}, NULL, NULL, NULL, NULL};
    scratch_block scratch = {NULL, NULL};
    PyObject *result = NULL;
    int has_normals, renormalize;
    (void)self;
    if (!sks_check_nargs("skin", nargs, 8)) return NULL;
    has_normals = args[5] != Py_None;
    renormalize = PyObject_IsTrue(args[7]);
    if (renormalize < 0) return NULL;
    if (parse_mesh(&s, args) < 0) goto done;
    if (has_normals) {
        if (parse_normals(&s, args[5]) < 0) goto done;
    } else if (args[6] != Py_None) {
        PyErr_SetString(PyExc_ValueError,
                        "normals_out: expected None when normals is None (nothing to write)");
        goto done;
    }
    {
        const npy_intp out_block[2] = {PyArray_DIM(s.indices, 0), 3};
        if (sks_binary_prepare(&s.w, names, trailing, args[4], out_block, 2, in_place) < 0)
            goto done;
        if (has_normals) {
            s.normals_out = sks_prepare_out(args[6], "normals_out", PyArray_NDIM(s.w.out),
                                            PyArray_DIMS(s.w.out));
            if (s.normals_out == NULL) goto done;
        }
    }
    {
        PyArrayObject *all[6] = {s.w.ops[0], s.w.ops[1], s.indices, s.weights, s.normals, NULL};
        if (check_output_overlaps(s.w.out, "out", s.w.ops[0], all + 2, all_names + 2, 3) < 0)
            goto done;
        if (s.normals_out != NULL) {
            static const char *const inputs[5] = {"positions", "palette", "joint_indices",
                                                  "weights", "normals"};
            if (check_output_overlaps(s.normals_out, "normals_out", s.normals, all, inputs,
                                      5) < 0)
                goto done;
            /* two outputs never share memory (not even when both are in place: out=positions
             * and normals_out=normals with positions and normals one array) */
            if (sks_check_overlap(s.normals_out, "normals_out", s.w.out, "out", 0) < 0) goto done;
        }
    }
    if (PyArray_SIZE(s.w.out) > 0) {
        skin_job j;
        sks_pool_plan plan;
        const npy_intp meshes = sks_broadcast_inner(&s.w.bc) * sks_broadcast_outer(&s.w.bc);
        j.k = SKS_KERNELS(skinning);
        j.bc = &s.w.bc;
        j.vertices = (size_t)PyArray_DIM(s.indices, 0);
        j.influences = (size_t)PyArray_DIM(s.indices, 1);
        j.joints = (size_t)PyArray_DIM(s.w.ops[1], PyArray_NDIM(s.w.ops[1]) - 3);
        j.op = (float *)PyArray_DATA(s.w.out);
        j.on = has_normals ? (float *)PyArray_DATA(s.normals_out) : NULL;
        j.renormalize = renormalize;
        j.p = (const float *)PyArray_DATA(s.w.ops[0]);
        j.n = has_normals ? (const float *)PyArray_DATA(s.normals) : NULL;
        j.idx = (const int32_t *)PyArray_DATA(s.indices);
        j.w = (const float *)PyArray_DATA(s.weights);
        j.palette = (const float *)PyArray_DATA(s.w.ops[1]);
        j.slot_floats = (SKS_SKIN_SCRATCH_FLOATS(j.joints) + 15) & ~(size_t)15;
        plan = sks_parallel_plan((size_t)meshes * j.vertices,
                                 SKS_NS_SKIN_INFLUENCE * (double)j.influences *
                                     (has_normals ? SKS_SKIN_NORMALS_FACTOR : 1.0));
        if (scratch_alloc(&scratch, plan.slots * j.slot_floats) < 0) goto done;
        j.scratch = scratch.data;
        Py_BEGIN_ALLOW_THREADS
        sks_pool_run(&plan, skin_chunk, &j);
        Py_END_ALLOW_THREADS
    }
    if (has_normals) {
        result = PyTuple_Pack(2, (PyObject *)s.w.out, (PyObject *)s.normals_out);
    } else {
        result = (PyObject *)s.w.out;
        Py_INCREF(result);
    }
done:
    PyMem_Free(scratch.raw);
    Py_XDECREF(s.indices);
    Py_XDECREF(s.weights);
    Py_XDECREF(s.normals);
    Py_XDECREF(s.normals_out);
    sks_binary_finish(&s.w, 0);
    return result;
}

/* normalize_weights divided over the pool by rows. */
typedef struct weights_job {
    const sks_skinning_kernels *k;
    float *o;
    const float *x;
    size_t influences;
} weights_job;

static void weights_chunk(void *ctx, size_t begin, size_t end, size_t slot)
{
    const weights_job *j = (const weights_job *)ctx;
    (void)slot;
    j->k->normalize_weights(j->o + begin * j->influences, j->x + begin * j->influences,
                            end - begin, j->influences);
}

static PyObject *py_normalize_weights(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    PyArrayObject *w = NULL, *out = NULL;
    (void)self;
    if (!sks_check_nargs("normalize_weights", nargs, 2)) return NULL;
    w = sks_as_float32(args[0], "weights");
    if (w == NULL) goto fail;
    if (sks_check_shape(w, "weights", 1, NULL, 0, "(..., K)") < 0) goto fail;
    out = sks_prepare_out(args[1], "out", PyArray_NDIM(w), PyArray_DIMS(w));
    if (out == NULL) goto fail;
    if (sks_check_overlap(out, "out", w, "weights", 1) < 0) goto fail;
    {
        const sks_skinning_kernels *k = SKS_KERNELS(skinning);
        const npy_intp influences = PyArray_DIM(w, PyArray_NDIM(w) - 1);
        const npy_intp rows = influences ? PyArray_SIZE(w) / influences : 0;
        float *o = (float *)PyArray_DATA(out);
        const float *x = (const float *)PyArray_DATA(w);
        weights_job j;
        j.k = k;
        j.o = o;
        j.x = x;
        j.influences = (size_t)influences;
        Py_BEGIN_ALLOW_THREADS
        sks_parallel_for((size_t)rows, SKS_NS_OUT_FLOAT * 2 * (double)influences, weights_chunk,
                         &j);
        Py_END_ALLOW_THREADS
    }
    Py_DECREF(w);
    return (PyObject *)out;
fail:
    Py_XDECREF(w);
    Py_XDECREF(out);
    return NULL;
}

PyMethodDef sks_skinning_methods[] = {
    SKS_METHOD(skinning_palette, "(local, parents, inverse_bind, out, precision)"),
    SKS_METHOD(skin, "(positions, joint_indices, weights, palette, out, normals, normals_out)"),
    SKS_METHOD(normalize_weights, "(weights, out)"),
    {NULL, NULL, 0, NULL}};
