/* stochsvm.h -- version, export macro, status codes and the data descriptor.
 *
 * Everything here is shared by every stochsvm object: the status codes that
 * every fallible call returns, and `SsData`, the borrowed, never-copied view of
 * a training set (dense row-major or CSR, float32 or float64).
 */
#ifndef STOCHSVM_STOCHSVM_H
#define STOCHSVM_STOCHSVM_H

#include <stddef.h>
#include <stdint.h>

#define SS_VERSION_MAJOR 0
#define SS_VERSION_MINOR 1
#define SS_VERSION_PATCH 0
#define SS_VERSION_STRING "0.1.0"

#if defined(_WIN32) && defined(SS_BUILD_SHARED)
#  define SS_API __declspec(dllexport)
#elif defined(__GNUC__)
#  define SS_API __attribute__((visibility("default")))
#else
#  define SS_API
#endif

#ifdef __cplusplus
extern "C" {
#endif

/** @brief The library version compiled into the binary ("MAJOR.MINOR.PATCH").
 *  Compare with SS_VERSION_STRING to detect a header/library mismatch. */
SS_API const char *ss_version(void);

/* ------------------------------------------------------------------------ */
/*                                Status codes                              */
/* ------------------------------------------------------------------------ */

/** @brief Result of every fallible call. SS_OK is 0; errors are positive.
 *  A call that returns an error leaves the object it was given unchanged,
 *  except `train`, which keeps the progress made before the error. */
typedef enum SsStatus {
  SS_OK = 0,             /**< success */
  SS_ERR_ALLOC = 1,      /**< an allocation failed */
  SS_ERR_BAD_ARG = 2,    /**< an argument is out of its documented range */
  SS_ERR_BAD_DATA = 3,   /**< the data or labels are malformed (shape, NaN/inf, CSR structure, labels) */
  SS_ERR_BAD_STATE = 4,  /**< the call is not valid in the object's present state */
  SS_ERR_NUMERIC = 5,    /**< training produced a non-finite model (diverged), or a
                              decision function a non-finite score (values too large
                              for the model) */
  SS_ERR_INTERRUPTED = 6, /**< a diagnostic or interrupt callback asked training to stop */
  SS_ERR_IO = 7,          /**< a file could not be opened, read, written or renamed (model_file.h) */
  SS_ERR_FORMAT = 8,      /**< not a model file, or a truncated, corrupted or inconsistent one */
  SS_ERR_VERSION = 9,     /**< a model file of a newer format version than this library reads */
  SS_ERR_DIVERGED = 10    /**< training diverged: the objective rose far above its value at w = 0
                               (step too large for the data's scale; see svm.h, ss_svm_train) */
} SsStatus;

/** @brief The valid range of the regularization strength lambda of every
 *  object (svm.h, kernel_svm.h): SS_LAMBDA_MIN <= lambda <= SS_LAMBDA_MAX.
 *  Outside it 1/lambda or lambda ||w||^2 leave the range of doubles (a
 *  subnormal lambda gave SDCA the model w = 0); constructors and setters
 *  refuse it with SS_ERR_BAD_ARG. */
#define SS_LAMBDA_MIN 1e-150
#define SS_LAMBDA_MAX 1e150

/** @brief The most threads one object uses (set_num_threads takes a larger
 *  count as this one; get_num_threads returns the count in force). */
#define SS_MAX_NUM_THREADS 256

/** @brief A static, human-readable description of a status code (never NULL). */
SS_API const char *ss_status_string(SsStatus status);

/* ------------------------------------------------------------------------ */
/*                              Data descriptor                             */
/* ------------------------------------------------------------------------ */

/** @brief Element type of the data values. Models are always double. */
typedef enum SsDType {
  SS_DTYPE_FLOAT32 = 0,
  SS_DTYPE_FLOAT64 = 1
} SsDType;

/** @brief Storage layout of the data matrix (one example per row). */
typedef enum SsLayout {
  SS_LAYOUT_DENSE = 0, /**< row-major; row i starts at values + i*row_stride elements */
  SS_LAYOUT_CSR = 1    /**< compressed sparse rows: indptr (int64), indices (int32, 0-based) */
} SsLayout;

struct SsHomKerMap; /* homkermap.h */

/** @brief A borrowed view of an n x d data matrix. Nothing is copied: the
 *  arrays must stay alive and unchanged while any object uses the view.
 *
 *  Fill it with ss_data_init_dense() or ss_data_init_csr(), which validate it.
 *  Fields are public so that callers can inspect them; write them only
 *  through the init functions. */
typedef struct SsData {
  SsLayout layout;
  SsDType dtype;
  int64_t num_data;      /**< n, number of rows (examples), >= 1 */
  int64_t dimension;     /**< d, number of columns (features), >= 1 */
  int64_t row_stride;    /**< dense only: elements between row starts, >= dimension */
  const void *values;    /**< dense: the matrix; CSR: the nnz stored values */
  const int64_t *indptr; /**< CSR only: n+1 offsets, indptr[0] = 0, non-decreasing */
  const int32_t *indices;/**< CSR only: column of each value, 0-based, strictly increasing within a row */
  const struct SsHomKerMap *homkermap; /**< NULL, or a map applied on the fly (ss_data_set_homkermap) */
} SsData;

/** @brief Describe a dense row-major matrix.
 *  @param data       the descriptor to fill (written only on success).
 *  @param dtype      SS_DTYPE_FLOAT32 or SS_DTYPE_FLOAT64.
 *  @param values     borrowed pointer to the first element of row 0.
 *  @param num_data   n >= 1.  @param dimension d >= 1.
 *  @param row_stride elements from one row start to the next, >= d.
 *  @return SS_OK; SS_ERR_BAD_ARG for a NULL pointer or a bad size;
 *          SS_ERR_BAD_DATA if a value is NaN or infinite (every value is checked). */
SS_API SsStatus ss_data_init_dense(SsData *data, SsDType dtype, const void *values,
                                   int64_t num_data, int64_t dimension, int64_t row_stride);

/** @brief Describe a CSR matrix (0-based indices, as scipy.sparse.csr_matrix).
 *  @param values  borrowed, indptr[n] values of type @p dtype (may be NULL if indptr[n] = 0:
 *                 the descriptor then points values and indices at an empty array of its own).
 *  @param indptr  borrowed, n+1 offsets; indptr[0] = 0 and non-decreasing.
 *  @param indices borrowed, indptr[n] column indices in [0, d), strictly increasing per row
 *                 (sorted, no duplicates).
 *  @return SS_OK; SS_ERR_BAD_ARG for a NULL pointer or a bad size; SS_ERR_BAD_DATA
 *          for a malformed indptr, an unsorted, duplicate or out-of-range index,
 *          or a NaN/infinite value. */
SS_API SsStatus ss_data_init_csr(SsData *data, SsDType dtype, const void *values,
                                 const int64_t *indptr, const int32_t *indices,
                                 int64_t num_data, int64_t dimension);

/** @brief The dimension of the feature vectors the descriptor presents: d, or
 *  d (2 order + 1) when a homogeneous kernel map is attached. */
SS_API int64_t ss_data_get_dimension(const SsData *data);

/** @brief <w, x_i> for row i of a valid descriptor (w has ss_data_get_dimension() entries;
 *  x_i is the mapped row when a map is attached). */
SS_API double ss_data_inner_product(const SsData *data, int64_t i, const double *w);

/** @brief w += multiplier * x_i for row i of a valid descriptor (mapped if a map is attached). */
SS_API void ss_data_accumulate(const SsData *data, int64_t i, double *w, double multiplier);

/** @brief Inner-product callback of abstract data (VLFeat's extension point):
 *  return <w, x_i>. @p data is the user pointer given to the constructor. */
typedef double (*SsInnerProductFunction)(const void *data, int64_t i, const double *w);

/** @brief Accumulate callback of abstract data: w += multiplier * x_i. */
typedef void (*SsAccumulateFunction)(const void *data, int64_t i, double *w, double multiplier);

#ifdef __cplusplus
}
#endif

#endif /* STOCHSVM_STOCHSVM_H */
