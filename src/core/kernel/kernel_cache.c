/* kernel_cache.c -- a least-recently-used cache of kernel rows for the exact
 * pairwise solver (kernel_sdca_pair.c).
 *
 * A row i holds K(x_i, x_k) for the examples k of an active list: compact,
 * by position (value q is K(x_i, x_list[q])), or complete, by example, over
 * all n. Rows live in a budget of `capacity` buffers of n doubles, capacity
 * = floor(bytes / (8 n)) but at least 2 (a pair step reads two rows at
 * once) and at most n; buffers are allocated on first use, so a small
 * problem never touches the whole budget. When all n rows fit, a row is
 * computed whole on its first use (even over a shrunk active set) and never
 * again.
 *
 * Compact rows. The solver's passes read a row at every example of its
 * list. By example, a shrunk list makes each read a gather from a row of
 * n, and each computed row a scatter into it (on the exact solve of ijcnn1,
 * C = 32, gamma = 2: the scatter alone 13 % of the samples); by position
 * the passes load the row and the row is computed in place. Within a
 * generation the lists only shrink (the solver drops examples and keeps
 * the others in order), so a compact row computed over an earlier list
 * holds every value the current one needs: it is moved to the current
 * positions, in place, when it is next asked for (bring_to_level: an O(its
 * length) pass, against a kernel evaluation per entry to compute it again).
 * For that the cache keeps the generation's lists (ss_kernel_cache_set_active
 * copies each one; at most 2 n entries: past that the older lists go, and
 * with them the rows laid out over them) and each example's position in the
 * current list. A row whose gbar needs all n values (ss_kernel_cache_row_cover)
 * is spread to its examples' places and completed; a complete row asked
 * for over a shrunk list is gathered into one of two buffers of n doubles.
 * The values are the same doubles either way, so the layout changes the
 * time and never the iterates: on that solve 3.26 s became 2.42 s (one
 * thread, the same duals to the bit).
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
 *
 * Rows over copies of X (CSR data, unless set_row_copy(0)): a row is
 * computed whole over X's row copy (kernel_internal.h, SsRowCopy) where the
 * list it is asked over is long, and over a compacted copy of the active
 * rows where the active set is short (compute(); "The active rows,
 * compacted"). The dots over either are the CSR dots to the bit, so the
 * copies too change the time and never the iterates.
 *
 * Shared rows (SsKernelRowStore): the kernel rows do not depend on the
 * labels, so the binary problems of a one-vs-rest fit, trained on one data
 * set with one kernel, can share them (ss_kernel_svm_share_kernel_rows).
 * A store holds up to n complete rows of n doubles, each computed once, by
 * the first object that asks for it, with that object's scratch and
 * threads, through the same compute() as a private row: the same doubles,
 * so a shared row changes no iterate. A cache takes its rows from the store
 * only where every row would fit in its own budget anyway (capacity n,
 * doubles), so sharing never holds more than one object's cache would.
 * Objects may train at the same time in different threads: each row has a
 * state, empty -> busy (the one thread that won it computes it) -> ready
 * (published with release order; the row is never written again). An
 * object that finds a row busy does not wait: it computes the row into its
 * own cache, as without the store (the same values). The store is
 * reference-counted and freed with its last object. It knows its data by
 * the borrowed values' address (the objects hold those arrays; a change of
 * the values is refused at train, kernel_svm.c) and, for CSR, by a copy of
 * the structure compared by value. The store needs C11 atomics; a core
 * built without them (atomics.h) has none, and each object computes its
 * rows into its own cache: the same values, more kernel evaluations.
 */
#include "kernel_cache.h"
#include "../common/atomics.h"

#include <stdlib.h>
#include <string.h>

#if SS_HAVE_ATOMICS
#include <stdatomic.h>

/* The states of a shared row. */
enum { STORE_EMPTY = 0, STORE_BUSY = 1, STORE_READY = 2 };

struct SsKernelRowStore {
  _Atomic int64_t refs;
  int64_t n;
  SsData data;          /**< the rows' data, kernel and row flags (ss_kernel_row_store_fits);
                             CSR: its indptr and indices are the store's copies (the Python
                             layer gives each object its own copy of the structure) */
  int64_t *indptr;      /**< CSR: [n + 1] the copy, else NULL */
  int32_t *indices;     /**< CSR: [nnz] the copy, else NULL */
  SsKernel kernel;
  unsigned row_flags;
  _Atomic int *state;   /**< [n] STORE_EMPTY, STORE_BUSY or STORE_READY */
  double **rows;        /**< [n] row i once state[i] is STORE_READY */
};
#endif

/* ------------------------------------------------------------------------ */
/*                       The active rows, compacted                           */
/* ------------------------------------------------------------------------ */

/* Once shrinking has left a few of the n examples active, their rows lie
 * scattered over X, and the dots of a row over the active list fetch each
 * listed row's offsets, columns and values from memory: on ijcnn1, 47 ns a
 * listed row (perf: the loads of the columns and of zd), a third of the
 * kernel values of the exact solve and most of its time. So the cache
 * copies the active rows one after the other (a row subset,
 * kernel_internal.h) at the first row over a new active list, and computes
 * rows over the list as consecutive rows of the copy: the same dots of the
 * same rows, so the same values to the bit. The copy costs a pass over the
 * active rows' entries, paid once for every change of the list (at most
 * one a shrinking check, PAIR_SHRINK_PERIOD steps), and memory up to the
 * active rows' share of X, twice (CSR and row copy). Only CSR data is
 * compacted (a dense row is already one run of memory); where most
 * examples are active, rows are computed whole instead (compute). */

/* Copy X's rows a->list[0..m) into a->rows (row q is X's row list[q]: the
 * cache's pos_of maps back); false (nothing kept) when out of memory, or
 * for data it does not compact (dense, a map). */
static bool make_active_rows(SsActiveRows *a, const SsData *X, const double *norms2,
                             unsigned flags)
{
  ss_row_subset_free(&a->rows);
  return ss_row_subset_make(&a->rows, X, a->list, a->m, norms2, flags);
}

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
  /* The two buffers rows are widened or gathered into, from the start: a
   * run whose rows took all the memory there was (take_slot) still has them. */
  cache->widened_row[0] = cache->widened_row[1] = -1;
  cache->widened[0] = malloc((size_t)n * sizeof(double));
  cache->widened[1] = malloc((size_t)n * sizeof(double));
  if (!cache->widened[0] || !cache->widened[1]) {
    ss_kernel_cache_free(cache);
    return SS_ERR_ALLOC;
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
  cache->level_of = malloc((size_t)capacity * sizeof(int64_t));
  cache->rows = calloc((size_t)capacity, sizeof(void *));
  cache->pos_of = malloc((size_t)n * sizeof(int64_t));
  if (!cache->slot_of || !cache->owner || !cache->prev || !cache->next || !cache->made_in ||
      !cache->complete || !cache->level_of || !cache->rows || !cache->pos_of) {
    ss_kernel_cache_free(cache);
    return SS_ERR_ALLOC;
  }
  for (int64_t i = 0; i < n; ++i) cache->slot_of[i] = cache->pos_of[i] = -1;
  cache->first_level = 1; /* no list kept yet */
  return SS_OK;
}

void ss_kernel_cache_use_store(SsKernelCache *cache, SsKernelRowStore *store)
{
  cache->store = store && cache->capacity == cache->n && !cache->single ? store : NULL;
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
  free(cache->level_of);
  free(cache->pos_of);
  free(cache->lists);
  free(cache->level_start);
  free(cache->widened[0]);
  free(cache->widened[1]);
  ss_row_copy_free(&cache->copy);
  ss_row_subset_free(&cache->active.rows);
  *cache = (SsKernelCache){0};
}

void ss_kernel_cache_start_train(SsKernelCache *cache)
{
  cache->copy_current = false;
  cache->active.tried = cache->active.made = false;
}

/* The current list: level `level`'s, the last one kept. */
static const int64_t *current_list(const SsKernelCache *cache, int64_t *m)
{
  const int64_t kept = cache->level - cache->first_level + 1;
  if (kept <= 0) {
    *m = 0;
    return NULL;
  }
  const int64_t start = cache->level_start[kept - 1];
  *m = cache->lists_used - start;
  return cache->lists + start;
}

/* Forget every kept list and their positions: compact rows of earlier
 * levels become stale. */
static void drop_lists(SsKernelCache *cache)
{
  int64_t m;
  const int64_t *list = current_list(cache, &m);
  for (int64_t k = 0; k < m; ++k) cache->pos_of[list[k]] = -1;
  cache->lists_used = 0;
  cache->first_level = cache->level + 1;
}

/* Room for @p values list entries and @p levels levels; false when it
 * cannot be allocated (the lists kept are unchanged). */
static bool room_for(SsKernelCache *cache, int64_t values, int64_t levels)
{
  if (values > cache->lists_room) {
    const int64_t room = values > cache->n ? 2 * cache->n : cache->n;
    int64_t *lists = realloc(cache->lists, (size_t)(room > 0 ? room : 1) * sizeof(int64_t));
    if (!lists) return false;
    cache->lists = lists;
    cache->lists_room = room;
  }
  if (levels > cache->levels_room) {
    int64_t *start = realloc(cache->level_start, (size_t)(2 * levels) * sizeof(int64_t));
    if (!start) return false;
    cache->level_start = start;
    cache->levels_room = 2 * levels;
  }
  return true;
}

SsStatus ss_kernel_cache_set_active(SsKernelCache *cache, const int64_t *active, int64_t num_active)
{
  /* The new list is kept after the others, unless they would pass 2 n
   * values or there is no memory for it: then the older lists go, and the
   * compact rows laid out over them (never out of memory after the first
   * list, whose room holds any list). */
  const int64_t kept = cache->level - cache->first_level + 1;
  bool fresh = kept <= 0 || cache->lists_used + num_active > 2 * cache->n ||
               !room_for(cache, cache->lists_used + num_active, kept + 1);
  if (fresh && !room_for(cache, num_active, 1)) return SS_ERR_ALLOC;
  int64_t m;
  const int64_t *old = current_list(cache, &m);
  for (int64_t k = 0; k < m; ++k) cache->pos_of[old[k]] = -1;
  if (fresh) {
    cache->lists_used = 0;
    cache->first_level = cache->level + 1;
  }
  cache->level++;
  cache->level_start[cache->level - cache->first_level] = cache->lists_used;
  memcpy(cache->lists + cache->lists_used, active, (size_t)num_active * sizeof(int64_t));
  cache->lists_used += num_active;
  for (int64_t k = 0; k < num_active; ++k) cache->pos_of[active[k]] = k;
  cache->active.list = active;
  cache->active.m = num_active;
  cache->active.tried = cache->active.made = false;
  return SS_OK;
}

void ss_kernel_cache_grow_active(SsKernelCache *cache)
{
  drop_lists(cache);
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

/* Frees slot s's buffer (its row leaves the cache) and moves the last slot
 * into its place, so that the slots stay [0, used). */
static void release_slot(SsKernelCache *cache, int64_t s)
{
  unlink_slot(cache, s);
  cache->slot_of[cache->owner[s]] = -1;
  free(cache->rows[s]);
  const int64_t last = --cache->used;
  if (s != last) {
    cache->rows[s] = cache->rows[last];
    cache->owner[s] = cache->owner[last];
    cache->made_in[s] = cache->made_in[last];
    cache->complete[s] = cache->complete[last];
    cache->level_of[s] = cache->level_of[last];
    cache->slot_of[cache->owner[s]] = s;
    const int64_t p = cache->prev[last], q = cache->next[last];
    cache->prev[s] = p;
    cache->next[s] = q;
    if (p >= 0) cache->next[p] = s;
    else cache->head = s;
    if (q >= 0) cache->prev[q] = s;
    else cache->tail = s;
  }
  cache->rows[last] = NULL;
}

/* A buffer for row i: a fresh one while the budget lasts, else the least
 * recently used row's. Out of memory (an address-space limit, no
 * overcommit), the cache makes do with less: it gives back the least
 * recently used eighth of its rows, so that the run's own allocations to
 * come (the model's rows at a diagnostic) find room, and the rows it keeps
 * become its budget, two at least (a pair step reads two). A smaller cache
 * gives the same values (the opening comment): on 20,000 rows at the default
 * 200 MB under `ulimit -v 700000` the fit used to end out of memory. -1
 * when fewer than two rows are held. */
static int64_t take_slot(SsKernelCache *cache, int64_t i)
{
  const bool room = cache->used < cache->capacity;
  void *buffer = room ? malloc((size_t)cache->n * (cache->single ? sizeof(float) : sizeof(double))) : NULL;
  if (room && !buffer) { /* out of memory: make do with less */
    if (cache->used < 2) return -1;
    const int64_t keep = cache->used - cache->used / 8;
    while (cache->used > (keep > 2 ? keep : 2)) release_slot(cache, cache->tail);
    cache->capacity = cache->used; /* no row is then computed whole for all n */
  }
  int64_t s;
  if (buffer) {
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

/* A row's block of values (ss_kernel_row_blocks) stored into the cache's
 * row: at row[rows[q]] (rows NULL: row[q]), as doubles or floats. Each
 * block writes its own entries, so blocks run on any thread. */
typedef struct StoreRow {
  const int64_t *rows;
  void *row;
  bool single;
} StoreRow;

static void store_block(void *context, int64_t block, int64_t lo, int64_t hi, const double *k)
{
  (void)block;
  const StoreRow *s = context;
  if (s->single) {
    float *f = s->row; /* each value is a float widened (kernel.c): exact */
    for (int64_t q = lo; q < hi; ++q) f[s->rows ? s->rows[q] : q] = (float)k[q - lo];
  } else {
    double *d = s->row;
    for (int64_t q = lo; q < hi; ++q) d[s->rows ? s->rows[q] : q] = k[q - lo];
  }
}

/* Where X has a row copy (kernel_internal.h, SsRowCopy) the cache computes
 * a row whole, n values, in place of a list longer than these shares of n
 * (compute): the active list, above which it is not compacted, and any
 * other (the inactive examples of a cover). On ijcnn1 a whole row costs
 * about 5 ns a value over the copy, against 8-13 ns a listed row when most
 * rows are listed and 47 ns when few are (each listed row a fetch from
 * memory). */
#define SS_CACHE_WHOLE_ROW_ACTIVE 0.75
#define SS_CACHE_WHOLE_ROW_OTHER 0.125

/* Row i over the examples rows[0, m) (rows NULL: 0..m-1, m = n), counted:
 * by position, row[k] = K(x_i, x_rows[k]), when @p compact, else by
 * example, row[rows[k]]; row holds doubles, or floats when the cache is
 * single. Returns whether all n values were computed, by example (the row
 * is then complete). With the row copies (set_row_copy, on by default;
 * never for a precomputed kernel, whose row is read by X's row numbers),
 * the dots run over a copy, the CSR dots' values to the bit:
 * - a list longer than its share above: the whole row, consecutive rows of
 *   X's row copy, made at the first row of each train call (complete, even
 *   when a compact row was asked for: it is then gathered over the list
 *   where it is read, view(); moved to the list's positions instead, such
 *   rows were computed again to complete them, and on a9a, whose active set
 *   stays long, the exact solve took 2.66 s against 2.45 s, with 594M
 *   kernel values against 561M);
 * - the active list (ss_kernel_cache_set_active) up to its share: the
 *   consecutive rows of the active rows compacted (above);
 * - any other list, and every list without the copies: the CSR dots of its
 *   rows.
 * Rows by example are stored block by block by the thread that computed
 * the block (the first writes to a fresh buffer, page faults, are split
 * too); compact rows of doubles are written by the row's threads in place. */
static bool compute(SsKernelCache *cache, SsKernelSvm *svm, int64_t i, const int64_t *rows,
                    int64_t m, void *row, bool compact)
{
  const SsData *X = &svm->data;
  const int64_t n = X->num_data;
  if (m == 0) return false;
  SsActiveRows *a = &cache->active;
  const bool copies = ss_kernel_svm_copies_rows(svm);
  if (!cache->copy_current) {
    if (copies) {
      (void)ss_row_copy_update(&cache->copy, X, svm->row_flags); /* out of memory: none */
    } else {
      ss_row_copy_free(&cache->copy);
      ss_row_subset_free(&a->rows);
    }
    cache->copy_current = true;
  }
  const bool active = rows && rows == a->list && m == a->m;
  const double share = active ? SS_CACHE_WHOLE_ROW_ACTIVE : SS_CACHE_WHOLE_ROW_OTHER;
  if (copies && rows && (double)m > share * (double)n && cache->copy.num_rows > 0) {
    rows = NULL; /* the whole row */
    m = n;
  }
  if (copies && active && rows && !a->tried) {
    a->made = make_active_rows(a, X, svm->norms2, svm->row_flags);
    a->tried = true;
  }
  ss_data_scatter_row(X, i, svm->zd);
  StoreRow store = {compact ? NULL : rows, row, cache->single};
  const bool direct = !cache->single && (!rows || compact); /* into the buffer, no store pass */
  if (!rows && direct) {
    ss_kernel_training_row_threads(&svm->kernel, X, svm->row_flags, &cache->copy, svm->norms2, i,
                                   svm->zd, svm->norms2[i], svm->threads, row);
  } else if (!rows) {
    ss_kernel_training_row_blocks(&svm->kernel, X, svm->row_flags, &cache->copy, svm->norms2, i,
                                  svm->zd, svm->norms2[i], svm->threads, store_block, &store);
  } else if (copies && active && a->made && (!a->rows.copy.bits || cache->pos_of[i] >= 0)) {
    /* row q of the compacted rows is X's row rows[q] (the list's: pos_of
     * is its inverse); a bit copy needs X's row i among them (the other
     * copies read it from zd) */
    if (direct) {
      ss_kernel_training_row_threads(&svm->kernel, &a->rows.data, svm->row_flags, &a->rows.copy,
                                     a->rows.norms2, cache->pos_of[i], svm->zd, svm->norms2[i],
                                     svm->threads, row);
    } else {
      ss_kernel_training_row_blocks(&svm->kernel, &a->rows.data, svm->row_flags, &a->rows.copy,
                                    a->rows.norms2, cache->pos_of[i], svm->zd, svm->norms2[i],
                                    svm->threads, store_block, &store);
    }
  } else if (direct) {
    ss_kernel_row_threads(&svm->kernel, X, svm->norms2, rows, m, svm->zd, svm->norms2[i],
                          svm->row_flags, row, svm->threads);
  } else {
    ss_kernel_row_blocks(&svm->kernel, X, svm->row_flags, svm->norms2, rows, m, svm->zd,
                         svm->norms2[i], svm->threads, store_block, &store);
  }
  ss_data_clear_row(X, i, svm->zd);
  svm->num_kernel_evaluations += m;
  cache->misses++;
  return m == n;
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

/* Slot s's compact row moved to the current list's positions: an entry at
 * position p of its own list goes to the position of the same example in
 * the current one, a subset (so never to a later position: in place).
 * False when its list is no longer kept (the row is stale). */
static bool bring_to_level(SsKernelCache *cache, int64_t s)
{
  const int64_t level = cache->level_of[s];
  if (level == cache->level) return true;
  if (level < cache->first_level) return false;
  const int64_t start = cache->level_start[level - cache->first_level];
  const int64_t end = cache->level_start[level - cache->first_level + 1];
  const int64_t *old = cache->lists + start, *pos = cache->pos_of;
  if (cache->single) {
    float *f = cache->rows[s];
    for (int64_t p = 0; p < end - start; ++p) {
      const int64_t k = pos[old[p]];
      if (k >= 0) f[k] = f[p];
    }
  } else {
    double *d = cache->rows[s];
    for (int64_t p = 0; p < end - start; ++p) {
      const int64_t k = pos[old[p]];
      if (k >= 0) d[k] = d[p];
    }
  }
  cache->level_of[s] = cache->level;
  return true;
}

/* Slot s's compact row over the current list spread to its examples'
 * places, in place (active[k] >= k: from the last position down). */
static void spread(SsKernelCache *cache, int64_t s, const int64_t *active, int64_t num_active)
{
  if (cache->single) {
    float *f = cache->rows[s];
    for (int64_t k = num_active - 1; k >= 0; --k) f[active[k]] = f[k];
  } else {
    double *d = cache->rows[s];
    for (int64_t k = num_active - 1; k >= 0; --k) d[active[k]] = d[k];
  }
}

/* Row i, held as @p row (doubles, or floats when single), returned as
 * doubles: by position over the current list active[0, num_active), or
 * (whole) by example over all n. A compact row of doubles is returned as
 * it is, and so is a complete one over all n; the others are written into
 * one of the two buffers (floats widened, a complete row gathered over a
 * shrunk list): the one that last held row i, else the one not returned
 * last, so the two rows of a pair step stay valid together (allocated
 * with the cache). */
static const double *view(SsKernelCache *cache, int64_t i, const void *row, bool complete,
                          const int64_t *active, int64_t num_active, bool whole)
{
  const int64_t n = cache->n;
  const bool by_example = complete && (whole || num_active == n);
  if (!cache->single && (by_example || !complete)) return row;
  const int b = cache->widened_row[0] == i   ? 0
                : cache->widened_row[1] == i ? 1
                                             : 1 - cache->last_widened;
  double *out = cache->widened[b];
  if (cache->single) {
    const float *f = row;
    if (by_example) {
      for (int64_t k = 0; k < n; ++k) out[k] = f[k];
    } else if (complete) {
      for (int64_t k = 0; k < num_active; ++k) out[k] = f[active[k]];
    } else {
      for (int64_t k = 0; k < num_active; ++k) out[k] = f[k];
    }
  } else {
    const double *d = row;
    for (int64_t k = 0; k < num_active; ++k) out[k] = d[active[k]];
  }
  cache->widened_row[b] = i;
  cache->last_widened = b;
  return out;
}

#if SS_HAVE_ATOMICS
/* Row i of the store (complete), computed here if nobody has; NULL when
 * another thread is computing it or a buffer cannot be allocated (the
 * caller then computes it into its own cache). */
static const double *store_row(SsKernelCache *cache, SsKernelSvm *svm, int64_t i)
{
  SsKernelRowStore *store = cache->store;
  int state = atomic_load_explicit(&store->state[i], memory_order_acquire);
  if (state == STORE_EMPTY &&
      atomic_compare_exchange_strong_explicit(&store->state[i], &state, STORE_BUSY,
                                              memory_order_acquire, memory_order_acquire)) {
    double *row = malloc((size_t)store->n * sizeof(double));
    if (row) compute(cache, svm, i, NULL, store->n, row, false);
    store->rows[i] = row;
    atomic_store_explicit(&store->state[i], row ? STORE_READY : STORE_EMPTY, memory_order_release);
    return row;
  }
  if (state != STORE_READY) return NULL;
  cache->hits++;
  return store->rows[i];
}
#else
/* No store without atomics (atomics.h): share_kernel_rows shares nothing. */
static const double *store_row(SsKernelCache *cache, SsKernelSvm *svm, int64_t i)
{
  (void)cache, (void)svm, (void)i;
  return NULL;
}
#endif

const double *ss_kernel_cache_row(SsKernelCache *cache, SsKernelSvm *svm, int64_t i,
                                  const int64_t *active, int64_t num_active, SsStatus *status)
{
  const double *shared = cache->store ? store_row(cache, svm, i) : NULL;
  const double *out;
  if (shared) {
    out = view(cache, i, shared, true, active, num_active, false);
  } else {
    bool current;
    const int64_t s = find(cache, i, &current);
    if (s < 0) {
      *status = SS_ERR_ALLOC;
      return NULL;
    }
    if (current && !cache->complete[s] && !bring_to_level(cache, s)) current = false;
    if (current) {
      cache->hits++;
    } else if (cache->capacity == cache->n) {
      /* Every row fits: compute it whole, once for all. */
      cache->complete[s] = compute(cache, svm, i, NULL, cache->n, cache->rows[s], false);
    } else {
      cache->complete[s] = compute(cache, svm, i, active, num_active, cache->rows[s], true);
    }
    if (!current) {
      cache->made_in[s] = cache->generation;
      cache->level_of[s] = cache->level;
    }
    out = view(cache, i, cache->rows[s], cache->complete[s], active, num_active, false);
  }
  return out;
}

const double *ss_kernel_cache_row_cover(SsKernelCache *cache, SsKernelSvm *svm, int64_t i,
                                        const int64_t *active, int64_t num_active,
                                        const int64_t *rest, int64_t num_rest, SsStatus *status)
{
  const double *shared = cache->store ? store_row(cache, svm, i) : NULL;
  if (shared) return shared;
  bool current;
  const int64_t s = find(cache, i, &current);
  if (s < 0) {
    *status = SS_ERR_ALLOC;
    return NULL;
  }
  void *row = cache->rows[s];
  if (current && !cache->complete[s] && !bring_to_level(cache, s)) current = false;
  if (!current) {
    cache->complete[s] = compute(cache, svm, i, active, num_active, row, false);
  } else if (!cache->complete[s]) {
    spread(cache, s, active, num_active);
  }
  if (!cache->complete[s]) compute(cache, svm, i, rest, num_rest, row, false);
  cache->made_in[s] = cache->generation;
  cache->complete[s] = true;
  return view(cache, i, row, true, active, num_active, true);
}

/* ------------------------------------------------------------------------ */
/*                               Shared rows                                  */
/* ------------------------------------------------------------------------ */

/* The same CSR structure (by value: O(nnz)), or both dense. */
static bool same_structure(const SsData *a, const SsData *b)
{
  if (a->layout != SS_LAYOUT_CSR) return true;
  const int64_t n = a->num_data;
  if (memcmp(a->indptr, b->indptr, (size_t)(n + 1) * sizeof(int64_t)) != 0) return false;
  return memcmp(a->indices, b->indices, (size_t)a->indptr[n] * sizeof(int32_t)) == 0;
}

/* Whether @p svm's kernel rows are those of data @p a, kernel @p k and
 * row flags @p flags. */
static bool same_rows(const SsData *a, const SsKernel *k, unsigned flags, const SsKernelSvm *svm)
{
  const SsData *b = &svm->data;
  const SsKernel *l = &svm->kernel;
  return svm->has_data && a->layout == b->layout && a->dtype == b->dtype &&
         a->num_data == b->num_data && a->dimension == b->dimension &&
         a->row_stride == b->row_stride && a->values == b->values &&
         a->homkermap == b->homkermap && same_structure(a, b) && k->type == l->type &&
         k->gamma == l->gamma && k->coef0 == l->coef0 && k->degree == l->degree &&
         flags == svm->row_flags;
}

bool ss_kernel_rows_match(const SsKernelSvm *a, const SsKernelSvm *b)
{
  return a->has_data && same_rows(&a->data, &a->kernel, a->row_flags, b);
}

#if SS_HAVE_ATOMICS
SsKernelRowStore *ss_kernel_row_store_new(const SsKernelSvm *svm)
{
  const int64_t n = svm->num_data;
  SsKernelRowStore *store = calloc(1, sizeof *store);
  if (!store) return NULL;
  store->state = calloc((size_t)n, sizeof *store->state);
  store->rows = calloc((size_t)n, sizeof *store->rows);
  if (!store->state || !store->rows) {
    free((void *)store->state);
    free(store->rows);
    free(store);
    return NULL;
  }
  for (int64_t i = 0; i < n; ++i) atomic_init(&store->state[i], STORE_EMPTY);
  atomic_init(&store->refs, 1);
  store->n = n;
  store->data = svm->data;
  if (svm->data.layout == SS_LAYOUT_CSR) {
    const int64_t nnz = svm->data.indptr[n];
    store->indptr = malloc((size_t)(n + 1) * sizeof(int64_t));
    store->indices = malloc((size_t)(nnz > 0 ? nnz : 1) * sizeof(int32_t));
    if (!store->indptr || !store->indices) {
      ss_kernel_row_store_release(store);
      return NULL;
    }
    memcpy(store->indptr, svm->data.indptr, (size_t)(n + 1) * sizeof(int64_t));
    memcpy(store->indices, svm->data.indices, (size_t)nnz * sizeof(int32_t));
    store->data.indptr = store->indptr;
    store->data.indices = store->indices;
  }
  store->kernel = svm->kernel;
  store->row_flags = svm->row_flags;
  return store;
}

void ss_kernel_row_store_retain(SsKernelRowStore *store)
{
  atomic_fetch_add_explicit(&store->refs, 1, memory_order_relaxed);
}

void ss_kernel_row_store_release(SsKernelRowStore *store)
{
  if (!store || atomic_fetch_sub_explicit(&store->refs, 1, memory_order_acq_rel) != 1) return;
  for (int64_t i = 0; i < store->n; ++i) free(store->rows[i]);
  free((void *)store->state);
  free(store->rows);
  free(store->indptr);
  free(store->indices);
  free(store);
}

bool ss_kernel_row_store_fits(const SsKernelRowStore *store, const SsKernelSvm *svm)
{
  return same_rows(&store->data, &store->kernel, store->row_flags, svm);
}
#else
SsKernelRowStore *ss_kernel_row_store_new(const SsKernelSvm *svm)
{
  (void)svm;
  return NULL;
}

void ss_kernel_row_store_retain(SsKernelRowStore *store) { (void)store; }

void ss_kernel_row_store_release(SsKernelRowStore *store) { (void)store; }

bool ss_kernel_row_store_fits(const SsKernelRowStore *store, const SsKernelSvm *svm)
{
  (void)store, (void)svm;
  return false;
}
#endif
