/* sgd_steps_t.h -- the SGD inner loop, a template instantiated once per data
 * kind by steps_kinds.h (see there for the macros; sgd.c for the math). Runs iterations [t, t_end) of the epoch
 * whose permutation is run->perm, then stores factor, bias and iteration back
 * into the object. */

static SsStatus STEPS_NAME(SsEpochRun *run, int64_t t, int64_t t_end)
{
  SsSvm *self = run->svm;
  STEPS_SETUP
  const int64_t *perm = run->perm;
  const int64_t n = self->source.num_data;
  const double *y = self->labels;
  const double *c = self->weights;
  const double lambda = self->lambda;
  const double inv_lambda = 1.0 / lambda;
  const double t0 = ss_svm_step_t0(self);
  const double B = self->bias_multiplier;
  const double bias_rate = self->bias_learning_rate;
  const SsLoss loss = self->loss;
  const SsLossFunctions *custom = &self->custom_loss;
  double *u = self->u;
  double f = self->factor;
  double b = self->bias;
  SsStatus status = SS_OK;

  for (int64_t k = t - run->epoch_start; t < t_end; ++t, ++k) {
    SS_STEPS_PREFETCH_AHEAD(perm, k, n, y, c);
    const int64_t i = perm[k];
    const double s = f * ROW_DOT(i, u) + b;
    if (!isfinite(s)) {
      status = SS_ERR_NUMERIC;
      break;
    }
    const double g = (c ? c[i] : 1.0) * ss_loss_derivative(loss, custom, s, y[i]);
    const double r = 1.0 / ((double)t + t0); /* lambda eta_t */
    const double eta = inv_lambda * r;
    f *= 1.0 - r;
    if (B > 0) {
      const double eta_b = bias_rate * eta;
      b -= eta_b * (lambda * b + g * B * B);
    }
    if (g != 0) ROW_AXPY(i, -eta * g / f, u);
    if (f < SS_SGD_MIN_FACTOR) {
      self->factor = f;
      ss_svm_fold_factor(self);
      f = 1.0;
    }
  }
  self->factor = f;
  self->bias = b;
  self->iteration = t;
  return status;
}
