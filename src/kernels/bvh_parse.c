/*
 * bvh_parse.c -- sks_parse_rows, the MOTION-block reader of BVH import (see bvh_parse.h).
 */
#include "bvh_parse.h"

#include <float.h>
#include <math.h>
#include <stdint.h>

/* Exact powers of ten in double (10^0 .. 10^22 are exactly representable). */
static const double sks_pow10[23] = {
    1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
    1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

#define SKS_MAX_KEPT_DIGITS 19       /* fit a uint64 */
#define SKS_TWO_POW_53 9007199254740992.0

static inline int is_separator(char c)
{
    return c == ' ' || c == '\t' || c == '\v' || c == '\f';
}

static inline int is_line_end(char c)
{
    return c == '\n' || c == '\r';
}

static inline int is_digit(char c)
{
    return c >= '0' && c <= '9';
}

/* mantissa * 10^exp10 as a double outside the fast path (more than 53 mantissa bits or
 * |exp10| > 22): the mantissa's rounding, libm's pow (within 1 ulp) and one multiplication or
 * division, so within 2 ulp of the exact value for normal results. Exponents below -308 (results
 * far below the float32 range, which round to 0 there) go through two divisions. */
static double scale_by_pow10(uint64_t mantissa, long exp10)
{
    const double m = (double)mantissa;
    if (mantissa == 0) return 0.0;
    if (exp10 > 308) return HUGE_VAL;                       /* rejected as out of range */
    if (exp10 >= 0) return m * pow(10.0, (double)exp10);
    if (exp10 >= -308) return m / pow(10.0, (double)-exp10);
    if (exp10 < -400) return 0.0;
    return (m / 1e308) / pow(10.0, (double)(-exp10 - 308));
}

/* Parses one number starting at s (s < end). On success stores it, sets *next to the byte after
 * it and returns 1; returns 0 when the bytes there are not a number followed by a separator, a
 * line end or the end of the text. */
static inline int parse_number(const char *s, const char *end, double *value, const char **next)
{
    const char *p = s;
    int negative = 0, digits = 0, kept = 0;
    uint64_t mantissa = 0;
    long exp10 = 0;
    if (*p == '+' || *p == '-') {
        negative = *p == '-';
        p++;
    }
    for (; p < end && is_digit(*p); p++, digits++) {
        if (mantissa == 0 && *p == '0') continue;          /* leading zeros: not significant */
        if (kept < SKS_MAX_KEPT_DIGITS) {
            mantissa = mantissa * 10 + (uint64_t)(*p - '0');
            kept++;
        } else {
            exp10++;                                          /* dropped integer digit */
        }
    }
    if (p < end && *p == '.') {
        for (p++; p < end && is_digit(*p); p++, digits++) {
            if (mantissa == 0 && *p == '0') {
                exp10--;
                continue;
            }
            if (kept < SKS_MAX_KEPT_DIGITS) {
                mantissa = mantissa * 10 + (uint64_t)(*p - '0');
                kept++;
                exp10--;
            }
        }
    }
    if (digits == 0) return 0;
    if (p < end && (*p == 'e' || *p == 'E')) {
        int exp_negative = 0, exp_digits = 0;
        long e = 0;
        p++;
        if (p < end && (*p == '+' || *p == '-')) {
            exp_negative = *p == '-';
            p++;
        }
        for (; p < end && is_digit(*p); p++, exp_digits++) {
            if (e < 100000) e = e * 10 + (*p - '0');
        }
        if (exp_digits == 0) return 0;
        exp10 += exp_negative ? -e : e;
    }
    if (p < end && !is_separator(*p) && !is_line_end(*p)) return 0;
    {
        double v;
        if ((double)mantissa <= SKS_TWO_POW_53 && exp10 >= -22 && exp10 <= 22) {
            /* Clinger's fast path: both operands exact, one correctly rounded operation */
            v = exp10 >= 0 ? (double)mantissa * sks_pow10[exp10]
                           : (double)mantissa / sks_pow10[-exp10];
        } else {
            v = scale_by_pow10(mantissa, exp10);
        }
        *value = negative ? -v : v;
    }
    *next = p;
    return 1;
}

/* The end of the token starting at s (for error messages). */
static inline const char *token_end(const char *s, const char *end)
{
    while (s < end && !is_separator(*s) && !is_line_end(*s)) s++;
    return s;
}

enum sks_text_status sks_parse_rows(const char *text, size_t len, size_t rows, size_t cols,
                                    double *out, size_t first_line, sks_text_error *err)
{
    const char *p = text, *const end = text + len;
    size_t line = first_line, row = 0;
    err->status = SKS_TEXT_OK;
    err->row = err->count = err->offset = err->length = 0;
    for (;;) {
        size_t count = 0;
        double *dst = out + row * cols;
        while (p < end && is_separator(*p)) p++;
        if (p == end) break;
        if (is_line_end(*p)) {                                /* blank line */
            p += (*p == '\r' && p + 1 < end && p[1] == '\n') ? 2 : 1;
            line++;
            continue;
        }
        if (row == rows) {
            err->status = SKS_TEXT_EXTRA_ROWS;
            goto fail;
        }
        while (p < end && !is_line_end(*p)) {
            double v;
            const char *next;
            if (!parse_number(p, end, &v, &next)) {
                err->status = SKS_TEXT_BAD_NUMBER;
                goto fail_token;
            }
            if (v > FLT_MAX || v < -FLT_MAX) {
                err->status = SKS_TEXT_OUT_OF_RANGE;
                goto fail_token;
            }
            if (count < cols) dst[count] = v;
            count++;
            p = next;
            while (p < end && is_separator(*p)) p++;
        }
        if (count != cols) {
            err->status = count < cols ? SKS_TEXT_TOO_FEW : SKS_TEXT_TOO_MANY;
            err->count = count;
            goto fail;
        }
        row++;
        if (p < end) {
            p += (*p == '\r' && p + 1 < end && p[1] == '\n') ? 2 : 1;
            line++;
        }
    }
    if (row < rows) {
        err->status = SKS_TEXT_MISSING_ROWS;
        goto fail;
    }
    return SKS_TEXT_OK;
fail_token:
    err->offset = (size_t)(p - text);
    err->length = (size_t)(token_end(p, end) - p);
fail:
    err->line = line;
    err->row = row;
    return err->status;
}
