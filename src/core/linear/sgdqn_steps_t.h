/* sgdqn_steps_t.h -- the SGD-QN inner loop, a template instantiated once per
 * data kind by steps_kinds.h (macros: there; math: sgdqn.c). Runs iterations
 * [t, t_end) of the epoch whose permutation is run->perm on the model u (the
 * object's factor is 1), then stores bias, iteration and the count of
 * scaling updates back. */

static SsStatus STEPS_NAME(SsEpochRun *run, int64_t t, int64_t t_end)
{
  SsSvm *self = run->svm;
  STEPS_SETUP
  const int64_t *perm = run->perm;
  const int64_t n = self->source.num_data;
  const int64_t dim = self->dimension;
  const double *y = self->labels;
  const double *c = self->weights;
  const double lambda = self->lambda;
  const double floor = SGDQN_SCALING_FLOOR / lambda;
  const double t0 = ss_svm_step_t0(self);
  const int64_t skip = ss_svm_effective_skip(self);
  const double B = self->bias_multiplier;
  const double bias_rate = self->bias_learning_rate;
  const SsLoss loss = self->loss;
  const SsLossFunctions *custom = &self->custom_loss;
  double *w = self->u;
  double *scale = self->scaling; /* [dim + 1]: the diagonal B, bias last */
  double *x = self->scratch;     /* zeros, except while x_i is spread in it */
  double b = self->bias;
  int64_t updates = self->scaling_updates;
  /* Countdowns instead of a division per step: the paper's count (to the
   * next t with (t + 1) mod skip = 0, a regularization step), and its
   * updateB flag (t mod skip = 0 and t > 0: the iteration after one). */
  int64_t count = skip - t % skip;
  bool update_scaling = t > 0 && t % skip == 0;
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
    const double a = -g / ((double)t + t0); /* the step is a (B .* x~_i) */
    if (g != 0) {
      ROW_AXPY_DIAG(i, a, scale, w);
      if (B > 0) b += bias_rate * a * scale[dim] * B * B; /* b = B w_b */
    }
    if (update_scaling) {
      update_scaling = false;
      /* The secant re-estimation of B on the same example. */
      const double dg = ci * ss_loss_derivative(loss, custom, ROW_DOT(i, w) + b, y[i]) - g;
      const double rate2 = 2.0 / (2.0 + (double)updates);
      ROW_AXPY(i, 1.0, x);
      for (int64_t j = 0; j < dim; ++j) {
        const double xj = x[j];
        const double dw = a * scale[j] * xj;
        scale[j] = sgdqn_scaling_update(scale[j], dw, xj != 0 ? lambda * dw + dg * xj : 0.0,
                                        rate2, lambda, floor);
        x[j] = 0;
      }
      const double dwb = bias_rate * a * scale[dim] * B;
      scale[dim] = sgdqn_scaling_update(scale[dim], dwb, B > 0 ? lambda * dwb + dg * B : 0.0,
                                        rate2, lambda, floor);
      ++updates;
    }
    if (--count == 0) {
      count = skip;
      update_scaling = true;
      const double r = (double)skip * lambda / ((double)t + t0);
      for (int64_t j = 0; j < dim; ++j) w[j] -= r * scale[j] * w[j];
      if (B > 0) b -= bias_rate * r * scale[dim] * b;
    }
  }
  self->bias = b;
  self->iteration = t;
  self->scaling_updates = updates;
  return status;
}
