/* newton.h -- the pieces of newton.c's truncated Newton method that the
 * smoothing method of the hinge and l1 losses (newton_hinge.c) shares: the
 * problem seen in the augmented space x~_i = (x_i, B) with its buffers
 * (ss_newton_begin), its score and accumulation passes, the
 * conjugate-gradient solve of the Newton system, and the write-back of the
 * result as the solver's model. Private to the linear layer.
 */
#ifndef STOCHSVM_NEWTON_H
#define STOCHSVM_NEWTON_H

#include "svm_internal.h"

/** SDCA's primal problem as the Newton methods see it. */
typedef struct {
  SsSvm *svm;
  int64_t n, d, m;   /**< m = d + 1 when the bias is learned (B > 0), else d */
  double B, offset;  /**< the bias multiplier; the fixed bias when B = 0 */
  double *vectors;   /**< owned: the method's [m] vectors, the first one w~ */
  double *rows;      /**< owned: the method's [n] vectors, then curvature and z */
  double *curvature; /**< [n] c_i loss''(s_i) / n at the present point */
  double *z;         /**< [n] scratch: <x~_i, v> */
} Newton;

/** c_i, the weight of example i (1 without weights). */
static inline double ss_newton_weight(const SsSvm *self, int64_t i)
{
  return self->weights ? self->weights[i] : 1.0;
}

/** The set-up of both methods: @p nt describes @p self's problem, owns
 *  @p num_vectors vectors of m doubles (nt->vectors, the first one w~ =
 *  (factor u, b / B) of the model the solver returned) and @p num_rows
 *  vectors of n doubles (nt->rows) followed by nt->curvature and nt->z.
 *  SS_OK, or SS_ERR_ALLOC with nothing allocated. Free with ss_newton_end. */
SsStatus ss_newton_begin(SsSvm *self, Newton *nt, int64_t num_vectors, int64_t num_rows);
void ss_newton_end(Newton *nt);
/** <a, b> over m entries. */
double ss_newton_dot(const double *a, const double *b, int64_t m);
/** The caller's interrupt function asks to stop. */
bool ss_newton_interrupted(const SsSvm *self);
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
/** The result as the solver's model: u = w, factor 1, the bias B w_b, the
 *  @p scores s (copied unless they are self->scores) and the statistics
 *  (objective @p primal, dual objective and gap, @p status, the Newton
 *  iterations, the elapsed time). */
void ss_newton_write_back(Newton *nt, const double *w, const double *s, double primal, double dual,
                          SsSvmStatus status);

#endif /* STOCHSVM_NEWTON_H */
