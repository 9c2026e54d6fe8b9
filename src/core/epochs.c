/* epochs.c -- the epoch driver shared by the stochastic solvers.
 *
 * Iteration t (counted over the object's whole life) belongs to epoch
 * e = t / n and visits example perm_e[t mod n], perm_e being a permutation
 * drawn from (seed, e) only (the identity after ss_svm_set_shuffle(0)). The driver cuts the run [t_begin, t_begin +
 * max_num_iterations) at epoch boundaries (where the SGD factor is folded),
 * at diagnostics (every diagnostic_frequency iterations, counted on t, so a
 * run split in two diagnoses at the same points) and at interrupt polls, and
 * hands each piece to the solver's inner loop. Every boundary depends on t
 * only: training N iterations equals N/2 and then N/2 more, bit for bit.
 */
#include "internal.h"

#include <stdlib.h>

SsStatus ss_svm_set_shuffle(SsSvm *self, int enabled)
{
  if (!self) return SS_ERR_BAD_ARG;
  self->in_data_order = enabled == 0;
  return SS_OK;
}

int ss_svm_get_shuffle(const SsSvm *self) { return !self->in_data_order; }

static int64_t min64(int64_t a, int64_t b)
{
  return a < b ? a : b;
}

/* a + b for b >= 0, INT64_MAX if that overflows. */
static int64_t saturating_add(int64_t a, int64_t b)
{
  return a > INT64_MAX - b ? INT64_MAX : a + b;
}

/* The first multiple of f (>= 1) after t >= 0, INT64_MAX if that overflows. */
static int64_t next_multiple(int64_t t, int64_t f)
{
  int64_t q = t / f + 1;
  return q > INT64_MAX / f ? INT64_MAX : q * f;
}

void ss_svm_fold_factor(SsSvm *self)
{
  if (self->factor == 1.0) return;
  for (int64_t k = 0; k < self->dimension; ++k) self->u[k] *= self->factor;
  self->factor = 1.0;
}

SsStatus ss_run_epochs(SsSvm *self, SsStepsFunction steps)
{
  const int64_t n = self->source.num_data;
  const int64_t frequency = ss_svm_effective_diagnostic_frequency(self);
  const int64_t t_begin = self->iteration;
  const int64_t budget = ss_svm_effective_max_num_iterations(self);
  const int64_t t_end = saturating_add(t_begin, budget);

  int64_t *perm = malloc((size_t)n * sizeof(int64_t));
  if (!perm) return SS_ERR_ALLOC;
  SsEpochRun run = {.svm = self, .perm = perm, .epoch_start = -1};

  SsStatus status = SS_OK;
  int64_t t = t_begin, last_poll = t_begin;
  bool stopped = false;
  while (t < t_end && !stopped) {
    int64_t epoch = t / n;
    if (run.epoch_start != epoch * n) {
      if (self->in_data_order) {
        for (int64_t k = 0; k < n; ++k) perm[k] = k;
      } else {
        ss_rng_permutation(perm, n, self->seed, (uint64_t)epoch);
      }
      run.epoch_start = epoch * n;
    }
    int64_t epoch_end = saturating_add(run.epoch_start, n);
    int64_t next_diagnostic = next_multiple(t, frequency);
    int64_t next_poll = saturating_add(last_poll, SS_SVM_INTERRUPT_PERIOD);
    int64_t stop = min64(min64(t_end, epoch_end), min64(next_diagnostic, next_poll));

    status = steps(&run, t, stop);
    t = self->iteration;
    if (status != SS_OK) break;
    if (t == epoch_end) ss_svm_fold_factor(self);

    if (t == next_diagnostic && t < t_end) {
      status = ss_svm_diagnose(self, SS_SVM_STATUS_TRAINING);
      stopped = status != SS_OK || self->statistics.status == SS_SVM_STATUS_CONVERGED;
    }
    if (!stopped && t - last_poll >= SS_SVM_INTERRUPT_PERIOD) {
      last_poll = t;
      if (self->interrupt_fn && self->interrupt_fn(self->interrupt_user) != 0) {
        status = SS_ERR_INTERRUPTED;
        stopped = true;
      }
    }
  }
  free(perm);

  if (status == SS_OK && !stopped) {
    /* The cap was reached: the final diagnostic. */
    status = ss_svm_diagnose(self, SS_SVM_STATUS_MAX_ITERATIONS);
  } else if (status == SS_ERR_INTERRUPTED && self->statistics.status != SS_SVM_STATUS_INTERRUPTED) {
    /* Stopped by the interrupt poll: report the model where it stands. */
    SsSvmDiagnosticFunction callback = self->diagnostic_fn;
    self->diagnostic_fn = NULL;
    SsStatus diagnosed = ss_svm_diagnose(self, SS_SVM_STATUS_INTERRUPTED);
    self->diagnostic_fn = callback;
    if (diagnosed == SS_ERR_NUMERIC) status = diagnosed;
  } else if (status == SS_ERR_NUMERIC) {
    self->statistics.status = SS_SVM_STATUS_ERROR;
    self->statistics.iteration = self->iteration;
    self->statistics.epoch = self->iteration / n;
  }
  ss_svm_realise_model(self);
  return status;
}
