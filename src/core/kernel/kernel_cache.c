/* kernel_cache.c -- a least-recently-used cache of kernel rows for the exact
 * pairwise solver (kernel_sdca_pair.c).
 *
 * A row i holds K(x_i, x_k) for the k of an active set (the rest of its n
 * slots are not read). Rows live in a budget of `capacity` buffers of n
 * doubles, capacity = floor(bytes / (8 n)) but at least 2 (a pair step
 * reads two rows at once) and at most n; buffers are allocated on first
 * use, so a small problem never touches the whole budget.
 *
 * Validity: the solver only ever shrinks its active set between calls to
 * ss_kernel_cache_grow_active; a row computed over an active set is valid
 * for every subset of it. When the active set grows (unshrinking), the
 * generation counter steps and every older row counts as a miss.
 *
 * Recency: a doubly linked list over the resident rows, most recent at the
 * head; a miss with a full budget takes the tail's buffer. Every value
 * returned is the same double whether it came from the cache or was just
 * computed (one code path computes rows), so the cache size changes the
 * running time and never the iterates.
 */
#include "kernel_cache.h"

#include <stdlib.h>

SsStatus ss_kernel_cache_init(SsKernelCache *cache, int64_t n, double megabytes)
{
  *cache = (SsKernelCache){0};
  const double bytes = megabytes * 1048576.0;
  const double rows = bytes / ((double)n * (double)sizeof(double));
  int64_t capacity = rows >= (double)n ? n : (int64_t)rows;
  if (capacity < 2) capacity = 2;
  cache->n = n;
  cache->capacity = capacity;
  cache->generation = 1;
  cache->head = cache->tail = -1;
  cache->slot_of = malloc((size_t)n * sizeof(int64_t));
  cache->owner = malloc((size_t)capacity * sizeof(int64_t));
  cache->prev = malloc((size_t)capacity * sizeof(int64_t));
  cache->next = malloc((size_t)capacity * sizeof(int64_t));
  cache->made_in = malloc((size_t)capacity * sizeof(uint64_t));
  cache->rows = calloc((size_t)capacity, sizeof(double *));
  if (!cache->slot_of || !cache->owner || !cache->prev || !cache->next || !cache->made_in ||
      !cache->rows) {
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
  *cache = (SsKernelCache){0};
}

void ss_kernel_cache_grow_active(SsKernelCache *cache)
{
  cache->generation++;
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
    double *buffer = malloc((size_t)cache->n * sizeof(double));
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

const double *ss_kernel_cache_row(SsKernelCache *cache, SsKernelSvm *svm, int64_t i,
                                  const int64_t *active, int64_t num_active, SsStatus *status)
{
  int64_t s = cache->slot_of[i];
  if (s >= 0) {
    unlink_slot(cache, s);
    push_front(cache, s);
    if (cache->made_in[s] == cache->generation) {
      cache->hits++;
      return cache->rows[s];
    }
  } else {
    s = take_slot(cache, i);
    if (s < 0) {
      *status = SS_ERR_ALLOC;
      return NULL;
    }
  }
  /* Compute K(x_i, x_active[k]) into the object's kernel-row scratch, then
   * spread it over the row's n slots. */
  const SsData *X = &svm->data;
  ss_data_scatter_row(X, i, svm->zd);
  ss_kernel_row_from_scattered(&svm->kernel, X, svm->norms2, active, num_active, svm->zd,
                               svm->norms2[i], svm->krow);
  ss_data_clear_row(X, i, svm->zd);
  double *row = cache->rows[s];
  for (int64_t k = 0; k < num_active; ++k) row[active[k]] = svm->krow[k];
  svm->num_kernel_evaluations += num_active;
  cache->made_in[s] = cache->generation;
  cache->misses++;
  return row;
}
