/* support_list.c -- the support vectors of an expansion over training
 * examples, kept as a dense list (rows, coefficients) with a position map,
 * so a score f(x_i) is one kernel row over the m listed examples and adding
 * or removing an example costs O(1) (removal moves the last slot). */
#include "kernel_internal.h"

#include <stdlib.h>
#include <string.h>

SsStatus ss_support_list_init(SsSupportList *list, int64_t n)
{
  list->rows = malloc((size_t)n * sizeof(int64_t));
  list->coef = malloc((size_t)n * sizeof(double));
  list->position = malloc((size_t)n * sizeof(int64_t));
  list->m = 0;
  if (!list->rows || !list->coef || !list->position) {
    ss_support_list_free(list);
    return SS_ERR_ALLOC;
  }
  for (int64_t i = 0; i < n; ++i) list->position[i] = -1;
  return SS_OK;
}

void ss_support_list_free(SsSupportList *list)
{
  free(list->rows);
  free(list->coef);
  free(list->position);
  *list = (SsSupportList){0};
}

void ss_support_list_set(SsSupportList *list, int64_t i, double value)
{
  int64_t k = list->position[i];
  if (value != 0) {
    if (k < 0) {
      k = list->m++;
      list->rows[k] = i;
      list->position[i] = k;
    }
    list->coef[k] = value;
  } else if (k >= 0) {
    int64_t last = --list->m;
    list->rows[k] = list->rows[last];
    list->coef[k] = list->coef[last];
    list->position[list->rows[k]] = k;
    list->position[i] = -1;
  }
}

SsStatus ss_support_list_evaluate(SsKernelSvm *self, const SsSupportList *list, double scale,
                                  double *scores, double *norm2, bool *have_scores)
{
  const int64_t m = list->m;
  double *coef = calloc((size_t)(m > 0 ? m : 1), sizeof(double));
  if (!coef) return SS_ERR_ALLOC;
  for (int64_t k = 0; k < m; ++k) coef[k] = scale * list->coef[k];
  SsStatus status = ss_kernel_model_set_from_rows(&self->model, &self->kernel, &self->data,
                                                  list->rows, coef, m, 0.0);
  if (status == SS_OK) {
    ss_kernel_svm_expansion_scores(self, list->rows, coef, m, scores);
    double w2 = 0;
    for (int64_t k = 0; k < m; ++k) w2 += coef[k] * scores[list->rows[k]];
    *norm2 = w2 > 0 ? w2 : 0.0;
    *have_scores = true;
  }
  free(coef);
  return status;
}

void ss_support_solver_free_state(SsKernelSvm *self)
{
  SsSupportList *list = self->state;
  if (!list) return;
  ss_support_list_free(list);
  free(list);
  self->state = NULL;
}

SsStatus ss_support_solver_start(SsKernelSvm *self)
{
  if (self->state) return SS_OK;
  const int64_t n = self->num_data;
  SsSupportList *list = calloc(1, sizeof(SsSupportList));
  if (!list) return SS_ERR_ALLOC;
  if (ss_support_list_init(list, n) != SS_OK) {
    free(list);
    return SS_ERR_ALLOC;
  }
  if (!self->dual) self->dual = malloc((size_t)n * sizeof(double));
  if (!self->dual) {
    ss_support_list_free(list);
    free(list);
    return SS_ERR_ALLOC;
  }
  memset(self->dual, 0, (size_t)n * sizeof(double));
  self->state = list;
  self->iteration = 0;
  return SS_OK;
}

double ss_support_list_visit(SsKernelSvm *self, const SsSupportList *list, int64_t t, int64_t *i)
{
  *i = self->perm[t % self->num_data];
  self->num_kernel_evaluations += list->m;
  return ss_kernel_svm_expansion_score(self, list->rows, list->coef, list->m, *i);
}
