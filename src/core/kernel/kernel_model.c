/* kernel_model.c -- the kernel expansion f(x) = sum_j beta_j K(z_j, x) + b.
 *
 * The support vectors are copied in float64 (dense rows or CSR, as the data
 * they came from) so the model outlives the training data; a precomputed
 * kernel keeps the training indices only. Scores of new rows scatter each
 * row once and take one kernel row over the support vectors.
 */
#include "kernel_internal.h"

#include <stdlib.h>
#include <string.h>

void ss_kernel_model_free(SsKernelModel *model)
{
  free(model->values);
  free(model->indptr);
  free(model->indices);
  free(model->norms2);
  free(model->coefficients);
  free(model->source);
  int64_t dimension = model->dimension;
  *model = (SsKernelModel){0};
  model->dimension = dimension;
}

/* Grow the per-row arrays to hold m rows and nnz stored values. */
static SsStatus reserve(SsKernelModel *model, int64_t m, int64_t nnz, bool dense, bool rows)
{
  if (m > model->capacity) {
    size_t cap = (size_t)m;
    double *norms2 = realloc(model->norms2, cap * sizeof(double));
    if (norms2) model->norms2 = norms2;
    double *coefficients = realloc(model->coefficients, cap * sizeof(double));
    if (coefficients) model->coefficients = coefficients;
    int64_t *source = realloc(model->source, cap * sizeof(int64_t));
    if (source) model->source = source;
    int64_t *indptr = realloc(model->indptr, (cap + 1) * sizeof(int64_t));
    if (indptr) model->indptr = indptr;
    if (!norms2 || !coefficients || !source || !indptr) return SS_ERR_ALLOC;
    model->capacity = m;
  }
  if (rows && nnz > model->nnz_capacity) {
    double *values = realloc(model->values, (size_t)nnz * sizeof(double));
    if (!values) return SS_ERR_ALLOC;
    model->values = values;
    if (!dense) {
      int32_t *indices = realloc(model->indices, (size_t)nnz * sizeof(int32_t));
      if (!indices) return SS_ERR_ALLOC;
      model->indices = indices;
    }
    model->nnz_capacity = nnz;
  }
  return SS_OK;
}

SsStatus ss_kernel_model_set_from_rows(SsKernelModel *model, const SsKernel *kernel,
                                       const SsData *data, const int64_t *rows,
                                       const double *coefficients, int64_t m, double bias)
{
  const bool copy_rows = kernel->type != SS_KERNEL_PRECOMPUTED && m > 0;
  const bool dense = data->layout == SS_LAYOUT_DENSE;
  const int64_t d = model->dimension;
  int64_t nnz = 0;
  if (copy_rows) {
    if (dense) {
      nnz = m * d;
    } else {
      for (int64_t k = 0; k < m; ++k) nnz += data->indptr[rows[k] + 1] - data->indptr[rows[k]];
    }
  }
  if (copy_rows && model->layout != data->layout) {
    /* Switching layout: start from empty arrays. */
    ss_kernel_model_free(model);
  }
  SsStatus status = reserve(model, m, nnz, dense, copy_rows);
  if (status != SS_OK) return status;
  model->layout = data->layout;

  if (copy_rows) {
    if (dense) {
      for (int64_t k = 0; k < m; ++k) {
        double *z = model->values + k * d;
        memset(z, 0, (size_t)d * sizeof(double));
        ss_data_scatter_row(data, rows[k], z);
      }
      model->view = (SsData){.layout = SS_LAYOUT_DENSE, .dtype = SS_DTYPE_FLOAT64,
                             .num_data = m, .dimension = d, .row_stride = d,
                             .values = model->values};
    } else {
      int64_t at = 0;
      model->indptr[0] = 0;
      for (int64_t k = 0; k < m; ++k) {
        int64_t r = rows[k];
        for (int64_t p = data->indptr[r]; p < data->indptr[r + 1]; ++p, ++at) {
          model->indices[at] = data->indices[p];
          model->values[at] = data->dtype == SS_DTYPE_FLOAT32
                                  ? (double)((const float *)data->values)[p]
                                  : ((const double *)data->values)[p];
        }
        model->indptr[k + 1] = at;
      }
      model->view = (SsData){.layout = SS_LAYOUT_CSR, .dtype = SS_DTYPE_FLOAT64,
                             .num_data = m, .dimension = d, .row_stride = 0,
                             .values = model->values, .indptr = model->indptr,
                             .indices = model->indices};
    }
  }
  for (int64_t k = 0; k < m; ++k) {
    model->coefficients[k] = coefficients[k];
    model->source[k] = rows[k];
    model->norms2[k] = copy_rows ? ss_data_row_squared_norm(&model->view, k) : 0.0;
  }
  model->num_support_vectors = m;
  model->bias = bias;
  return SS_OK;
}

SsStatus ss_kernel_model_scores(const SsKernelModel *model, const SsKernel *kernel,
                                const SsData *queries, double *scores, SsThreads threads)
{
  const int64_t m = model->num_support_vectors;
  const int64_t n_queries = queries->num_data;
  if (m == 0) {
    for (int64_t q = 0; q < n_queries; ++q) scores[q] = model->bias;
    return SS_OK;
  }
  const bool precomputed = kernel->type == SS_KERNEL_PRECOMPUTED;
  double *zd = calloc((size_t)queries->dimension, sizeof(double));
  double *k_row = malloc((size_t)m * sizeof(double));
  if (!zd || !k_row) {
    free(zd);
    free(k_row);
    return SS_ERR_ALLOC;
  }
  const SsData *X = precomputed ? queries : &model->view;
  const int64_t *rows = precomputed ? model->source : NULL;
  for (int64_t q = 0; q < n_queries; ++q) {
    ss_data_scatter_row(queries, q, zd);
    double z_norm2 = kernel->type == SS_KERNEL_RBF ? ss_data_row_squared_norm(queries, q) : 0.0;
    ss_kernel_row_threads(kernel, X, model->norms2, rows, m, zd, z_norm2, 0, k_row, threads);
    ss_data_clear_row(queries, q, zd);
    double s = 0;
    for (int64_t k = 0; k < m; ++k) s += model->coefficients[k] * k_row[k];
    scores[q] = s + model->bias;
  }
  free(zd);
  free(k_row);
  return SS_OK;
}
