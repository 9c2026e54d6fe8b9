/* kernel_ray.c -- the closing ray of the kernel step-size solvers (Pegasos,
 * BSGD): the best model t f on the ray through the model f of a run stopped
 * on its cap.
 *
 * With learning rates 1/(lambda t), Pegasos' and BSGD's iterates at large C
 * on raw features are still in their transient after the default epochs:
 * f_T = 1/(lambda T) sum_j alpha_j y_j K(x_j, .) can end above the zero
 * model's objective (breast-cancer, the 1e-3..1e4 set at C = 1e3;
 * docs/stopping.rst). Along the ray t f, t >= 0, the bias-free primal
 *
 *     P(t) = lambda/2 t^2 ||f||^2 + 1/n sum_i c_i max(0, 1 - t y_i f(x_i))
 *
 * is convex and costs O(n) per value from the scores of the closing
 * diagnostic (the solver's evaluate has them). Its minimiser t*
 * (common/ray.c) scales the model written for the caller when
 * P(t*) < P(1); t = 0 is the zero model, so a run stopped on its cap never
 * returns a model above the zero model's objective. The solver's own state
 * (its counts or budget, the step count t) is not touched: the next train
 * continues it exactly, and writes the model afresh at its diagnostics.
 * Only the closing diagnostic of a run stopped on its cap takes the ray:
 * the objective window rule judges the iterates themselves.
 */
#include "kernel_internal.h"
#include "../common/ray.h"

#include <math.h>

typedef struct {
  const SsKernelSvm *svm;
  const double *scores; /* f(x_i), the model has no bias */
  double norm2;         /* ||f||^2 */
} KernelRay;

/* 1/n sum_i c_i max(0, 1 - t y_i f(x_i)) */
static double ray_loss(const KernelRay *r, double t)
{
  const SsKernelSvm *self = r->svm;
  double loss = 0;
  for (int64_t i = 0; i < self->num_data; ++i) {
    const double z = t * self->labels[i] * r->scores[i];
    if (z < 1) loss += ss_kernel_svm_weight(self, i) * (1 - z);
  }
  return loss / (double)self->num_data;
}

static double ray_value(const KernelRay *r, double t)
{
  return 0.5 * r->svm->lambda * t * t * r->norm2 + ray_loss(r, t);
}

static double ray_slope(const void *context, double t)
{
  const KernelRay *r = context;
  const SsKernelSvm *self = r->svm;
  double slope = 0;
  for (int64_t i = 0; i < self->num_data; ++i) {
    const double yf = self->labels[i] * r->scores[i];
    if (t * yf < 1) slope -= ss_kernel_svm_weight(self, i) * yf;
  }
  return self->lambda * t * r->norm2 + slope / (double)self->num_data;
}

void ss_kernel_close_on_ray(SsKernelSvm *self, double *scores, double *norm2)
{
  if (self->statistics.status != SS_SVM_STATUS_MAX_ITERATIONS || self->model.bias != 0 ||
      !(*norm2 > 0) || !isfinite(*norm2))
    return;
  const KernelRay r = {.svm = self, .scores = scores, .norm2 = *norm2};
  const double t = ss_ray_minimiser(ray_slope, &r);
  if (!isfinite(t) || t == 1.0 || !(ray_value(&r, t) < ray_value(&r, 1.0))) return;
  for (int64_t j = 0; j < self->model.num_support_vectors; ++j) self->model.coefficients[j] *= t;
  for (int64_t i = 0; i < self->num_data; ++i) scores[i] *= t;
  *norm2 *= t * t;
}
