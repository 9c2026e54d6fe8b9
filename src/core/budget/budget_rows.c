/* budget_rows.c -- the budgeted expansion f = sum_j beta_j phi(z_j) evaluated
 * on rows of a data descriptor (dense or CSR, float32 or float64), and rows
 * appended to it as dense points. The layout and type are dispatched once
 * per call so the row kernels inline in the loop over the B points. */
#include "budget.h"
#include "../common/row_kernels.h"

#include <math.h>
#include <string.h>

/* sum_j beta_j k(z_j, x) with DOT(z_j) the inner product <z_j, x>: the
 * kernels other than the Gaussian, one term at a time. */
#define SS_SCORE_LOOP(DOT)                                                         \
  do {                                                                             \
    for (int64_t j = 0; j < budget->size; ++j) {                                   \
      const double *z = budget->points + j * dim;                                  \
      f += budget->beta[j] * ss_budget_kernel_value(kernel, (DOT), budget->norms2[j], norm2_i); \
    }                                                                              \
  } while (0)

/* out[l] += <z_{j0 + l}, x> for l < len, x given by its nonzeros (COUNT of
 * them, the p-th at coordinate INDEX with value VALUE), from the transposed
 * points: one contiguous multiply-add per nonzero. */
#define SS_COLUMN_DOTS(COUNT, INDEX, VALUE)                                        \
  do {                                                                             \
    for (int64_t p = 0; p < (COUNT); ++p) {                                        \
      const double x = (VALUE);                                                    \
      if (x != 0) ss_budget_add_scaled(out, columns + (int64_t)(INDEX) * cap, len, x); \
    }                                                                              \
  } while (0)

/* out[l] = <z_{j0 + l}, x_i>, l < len. */
static void column_dots(const SsBudget *budget, const SsData *data, int64_t i, int64_t j0,
                        int64_t len, double *out)
{
  const int64_t cap = budget->capacity;
  const double *columns = budget->columns + j0;
  memset(out, 0, (size_t)len * sizeof(double));
  if (data->layout == SS_LAYOUT_DENSE) {
    const int64_t base = i * data->row_stride;
    if (data->dtype == SS_DTYPE_FLOAT32) {
      const float *v = (const float *)data->values + base;
      SS_COLUMN_DOTS(data->dimension, p, (double)v[p]);
    } else {
      const double *v = (const double *)data->values + base;
      SS_COLUMN_DOTS(data->dimension, p, v[p]);
    }
  } else {
    const int64_t first = data->indptr[i], nnz = data->indptr[i + 1] - first;
    const int32_t *J = data->indices + first;
    if (data->dtype == SS_DTYPE_FLOAT32) {
      const float *v = (const float *)data->values + first;
      SS_COLUMN_DOTS(nnz, J[p], (double)v[p]);
    } else {
      const double *v = (const double *)data->values + first;
      SS_COLUMN_DOTS(nnz, J[p], v[p]);
    }
  }
}

/* The Gaussian values of terms j0 .. j0 + len - 1 against row i:
 * out[l] = k(z_{j0 + l}, x_i), their inner products at once (column_dots),
 * then the kernel values as a block (budget_kernel.c). Each value is
 * computed alone, so it does not depend on the block. */
static void gaussian_block(const SsBudget *budget, double gamma, const SsData *data, int64_t i,
                           double norm2_i, int64_t j0, int64_t len, double *out)
{
  column_dots(budget, data, i, j0, len, out);
  ss_budget_gaussian_of_dots(out, budget->norms2 + j0, len, norm2_i, gamma);
}

/* A threaded score's arguments: the blocks' values go to values[j]. */
typedef struct ScoreJob {
  const SsBudget *budget;
  const SsData *data;
  int64_t i;
  double norm2_i, gamma;
  double *values;
} ScoreJob;

/* Blocks [begin, end) of a threaded score, each into its own part of values. */
static void score_chunks(void *context, int64_t begin, int64_t end, int slot)
{
  (void)slot; /* the blocks write disjoint parts of values */
  const ScoreJob *job = context;
  for (int64_t b = begin; b < end; ++b) {
    const int64_t j0 = b * SS_BUDGET_BLOCK, j1 = ss_budget_block_end(b, job->budget->size);
    gaussian_block(job->budget, job->gamma, job->data, job->i, job->norm2_i, j0, j1 - j0,
                   job->values + j0);
  }
}

/* The Gaussian score by blocks of terms: each block's values, then the sum
 * in the order of the terms. With threads (a long expansion) the blocks
 * are filled in parallel into @p values (NULL: the scratch) and summed
 * afterwards, in the same order: the same bits. Alone, each block goes to
 * its place in @p values, or to the stack without them. */
static double gaussian_score_row(const SsBudget *budget, double gamma, const SsData *data,
                                 int64_t i, double norm2_i, SsThreadPool *pool, double *values)
{
  double f = 0;
  if (pool) {
    ScoreJob job = {budget, data, i, norm2_i, gamma, values ? values : budget->scratch};
    ss_parallel_for(pool, ss_budget_num_blocks(budget->size), score_chunks, &job);
    for (int64_t j = 0; j < budget->size; ++j) f += budget->beta[j] * job.values[j];
    return f;
  }
  double stack_block[SS_BUDGET_BLOCK];
  const int64_t num_blocks = ss_budget_num_blocks(budget->size);
  for (int64_t b = 0; b < num_blocks; ++b) {
    const int64_t j0 = b * SS_BUDGET_BLOCK, len = ss_budget_block_end(b, budget->size) - j0;
    double *block = values ? values + j0 : stack_block;
    gaussian_block(budget, gamma, data, i, norm2_i, j0, len, block);
    for (int64_t l = 0; l < len; ++l) f += budget->beta[j0 + l] * block[l];
  }
  return f;
}

/* f(x_i), the Gaussian blocks on @p pool (NULL: the caller alone), their
 * values into @p values when given (budget.h: SsBudgetKeptRow). */
static double score_row(const SsBudget *budget, const SsBudgetKernel *kernel, const SsData *data,
                        int64_t i, double norm2_i, SsThreadPool *pool, double *values)
{
  if (kernel->kind == SS_BUDGET_KERNEL_GAUSSIAN)
    return gaussian_score_row(budget, kernel->gamma, data, i, norm2_i, pool, values);
  const int64_t dim = budget->dimension;
  double f = 0;
  if (data->layout == SS_LAYOUT_DENSE) {
    if (data->dtype == SS_DTYPE_FLOAT32) {
      const float *x = (const float *)data->values + i * data->row_stride;
      SS_SCORE_LOOP(ss_dense_dot_f32(x, dim, z));
    } else {
      const double *x = (const double *)data->values + i * data->row_stride;
      SS_SCORE_LOOP(ss_dense_dot_f64(x, dim, z));
    }
  } else {
    const int64_t p = data->indptr[i], nnz = data->indptr[i + 1] - p;
    const int32_t *J = data->indices + p;
    if (data->dtype == SS_DTYPE_FLOAT32) {
      const float *v = (const float *)data->values + p;
      SS_SCORE_LOOP(ss_csr_dot_f32(v, J, nnz, z));
    } else {
      const double *v = (const double *)data->values + p;
      SS_SCORE_LOOP(ss_csr_dot_f64(v, J, nnz, z));
    }
  }
  return f;
}

double ss_budget_score_row(const SsBudget *budget, const SsBudgetKernel *kernel,
                           const SsData *data, int64_t i, double norm2_i)
{
  return score_row(budget, kernel, data, i, norm2_i, ss_budget_pool(budget->threads, budget->size),
                   NULL);
}

double ss_budget_score_row_kept(SsBudget *budget, const SsBudgetKernel *kernel,
                                const SsData *data, int64_t i, double norm2_i)
{
  SsThreadPool *pool = ss_budget_pool(budget->threads, budget->size);
  if (kernel->kind != SS_BUDGET_KERNEL_GAUSSIAN || !budget->kept[0].values)
    return score_row(budget, kernel, data, i, norm2_i, pool, NULL);
  SsBudgetKeptRow *kept = &budget->kept[budget->next_kept];
  budget->next_kept = (budget->next_kept + 1) % SS_BUDGET_KEPT_ROWS;
  *kept = (SsBudgetKeptRow){.row = i, .size = budget->size, .changes = budget->changes,
                            .gamma = kernel->gamma, .norm2 = norm2_i, .values = kept->values};
  return score_row(budget, kernel, data, i, norm2_i, pool, kept->values);
}

/* All rows' scores: their arguments, for the pool's chunks. */
typedef struct RowsJob {
  const SsBudget *budget;
  const SsBudgetKernel *kernel;
  const SsData *data;
  const double *norms2;
  int64_t rows_per_chunk;
  double *scores;
} RowsJob;

/* Chunks [begin, end) of ss_budget_score_rows: each row alone, on this thread. */
static void rows_chunks(void *context, int64_t begin, int64_t end, int slot)
{
  (void)slot; /* each row writes its own score */
  const RowsJob *job = context;
  const int64_t n = job->data->num_data, last = end * job->rows_per_chunk;
  for (int64_t i = begin * job->rows_per_chunk; i < last && i < n; ++i)
    job->scores[i] = score_row(job->budget, job->kernel, job->data, i, job->norms2[i], NULL, NULL);
}

void ss_budget_score_rows(const SsBudget *budget, const SsBudgetKernel *kernel, const SsData *data,
                          const double *norms2, double *scores)
{
  const int64_t n = data->num_data, terms = budget->size > 0 ? budget->size : 1;
  /* chunks of at least SS_BUDGET_BLOCK kernel values, so that a chunk
   * outweighs its claim whatever B */
  const int64_t rows_per_chunk = terms >= SS_BUDGET_BLOCK ? 1 : SS_BUDGET_BLOCK / terms;
  RowsJob job = {budget, kernel, data, norms2, rows_per_chunk, scores};
  const int64_t work = n <= INT64_MAX / terms ? n * terms : INT64_MAX;
  ss_parallel_for(ss_threads_pool(budget->threads, work), (n + rows_per_chunk - 1) / rows_per_chunk,
                  rows_chunks, &job);
}

/* z += x_i for row i of the descriptor and a dense z. */
static void add_row(const SsData *data, int64_t i, double *z)
{
  const int64_t dim = data->dimension;
  if (data->layout == SS_LAYOUT_DENSE) {
    if (data->dtype == SS_DTYPE_FLOAT32)
      ss_dense_axpy_f32((const float *)data->values + i * data->row_stride, dim, z, 1.0);
    else
      ss_dense_axpy_f64((const double *)data->values + i * data->row_stride, dim, z, 1.0);
  } else {
    const int64_t p = data->indptr[i], nnz = data->indptr[i + 1] - p;
    if (data->dtype == SS_DTYPE_FLOAT32)
      ss_csr_axpy_f32((const float *)data->values + p, data->indices + p, nnz, z, 1.0);
    else
      ss_csr_axpy_f64((const double *)data->values + p, data->indices + p, nnz, z, 1.0);
  }
}

void ss_budget_append_row(SsBudget *budget, const SsData *data, int64_t i, double norm2_i,
                          double beta, int64_t origin)
{
  const int64_t j = budget->size++, dim = budget->dimension;
  double *row = budget->points + j * dim;
  memset(row, 0, (size_t)dim * sizeof(double));
  add_row(data, i, row);
  budget->norms2[j] = norm2_i;
  budget->beta[j] = beta;
  budget->origin[j] = origin;
  if (origin >= 0 && budget->slot_of) budget->slot_of[origin] = j;
  ss_budget_copy_to_columns(budget, j);
  ss_budget_cholesky_append(budget, j);
}

void ss_budget_row_norms2(const SsData *data, double *norms2)
{
  for (int64_t i = 0; i < data->num_data; ++i) {
    double s = 0;
    if (data->layout == SS_LAYOUT_DENSE) {
      for (int64_t k = 0; k < data->dimension; ++k) {
        double v = data->dtype == SS_DTYPE_FLOAT32
                       ? (double)((const float *)data->values)[i * data->row_stride + k]
                       : ((const double *)data->values)[i * data->row_stride + k];
        s += v * v;
      }
    } else {
      for (int64_t p = data->indptr[i]; p < data->indptr[i + 1]; ++p) {
        double v = data->dtype == SS_DTYPE_FLOAT32 ? (double)((const float *)data->values)[p]
                                                    : ((const double *)data->values)[p];
        s += v * v;
      }
    }
    norms2[i] = s;
  }
}

/* <x_j, z> for row j of the descriptor and a dense z. */
static double row_dot_dense(const SsData *data, int64_t j, const double *z)
{
  if (data->layout == SS_LAYOUT_DENSE) {
    if (data->dtype == SS_DTYPE_FLOAT32)
      return ss_dense_dot_f32((const float *)data->values + j * data->row_stride, data->dimension, z);
    return ss_dense_dot_f64((const double *)data->values + j * data->row_stride, data->dimension, z);
  }
  const int64_t p = data->indptr[j], nnz = data->indptr[j + 1] - p;
  if (data->dtype == SS_DTYPE_FLOAT32)
    return ss_csr_dot_f32((const float *)data->values + p, data->indices + p, nnz, z);
  return ss_csr_dot_f64((const double *)data->values + p, data->indices + p, nnz, z);
}

double ss_budget_row_dot_row(const SsData *data, int64_t i, int64_t j, double *scratch)
{
  const int64_t dim = data->dimension;
  add_row(data, i, scratch);
  const double dot = row_dot_dense(data, j, scratch);
  if (data->layout == SS_LAYOUT_DENSE) {
    memset(scratch, 0, (size_t)dim * sizeof(double));
  } else {
    for (int64_t p = data->indptr[i]; p < data->indptr[i + 1]; ++p) scratch[data->indices[p]] = 0;
  }
  return dot;
}
