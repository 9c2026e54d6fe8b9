/* kernel_cache.c -- a least-recently-used cache of kernel rows for the exact
 * pairwise solver (kernel_sdca_pair.c).
 *
 * A row i holds K(x_i, x_k) for the k of an active set (the rest of its n
 * slots are not read). Rows live in a budget of `capacity` buffers of n
 * doubles, capacity = floor(bytes / (8 n)) but at least 2 (a pair step
 * reads two rows at once) and at most n; buffers are allocated on first
 * use, so a small problem never touches the whole budget. When all n rows
 * fit, a row is computed whole on its first use (even over a shrunk active
 * set) and never again.
 *
 * Validity: the solver only ever shrinks its active set between calls to
 * ss_kernel_cache_grow_active; a row computed over an active set is valid
 * for every subset of it. When the active set grows (unshrinking), the
 * generation counter steps and every older row counts as a miss, except the
 * complete ones: rows computed over all n, or extended to the examples
 * outside the active set by ss_kernel_cache_row_cover (the solver does so
 * for the support vectors when it reconstructs the gradient, so the rows it
 * needs most survive the unshrinking).
 *
 * Recency: a doubly linked list over the resident rows, most recent at the
 * head; a miss with a full budget takes the tail's buffer. Every value
 * returned is the same double whether it came from the cache or was just
 * computed (one code path computes rows), so the cache size changes the
 * running time and never the iterates.
 *
 * Float rows (SS_ROWS_FLOAT32): every value of a float32 kernel row is a
 * float widened to double (kernel.c), so storing it as a float loses
 * nothing. Where n rows of doubles would not fit in the budget, the rows are
 * stored as floats, 2x as many (LIBSVM stores floats always), and each row
 * returned is widened into one of two buffers of n doubles (over the
 * active examples, or all n for ss_kernel_cache_row_cover): an O(n_active) pass per
 * request, which the solver's own pass over the row already costs, against
 * kernel rows that cost a dot product per entry. Where all rows fit as
 * doubles they stay doubles (no widening). The buffer for row i is the one
 * that last held i, else the one not returned last, so the two rows of a
 * pair step stay valid together.
 */
#include "kernel_cache.h"

#include <stdlib.h>
#include <string.h>

SsStatus ss_kernel_cache_init(SsKernelCache *cache, int64_t n, double megabytes, bool float_rows)
{
  *cache = (SsKernelCache){0};
  const double bytes = megabytes * 1048576.0;
  double rows = bytes / ((double)n * (double)sizeof(double));
  if (float_rows && rows < (double)n) {
    cache->single = true;
    rows = bytes / ((double)n * (double)sizeof(float));
  }
  int64_t capacity = rows >= (double)n ? n : (int64_t)rows;
  if (capacity < 2) capacity = 2;
  cache->widened_slot[0] = cache->widened_slot[1] = -1;
  if (cache->single) {
    cache->widened[0] = malloc((size_t)n * sizeof(double));
    cache->widened[1] = malloc((size_t)n * sizeof(double));
    if (!cache->widened[0] || !cache->widened[1]) {
      ss_kernel_cache_free(cache);
      return SS_ERR_ALLOC;
    }
  }
  cache->n = n;
  cache->capacity = capacity;
  cache->generation = 1;
  cache->head = cache->tail = -1;
  cache->slot_of = malloc((size_t)n * sizeof(int64_t));
  cache->owner = malloc((size_t)capacity * sizeof(int64_t));
  cache->prev = malloc((size_t)capacity * sizeof(int64_t));
  cache->next = malloc((size_t)capacity * sizeof(int64_t));
  cache->made_in = malloc((size_t)capacity * sizeof(uint64_t));
  cache->complete = malloc((size_t)capacity * sizeof(bool));
  cache->rows = calloc((size_t)capacity, sizeof(void *));
  if (!cache->slot_of || !cache->owner || !cache->prev || !cache->next || !cache->made_in ||
      !cache->complete || !cache->rows) {
    ss_kernel_cache_free(cache);
    return SS_ERR_ALLOC;
  }
  for (int64_t i = 0; i < n; ++i) cache->slot_of[i] = -1;
  return SS_OK;
}

void ss_kernel_cache_free(SsKernelCache *cache)
{
  if (cache->rows) {
    for (int64_t s = 0; s < cache->used; ++s) free(cache->rows[s]);
  }
  free(cache->rows);
  free(cache->slot_of);
  free(cache->owner);
  free(cache->prev);
  free(cache->next);
  free(cache->made_in);
  free(cache->complete);
  free(cache->widened[0]);
  free(cache->widened[1]);
  *cache = (SsKernelCache){0};
}

void ss_kernel_cache_grow_active(SsKernelCache *cache)
{
  cache->generation++;
  for (int64_t s = 0; s < cache->used; ++s) {
    if (cache->complete[s]) cache->made_in[s] = cache->generation;
  }
}

static void unlink_slot(SsKernelCache *cache, int64_t s)
{
  const int64_t p = cache->prev[s], q = cache->next[s];
  if (p >= 0) cache->next[p] = q;
  else cache->head = q;
  if (q >= 0) cache->prev[q] = p;
  else cache->tail = p;
}

static void push_front(SsKernelCache *cache, int64_t s)
{
  cache->prev[s] = -1;
  cache->next[s] = cache->head;
  if (cache->head >= 0) cache->prev[cache->head] = s;
  cache->head = s;
  if (cache->tail < 0) cache->tail = s;
}

/* A buffer for row i: a fresh one while the budget lasts, else the least
 * recently used row's. -1 when a fresh buffer cannot be allocated. */
static int64_t take_slot(SsKernelCache *cache, int64_t i)
{
  int64_t s;
  if (cache->used < cache->capacity) {
    void *buffer = malloc((size_t)cache->n * (cache->single ? sizeof(float) : sizeof(double)));
    if (!buffer) return -1;
    s = cache->used++;
    cache->rows[s] = buffer;
  } else {
    s = cache->tail;
    unlink_slot(cache, s);
    cache->slot_of[cache->owner[s]] = -1;
  }
  cache->owner[s] = i;
  cache->slot_of[i] = s;
  push_front(cache, s);
  return s;
}

/* row[rows[k]] = K(x_i, x_rows[k]) for k < m (rows NULL: row[k] = K(x_i, x_k)),
 * counted; row holds doubles, or floats when the cache is single. */
static void compute(SsKernelCache *cache, SsKernelSvm *svm, int64_t i, const int64_t *rows,
                    int64_t m, void *row)
{
  if (m == 0) return;
  const SsData *X = &svm->data;
  ss_data_scatter_row(X, i, svm->zd);
  ss_kernel_row_threads(&svm->kernel, X, svm->norms2, rows, m, svm->zd, svm->norms2[i],
                        svm->row_flags, svm->krow, svm->threads);
  ss_data_clear_row(X, i, svm->zd);
  if (cache->single) {
    float *f = row; /* each value is a float widened (kernel.c): exact */
    if (rows) {
      for (int64_t k = 0; k < m; ++k) f[rows[k]] = (float)svm->krow[k];
    } else {
      for (int64_t k = 0; k < m; ++k) f[k] = (float)svm->krow[k];
    }
  } else if (rows) {
    double *d = row;
    for (int64_t k = 0; k < m; ++k) d[rows[k]] = svm->krow[k];
  } else {
    memcpy(row, svm->krow, (size_t)m * sizeof(double));
  }
  svm->num_kernel_evaluations += m;
  cache->misses++;
}

/* Row i's slot, moved to the front; *current: it holds a valid row. -1:
 * no buffer could be allocated. */
static int64_t find(SsKernelCache *cache, int64_t i, bool *current)
{
  int64_t s = cache->slot_of[i];
  if (s >= 0) {
    unlink_slot(cache, s);
    push_front(cache, s);
    *current = cache->made_in[s] == cache->generation;
    return s;
  }
  *current = false;
  s = take_slot(cache, i);
  if (s >= 0) cache->complete[s] = false;
  return s;
}

/* Slot s's row as doubles: the slot itself, or (single) widened into a
 * buffer over the active examples (whole: all n, a complete row). */
static const double *row_of(SsKernelCache *cache, int64_t s, const int64_t *active,
                            int64_t num_active, bool whole)
{
  if (!cache->single) return cache->rows[s];
  const int b = cache->widened_slot[0] == s   ? 0
                : cache->widened_slot[1] == s ? 1
                                              : 1 - cache->last_widened;
  const float *f = cache->rows[s];
  double *out = cache->widened[b];
  if (whole) {
    for (int64_t k = 0; k < cache->n; ++k) out[k] = f[k];
  } else {
    for (int64_t k = 0; k < num_active; ++k) out[active[k]] = f[active[k]];
  }
  cache->widened_slot[b] = s;
  cache->last_widened = b;
  return out;
}

const double *ss_kernel_cache_row(SsKernelCache *cache, SsKernelSvm *svm, int64_t i,
                                  const int64_t *active, int64_t num_active, SsStatus *status)
{
  bool current;
  const int64_t s = find(cache, i, &current);
  if (s < 0) {
    *status = SS_ERR_ALLOC;
    return NULL;
  }
  if (current) {
    cache->hits++;
    return row_of(cache, s, active, num_active, false);
  }
  if (cache->capacity == cache->n) {
    /* Every row fits: compute it whole, once for all. */
    compute(cache, svm, i, NULL, cache->n, cache->rows[s]);
    cache->complete[s] = true;
  } else {
    compute(cache, svm, i, active, num_active, cache->rows[s]);
    cache->complete[s] = num_active == cache->n;
  }
  cache->made_in[s] = cache->generation;
  return row_of(cache, s, active, num_active, false);
}

const double *ss_kernel_cache_row_cover(SsKernelCache *cache, SsKernelSvm *svm, int64_t i,
                                        const int64_t *active, int64_t num_active,
                                        const int64_t *rest, int64_t num_rest, SsStatus *status)
{
  bool current;
  const int64_t s = find(cache, i, &current);
  if (s < 0) {
    *status = SS_ERR_ALLOC;
    return NULL;
  }
  if (!current) compute(cache, svm, i, active, num_active, cache->rows[s]);
  if (!cache->complete[s]) compute(cache, svm, i, rest, num_rest, cache->rows[s]);
  cache->made_in[s] = cache->generation;
  cache->complete[s] = true;
  return row_of(cache, s, active, num_active, true);
}
