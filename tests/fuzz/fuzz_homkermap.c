/* fuzz_homkermap.c -- the homogeneous kernel map with arbitrary parameters
 * and inputs. Checked promises (homkermap.h): ss_homkermap_init accepts
 * exactly the documented range and then yields finite coefficients and a
 * positive finite period, c_0 > 0; beyond P = 400 the two windows give the
 * same coefficients; Psi(x) is finite wherever x^(gamma/2) is; the
 * explicit expansion and the map on the fly agree (dense and CSR). */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *bytes, size_t size)
{
  FzInput in = {bytes, size};
  const int sel = fz_byte(&in);
  SsHomKernel kernel = (SsHomKernel)(sel < 240 ? fz_range(&in, 0, 2) : (int)fz_bits(&in, 4));
  SsHomWindow window = (SsHomWindow)(fz_byte(&in) < 240 ? fz_range(&in, 0, 1) : (int)fz_bits(&in, 4));
  double gamma = fz_byte(&in) < 160 ? 0.25 * (double)fz_range(&in, 1, 12) : fz_double(&in);
  int order = fz_byte(&in) < 224 ? (int)fz_range(&in, 0, 6) : (int)fz_bits(&in, 4);
  double period = fz_byte(&in) < 128 ? 0.0 : fz_double(&in);

  SsHomKerMap map;
  memset(&map, 0x5A, sizeof map);
  SsStatus s = ss_homkermap_init(&map, kernel, gamma, order, period, window);
  const int valid = (kernel >= 0 && kernel <= 2) && (window >= 0 && window <= 1) && isfinite(gamma) &&
                    gamma > 0 && order >= 0 && order <= SS_HOMKERMAP_MAX_ORDER && !isnan(period) &&
                    period != INFINITY;
  if (!valid) {
    FZ_ASSERT(s == SS_ERR_BAD_ARG);
    return 0;
  }
  if (s != SS_OK) {
    FZ_ASSERT(s == SS_ERR_BAD_ARG);
    return 0;
  }
  FZ_ASSERT(isfinite(map.period) && map.period > 0);
  for (int k = 0; k <= map.order; ++k) FZ_ASSERT(isfinite(map.coefficient[k]) && map.coefficient[k] >= 0);
  FZ_ASSERT(map.coefficient[0] > 0); /* c_0 is the mean of a positive signature */
  if (map.period > 400) {
    /* Truncating the signature to one period removes less than
     * (P + 8) e^(-P/4) (homkermap.c): both windows give the same coefficients. */
    SsHomKerMap other;
    FZ_ASSERT(ss_homkermap_init(&other, kernel, gamma, order, map.period, (SsHomWindow)(1 - window)) == SS_OK);
    for (int k = 0; k <= map.order; ++k) {
      FZ_ASSERT(other.frequency[k] == map.frequency[k]);
      FZ_ASSERT(fabs(other.coefficient[k] - map.coefficient[k]) <= 1e-9 * map.coefficient[0]);
    }
  }
  const int64_t D = ss_homkermap_dimension(&map);
  FZ_ASSERT(D == 2 * (int64_t)order + 1);

  /* A few scalars, then a small dense matrix of them and its CSR twin. */
  enum { M = 6 };
  double x[M], psi[M * (2 * SS_HOMKERMAP_MAX_ORDER + 1)];
  double cmax = 0;
  for (int k = 0; k <= map.order; ++k) cmax = map.coefficient[k] > cmax ? map.coefficient[k] : cmax;
  for (int i = 0; i < M; ++i) {
    x[i] = fz_byte(&in) < 128 ? (double)fz_range(&in, -8, 8) / 4.0 : fz_double(&in);
    ss_homkermap_evaluate(&map, x[i], psi + i * D, 1);
    double radius = pow(fabs(x[i]), 0.5 * gamma) * cmax;
    if (isfinite(x[i]) && isfinite(radius))
      for (int64_t r = 0; r < D; ++r) FZ_ASSERT(isfinite(psi[i * D + r]));
  }
  int all_finite = 1;
  for (int i = 0; i < M; ++i) all_finite &= isfinite(x[i]) != 0;
  if (!all_finite) return 0;

  SsData dense, csr;
  const int64_t rows = 2, cols = M / 2;
  FZ_ASSERT(ss_data_init_dense(&dense, SS_DTYPE_FLOAT64, x, rows, cols, cols) == SS_OK);
  int64_t indptr[3] = {0, cols, M};
  int32_t indices[M];
  for (int i = 0; i < M; ++i) indices[i] = i % cols;
  FZ_ASSERT(ss_data_init_csr(&csr, SS_DTYPE_FLOAT64, x, indptr, indices, rows, cols) == SS_OK);

  double expanded[M * (2 * SS_HOMKERMAP_MAX_ORDER + 1)];
  double expanded_csr[M * (2 * SS_HOMKERMAP_MAX_ORDER + 1)];
  int32_t expanded_indices[M * (2 * SS_HOMKERMAP_MAX_ORDER + 1)];
  int64_t expanded_indptr[3];
  /* A value whose map overflows is reported (every value is still written). */
  int psi_finite = 1;
  for (int64_t r = 0; r < M * D; ++r) psi_finite &= isfinite(psi[r]) != 0;
  const SsStatus expect = psi_finite ? SS_OK : SS_ERR_NUMERIC;
  FZ_ASSERT(ss_homkermap_expand(&map, &dense, expanded, NULL, NULL) == expect);
  FZ_ASSERT(ss_homkermap_expand(&map, &csr, expanded_csr, expanded_indices, expanded_indptr) == expect);
  FZ_ASSERT(memcmp(expanded, psi, (size_t)(M * D) * sizeof(double)) == 0);
  FZ_ASSERT(memcmp(expanded_csr, psi, (size_t)(M * D) * sizeof(double)) == 0);
  FZ_ASSERT(expanded_indptr[2] == M * D);

  /* On the fly: <w, Psi(x_i)> equals the dot product with the expansion. */
  if (ss_data_set_homkermap(&dense, &map) != SS_OK || ss_data_set_homkermap(&csr, &map) != SS_OK) return 0;
  double w[(M / 2) * (2 * SS_HOMKERMAP_MAX_ORDER + 1)];
  for (int64_t j = 0; j < cols * D; ++j) w[j] = (double)((j % 5) - 2) / 2.0;
  for (int64_t i = 0; i < rows; ++i) {
    double want = 0;
    for (int64_t j = 0; j < cols * D; ++j) want += w[j] * expanded[i * cols * D + j];
    double got = ss_data_inner_product(&dense, i, w), got_csr = ss_data_inner_product(&csr, i, w);
    /* 1e-12 times the sum of |terms| (which bounds every partial sum, in any
     * order), scaled term by term so that it cannot overflow */
    double slack = 0;
    for (int64_t j = 0; j < cols * D; ++j) slack += 1e-12 * fabs(w[j] * expanded[i * cols * D + j]);
    if (isfinite(want)) {
      double tol = 1e-9 * (1 + fabs(want)) + slack;
      /* At the edge of the double range the two orders of summation differ:
       * the map on the fly adds one coordinate's 2 order + 1 terms first, and
       * that partial sum may truly exceed DBL_MAX while the explicit sum,
       * taken term by term across coordinates, has cancelled by then (found
       * by the long run: x = DBL_MAX, gamma = 2; regression-dot-overflow-edge).
       * Only then may the map on the fly give a non-finite value (training
       * reports it as SS_ERR_NUMERIC). */
      const int edge = !(slack < 1e-12 * (DBL_MAX / 2));
      FZ_ASSERT((fabs(got - want) <= tol || (edge && !isfinite(got))) &&
                (fabs(got_csr - want) <= tol || (edge && !isfinite(got_csr))));
    }
  }
  return 0;
}
