/* dense_dots.h -- the dot products of many dense float64 rows with one
 * vector (dense_dots.c); private to the core, never installed. */
#ifndef STOCHSVM_DENSE_DOTS_H
#define STOCHSVM_DENSE_DOTS_H

#include <stdint.h>

/** out[k] = <x_r, z> for k < len, x_r = base + r stride the dense float64
 *  row r (d values) and r = rows[k] (rows NULL: r = first + k). Each value
 *  is the one ss_dense_dot_f64(x_r, d, z) returns, bit for bit (row_kernels_t.h:
 *  four partial sums over k mod 4, the tail into the first, then
 *  (s0 + s1) + (s2 + s3)), whatever len, first or the rows' alignment, so the
 *  rows may be cut anywhere (blocks, threads). */
void ss_dense_dots_f64(const double *base, int64_t stride, int64_t d, const int64_t *rows,
                       int64_t first, int64_t len, const double *z, double *out);

#endif /* STOCHSVM_DENSE_DOTS_H */
