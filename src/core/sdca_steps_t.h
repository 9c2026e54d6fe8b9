/* sdca_steps_t.h -- the SDCA inner loop, a template instantiated once per data
 * kind by steps_kinds.h (see there for the macros; sdca.c for the math). */

static SsStatus STEPS_NAME(SsEpochRun *run, int64_t t, int64_t t_end)
{
  SsSvm *self = run->svm;
  STEPS_SETUP
  const int64_t *perm = run->perm;
  const int64_t n = self->source.num_data;
  const double *y = self->labels, *c = self->weights, *norms2 = self->row_norms2;
  const SsLoss loss = self->loss;
  const SsLossFunctions *custom = &self->custom_loss;
  double *alpha = self->alpha, *w = self->u;
  const double B = self->bias_multiplier, B2 = B * B;
  const double scale = 1.0 / (self->lambda * (double)n);
  double b = self->bias;
  SsStatus status = SS_OK;

  for (int64_t k = t - run->epoch_start; t < t_end; ++t, ++k) {
    if (k + SS_STEPS_PREFETCH < n) {
      const int64_t ahead = perm[k + SS_STEPS_PREFETCH];
      INDEX_PREFETCH(ahead);
      SS_PREFETCH(y + ahead);
      SS_PREFETCH(alpha + ahead);
      SS_PREFETCH(norms2 + ahead);
      if (c) SS_PREFETCH(c + ahead);
    }
    if (k + SS_STEPS_PREFETCH / 2 < n) ROW_PREFETCH(perm[k + SS_STEPS_PREFETCH / 2]);
    const int64_t i = perm[k];
    const double ci = c ? c[i] : 1.0;
    const double A = ci * (norms2[i] + B2) * scale;
    if (!(A > 0)) continue; /* zero weight, or an empty row without bias */
    const double s = ROW_DOT(i, w) + b;
    const double delta = ci * ss_sdca_dual_update(loss, custom, alpha[i] / ci, s, A, y[i]);
    if (!isfinite(delta) || !isfinite(s)) {
      status = SS_ERR_NUMERIC;
      break;
    }
    if (delta == 0) continue;
    alpha[i] += delta;
    ROW_AXPY(i, delta * scale, w);
    if (B > 0) b += delta * scale * B2;
  }
  self->bias = b;
  self->iteration = t;
  return status;
}
