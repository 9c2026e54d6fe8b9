/* support_list.c -- the support vectors of an expansion over training
 * examples, kept as a dense list (rows, coefficients) with a position map,
 * so a score f(x_i) is one kernel row over the m listed examples and adding
 * or removing an example costs O(1) (removal moves the last slot).
 *
 * The rows' copy. A listed CSR row is scattered over X, and reading it for
 * a score cost a fetch from memory: kernel Pegasos's steps took 24-26 ns a
 * kernel value on a9a and ijcnn1, where the SBP's rows over copies of X
 * take 4-5 (bench/results/kernel_speed.md). So the list keeps a copy of
 * its first rows, rows[0..copied) (a row subset, kernel_internal.h: the
 * same values to the bit), copied a multiple of the row's block
 * (SS_KERNEL_ROW_BLOCK), and a score reads those blocks from the copy and
 * the rest from X: the same blocks of the same values, summed in the same
 * order, so every score, and every iterate, is the same bits as without
 * the copy. The copy is made again once the rows past it reach
 * max(SS_KERNEL_ROW_BLOCK, copied / SUPPORT_COPY_LAG): at most about an
 * eighth of the rows are read from X, and a list that grows to m rows has
 * copied O(m log m) rows in all, against m per score. A removal within
 * the copy (kernel SDCA's coefficients may return to 0; Pegasos and the
 * Perceptron only add) drops it, to be made again no sooner than
 * SUPPORT_COPY_VISITS scores after the last one: a copy of m rows costs
 * about what ten scores over them cost, so a list whose rows come and go at
 * every step pays at most a fraction of its scores for copies (bias-free
 * kernel SDCA, 10 epochs on 8,000 rows of a9a and ijcnn1 at C = 1 and 32,
 * finish off: 1.7-5.3 s with the copy, 4.5-7.2 s without). Every train
 * call starts without one (ss_support_solver_start), so it never outlives
 * a change of the borrowed arrays. Memory: up to the listed rows' share of X, twice (CSR and row
 * copy). Without row copies (set_row_copy(0), dense data, a precomputed
 * kernel) or out of memory, the scores read X as before. */
#include "kernel_internal.h"

#include <stdlib.h>
#include <string.h>

/** The copy is made again when the rows past it reach copied / this... */
#define SUPPORT_COPY_LAG 8
/** ... and this many scores at least have passed since it was made. */
#define SUPPORT_COPY_VISITS 32

SsStatus ss_support_list_init(SsSupportList *list, int64_t n)
{
  list->rows = malloc((size_t)n * sizeof(int64_t));
  list->coef = malloc((size_t)n * sizeof(double));
  list->position = malloc((size_t)n * sizeof(int64_t));
  list->m = 0;
  list->copied = list->visits = 0;
  if (!list->rows || !list->coef || !list->position) {
    ss_support_list_free(list);
    return SS_ERR_ALLOC;
  }
  for (int64_t i = 0; i < n; ++i) list->position[i] = -1;
  return SS_OK;
}

/* Forget the rows' copy (kept allocated until remade or freed: made again
 * on the next score). */
static void drop_copy(SsSupportList *list) { list->copied = 0; }

void ss_support_list_free(SsSupportList *list)
{
  ss_row_subset_free(&list->copy);
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
    if (k < list->copied) drop_copy(list); /* the last row moves into the copy's part */
    int64_t last = --list->m;
    list->rows[k] = list->rows[last];
    list->coef[k] = list->coef[last];
    list->position[list->rows[k]] = k;
    list->position[i] = -1;
  }
}

/* The scaled coefficients into a new array (NULL: no memory), written to
 * self->model in *status. */
static double *write_model(SsKernelSvm *self, const SsSupportList *list, double scale, SsStatus *status)
{
  const int64_t m = list->m;
  double *coef = calloc((size_t)(m > 0 ? m : 1), sizeof(double));
  *status = coef ? SS_OK : SS_ERR_ALLOC;
  if (!coef) return NULL;
  for (int64_t k = 0; k < m; ++k) coef[k] = scale * list->coef[k];
  *status = ss_kernel_model_set_from_rows(&self->model, &self->kernel, &self->data, list->rows, coef, m, 0.0);
  return coef;
}

SsStatus ss_support_list_write_model(SsKernelSvm *self, const SsSupportList *list, double scale)
{
  SsStatus status;
  free(write_model(self, list, scale, &status));
  return status;
}

SsStatus ss_support_solver_write_model(SsKernelSvm *self)
{
  return ss_support_list_write_model(self, self->state, 1.0);
}

SsStatus ss_support_list_evaluate(SsKernelSvm *self, const SsSupportList *list, double scale,
                                  double *scores, double *norm2, bool *have_scores)
{
  const int64_t m = list->m;
  SsStatus status;
  double *coef = write_model(self, list, scale, &status);
  if (!coef) return status;
  if (status == SS_OK && !ss_kernel_svm_expansion_scores(self, list->rows, coef, m, scores))
    status = SS_ERR_INTERRUPTED; /* a polled pass stopped (pass_polls): the model stands */
  if (status == SS_OK) {
    double w2 = 0;
    for (int64_t k = 0; k < m; ++k) w2 += coef[k] * scores[list->rows[k]];
    *norm2 = ss_kernel_norm2_floor(w2);
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
  if (self->state) {
    drop_copy(self->state); /* X as it is now: the copy is made again */
    return SS_OK;
  }
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

/* The copy of rows[0..copied), made again where the rows past it reach the
 * lag (the opening comment); none where the object does not copy rows. */
static void follow_copy(const SsKernelSvm *self, SsSupportList *list)
{
  const int64_t rest = list->m - list->copied;
  const int64_t lag = list->copied / SUPPORT_COPY_LAG;
  if (++list->visits < SUPPORT_COPY_VISITS || rest < (lag > SS_KERNEL_ROW_BLOCK ? lag : SS_KERNEL_ROW_BLOCK))
    return;
  list->visits = 0;
  const int64_t copied = list->m / SS_KERNEL_ROW_BLOCK * SS_KERNEL_ROW_BLOCK;
  list->copied = ss_kernel_svm_row_subset(self, list->rows, copied, &list->copy) ? copied : 0;
}

double ss_support_list_visit(SsKernelSvm *self, SsSupportList *list, int64_t t, int64_t *i)
{
  *i = self->perm[t % self->num_data];
  self->num_kernel_evaluations += list->m;
  follow_copy(self, list);
  return ss_kernel_svm_expansion_score(self, list->rows, list->coef, list->m, *i,
                                       list->copied > 0 ? &list->copy : NULL);
}
