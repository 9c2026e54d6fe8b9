/* ray.c -- the minimiser along a ray (ray.h): a bracket by doubling, then
 * the Illinois variant of regula falsi on the sign of the slope (a
 * subgradient at the kinks of a piecewise linear loss: its sign still says
 * on which side the minimum lies). Each slope costs a pass over n scores
 * (with an exp per score for the logistic loss), so the steps count: the
 * secant through the bracket's ends converges superlinearly on a smooth
 * slope, where bisection to the same width took 40 passes (on w8a's
 * logistic SDCA run that was 40% of 5 epochs); halving the weight of an end
 * that stays keeps a step function's bracket shrinking from both sides. */
#include "ray.h"

#include <math.h>

/** Doublings of the bracket beyond t = 1, steps inside it, and the relative
 *  width at which it is narrow enough: a few ulps, so that two runs whose
 *  models agree to rounding return rays that agree to rounding too (an
 *  exact restart gives the same model to 1e-12; a width of 1e-10 broke
 *  that, tests/c/test_sdca.c). */
#define SS_RAY_MAX_DOUBLINGS 60
#define SS_RAY_MAX_STEPS 100
#define SS_RAY_WIDTH 1e-14

double ss_ray_minimiser(SsRaySlope slope, const void *context)
{
  double g_lo = slope(context, 0);
  if (!(g_lo < 0)) return 0;
  double lo = 0, hi = 1, g_hi = slope(context, hi);
  for (int k = 0; g_hi < 0; ++k) {
    if (k == SS_RAY_MAX_DOUBLINGS) return NAN;
    lo = hi;
    g_lo = g_hi;
    hi *= 2;
    g_hi = slope(context, hi);
  }
  int kept = 0; /* the end that the last step kept: -1 lo, +1 hi */
  for (int k = 0; k < SS_RAY_MAX_STEPS && hi - lo > SS_RAY_WIDTH * hi; ++k) {
    double t = (lo * g_hi - hi * g_lo) / (g_hi - g_lo);
    if (!(t > lo && t < hi)) t = 0.5 * (lo + hi);
    const double g = slope(context, t);
    if (g < 0) {
      lo = t;
      g_lo = g;
      if (kept == 1) g_hi *= 0.5;
      kept = 1;
    } else {
      hi = t;
      g_hi = g;
      if (kept == -1) g_lo *= 0.5;
      kept = -1;
    }
  }
  return 0.5 * (lo + hi);
}
