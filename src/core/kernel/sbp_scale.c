/* sbp_scale.c -- the nu of a kernel model at its best scale for lambda,
 * the test behind the refinement of the SBP's derived nu (the math and the
 * figures: sbp_nu.c, "Refinement").
 *
 * With margins z_i = y_i f(x_i) and N = ||w||^2, g(s) = lambda/2 s^2 N +
 * 1/n sum_i max(0, 1 - s z_i) is convex in s > 0 with slope
 * lambda N s - A(s) / n, A(s) the sum of the margins below 1 / s. Sorting
 * the margins down, the breakpoints 1 / z_k come in increasing order; on
 * each piece A is fixed and the slope's zero is A / (n lambda N). The first
 * piece holding its zero, or the kink where the slope changes sign, is s*.
 */
#include "kernel_internal.h"

#include <math.h>
#include <stdlib.h>

static int by_decreasing(const void *a, const void *b)
{
  const double x = *(const double *)a, y = *(const double *)b;
  return (x < y) - (x > y);
}

double ss_sbp_scaled_nu(double *z, int64_t n, double lambda, double norm2)
{
  if (n <= 0 || !(norm2 > 0) || !(lambda > 0)) return 0;
  double active = 0; /* A(s) near s = 0: every margin */
  for (int64_t i = 0; i < n; ++i) active += z[i];
  double scale = 1;
  if (active > 0) {
    qsort(z, (size_t)n, sizeof(double), by_decreasing);
    const double curvature = lambda * norm2 * (double)n;
    for (int64_t k = 0;; ++k) {
      const double root = active / curvature; /* the slope's zero with A fixed */
      /* on [1 / z_{k-1}, 1 / z_k), A is the sum of z_k.. (z sorted down) */
      if (k == n || z[k] <= 0 || root * z[k] < 1) {
        scale = root;
        break;
      }
      active -= z[k];
      if (active / curvature * z[k] < 1) { /* the slope changes sign at the kink 1 / z_k */
        scale = 1 / z[k];
        break;
      }
    }
  }
  double loss = 0;
  for (int64_t i = 0; i < n; ++i) {
    const double m = scale * z[i];
    if (m < 1) loss += 1 - m;
  }
  return loss / (double)n / (scale * sqrt(norm2));
}
