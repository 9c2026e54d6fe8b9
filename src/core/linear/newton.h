/* newton.h -- the pieces of newton.c's truncated Newton method that the
 * smoothing method of the hinge and l1 losses (newton_hinge.c) shares: the
 * problem seen in the augmented space x~_i = (x_i, B) with its buffers
 * (ss_newton_begin), its score and accumulation passes, the
 * conjugate-gradient solve of the Newton system, the exact line search, and the write-back of the
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
  int64_t *curved;   /**< owned: [n] the rows whose curvature is not 0 (ss_newton_list_curved) */
  int64_t num_curved;
} Newton;

/** c_i, the weight of example i (1 without weights). */
static inline double ss_newton_weight(const SsSvm *self, int64_t i)
{
  return self->weights ? self->weights[i] : 1.0;
}

/** The set-up of both methods: @p nt describes @p self's problem, owns
 *  @p num_vectors vectors of m doubles (nt->vectors, the first one w~ =
 *  (factor u, b / B) of the model the solver returned) and @p num_rows
 *  vectors of n doubles (nt->rows) followed by nt->curvature and nt->z,
 *  and the list nt->curved (n indices).
 *  SS_OK, or SS_ERR_ALLOC with nothing allocated. Free with ss_newton_end. */
SsStatus ss_newton_begin(SsSvm *self, Newton *nt, int64_t num_vectors, int64_t num_rows);
void ss_newton_end(Newton *nt);
/** nt->curved: the rows whose nt->curvature is not 0, in order; the
 *  Hessian products of ss_newton_cg read only these when they are few. */
void ss_newton_list_curved(Newton *nt);
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
 *  to a residual of @p forcing ||g||; r ends as -g - H s. With a
 *  @p preconditioner (the m positive entries of a diagonal M ~ H; NULL:
 *  none, and only with delta = INFINITY, the region being Euclidean) the
 *  steps are those of CG on M^-1/2 H M^-1/2. nt->z is overwritten; work:
 *  [2 m], [3 m] with a preconditioner. Returns the Hessian products made
 *  (each reads ss_newton_product_rows rows). */
int64_t ss_newton_cg(Newton *nt, const double *g, double delta, const double *preconditioner, double forcing,
                     double *s, double *r, double *work);
/** The diagonal of the Hessian at the point whose curvatures the caller
 *  stored, lambda + sum_i curvature_i x~_ik^2: CG's preconditioner. False
 *  where the source cannot give the squares of its rows (callbacks, a
 *  kernel map). */
bool ss_newton_diagonal(const Newton *nt, double *diagonal);
/** The rows a Hessian product of ss_newton_cg reads (twice the curved
 *  rows, or all rows twice when over half are curved): the unit in which
 *  the hinge finish weighs its dual ascent against its Newton steps. */
int64_t ss_newton_product_rows(const Newton *nt);
/** A loss's share of phi'(t) and phi''(t), phi(t) = P(w~ + t v): added to
 *  *slope and *curvature, with s the scores at w~, nt->z = <x~_i, v>. */
typedef void (*SsNewtonLineShare)(const Newton *nt, const double *s, double t, const void *context, double *slope,
                                  double *curvature);
/** The exact line search along @p v from w~ = @p w with scores @p s: the
 *  root of the increasing phi'(t) by bracketed Newton steps from t = 1, the
 *  loss's part given by @p share with @p context. nt->z is overwritten. */
double ss_newton_line_search(Newton *nt, const double *w, const double *v, const double *s,
                             SsNewtonLineShare share, const void *context);
/** The result as the solver's model: u = w, factor 1, the bias B w_b, the
 *  @p scores s (copied unless they are self->scores) and the statistics
 *  (objective @p primal, dual objective and gap, @p status, the Newton
 *  iterations, the elapsed time). */
void ss_newton_write_back(Newton *nt, const double *w, const double *s, double primal, double dual,
                          SsSvmStatus status);

/** The end of a dual ascent (hinge_dual.c). */
typedef struct {
  double primal, dual; /**< P of the best model, D(alpha) at the last point */
  bool converged;      /**< (P - D) / max(P, D) <= epsilon, D of alpha itself */
  int64_t sweeps;      /**< the sweeps made */
  int64_t reads;       /**< the rows read: the sweeps' scores and accumulations, the checks' passes */
} SsHingeDual;

/** Coordinate ascent on the hinge's or l1's own dual (hinge_dual.c) from
 *  @p alpha [n], which must lie in the loss's box: at most @p max_sweeps
 *  sweeps and about @p max_reads rows read (INT64_MAX: no bound; a sweep
 *  may pass it by its own rows), fewer when the gap's rate of fall would
 *  not meet epsilon within them (and 200 sweeps), unless @p settle and
 *  alpha still settles (hinge_dual.c). @p best [m] holds a model whose primal value is
 *  @p bound and ends as the model of least P among it and the points v(alpha) checked,
 *  @p scores [n] as its scores; @p v [m] is work (v(alpha)); none may be
 *  nt->z, which is overwritten. alpha ends as the last point. SS_OK,
 *  SS_ERR_ALLOC (n indices) with everything unchanged, or
 *  SS_ERR_INTERRUPTED. */
SsStatus ss_hinge_dual_ascent(Newton *nt, double *alpha, double *v, double *best, double *scores, double bound,
                              int64_t max_sweeps, int64_t max_reads, bool settle, SsHingeDual *out);

#endif /* STOCHSVM_NEWTON_H */
