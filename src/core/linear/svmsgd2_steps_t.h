/* svmsgd2_steps_t.h -- the SVMSGD2 inner loop, a template instantiated once
 * per data kind by steps_kinds.h (macros: there; math: svmsgd2.c). Runs
 * iterations [t, t_end) of the epoch whose permutation is run->perm on the
 * model u (the object's factor is 1), then stores bias and iteration back. */

static SsStatus STEPS_NAME(SsEpochRun *run, int64_t t, int64_t t_end)
{
  SsSvm *self = run->svm;
  STEPS_SETUP
  const int64_t *perm = run->perm;
  const int64_t n = self->source.num_data;
  const int64_t dim = self->dimension;
  const double *y = self->labels;
  const double *c = self->weights;
  const double inv_lambda = 1.0 / self->lambda;
  const double t0 = ss_svm_step_t0(self);
  const int64_t skip = ss_svm_effective_skip(self);
  const double B = self->bias_multiplier;
  const double bias_rate = self->bias_learning_rate;
  const SsLoss loss = self->loss;
  const SsLossFunctions *custom = &self->custom_loss;
  const double *norms2 = self->row_norms2;
  const double kappa = ss_step_guard_kappa(self);
  double *w = self->u;
  double b = self->bias;
  /* The paper's count: iterations left before the next t with
   * (t + 1) mod skip = 0 (a countdown instead of a division per step). */
  int64_t count = skip - t % skip;
  SsStatus status = SS_OK;

  for (int64_t k = t - run->epoch_start; t < t_end; ++t, ++k) {
    SS_STEPS_PREFETCH_AHEAD(perm, k, n, y, c);
    const int64_t i = perm[k];
    const double s = ROW_DOT(i, w) + b;
    if (!isfinite(s)) {
      status = SS_ERR_NUMERIC;
      break;
    }
    const double ci = c ? c[i] : 1.0;
    const double g = ci * ss_loss_derivative(loss, custom, s, y[i]);
    if (g != 0) {
      const double eta = ss_step_guard(inv_lambda / ((double)t + t0), norms2, i, ci, kappa, B);
      ROW_AXPY(i, -eta * g, w);
      if (B > 0) b -= bias_rate * eta * g * B * B; /* b = B w_b */
    }
    if (--count == 0) {
      count = skip;
      const double shrink = 1.0 - (double)skip / ((double)t + t0);
      for (int64_t j = 0; j < dim; ++j) w[j] *= shrink;
      if (B > 0) b *= 1.0 - bias_rate * (double)skip / ((double)t + t0);
    }
  }
  self->bias = b;
  self->iteration = t;
  return status;
}
