/* primal_finish.c -- the primal stochastic solvers' (SGD, SVMSGD2, SGD-QN,
 * RES, LRES) hand-over to a deterministic method where their own run would
 * end uncertified: the certified finish.
 *
 * The problem is the one the solvers minimise (primal_certificate.c):
 *
 *     P(w~) = lambda/2 ||w~||^2 + 1/n sum_i c_i loss(y_i, <w~, x~_i>).
 *
 * A stochastic run stops "converged" only when its objective window is flat
 * and the dual bound D(alpha(w~)) of the map alpha_i = -c_i loss'(s_i)
 * certifies it (run.c: P - D <= min(10 epsilon, 0.05) D). On raw features
 * or at extreme C the steps the schedule allows are far too short or too
 * noisy for the ill-conditioned problem: the objective creeps and the run
 * ends on its cap at up to thousands of times the optimum. There, with a
 * smooth loss (squared hinge, logistic, l2), the run hands over to the
 * primal truncated Newton method of newton.c, from the model it reached,
 * which stops on the same map's relative gap
 *
 *     (P - D) / max(P, D) <= epsilon,
 *
 * so that a "converged" finish has P - P* <= P - D <= epsilon max(P, D):
 * within a factor 1 + epsilon / (1 - epsilon) of the optimum (about 1.001x
 * at the default epsilon = 1e-3), tighter than the window's own 1.05x.
 *
 * When. The run's end must be uncertified: its cap, or the stall rule
 * (ss_primal_stalled), which fires at a diagnostic where the window was
 * flat (relative spread <= epsilon) and its certificate refused the stop,
 * and where even the objective's decrease over the second half of the run,
 * continued linearly to the end of the cap, would not close the gap's
 * excess over what the certificate accepts:
 *
 *     (P(t_h) - P(t)) (t_cap - t) / (t - t_h) < (P - D) - min(10 epsilon, 0.05) D.
 *
 * A stochastic run's decrease slows (like 1/t at best for the 1/(lambda t)
 * schedule), so the linear continuation overestimates what the cap can do:
 * when even it falls short, the run cannot certify itself. Where SGD
 * converges by itself the window's first firing is certified and the rule
 * is never asked (bench: a9a and w8a at C = 1, docs/stopping.rst).
 *
 * Whose cap. A cap set by the caller (ss_svm_set_max_num_iterations; an
 * estimator's max_iter) asks for a cheap, rough model: the default mode,
 * SS_SVM_NEWTON_FALLBACK_AUTO, hands over only under the object's default
 * cap. ss_svm_set_newton_fallback(SS_SVM_NEWTON_FALLBACK_ON) hands over
 * under any cap (the estimators do so when max_iter is None, since they
 * pass their own default cap), OFF never. (SDCA's fallback, newton.c, treats
 * AUTO as ON: its capped model is the map of an unconverged dual, often
 * worse than the zero model, not a rough one.)
 *
 * The write-back. Newton's model becomes the solver's (u = w, factor 1, the
 * bias), with its scores and statistics: status converged only when the
 * certificate met epsilon, else max_iterations (or interrupted); the duality
 * gap and dual objective of the map are reported. The solvers' own state is
 * kept as it stands: the iteration t (so the learning-rate schedule
 * continues where the stochastic run left it: the Newton iterations are not
 * stochastic steps and are counted apart, num_newton_iterations), SGD-QN's
 * diagonal B and RES's and LRES's curvature Bhat (estimates of the same
 * problem's curvature). A warm start from a certified finish therefore takes
 * the late, short steps of the schedule from the optimum: the model moves by
 * the steps' noise only, and the next run ends on its own certified window
 * or hands over again. The objective history restarts from Newton's model
 * (the window must not compare it with the stochastic iterates before it);
 * the step back-offs taken, and so the schedule's offset, are kept.
 *
 * The hinge and l1 losses have no tight certificate (primal_certificate.c)
 * and no Newton method: ss_primal_finish dispatches on the loss, and a
 * method for the hinge plugs in there.
 */
#include "svm_internal.h"

#include <math.h>

static bool is_primal_solver(SsSolver solver)
{
  return solver == SS_SOLVER_SGD || solver == SS_SOLVER_SVMSGD2 || solver == SS_SOLVER_SGDQN ||
         solver == SS_SOLVER_RES || solver == SS_SOLVER_LRES;
}

/* Would a run ending uncertified hand over (the mode, the cap's owner, the
 * stopping rule, a smooth loss)? */
static bool finish_wanted(const SsSvm *self)
{
  const SsSdcaNewton *nt = &self->newton;
  if (!is_primal_solver(self->solver) || nt->disabled || !(self->epsilon > 0)) return false;
  if (!nt->forced && self->max_num_iterations > 0) return false; /* the caller's cap */
  if (self->stopping_rule != SS_SVM_STOP_DEFAULT) return false;
  return ss_svm_primal_certificate_kind(self) == SS_RUN_BOUND_TIGHT;
}

void ss_primal_note_bound(SsSvm *self, double bound)
{
  self->newton.window_bound = bound;
  self->newton.window_bound_iteration = self->iteration;
}

bool ss_primal_stalled(SsSvm *self, const SsRunMeasure *m)
{
  const SsSdcaNewton *nt = &self->newton;
  const SsRunHistory *h = &self->history;
  /* Only where the window was flat at this diagnostic and its certificate
   * refused the stop (the driver asks for the bound only then). */
  if (!finish_wanted(self) || nt->window_bound_iteration != self->iteration || h->count < 2) return false;
  const double D = nt->window_bound, P = m->primal;
  if (!isfinite(D) || !isfinite(P)) return false;
  const double limit = fmin(SS_RUN_WINDOW_GAP_SLACK * self->epsilon, SS_RUN_WINDOW_GAP_LIMIT);
  const double excess = (P - D) - limit * fmax(D, 0.0);
  if (!(excess > 0)) return false;
  /* The objective at the first diagnostic of the run's second half. */
  const int64_t t = h->iteration[h->count - 1];
  const int64_t half = nt->run_start + (t - nt->run_start) / 2;
  int64_t j = h->count - 2;
  while (j > 0 && h->iteration[j - 1] >= half) --j;
  const double span = (double)(t - h->iteration[j]);
  if (!(span > 0)) return false;
  const double drop = h->objective[j] - P;
  const double remaining = (double)(nt->run_start + nt->run_cap - t);
  return drop * remaining / span < excess;
}

static SsStatus finish(SsSvm *self)
{
  switch (self->loss) {
    case SS_LOSS_HINGE2:
    case SS_LOSS_LOGISTIC:
    case SS_LOSS_L2: {
      const SsStatus status = ss_newton_solve(self);
      if (status != SS_ERR_ALLOC) ss_run_history_clear(&self->history); /* (back-offs kept) */
      return status;
    }
    default: return SS_OK; /* (a method for the hinge would be called here) */
  }
}

SsStatus ss_primal_train(SsSvm *self, SsStatus (*train)(SsSvm *self))
{
  SsSdcaNewton *nt = &self->newton;
  nt->iterations = 0;
  nt->run_start = self->iteration;
  nt->run_cap = ss_svm_effective_max_num_iterations(self);
  nt->window_bound_iteration = -1;
  const SsStatus status = train(self);
  if (status != SS_OK || !finish_wanted(self)) return status;
  /* The hand-over needs the closing diagnostic's status: made now. */
  const SsStatus settled = ss_svm_settle_final(self);
  if (settled != SS_OK || self->statistics.status != SS_SVM_STATUS_MAX_ITERATIONS) return settled;
  return finish(self);
}
