/* kernel_certificate.h -- private: a dual lower bound on the kernel SVM's
 * optimum from a model on training rows (kernel_certificate.c). */
#ifndef STOCHSVM_KERNEL_CERTIFICATE_H
#define STOCHSVM_KERNEL_CERTIFICATE_H

#include "kernel_internal.h"

/** D <= P* of @p self's problem (lambda, weights, the bias setting) from
 *  the training scores @p scores of its model (f(x_i) without the bias;
 *  the bias is the model's): one kernel row per margin error, then at most
 *  @p max_rows more for the ascent (n evaluations each, counted in
 *  num_kernel_evaluations). NaN out of memory. */
double ss_kernel_dual_bound(SsKernelSvm *self, const double *scores, int64_t max_rows);

/** The most kernel evaluations ss_kernel_dual_bound(@p self, @p scores,
 *  @p max_rows) can cost: an O(n) count of the margin errors. */
double ss_kernel_dual_bound_cost(const SsKernelSvm *self, const double *scores, int64_t max_rows);

#endif /* STOCHSVM_KERNEL_CERTIFICATE_H */
