/* sdca_steps_t.h -- the SDCA inner loop, a template instantiated once per data
 * kind by steps_kinds.h (see there for the macros; sdca.c for the math). */

static SsStatus STEPS_NAME(SsEpochRun *run, int64_t t, int64_t t_end)
{
  SsSvm *self = run->svm;
  STEPS_SETUP
  const int64_t *perm = run->perm; /* not drawn when ss_sdca_draws_order */
  const int64_t n = self->source.num_data;
  const double *y = self->labels, *c = self->weights, *norms2 = self->row_norms2;
  const SsLoss loss = self->loss;
  const SsLossFunctions *custom = &self->custom_loss;
  double *alpha = self->alpha, *w = self->u;
  const double B = self->bias_multiplier, B2 = B * B;
  const double scale = 1.0 / (self->lambda * (double)n);
  double b = self->bias;
  SsStatus status = SS_OK;

  /* Shrinking (sdca.c): the previous epoch's bounds, this epoch's so far. */
  SsSdcaShrinking *sh = &self->shrinking;
  uint8_t *shrunk = ss_sdca_shrinks(self) ? sh->shrunk : NULL;
  const bool box = loss == SS_LOSS_HINGE;
  const double pg_max = sh->pg_max, pg_min = sh->pg_min;
  double epoch_pg_max = sh->epoch_pg_max, epoch_pg_min = sh->epoch_pg_min;
  double epoch_gap = sh->epoch_gap;
  int64_t num_shrunk = sh->num_shrunk;

  /* The examples to visit: perm[k] for the positions k in [k_begin, k_end),
   * or with shrinking the active list's visit[j], j in [j_begin, j_end). */
  const int64_t k_begin = t - run->epoch_start, k_end = t_end - run->epoch_start;
  int64_t j_begin = k_begin, j_end = k_end, m = n;
  const int64_t *visit = perm;
  if (shrunk) {
    visit = ss_sdca_active(self, run, k_begin, k_end, &j_begin, &j_end);
    m = sh->num_candidates;
  }

  int64_t j = j_begin;
  for (; j < j_end; ++j) {
    if (j + SS_STEPS_PREFETCH < m) {
      const int64_t ahead = visit[j + SS_STEPS_PREFETCH];
      INDEX_PREFETCH(ahead);
      SS_PREFETCH(y + ahead);
      SS_PREFETCH(alpha + ahead);
      SS_PREFETCH(norms2 + ahead);
      if (c) SS_PREFETCH(c + ahead);
      if (shrunk) SS_PREFETCH(shrunk + ahead);
    }
    if (j + SS_STEPS_PREFETCH / 2 < m) ROW_PREFETCH(visit[j + SS_STEPS_PREFETCH / 2]);
    const int64_t i = visit[j];
    if (shrunk && shrunk[i]) continue;
    const double ci = c ? c[i] : 1.0;
    const double A = ci * (norms2[i] + B2) * scale;
    if (!(A > 0)) continue; /* zero weight, or an empty row without bias */
    const double s = ROW_DOT(i, w) + b;
    if (shrunk) {
      const double beta = y[i] * alpha[i];
      const double g = y[i] * s - 1, G = g + (box ? 0 : beta / (2 * ci));
      const double below = g < 0 ? -g : 0; /* the loss's max(0, 1 - y s) */
      epoch_gap += box ? ci * below + beta * g : ci * below * below + beta * g + beta * beta / (4 * ci);
      double PG = G;
      if (beta <= 0) {
        if (G > pg_max) {
          shrunk[i] = 1;
          ++num_shrunk;
          continue;
        }
        PG = G < 0 ? G : 0;
      } else if (box && beta >= ss_hinge_beta_max(ci)) {
        if (G < pg_min) {
          shrunk[i] = 1;
          ++num_shrunk;
          continue;
        }
        PG = G > 0 ? G : 0;
      }
      epoch_pg_max = PG > epoch_pg_max ? PG : epoch_pg_max;
      epoch_pg_min = PG < epoch_pg_min ? PG : epoch_pg_min;
    }
    const double alpha_new = ss_sdca_step(loss, custom, alpha[i], ci, s, A, y[i]);
    const double delta = alpha_new - alpha[i];
    if (!isfinite(delta) || !isfinite(s)) {
      status = SS_ERR_NUMERIC;
      break;
    }
    if (delta == 0) continue;
    alpha[i] = alpha_new;
    ROW_AXPY(i, delta * scale, w);
    if (B > 0) b += delta * scale * B2;
  }
  /* On an error, the iteration is the failed visit's; else the range is done. */
  t = status == SS_OK ? t_end : run->epoch_start + (shrunk ? ss_sdca_visit_position(self, j) : j);
  self->bias = b;
  self->iteration = t;
  self->ray.scores_fresh = false; /* the closing ray (sdca_ray.c) waits for a diagnostic */
  sh->epoch_pg_max = epoch_pg_max;
  sh->epoch_pg_min = epoch_pg_min;
  sh->num_shrunk = num_shrunk;
  sh->epoch_gap = epoch_gap;
  /* (t - epoch_start, not epoch_start + n: that overflows near INT64_MAX) */
  if (shrunk && status == SS_OK && t - run->epoch_start == n) ss_sdca_end_epoch(self);
  return status;
}
