/* kernel_cache.h -- private: the LRU cache of kernel rows (kernel_cache.c)
 * of the exact pairwise solver; never installed. */
#ifndef STOCHSVM_KERNEL_CACHE_H
#define STOCHSVM_KERNEL_CACHE_H

#include "kernel_internal.h"

/** The whole kernel matrix of one data set, shared by the objects that
 *  train on it (ss_kernel_svm_share_kernel_rows; kernel_cache.c, "Shared
 *  rows"): each row computed once, by the first object that needs it. */
typedef struct SsKernelRowStore SsKernelRowStore;

/** X's rows of the solver's active set, one after the other
 *  (kernel_cache.c, "The active rows, compacted"). */
typedef struct SsActiveRows {
  const int64_t *list;  /**< borrowed: the active list (ss_kernel_cache_set_active), or NULL */
  int64_t m;            /**< its length */
  bool tried;           /**< they were made for this list, or could not be */
  bool made;            /**< rows holds X's rows list[0..m) */
  SsRowSubset rows;     /**< those rows (kernel_internal.h) */
} SsActiveRows;

typedef struct SsKernelCache {
  int64_t n;            /**< the examples: a complete row's length */
  int64_t capacity;     /**< rows the budget holds, in [2, n] (2 even for n = 1: never reached);
                             lowered to the rows held when a buffer cannot be allocated */
  int64_t used;         /**< buffers allocated so far */
  int64_t *slot_of;     /**< [n] the slot holding row i, or -1 */
  int64_t *owner;       /**< [capacity] the row a slot holds */
  int64_t *prev, *next; /**< [capacity] the recency list, -1 at its ends */
  uint64_t *made_in;    /**< [capacity] the generation the slot's row was computed in */
  bool *complete;       /**< [capacity] the slot's row holds all n values, by example; else
                             it is compact: by position in the list of level level_of */
  int64_t *level_of;    /**< [capacity] the list a compact row is laid out over */
  bool single;          /**< rows stored as float (float32 kernel rows that do not all fit as double) */
  void **rows;          /**< [capacity] buffers of n doubles, or floats when single (the first
                             `used` allocated) */
  double *widened[2];   /**< two rows of n doubles: float rows widened, complete rows gathered
                             over a shrunk list (allocated at the first need) */
  int64_t widened_row[2]; /**< the row each buffer last held, -1: none */
  int last_widened;     /**< the buffer returned last */
  int64_t head, tail;   /**< most and least recently used slot, -1: empty */
  uint64_t generation;  /**< steps whenever the active set grows */
  int64_t hits, misses;
  /* The lists of the current generation ("Compact rows", kernel_cache.c). */
  int64_t level;        /**< the current list's level: the set_active calls so far */
  int64_t first_level;  /**< the oldest level whose list is kept (older compact rows are stale) */
  int64_t *pos_of;      /**< [n] the position of each example in the current list, -1: not in it */
  int64_t *lists;       /**< the lists of levels first_level..level, one after the other */
  int64_t lists_used, lists_room;
  int64_t *level_start; /**< [levels kept + 1] where each kept level's list starts in lists */
  int64_t levels_room;
  SsKernelRowStore *store; /**< borrowed: the rows come from here first when all n fit, or NULL */
  SsRowCopy copy;       /**< X laid out for the rows' dots (kernel_internal.h), made at the
                             first row a train call computes */
  bool copy_current;    /**< copy was made in this train call */
  SsActiveRows active;  /**< the active rows, compacted where few are active */
} SsKernelCache;

/** A cache for rows of length @p n within @p megabytes (> 0); SS_ERR_ALLOC.
 *  @p float_rows: the rows are float32 kernel rows (SS_ROWS_FLOAT32), each
 *  value a float: when n rows of doubles would not fit, they are stored as
 *  floats, twice as many in the budget (kernel_cache.c). */
SsStatus ss_kernel_cache_init(SsKernelCache *cache, int64_t n, double megabytes, bool float_rows);
/** Take the rows from @p store (NULL: none) while all n rows fit in the
 *  cache's budget as doubles; else the store is not used. */
void ss_kernel_cache_use_store(SsKernelCache *cache, SsKernelRowStore *store);
/** Free every buffer (safe on a zeroed or failed cache). */
void ss_kernel_cache_free(SsKernelCache *cache);
/** A train call begins: the row copy is made again before its first row
 *  (X's values may have changed since the last call). */
void ss_kernel_cache_start_train(SsKernelCache *cache);
/** The solver's active set is now active[0, num_active), increasing: a
 *  subset of the last list given since the last ss_kernel_cache_grow_active
 *  (the first list after it: any). Rows asked over that list are computed
 *  over X's rows compacted (made at the first such row). Call again
 *  whenever the list changes, before asking for a row over it. SS_ERR_ALLOC
 *  when the list cannot be kept (the cache is then as before the call). */
SsStatus ss_kernel_cache_set_active(SsKernelCache *cache, const int64_t *active, int64_t num_active);
/** The active set is about to grow: every cached row that is not complete
 *  becomes stale. */
void ss_kernel_cache_grow_active(SsKernelCache *cache);
/** Row i of the kernel matrix over the current list active[0, num_active)
 *  (ss_kernel_cache_set_active), by position: value k is K(x_i,
 *  x_active[k]) (for the whole list 0..n-1: by example). Computed through
 *  @p svm's scratch (zd, krow) on a miss, counting its kernel evaluations.
 *  NULL with *status = SS_ERR_ALLOC when a buffer cannot be allocated. The
 *  row stays valid until the second call after this one (the cache holds
 *  at least two rows), or until a ss_kernel_cache_row_cover of row i. */
const double *ss_kernel_cache_row(SsKernelCache *cache, SsKernelSvm *svm, int64_t i,
                                  const int64_t *active, int64_t num_active, SsStatus *status);

/** Row i complete, by example: value k is K(x_i, x_k) for all n (computed
 *  over the active examples and rest[0, num_rest), the others); it then
 *  survives the next growth of the active set. No allocation when row i
 *  was the last or the one before asked for. */
const double *ss_kernel_cache_row_cover(SsKernelCache *cache, SsKernelSvm *svm, int64_t i,
                                        const int64_t *active, int64_t num_active,
                                        const int64_t *rest, int64_t num_rest, SsStatus *status);

/** A new store of the kernel rows of @p svm's data, kernel and row flags,
 *  holding one reference; NULL when out of memory. */
SsKernelRowStore *ss_kernel_row_store_new(const SsKernelSvm *svm);
/** One more reference to @p store (thread-safe). */
void ss_kernel_row_store_retain(SsKernelRowStore *store);
/** Drop a reference; the last one frees the rows (NULL-safe, thread-safe). */
void ss_kernel_row_store_release(SsKernelRowStore *store);
/** Whether objects @p a and @p b compute the same kernel rows: the same data
 *  (the same borrowed values array; a CSR structure equal by value),
 *  kernel and row flags. */
bool ss_kernel_rows_match(const SsKernelSvm *a, const SsKernelSvm *b);
/** Whether @p svm's rows are the ones @p store holds: the same data
 *  (the same borrowed values array; a CSR structure equal by value),
 *  kernel and row flags. */
bool ss_kernel_row_store_fits(const SsKernelRowStore *store, const SsKernelSvm *svm);

#endif /* STOCHSVM_KERNEL_CACHE_H */
