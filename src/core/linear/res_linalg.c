/* res_linalg.c -- the dense Cholesky factorisation and solve of RES
 * (res.c) and of the curvature checks (res_params.c). A primitive of the
 * linear layer: it calls nothing, so res_params.c and res_steps.c, which
 * both use it, no longer call each other both ways. */
#include "res_steps.h"

#include <math.h>

bool ss_res_cholesky(double *A, int64_t D)
{
  for (int64_t j = 0; j < D; ++j) {
    double *Aj = A + j * D;
    double diag = Aj[j];
    for (int64_t k = 0; k < j; ++k) diag -= Aj[k] * Aj[k];
    if (!(diag > 0) || !isfinite(diag)) return false;
    const double Gjj = sqrt(diag);
    Aj[j] = Gjj;
    for (int64_t i = j + 1; i < D; ++i) {
      double *Ai = A + i * D;
      double sum = Ai[j];
      for (int64_t k = 0; k < j; ++k) sum -= Ai[k] * Aj[k];
      Ai[j] = sum / Gjj;
    }
  }
  return true;
}

void ss_res_cholesky_solve(const double *G, int64_t D, double *b)
{
  for (int64_t i = 0; i < D; ++i) { /* G y = b */
    const double *Gi = G + i * D;
    double sum = b[i];
    for (int64_t k = 0; k < i; ++k) sum -= Gi[k] * b[k];
    b[i] = sum / Gi[i];
  }
  for (int64_t i = D - 1; i >= 0; --i) { /* G^T x = y */
    double sum = b[i];
    for (int64_t k = i + 1; k < D; ++k) sum -= G[k * D + i] * b[k];
    b[i] = sum / G[i * D + i];
  }
}
