/* kernel_finish.c -- the certified finish of the kernel solvers that stop on
 * their cap: the run hands over to exact kernel SDCA.
 *
 * The problem. Kernel Pegasos, the SBP (with nu derived from lambda, sbp_nu.c),
 * BSGD and BSCA minimise, with C = 1/(lambda n) and weights c_i >= 0,
 *
 *     P(f) = lambda/2 ||w||^2 + 1/n sum_i c_i max(0, 1 - y_i (f(x_i) + b)),
 *     f = sum_j beta_j K(x_j, .),
 *
 * with b = 0 (the papers' bias-free forms: Pegasos, BSGD, and the SBP or BSCA
 * with unregularized_bias off) or b free and unregularized (LIBSVM's problem:
 * the SBP's and BSCA's estimator default). Kernel SDCA solves exactly this
 * problem in its dual, in the same form, by the exact solver of
 * kernel_sdca_pair.c (a kernel-row cache, shrinking, the relative gap
 * checked on all n): with the bias, LIBSVM's dual with y'alpha = 0 by pair
 * steps; bias-free, the box 0 <= alpha_i <= c_i C alone by that solver's
 * bias-free mode, greedy steps of two examples. (The bias-free coordinate SDCA of
 * kernel_sdca.c, random single steps over the support vectors, took over
 * 10,000 epochs on raw breast_cancer at C = 1000 and did not reach the gap.)
 * Its stop is the relative duality gap of the pair
 * (P(w(alpha)), D(alpha)), P - D <= epsilon D, so a "converged" finish is
 * within a factor 1 + epsilon of the optimum P*: a certificate none of the
 * stochastic solvers has (their objective window and the dual bound of
 * kernel_certificate.c judge it after the fact and, at large C, rarely pass
 * within the cap: the unseen suite, docs/stopping.rst).
 *
 * When. A train call whose run ended on the object's default cap (status
 * max_iterations: never after an interruption or an error), with
 * epsilon > 0, the mode not OFF and, in mode AUTO, no cap set by the
 * caller (set_max_num_iterations asks for a cheap, rough model, as in the
 * linear finish, primal_finish.c; the estimators set ON when max_iter is None,
 * because they pass their own default cap). It applies to the solvers whose
 * model is an expansion over the training rows that the finish may replace:
 * Pegasos and the SBP always (not the SBP on a nu the caller set: that is
 * another C's problem), BSGD and BSCA only when their budget B is at least n
 * (it can then never bind, and the finish's model, at most n support vectors,
 * fits it; with B < n the optimum may need more support vectors than the
 * budget allows: the run keeps its budgeted model and its warning,
 * docs/budget.rst), and bias-free kernel SDCA (kernel_sdca.c: random
 * coordinate steps without cache or shrinking, the C object's default
 * form), whose dual variables then become the finish's. The Perceptron
 * minimises no objective and is excluded.
 * Where the finish will replace the model anyway, a run need not wait for
 * its cap (a ski rental, as the SBP's race; ss_kernel_finish_early, called
 * at each training diagnostic that stopped nothing, ends the run through
 * the driver's stall, run.c, with the cap's status):
 *   - bias-free kernel SDCA hands over at once (after one epoch on the
 *     default schedule). An epoch of its steps reads the n rows against
 *     every support vector; the finish from zero cost about one or two
 *     such epochs where the steps needed 19 to over 100 (8,000 rows of a9a
 *     and of ijcnn1, C = 1 and 32: the default run 0.45-0.94 s where the
 *     steps alone took 6.6-36.7 s; at its 100-epoch cap the steps had
 *     stopped at 1.30x the optimum on the standardised breast cancer set at
 *     C = 100, gamma = 1/d);
 *   - Pegasos, BSGD and BSCA (B >= n) hand over once their kernel
 *     evaluations since the run began reach n^2: the most the exact solve
 *     costs where its cache holds the kernel matrix (each value computed
 *     once), and more than it cost on all of a9a and ijcnn1 with the bias
 *     (0.15-0.5 n^2, bench/results/kernel_exact.md). A run whose own stop
 *     costs S > n^2 then costs n^2 + E, at most 2 S where E <= n^2; one
 *     that stops sooner is unchanged. On 4,000 rows of a9a and of ijcnn1
 *     (C = 1 and 32) their default runs took 0.26-1.05 s where their steps
 *     alone took 1.07-10.8 s (Pegasos and BSGD to their 100-epoch cap, BSCA
 *     6-100 epochs to its own stop or the cap), at the same or a lower
 *     objective (bench/results/kernel_handover.md). The exact bias-free
 *     solve, two examples a step, cost 0.66 n^2 on all of a9a and 0.21 n^2
 *     on all of ijcnn1 at C = 32 (5.7 and 5.1 s); moving one example a
 *     step it had cost 4.6 n^2 (90 s) on a9a. So there too the bound E <= n^2
 *     held. On at least 2,048 rows the bound is min(n^2, E^), E^ the
 *     finish's cost predicted from exact solves of a stratified sample of
 *     m = min(4096, n / 4) rows and of its halves, as the
 *     SBP's race predicts it (predict_finish_cost in kernel_svm.c,
 *     sbp_race.c), and the run hands over as the race does, at the first
 *     diagnostic whose work reached the bound or would pass it before the
 *     next one. On all of a9a and ijcnn1 at C = 32 E^ read 0.40-0.41 and
 *     0.15-0.16 n^2 (the finish cost 0.53-0.66 and 0.16-0.21 n^2), and
 *     the default runs took 2.0-4.3x less time: Pegasos 19.1 -> 9.5 s and
 *     21.7 -> 6.7 s, BSGD 42.3 -> 16.6 s and 25.9 -> 7.8 s, BSCA (B = n)
 *     32.4 -> 14.0 s and 25.3 -> 5.8 s, with the same models
 *     (bench/results/kernel_handover.md, "Stop 50"); on 4,000 rows of each
 *     (C = 1 and 32, a sample of 1,000) 0.17-0.70 -> 0.10-0.43 s.
 * And a train call on an object whose last finish kept the optimum of this
 * very problem (the same C and bias form: "The start" below) goes straight
 * to the finish, which confirms it for a kernel row or two
 * (run_solver in kernel_svm.c; the SBP's own form of it is in sbp_race.c):
 * a further call would otherwise pay n^2 of steps again, or an epoch of
 * SDCA's, to be replaced by the same model.
 * A run that stopped as "converged" on its objective window hands over too
 * (same conditions) when no dual bound certified that stop to the finish's
 * gap and the finish's row cache holds the whole kernel matrix (8 n^2 bytes:
 * n <= 5,120 at the default 200 MB): the exact solve then costs at most n^2
 * kernel evaluations, and the window alone stopped the SBP at 1.01-1.03x on
 * small sets (wine, iris, the separable worst case at C = 1: the unseen
 * suite). On larger sets the window's stop stands, with its documented
 * meaning (docs/stopping.rst). And the SBP at its defaults on more rows
 * than its nu warm-up's sample races the finish (sbp_race.c): its run ends
 * as on its cap, and hands over, once its kernel evaluations reach the
 * exact solve's cost predicted from the warm-up (same conditions); a
 * train call that continues a run which handed over goes straight to the
 * finish when the kept state belongs to the problem (sbp_race.c, "A warm
 * start").
 *
 * The start. The first finish on the object starts from alpha = 0: with the
 * bias, a start must be feasible (y'alpha = 0), which the run's model is
 * not, and the exact solver reaches the gap from zero in a fraction of the
 * run's time (the suite's kernel SDCA runs: median 0.002 s; wine at
 * C = 1000, Pegasos's 632 epochs 0.13 s, the finish 0.02 s). A start from
 * the run's expansion was measured against it for the SBP's race
 * (alpha_i = y_i beta_i clipped to the box, the class with the larger sum
 * scaled down to y'alpha = 0; v and gbar made from the kernel rows of its
 * nonzero entries): it cost more kernel evaluations in all, 1.15e9 against
 * 8.65e8 on ijcnn1 (C = 32, gamma 2, the SBP's support 4,349 rows: 2.2e8
 * evaluations before the first step, then rows the solve drives back to
 * zero), 1.01e8 against 7.7e7 on 16,000 of its rows, equal within 1 % on
 * 6,000 noisy generated rows; so the first finish starts from zero
 * (bench/results/kernel_speed.md, last section). Every finish then keeps its dual state on the object
 * (self->finish_state: alpha, the gradient v and gbar of kernel_sdca_pair.c,
 * 3 n doubles, swapped out of the SDCA object rather than copied), and the
 * next one, in a warm-started train call, starts from it: a stored optimum
 * of the same problem is feasible and optimal, so the finish costs one
 * kernel row instead of a solve (docs/stopping.rst, the table). The state
 * belongs to the object's data, labels, weights, kernel (fixed at creation),
 * kernel precision and bias form: set_data, set_weights and a change of the
 * bias form or of the precision forget it, and the next finish starts cold.
 * A new lambda keeps it: the start is the old alpha scaled by
 * C_new / C_old, feasible in the new boxes (kernel_sdca_pair.c, "Warm
 * start"). An interrupted finish keeps the state of the one before.
 *
 * The finish's tolerance is min(epsilon, SS_KERNEL_FINISH_GAP): the primal
 * solvers' default tol is 1e-2, a window's flatness; the certificate costs
 * little more at the dual solvers' 1e-3. Its cap is SS_KERNEL_FINISH_EPOCHS
 * epochs of SDCA, or on small sets up to SS_KERNEL_FINISH_MAX_EPOCHS epochs
 * while their steps read at most SS_KERNEL_FINISH_WORK kernel-row entries. It inherits the object's kernel, data, labels, weights,
 * lambda, bias form, seed, threads, kernel precision, cache size, shrinking,
 * row copy setting, interrupt callback and shared kernel rows (one-vs-rest: the estimator's
 * store, kernel_cache.c).
 *
 * The write-back. A finish that ran (status converged or max_iterations)
 * replaces the model and the statistics by the SDCA's (its P, D, gap, support
 * vectors; objective = P, margin NaN; bias-free SDCA's dual variables,
 * ss_kernel_sdca_adopt); iteration and epoch stay the run's, the
 * kernel evaluations add up and finish_epochs counts the SDCA's iterations /
 * n (its steps, up to the diagnostic that certified the gap: the driver's
 * schedule, run.c). The solver's own state is kept: a warm-started
 * train continues the stochastic run, then hands over again. An interrupted
 * finish keeps the run's model and reports status interrupted.
 */
#include "kernel_internal.h"
#include "kernel_svm_budget.h"

#include <stdlib.h>
#include <string.h>

/** The finish's relative gap at most this (the dual solvers' default tol). */
#define SS_KERNEL_FINISH_GAP 1e-3
/** The finish's cap in epochs (the estimators' cap for SDCA)... */
#define SS_KERNEL_FINISH_EPOCHS 1000
/** ... or, if that is more, as many epochs as read this many entries of
 *  kernel rows (a step of the pair solver reads one or two rows of n: this
 *  work / n^2 epochs): small, raw sets at a large C may need thousands of
 *  epochs (wine at C = 9000 took 5,400 while the bias-free mode moved one
 *  example a step, 42 with two) and get them... */
#define SS_KERNEL_FINISH_WORK 2e9
/** ... but never more than this many epochs: on a handful of rows a step's
 *  fixed cost outweighs its row reads, and a problem the finish cannot
 *  certify (a kernel that is not positive semi-definite, e.g. the sigmoid)
 *  would otherwise run 2e9 / n steps (10 rows: 2e8 steps, tens of seconds;
 *  the fuzz harness's timeout). */
#define SS_KERNEL_FINISH_MAX_EPOCHS 10000

SsStatus ss_kernel_svm_set_sdca_finish(SsKernelSvm *self, int mode)
{
  if (!self) return SS_ERR_BAD_ARG;
  if (self->training) return ss_kernel_svm_refuse_while_training(self, "set_sdca_finish");
  self->finish_mode = mode == SS_KERNEL_SDCA_FINISH_OFF  ? SS_KERNEL_SDCA_FINISH_OFF
                      : mode == SS_KERNEL_SDCA_FINISH_AUTO ? SS_KERNEL_SDCA_FINISH_AUTO
                                                           : SS_KERNEL_SDCA_FINISH_ON;
  return ss_kernel_svm_succeed(self);
}

int ss_kernel_svm_get_sdca_finish(const SsKernelSvm *self)
{
  return self ? self->finish_mode : SS_KERNEL_SDCA_FINISH_OFF;
}

/* Whose model may the finish replace (the header comment, "When")? */
static bool finishes(const SsKernelSvm *self)
{
  switch (self->solver) {
    case SS_KSOLVER_PEGASOS: return true;
    case SS_KSOLVER_SBP: return !(self->nu > 0); /* a caller's nu: another problem */
    case SS_KSOLVER_BSGD:
    case SS_KSOLVER_BSCA: return ss_kernel_svm_get_budget(self) >= self->num_data;
    case SS_KSOLVER_SDCA: return self->ops == &ss_kernel_sdca_ops; /* not the exact solver itself */
    default: return false;
  }
}

/* Does the finish's kernel-row cache hold all n rows (8 n^2 bytes)? Then
 * the exact solve computes each kernel value once: at most n^2 evaluations,
 * about what n SBP iterations or a few Pegasos epochs cost. */
static bool kernel_matrix_cached(const SsKernelSvm *self)
{
  const double megabytes = self->cache_size > 0 ? self->cache_size : SS_KERNEL_SVM_DEFAULT_CACHE_SIZE;
  const double n = (double)self->num_data;
  return 8.0 * n * n <= megabytes * 1048576.0;
}

/* Did the run's own stop certify the finish's gap (a dual bound that judged
 * the window, run_dual_bound in kernel_svm.c)? */
static bool certified_to_finish_gap(const SsKernelSvm *self)
{
  const SsKernelSvmStatistics *st = &self->statistics;
  return isfinite(st->duality_gap) && st->duality_gap <= ss_kernel_finish_epsilon(self) * fmax(st->dual_objective, 0.0);
}

bool ss_kernel_finish_allowed(const SsKernelSvm *self)
{
  if (self->finish_mode == SS_KERNEL_SDCA_FINISH_OFF || !(self->epsilon > 0) || !finishes(self))
    return false;
  return !(self->finish_mode == SS_KERNEL_SDCA_FINISH_AUTO && self->max_num_iterations > 0);
}

/* The race's rule (sbp_race.c, "The rule"), here for the SBP's race and
 * for the hand-over at a predicted cost below. */
bool ss_kernel_race_lost(const SsKernelSvm *self, double predicted, int64_t next_check)
{
  const double work = (double)(self->num_kernel_evaluations - self->race_start);
  if (work >= predicted) return true;
  const int64_t steps = self->iteration - self->race_start_iteration;
  if (steps <= 0 || next_check <= self->iteration) return false;
  return work + (double)(next_check - self->iteration) * (work / (double)steps) > predicted;
}

bool ss_kernel_finish_early(const SsKernelSvm *self, int64_t next_check)
{
  if (!ss_kernel_finish_allowed(self) || self->solver == SS_KSOLVER_SBP) return false; /* sbp_race.c */
  if (self->solver == SS_KSOLVER_SDCA) return true;
  const double n = (double)self->num_data;
  if (self->finish_cost > 0) return ss_kernel_race_lost(self, fmin(self->finish_cost, n * n), next_check);
  return (double)(self->num_kernel_evaluations - self->race_start) >= n * n;
}

bool ss_kernel_finish_wanted(const SsKernelSvm *self)
{
  if (!ss_kernel_finish_allowed(self)) return false;
  const SsSvmStatus status = self->statistics.status;
  if (status == SS_SVM_STATUS_MAX_ITERATIONS) return true;
  return status == SS_SVM_STATUS_CONVERGED && kernel_matrix_cached(self) && !certified_to_finish_gap(self);
}

int64_t ss_kernel_finish_cap(int64_t n)
{
  const double m = (double)n;
  const double epochs = fmax(SS_KERNEL_FINISH_EPOCHS, fmin(SS_KERNEL_FINISH_WORK / (m * m), SS_KERNEL_FINISH_MAX_EPOCHS));
  const double cap = epochs * m;
  return cap < 0.5 * (double)INT64_MAX ? (int64_t)cap : INT64_MAX / 2;
}

double ss_kernel_finish_epsilon(const SsKernelSvm *self)
{
  return fmin(self->epsilon, SS_KERNEL_FINISH_GAP);
}

/* The run's model and statistics become the finish's (the header comment). */
SsStatus ss_kernel_finish_write_back(SsKernelSvm *self, SsKernelSvm *sdca)
{
  const int64_t n = self->num_data;
  if (sdca->scores) {
    if (!self->scores) self->scores = malloc((size_t)n * sizeof(double));
    if (!self->scores) return SS_ERR_ALLOC;
    memcpy(self->scores, sdca->scores, (size_t)n * sizeof(double));
  }
  const SsKernelModel model = self->model;
  self->model = sdca->model; /* (the model owns its arrays: a swap) */
  sdca->model = model;
  SsKernelSvmStatistics *st = &self->statistics;
  const SsKernelSvmStatistics *fin = &sdca->statistics;
  const int64_t iteration = st->iteration, epoch = st->epoch, evaluations = st->num_kernel_evaluations;
  const double predicted = st->exact_cost;
  *st = *fin;
  st->iteration = iteration;
  st->epoch = epoch;
  st->exact_cost = predicted;
  st->objective = fin->primal_objective;
  st->margin = NAN;
  st->num_kernel_evaluations = evaluations + sdca->num_kernel_evaluations;
  st->finish_epochs = (double)sdca->iteration / (double)n;
  st->elapsed_time = ss_clock_seconds() - self->train_start_time;
  self->num_kernel_evaluations += sdca->num_kernel_evaluations;
  ss_run_history_clear(&self->history);
  /* Bias-free coordinate SDCA's dual variables are its model's: they
   * become the finish's (an allocation failure leaves the object with no
   * state, and its next train call starts from zero). */
  if (self->ops == &ss_kernel_sdca_ops) {
    const SsStatus status = ss_kernel_sdca_adopt(self, sdca->dual);
    if (status != SS_OK) return status;
  }
  /* The next finish starts here (the header comment, "The start"). */
  if (!ss_kernel_sdca_pair_keep(sdca, &self->finish_state)) ss_kernel_finish_forget(self);
  return SS_OK;
}

void ss_kernel_finish_warm_start(const SsKernelSvm *self, SsKernelSvm *sdca)
{
  const SsKernelDualState *kept = &self->finish_state;
  if (kept->alpha && kept->bias_free == !self->bias_enabled) (void)ss_kernel_sdca_pair_start_from(sdca, kept);
}

bool ss_kernel_finish_kept_for_this_C(const SsKernelSvm *self)
{
  const SsKernelDualState *kept = &self->finish_state;
  return kept->alpha && kept->bias_free == !self->bias_enabled && kept->box == ss_kernel_svm_box(self);
}

void ss_kernel_finish_forget(SsKernelSvm *self)
{
  SsKernelDualState *kept = &self->finish_state;
  free(kept->alpha);
  free(kept->v);
  free(kept->gbar);
  *kept = (SsKernelDualState){0};
}
