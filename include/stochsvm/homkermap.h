/* homkermap.h -- the homogeneous kernel map (Vedaldi and Zisserman, "Efficient
 * additive kernels via explicit feature maps", PAMI 2012).
 *
 * An additive homogeneous kernel K(x, y) = sum_j k(x_j, y_j) on non-negative
 * features (histograms) is approximated by a linear one, <Psi(x), Psi(y)>:
 * each input coordinate x_j becomes 2 order + 1 features, so a linear SVM on
 * Psi(x) is (nearly) a kernel SVM with K. The map is applied either
 * explicitly (ss_homkermap_expand) or on the fly: attach it to an SsData with
 * ss_data_set_homkermap and every solver sees the mapped features without
 * their ever being stored.
 *
 * The math. A gamma-homogeneous kernel is k(x, y) = (xy)^(gamma/2) K(log y - log x)
 * for x, y > 0, with the signature K(l) (the kernel at x = e^(l/2), y = e^(-l/2)):
 *
 *     intersection   min(x, y)                                K(l) = exp(-|l|/2)
 *     chi2           2xy / (x + y)                            K(l) = sech(l/2)
 *     Jensen-Shannon x/2 log2((x+y)/x) + y/2 log2((x+y)/y)    K(l) = e^(l/2)/2 log2(1 + e^-l)
 *                                                                   + e^(-l/2)/2 log2(1 + e^l)
 *
 * The signature is made periodic with period P (L = 2 pi / P) and expanded
 * in a Fourier series, K(l) ~ sum_m c_m cos(m L l), with
 *
 *     uniform window      c_m = L kappa(m L), kappa the spectrum of K:
 *                         intersection (2/pi) / (1 + 4 w^2), chi2 sech(pi w),
 *                         JS (2 / ln 4) sech(pi w) / (1 + 4 w^2)
 *     rectangular window  c_m = (2/P) int_0^{P/2} K(l) cos(m L l) dl
 *                         (K truncated to one period; in closed form for the
 *                         intersection kernel, by Simpson's rule over
 *                         [0, min(P/2, 100)] for chi2 and JS: beyond 100 the
 *                         signatures are below 1e-20, so any period is accurate)
 *
 * Frequencies whose coefficient is not positive are skipped (the map would
 * not be real): the map uses the first `order` frequencies m_1 < m_2 < ...
 * with c_m > 0, searching up to m = 3 order + 2 (VLFeat does the same). With
 * them, for x > 0,
 *
 *     Psi(x) = x^(gamma/2) ( sqrt(c_0),
 *                            sqrt(2 c_m1) cos(m_1 L ln x), sqrt(2 c_m1) sin(m_1 L ln x), ... )
 *
 * Psi(0) = 0 and Psi(-x) = -Psi(x) (VLFeat's convention for negative input).
 * Unlike VLFeat, which interpolates in a table over x in [2^-20, 2^8) and
 * maps everything outside that range to 0, Psi is computed exactly for every
 * finite x.
 *
 * Layout of the mapped vector: coordinate-major, the 2 order + 1 features of
 * input coordinate j at [j (2 order + 1), (j + 1)(2 order + 1)).
 */
#ifndef STOCHSVM_HOMKERMAP_H
#define STOCHSVM_HOMKERMAP_H

#include "stochsvm/stochsvm.h"

#ifdef __cplusplus
extern "C" {
#endif

/** @brief The additive kernel a map approximates. */
typedef enum SsHomKernel {
  SS_HOMKERNEL_INTERSECTION = 0, /**< min(x, y) */
  SS_HOMKERNEL_CHI2 = 1,         /**< 2xy / (x + y) */
  SS_HOMKERNEL_JS = 2            /**< Jensen-Shannon */
} SsHomKernel;

/** @brief The window applied to the kernel's signature before it is made periodic. */
typedef enum SsHomWindow {
  SS_HOMWINDOW_UNIFORM = 0,     /**< sample the exact spectrum */
  SS_HOMWINDOW_RECTANGULAR = 1  /**< truncate the signature to one period (VLFeat's default) */
} SsHomWindow;

/** @brief The largest approximation order (2 order + 1 features per input). */
#define SS_HOMKERMAP_MAX_ORDER 64

/** @brief A homogeneous kernel map: parameters and precomputed coefficients.
 *  A plain value, filled by ss_homkermap_init(): it owns no memory, can be
 *  copied, and is read-only afterwards, so one map can serve any number of
 *  data descriptors and threads at once. */
typedef struct SsHomKerMap {
  SsHomKernel kernel;
  SsHomWindow window;
  double gamma;          /**< homogeneity degree, > 0 (1 for the standard kernels) */
  int order;             /**< approximation order, 0..SS_HOMKERMAP_MAX_ORDER */
  double period;         /**< the period P of the signature (resolved if automatic) */
  int frequency[SS_HOMKERMAP_MAX_ORDER + 1];        /**< m_k; frequency[0] = 0 */
  double coefficient[SS_HOMKERMAP_MAX_ORDER + 1];   /**< sqrt(c_0), then sqrt(2 c_m_k) */
} SsHomKerMap;

/** @brief Fill a map.
 *  @param map    the map to fill (written only on success).
 *  @param kernel one of SsHomKernel.
 *  @param gamma  homogeneity degree, finite and > 0.
 *  @param order  0..SS_HOMKERMAP_MAX_ORDER.
 *  @param period the period P, finite and > 0 (and not so small that (2 pi / P) 745, the
 *                largest angle L |ln x| of a double x, overflows: P > 2.6e-305);
 *                or 0 (or any value <= 0) for the
 *                automatic period, VLFeat's rule: max(1, p(order)) with
 *                uniform window:     chi2 5.86 sqrt(order) + 3.65, JS 6.64 sqrt(order) + 7.24,
 *                                    intersection 2.38 ln(order + 0.8) + 5.6;
 *                rectangular window: chi2 8.80 sqrt(order + 4.44) - 12.6,
 *                                    JS 9.63 sqrt(order + 1) - 2.93,
 *                                    intersection 2.00 ln(order + 0.99) + 3.52.
 *  @param window one of SsHomWindow.
 *  @return SS_OK, or SS_ERR_BAD_ARG for a NULL map or an argument out of range. */
SS_API SsStatus ss_homkermap_init(SsHomKerMap *map, SsHomKernel kernel, double gamma, int order,
                                  double period, SsHomWindow window);

/** @brief 2 order + 1, the number of features each input coordinate becomes. */
SS_API int64_t ss_homkermap_dimension(const SsHomKerMap *map);

/** @brief Psi(x): write the 2 order + 1 features of the scalar x to
 *  dest[0], dest[stride], ... (stride >= 1). */
SS_API void ss_homkermap_evaluate(const SsHomKerMap *map, double x, double *dest, int64_t stride);

/** @brief The explicit expansion of a data set (without a map of its own).
 *  Dense data: writes num_data rows of dimension (2 order + 1) doubles,
 *  row-major and contiguous, to @p values. CSR data: the mapped matrix is CSR
 *  too, with the same rows; writes its indptr[num_data] (2 order + 1) values
 *  to @p values, and, if not NULL, their column indices to @p indices (which
 *  needs dimension (2 order + 1) <= 2^31) and the num_data + 1 row offsets
 *  to @p indptr. The mapped value of a stored zero is stored too (as zeros).
 *  @return SS_OK; SS_ERR_BAD_ARG for a NULL argument, data that already
 *          carries a map, or indices that would not fit in int32;
 *          SS_ERR_NUMERIC when a mapped value is not finite (|x|^(gamma/2)
 *          overflows for a large |x| and gamma > 2; every value is written). */
SS_API SsStatus ss_homkermap_expand(const SsHomKerMap *map, const SsData *data, double *values,
                                    int32_t *indices, int64_t *indptr);

/** @brief Attach a map to a validated descriptor, so that every object that
 *  reads it sees Psi(x_i) instead of x_i (dimension d (2 order + 1), see
 *  ss_data_get_dimension). The map is borrowed like the arrays: it must stay
 *  alive and unchanged while the descriptor is used. NULL detaches.
 *  @return SS_OK; SS_ERR_BAD_ARG for a NULL descriptor or a mapped dimension
 *          that does not fit in int64. */
SS_API SsStatus ss_data_set_homkermap(SsData *data, const SsHomKerMap *map);

#ifdef __cplusplus
}
#endif

#endif /* STOCHSVM_HOMKERMAP_H */
