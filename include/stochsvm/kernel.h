/* kernel.h -- kernel functions and kernel rows over SsData.
 *
 * A kernel K(x, z) is evaluated from one inner product <x, z> and, for the
 * Gaussian kernel, the cached squared norms ||x||^2 and ||z||^2:
 *
 *   linear       K = <x, z>
 *   rbf          K = exp(-gamma ||x - z||^2),  ||x - z||^2 = ||x||^2 + ||z||^2 - 2 <x, z>
 *   polynomial   K = (gamma <x, z> + coef0)^degree
 *   sigmoid      K = tanh(gamma <x, z> + coef0)
 *   precomputed  K(x_i, x_j) = G[i][j], the data matrix *is* the Gram matrix:
 *                a training set is n x n (row i = K(x_i, x_1..x_n)), a set
 *                of queries is m x n (row q = K(z_q, x_1..x_n)).
 *
 * A kernel row K(z, x_1..x_n) costs one sparse or dense dot product per
 * entry (z is scattered once into a dense work vector, so CSR x CSR is a
 * gather, never a merge), then the scalar function. No BLAS.
 */
#ifndef STOCHSVM_KERNEL_H
#define STOCHSVM_KERNEL_H

#include "stochsvm.h"

#ifdef __cplusplus
extern "C" {
#endif

/** @brief The kernel functions. */
typedef enum SsKernelType {
  SS_KERNEL_LINEAR = 0,      /**< <x, z> */
  SS_KERNEL_RBF = 1,         /**< exp(-gamma ||x - z||^2) (Gaussian) */
  SS_KERNEL_POLYNOMIAL = 2,  /**< (gamma <x, z> + coef0)^degree */
  SS_KERNEL_SIGMOID = 3,     /**< tanh(gamma <x, z> + coef0) */
  SS_KERNEL_PRECOMPUTED = 4  /**< the data rows are kernel values against the training set */
} SsKernelType;

/** @brief A kernel and its parameters. Fill it with ss_kernel_init() (or
 *  ss_kernel_init_gaussian()), which validates it; fields are public for
 *  reading. Parameters a kernel does not use are stored as given. */
typedef struct SsKernel {
  SsKernelType type;
  double gamma;  /**< rbf, polynomial, sigmoid: finite and > 0 */
  double coef0;  /**< polynomial, sigmoid: finite */
  int degree;    /**< polynomial: 1..64 */
} SsKernel;

/** @brief Describe a kernel.
 *  @param kernel the kernel to fill (written only on success).
 *  @param type   one of SsKernelType.
 *  @param gamma  > 0 and finite for rbf, polynomial and sigmoid (ignored, but
 *                must be finite, for linear and precomputed).
 *  @param coef0  finite.  @param degree 1..64 for polynomial (ignored otherwise).
 *  @return SS_OK or SS_ERR_BAD_ARG (NULL kernel, unknown type, value out of range). */
SS_API SsStatus ss_kernel_init(SsKernel *kernel, SsKernelType type, double gamma, double coef0,
                               int degree);

/** @brief The Gaussian kernel exp(-||x - z||^2 / (2 sigma^2)) (the papers'
 *  bandwidth form): an rbf kernel with gamma = 1 / (2 sigma2).
 *  @param sigma2 sigma^2, finite and > 0.
 *  @return SS_OK or SS_ERR_BAD_ARG. */
SS_API SsStatus ss_kernel_init_gaussian(SsKernel *kernel, double sigma2);

/** @brief SS_OK if @p kernel holds a valid kernel (as ss_kernel_init leaves
 *  it), else SS_ERR_BAD_ARG. */
SS_API SsStatus ss_kernel_check(const SsKernel *kernel);

/** @brief K from an inner product and the two squared norms (the scalar
 *  function of a valid, non-precomputed kernel; the norms are read by rbf
 *  only). For a precomputed kernel it returns @p dot. */
SS_API double ss_kernel_value(const SsKernel *kernel, double dot, double norm2_x, double norm2_z);

/** @brief Squared norms ||x_i||^2 of every row of a valid descriptor.
 *  @param norms2 n doubles, written.
 *  @return SS_OK; SS_ERR_BAD_ARG for NULL pointers or a descriptor with a
 *          homogeneous kernel map attached (kernels read the raw rows). */
SS_API SsStatus ss_kernel_squared_norms(const SsData *data, double *norms2);

/** @brief One kernel row: out[j] = K(z_q, x_j) for j = 0..n-1, where z_q is
 *  row @p q of @p queries and x_j the rows of @p data.
 *
 *  Any layout and element type on either side. For a precomputed kernel
 *  queries holds kernel values (m x n, dimension n = data->num_data) and
 *  out[j] = queries[q][j]; data is then only used for n.
 *  @param norms2  the squared norms of data's rows (ss_kernel_squared_norms),
 *                 borrowed; may be NULL (rbf then computes them on the fly).
 *  @param out     n doubles, written.
 *  @param num_evaluations if non-NULL, incremented by n (the evaluation counter).
 *  @return SS_OK; SS_ERR_BAD_ARG (NULL pointer, invalid kernel, q out of
 *          range, dimensions differ, a kernel map attached); SS_ERR_ALLOC
 *          (the work vector of d doubles). */
SS_API SsStatus ss_kernel_row(const SsKernel *kernel, const SsData *queries, int64_t q,
                              const SsData *data, const double *norms2, double *out,
                              int64_t *num_evaluations);

#ifdef __cplusplus
}
#endif

#endif /* STOCHSVM_KERNEL_H */
