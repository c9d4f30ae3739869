/*
 * bvh_parse.h -- the number parser of BVH import (skelsimd.io.bvh).
 *
 * sks_parse_rows reads the MOTION block of a BVH file: `rows` lines of `cols` whitespace-
 * separated decimal numbers. It is the hot part of BVH import (01_01.bvh: 2752 x 96 numbers in
 * 2 MB); NumPy's text parsers need 40-60 ms for it, this one a few. It is byte-serial, branchy
 * code with no useful SIMD form, so it has one portable variant and no dispatch table.
 *
 * Pure C99: no Python.h, re-entrant, no global state.
 */
#ifndef SKS_BVH_PARSE_H
#define SKS_BVH_PARSE_H

#include <stddef.h>

enum sks_text_status {
    SKS_TEXT_OK = 0,
    SKS_TEXT_BAD_NUMBER,     /* a token that is not a decimal number ("abc", "1,5", "nan") */
    SKS_TEXT_OUT_OF_RANGE,   /* a number beyond the float32 range (|x| > FLT_MAX) */
    SKS_TEXT_TOO_FEW,        /* a line with fewer than `cols` numbers */
    SKS_TEXT_TOO_MANY,       /* a line with more than `cols` numbers */
    SKS_TEXT_MISSING_ROWS,   /* the text ends before `rows` lines were read */
    SKS_TEXT_EXTRA_ROWS      /* a non-blank line after `rows` lines */
};

typedef struct sks_text_error {
    enum sks_text_status status;
    size_t line;      /* line number of the problem (first_line numbers the first line) */
    size_t row;       /* rows completely read before the problem */
    size_t count;     /* numbers found on the offending line (TOO_FEW / TOO_MANY) */
    size_t offset;    /* byte offset of the offending token in `text` (BAD_NUMBER, OUT_OF_RANGE) */
    size_t length;    /* its length in bytes */
} sks_text_error;

/*
 * Parses `rows` non-blank lines of exactly `cols` numbers each from text[0:len] into
 * out[rows * cols] (row-major, float64).
 *
 * Lines end with "\n", "\r\n" or a lone "\r" (mixed endings are fine); spaces, tabs, \v and
 * \f separate numbers; blank lines are skipped anywhere. A number is
 *     [+-] digits [. digits] [(e|E) [+-] digits]     (with at least one mantissa digit; ".5",
 *                                                      "5.", "-0.0", "1e-3" are numbers)
 * and must be followed by whitespace, a line end or the end of the text.
 *
 * Conversion: up to 19 significant digits are kept (later digits are dropped: a relative
 * change below 1e-18). With at most 15 significant digits and a decimal exponent in
 * [-22, 22], the result is the correctly rounded double (one exact IEEE multiplication or
 * division, Clinger's fast path), which covers every number BVH writers print; otherwise the
 * result is within 2 ulp of the double nearest the decimal value (for results in the normal
 * double range; numbers beyond the float32 range are refused, see below). Both are far below
 * the float32 rounding the results go through.
 *
 * Returns SKS_TEXT_OK, or the first problem in `err` (out is then partially written).
 * `first_line` is the line number of text[0], for messages.
 */
enum sks_text_status sks_parse_rows(const char *text, size_t len, size_t rows, size_t cols,
                                    double *out, size_t first_line, sks_text_error *err);

#endif /* SKS_BVH_PARSE_H */
