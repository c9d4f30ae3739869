/*
 * vocab_check.h -- the vocabulary check: every vector operation applied, by each target, to the
 * same inputs (vocab_check.c is compiled once per target like a kernel family; check_vocab.c
 * compares every target's results with the scalar target's, bit for bit).
 */
#ifndef SKS_VOCAB_CHECK_H
#define SKS_VOCAB_CHECK_H

#include "simd.h"

enum vocab_op {
    VOP_ADD, VOP_SUB, VOP_MUL, VOP_DIV, VOP_SQRT, VOP_MIN, VOP_MAX, VOP_NEG, VOP_ABS,
    VOP_AND, VOP_OR, VOP_XOR, VOP_ANDNOT,
    VOP_LT, VOP_LE, VOP_GT, VOP_GE, VOP_EQ, VOP_NEQ, VOP_UNORD,
    VOP_SELECT, VOP_IF, VOP_IFNOT, VOP_MASK_LOGIC, VOP_BITS,
    VOP_LOAD_N, VOP_FIRST_N, VOP_FIRST_ITEMS,
    VOP_SPLAT0, VOP_SPLAT1, VOP_SPLAT2, VOP_SPLAT3, VOP_SHUFFLE_YZX, VOP_SHUFFLE_WZYX,
    VOP_KEEP3, VOP_CLEAR3, VOP_TRANSPOSE, VOP_ROWS_STRIDED, VOP_ROWS_N, VOP_BROADCAST_ROW,
    VOP_INT_ROUNDTRIP, VOP_INT_ARITH,
    VOP_F64, VOP_ROWS_COUNT, VOP_ITEMS_SOA, VOP_ITEMS_N, VOP_ROWS_XYZ,
    VOP_ROUND, VOP_HSUM4, VOP_LOAD_ROWS2, /* added for blend */
    /* added for mat4 and skinning */
    VOP_SET1_ROWS, VOP_TRANSPOSE_ROWS,
    VOP_SHUFFLE2, VOP_BLEND_ROWS, VOP_F64_QTS, /* added for qts */
    VOP_COUNT
};

/* Applies `op` to n floats of a, b, c (n a multiple of 16; each buffer has n floats) writing n
 * floats to out (VOP_F64: n doubles to out64 as well). Returns the number of internal consistency
 * failures (vm_any/vm_all against vm_bits, ...). */
typedef struct sks_vocab_kernels {
    int (*apply)(int op, float *out, double *out64, const float *a, const float *b, const float *c,
                 size_t n);
} sks_vocab_kernels;

#endif /* SKS_VOCAB_CHECK_H */
