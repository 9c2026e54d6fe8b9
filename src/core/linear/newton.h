/* newton.h -- the pieces of newton.c's truncated Newton method that the
 * hinge loss's smoothing method (newton_hinge.c) shares: the problem seen
 * in the augmented space x~_i = (x_i, B), its score and accumulation
 * passes, and the conjugate-gradient solve of the Newton system. Private
 * to the linear layer.
 */
#ifndef STOCHSVM_NEWTON_H
#define STOCHSVM_NEWTON_H

#include "svm_internal.h"

/** SDCA's primal problem as the Newton methods see it. */
typedef struct {
  SsSvm *svm;
  int64_t n, d, m;   /**< m = d + 1 when the bias is learned (B > 0), else d */
  double B, offset;  /**< the bias multiplier; the fixed bias when B = 0 */
  double *curvature; /**< [n] c_i loss''(s_i) / n at the present point */
  double *z;         /**< [n] scratch: <x~_i, v> */
} Newton;

/** scores[i] = <x~_i, v> (+ the fixed offset if @p with_offset). */
void ss_newton_scores(const Newton *nt, const double *v, bool with_offset, double *scores);
/** out += sum_i a_i x~_i over the rows with a_i != 0. */
void ss_newton_accumulate(const Newton *nt, const double *a, double *out);
/** The CG solve of H s = -g within ||s|| <= delta (INFINITY: none), H v =
 *  lambda v + sum_i curvature_i <x~_i, v> x~_i with nt->curvature as set,
 *  to a residual of @p forcing ||g||; r ends as -g - H s. nt->z is
 *  overwritten; work: [2 m]. */
void ss_newton_cg(Newton *nt, const double *g, double delta, double forcing, double *s, double *r,
                  double *work);

#endif /* STOCHSVM_NEWTON_H */
