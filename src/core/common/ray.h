/* ray.h -- the minimiser of a convex function of one variable t >= 0, from
 * its slope: the closing rays of linear SDCA (linear/sdca_ray.c) and of the
 * kernel step-size solvers (kernel/kernel_ray.c), which search the model's
 * ray t w for the least primal objective. */
#ifndef STOCHSVM_RAY_H
#define STOCHSVM_RAY_H

/** The slope (or a subgradient) at @p t of a convex function of t. */
typedef double (*SsRaySlope)(const void *context, double t);

/** argmin over t >= 0 of the convex function whose slope is @p slope: 0 if
 *  the slope at 0 is >= 0, else the middle of a bracket [t_lo, t_hi] (t_hi
 *  found by doubling from 1, slope(t_lo) < 0 <= slope(t_hi)) narrowed by
 *  regula falsi (Illinois) to 1e-10 t_hi or by 60 steps; NAN if no bracket
 *  was found below 2^60 (a slope that stays negative). */
double ss_ray_minimiser(SsRaySlope slope, const void *context);

#endif
