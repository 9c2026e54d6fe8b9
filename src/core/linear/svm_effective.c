/* svm_effective.c -- what the run driver and the solvers read from the SsSvm
 * object: its effective settings (t0, iteration cap, diagnostic frequency,
 * the defaults of svm.h resolved), the realised model w = f u, and the
 * measurements of a diagnostic (the objectives of svm.h).
 *
 * Layer: below the object (svm.c) and the solvers (sgd.c, ..., epochs.c),
 * which call it; it calls only common/ and driver/, never a solver, so the
 * object -> solver -> object loop of the call graph is gone
 * (docs/dev/architecture.md).
 */
#include "svm_internal.h"
#include "../common/loss.h"

#include <stdlib.h>

/* ------------------------------------------------------------------------ */
/*                  The row norm behind the default t0                      */
/* ------------------------------------------------------------------------ */

/** Rows read for the quantile: all of them up to this many, else a sample. */
#define SS_T0_NORM_SAMPLE 1024
/** The quantile of ||x_i||^2 SVMSGD2 and SGD-QN size their default t0 by. */
#define SS_T0_NORM_QUANTILE 0.99

/* The squared row norm R^2 of the default t0: the largest for SGD; for
 * SVMSGD2 and SGD-QN the 99 % quantile of ||x_i||^2, over all rows or over
 * SS_T0_NORM_SAMPLE evenly spaced ones, so that a few outlier rows (under
 * 1 %) cannot make every step tiny (docs/sgdqn.rst). */
static double t0_squared_norm(const SsSvm *self)
{
  const int64_t n = self->source.num_data;
  if (!ss_solver_uses_skip(self->solver) || n == 0 || !self->row_norms2) return self->max_squared_norm;
  double sample[SS_T0_NORM_SAMPLE];
  const int64_t m = n < SS_T0_NORM_SAMPLE ? n : SS_T0_NORM_SAMPLE;
  for (int64_t k = 0; k < m; ++k) {
    /* row floor(k n / m), computed without overflowing k n */
    const int64_t i = k * (n / m) + (k * (n % m)) / m;
    sample[k] = self->row_norms2[i];
  }
  qsort(sample, (size_t)m, sizeof(double), ss_compare_doubles);
  const int64_t rank = (int64_t)ceil(SS_T0_NORM_QUANTILE * (double)m) - 1;
  return sample[rank < 0 ? 0 : rank];
}

/* The L of the default t0 = max(2, L) / lambda (svm.h): the loss's
 * curvature bound over rows of squared norm R^2 + B^2 (B the bias
 * multiplier). SVMSGD2 and SGD-QN with a loss without curvature (hinge,
 * l1) take L = R^2 + B^2: the first step then moves the score of a row
 * under the quantile by at most 1 (eta_0 ||x~||^2 <= 1), which is VLFeat's
 * 2/lambda on rows with ||x~||^2 <= 2 and keeps unscaled data from
 * overshooting (docs/sgdqn.rst). */
double ss_svm_t0_curvature(const SsSvm *self, double B)
{
  const double r2 = t0_squared_norm(self) + B * B;
  const double curvature = ss_loss_curvature_bound(self->loss, r2);
  if (ss_solver_uses_skip(self->solver) && !(curvature > 0)) return r2;
  return curvature;
}

/* ------------------------------------------------------------------------ */
/*                            Effective settings                            */
/* ------------------------------------------------------------------------ */

double ss_svm_effective_t0(const SsSvm *self)
{
  if (self->t0 > 0) return self->t0;
  double B = self->bias_multiplier;
  double curvature = ss_svm_t0_curvature(self, B);
  double t0 = (curvature > 2.0 ? curvature : 2.0) / self->lambda;
  if (ss_solver_uses_skip(self->solver)) {
    double skip = (double)ss_svm_effective_skip(self);
    t0 = t0 > skip ? t0 : skip;
  }
  return t0 > 2.0 ? t0 : 2.0;
}

double ss_svm_step_t0(const SsSvm *self)
{
  return self->t0 > 0 || self->step_backoffs == 0 ? ss_svm_effective_t0(self) : self->backoff_t0;
}

/* SDCA's default tolerance depends on the loss (LIBLINEAR, too, has one
 * default eps per solver). The relative duality gap falls linearly
 * (geometrically) where the conjugate loss is strongly convex, the smooth
 * losses: a decade of gap costs a few epochs (logistic, lambda = 1/n: 4 on
 * a9a, 1-2 on ijcnn1, 10 on w8a), and SS_SDCA_DEFAULT_EPSILON_SMOOTH is
 * below the 1e-7 to 1e-10 by which LIBLINEAR's default run (-s 7, eps 0.1)
 * misses the optimum. For the hinge and l1 losses the gap falls like a
 * power of the epochs (on w8a about T^-1.5): each halving costs more
 * epochs than the last, and SS_SDCA_DEFAULT_EPSILON_NONSMOOTH is the
 * loosest gap whose stop matched LIBLINEAR's -s 3 default objective on a9a,
 * w8a, ijcnn1 and covtype (docs/stopping.rst, "SDCA against LIBLINEAR's
 * defaults"). The other solvers, and SDCA with a custom loss, keep
 * SS_SVM_DEFAULT_EPSILON. */
double ss_svm_default_epsilon(SsSolver solver, SsLoss loss)
{
  if (solver != SS_SOLVER_SDCA) return SS_SVM_DEFAULT_EPSILON;
  switch (loss) {
    case SS_LOSS_HINGE:
    case SS_LOSS_L1: return SS_SDCA_DEFAULT_EPSILON_NONSMOOTH;
    case SS_LOSS_HINGE2:
    case SS_LOSS_LOGISTIC:
    case SS_LOSS_L2: return SS_SDCA_DEFAULT_EPSILON_SMOOTH;
    default: return SS_SVM_DEFAULT_EPSILON;
  }
}

int64_t ss_svm_effective_max_num_iterations(const SsSvm *self)
{
  if (self->max_num_iterations > 0) return self->max_num_iterations;
  const int64_t cap = INT64_MAX / 4, n = self->source.num_data;
  /* SDCA with the hinge: its epochs shrink to the examples off their bounds,
   * and the Newton finish that takes over at the cap costs hundreds of
   * passes (a9a, lambda = 1/n, epsilon 1e-3: 100 epochs + 46 Newton
   * iterations, 2.2 s, against 151 epochs, 0.2 s; docs/stopping.rst).
   * Not the l1 loss, which SDCA does not shrink: its epochs are full
   * passes, and the finish at 100 epochs was the faster way to tol in four
   * of the five runs it changed (docs/stopping.rst, "Why l1 keeps the
   * 100-epoch cap"). */
  const int64_t epochs = self->solver == SS_SOLVER_SDCA && self->loss == SS_LOSS_HINGE
                             ? SS_SDCA_HINGE_DEFAULT_EPOCHS
                             : SS_SVM_DEFAULT_EPOCHS;
  const int64_t by_epochs = n > cap / epochs ? cap : epochs * n;
  /* VLFeat's 10/lambda, at most SS_SVM_DEFAULT_MAX_EPOCHS epochs: at a tiny
   * lambda it was days of steps (standardized breast_cancer, lambda =
   * 1e-12: 1e13 iterations, about 4 days) that the stochastic steps could
   * not use (1e8 of them left the objective at 1.6e5 times the optimum),
   * where the certified finish that takes over at the cap needs a fraction
   * of a second (docs/stopping.rst, "The default cap at a tiny lambda"). */
  const int64_t most = n > cap / SS_SVM_DEFAULT_MAX_EPOCHS ? cap : SS_SVM_DEFAULT_MAX_EPOCHS * n;
  const double by_lambda = ceil(10.0 / self->lambda);
  const int64_t m = by_lambda >= (double)most ? most : (int64_t)by_lambda;
  return m > by_epochs ? m : by_epochs;
}

int64_t ss_svm_effective_diagnostic_frequency(const SsSvm *self)
{
  return self->diagnostic_frequency > 0 ? self->diagnostic_frequency : self->source.num_data;
}

/* ------------------------------------------------------------------------ */
/*                          Model and measurements                          */
/* ------------------------------------------------------------------------ */

void ss_svm_realise_model(SsSvm *self)
{
  for (int64_t k = 0; k < self->dimension; ++k) self->model[k] = self->factor * self->u[k];
}

SsStatus ss_svm_measure(SsSvm *self, SsSvmStatus status, SsRunMeasure *m)
{
  const int64_t n = self->source.num_data;
  const double B = self->bias_multiplier;
  ss_svm_realise_model(self);

  double norm2 = 0;
  for (int64_t k = 0; k < self->dimension; ++k) norm2 += self->model[k] * self->model[k];
  double wb = B > 0 ? self->bias / B : 0;
  double regularizer = 0.5 * self->lambda * (norm2 + wb * wb);

  /* The scores of the last diagnostic become the previous ones. */
  double *previous = self->scores;
  self->scores = self->previous_scores;
  self->previous_scores = previous;
  self->has_previous_scores = self->has_scores;

  ss_source_scores(&self->source, self->model, self->bias, self->scores, self->threads);
  double loss = 0, variation2 = 0, dual_loss = 0;
  bool scores_finite = true;
  const double offset = B > 0 ? 0 : self->bias; /* a fixed, unlearned bias */
  for (int64_t i = 0; i < n; ++i) {
    double s = self->scores[i];
    scores_finite &= isfinite(s) != 0;
    double c = self->weights ? self->weights[i] : 1.0;
    if (c > 0) {
      loss += c * ss_loss_value(self->loss, &self->custom_loss, s, self->labels[i]);
      if (self->alpha) {
        double a = self->alpha[i];
        dual_loss -= c * ss_loss_conjugate(self->loss, &self->custom_loss, -a / c, self->labels[i]) + a * offset;
      }
    }
    double delta = s - previous[i];
    variation2 += delta * delta;
  }
  self->has_scores = true;
  loss /= (double)n;

  SsSvmStatistics *st = &self->statistics;
  st->iteration = self->iteration;
  st->epoch = self->iteration / n;
  st->regularizer = regularizer;
  st->loss = loss;
  st->objective = regularizer + loss;
  st->dual_objective = self->alpha ? dual_loss / (double)n - regularizer : NAN;
  st->duality_gap = self->alpha ? st->objective - st->dual_objective : NAN;
  st->scores_variation = self->has_previous_scores ? sqrt(variation2) / (double)n : INFINITY;
  st->elapsed_time = ss_clock_seconds() - self->train_start_time;
  st->num_step_backoffs = self->step_backoffs;
  st->num_newton_iterations = self->newton.iterations;
  st->status = status;

  /* A score can overflow while w stays finite (huge data values): the loss
   * of a score of +inf on the right side is 0, so the objective alone would
   * not tell: the driver reads `finite`. */
  m->finite = isfinite(st->objective) && scores_finite;
  m->primal = st->objective;
  m->dual = st->dual_objective;
  m->variation = st->scores_variation;
  return SS_OK;
}

double ss_svm_zero_objective(const SsSvm *self)
{
  const int64_t n = self->source.num_data;
  double loss = 0;
  for (int64_t i = 0; i < n; ++i) {
    double c = self->weights ? self->weights[i] : 1.0;
    if (c > 0) loss += c * ss_loss_value(self->loss, &self->custom_loss, 0.0, self->labels[i]);
  }
  return loss / (double)n;
}

double ss_svm_objective_of(const SsSvm *self, const double *w, double bias, double *scores, double *regularizer,
                           double *loss)
{
  const int64_t n = self->source.num_data;
  ss_source_scores(&self->source, w, bias, scores, self->threads);
  double sum = 0;
  for (int64_t i = 0; i < n; ++i) {
    double c = self->weights ? self->weights[i] : 1.0;
    if (c > 0) sum += c * ss_loss_value(self->loss, &self->custom_loss, scores[i], self->labels[i]);
  }
  double norm2 = 0;
  for (int64_t k = 0; k < self->dimension; ++k) norm2 += w[k] * w[k];
  const double B = self->bias_multiplier, wb = B > 0 ? bias / B : 0;
  *regularizer = 0.5 * self->lambda * (norm2 + wb * wb);
  *loss = sum / (double)n;
  return *regularizer + *loss;
}

double ss_svm_start_objective(SsSvm *self)
{
  const int64_t n = self->source.num_data;
  ss_svm_realise_model(self);
  double norm2 = 0;
  for (int64_t k = 0; k < self->dimension; ++k) norm2 += self->model[k] * self->model[k];
  if (norm2 == 0 && self->bias == 0) return ss_svm_zero_objective(self);
  double *scores = malloc((size_t)n * sizeof(double));
  if (!scores) return NAN;
  double regularizer, loss;
  const double objective = ss_svm_objective_of(self, self->model, self->bias, scores, &regularizer, &loss);
  free(scores);
  return objective;
}

int64_t ss_svm_first_bad_label(const SsSvm *self)
{
  if (!ss_loss_needs_binary_labels(self->loss, &self->custom_loss)) return -1;
  for (int64_t i = 0; i < self->source.num_data; ++i) {
    if (self->labels[i] != 1.0 && self->labels[i] != -1.0) return i;
  }
  return -1;
}

SsStatus ss_svm_check_labels_for_loss(const SsSvm *self)
{
  return ss_svm_first_bad_label(self) < 0 ? SS_OK : SS_ERR_BAD_DATA;
}
