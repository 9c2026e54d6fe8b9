/* ray.c -- the minimiser along a ray (ray.h): bracketing by doubling, then
 * bisection on the sign of the slope (a subgradient at the kinks of a
 * piecewise linear loss: the sign still says on which side the minimum
 * lies). */
#include "ray.h"

#include <math.h>

/** Doublings of the bracket beyond t = 1, and bisection steps inside it
 *  (2^-40 of the bracket: far below any change an objective shows). */
#define SS_RAY_MAX_DOUBLINGS 60
#define SS_RAY_BISECTIONS 40

double ss_ray_minimiser(SsRaySlope slope, const void *context)
{
  if (!(slope(context, 0) < 0)) return 0;
  double lo = 0, hi = 1;
  for (int k = 0; slope(context, hi) < 0; ++k) {
    if (k == SS_RAY_MAX_DOUBLINGS) return NAN;
    lo = hi;
    hi *= 2;
  }
  for (int k = 0; k < SS_RAY_BISECTIONS; ++k) {
    const double mid = 0.5 * (lo + hi);
    if (slope(context, mid) < 0) lo = mid;
    else hi = mid;
  }
  return 0.5 * (lo + hi);
}
