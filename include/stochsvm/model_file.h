/* model_file.h -- stochsvm model files: save a trained model, load and use it anywhere.
 *
 * A model file holds one trained model -- linear or kernel; binary,
 * one-vs-rest multiclass or regression -- in a portable binary format that is
 * the same on every platform (little-endian integers, IEEE 754 doubles) and
 * versioned (SS_MODEL_FILE_VERSION). The format is specified in
 * docs/model_file.rst; in short:
 *
 *     magic   8 bytes  0x89 'S' 'S' 'V' 'M' '\r' '\n' 0x1A
 *     version u32      SS_MODEL_FILE_VERSION
 *     count   u32      number of sections that follow
 *     count x section: tag (4 ASCII bytes), payload length (u64), payload,
 *                      CRC-32 (u32) of tag, length and payload
 *
 * and nothing after the last section. Sections: "HEAD" (kind, task, sizes),
 * "LABL" (class labels), "LINR" (weights and biases), "HKMP" (a homogeneous
 * kernel map applied to the input), "KERN" (kernel, support vectors,
 * coefficients and biases), "SCAL" (a feature scaling applied to the input
 * before the model scores it; written by `stochsvm train --scale`), "META"
 * (UTF-8 text the library keeps but does not read; the Python package
 * stores its parameters there as JSON). A tag that
 * starts with an upper-case letter is critical: a reader that does not know
 * it refuses the file (SS_ERR_VERSION). A lower-case first letter marks an
 * optional section, skipped by readers that do not know it.
 *
 * The C side works on SsModel, a plain-data description of a model: fill one
 * from any trained object (pointing at its arrays) and save it, or load one
 * from a file (the library then owns its arrays: free them with
 * ss_model_free). Every reading function checks sizes, checksums and the
 * model's consistency: a truncated, corrupted or foreign file gives
 * SS_ERR_FORMAT, a newer format SS_ERR_VERSION, never a crash. The functions
 * that take a message buffer write a one-line explanation there.
 */
#ifndef STOCHSVM_MODEL_FILE_H
#define STOCHSVM_MODEL_FILE_H

#include "stochsvm.h"

#ifdef __cplusplus
extern "C" {
#endif

/** The format version this library writes and the newest it reads. */
#define SS_MODEL_FILE_VERSION 1

/** @brief Linear (w, b) or kernel expansion (support vectors, coefficients, b). */
typedef enum SsModelKind {
  SS_MODEL_LINEAR = 1, /**< score_c(x) = <w_c, Psi(x)> + b_c (Psi the identity or a homogeneous kernel map) */
  SS_MODEL_KERNEL = 2  /**< score_c(x) = sum_j a_cj K(x, sv_j) + b_c */
} SsModelKind;

/** @brief What the scores mean. */
typedef enum SsModelTask {
  SS_TASK_BINARY = 1,      /**< one score; label labels[1] if it is > 0, else labels[0] */
  SS_TASK_ONE_VS_REST = 2, /**< one score per class; label labels[argmax] */
  SS_TASK_REGRESSION = 3   /**< one score, the prediction itself */
} SsModelTask;

/** @brief Kernels of kernel models (the file's codes; g = gamma, r = coef0, p = degree). */
typedef enum SsModelKernel {
  SS_MODEL_KERNEL_LINEAR = 0,     /**< <x, z> */
  SS_MODEL_KERNEL_RBF = 1,        /**< exp(-g ||x - z||^2) */
  SS_MODEL_KERNEL_POLYNOMIAL = 2, /**< (g <x, z> + r)^p */
  SS_MODEL_KERNEL_SIGMOID = 3     /**< tanh(g <x, z> + r) */
} SsModelKernel;

/** @brief A feature scaling kept with the model (the file's codes; the
 *  method only says how offset and scale were fitted: every method scores
 *  x'_j = (x_j - offset_j) scale_j). */
typedef enum SsModelScaling {
  SS_MODEL_SCALING_NONE = 0,     /**< no scaling: the model scores x itself */
  SS_MODEL_SCALING_MINMAX = 1,   /**< each column's training range to [-1, 1] (svm-scale) */
  SS_MODEL_SCALING_MAXABS = 2,   /**< each column over its largest |x| (offsets 0: sparse stays sparse) */
  SS_MODEL_SCALING_STANDARD = 3  /**< zero mean, unit variance per column */
} SsModelScaling;

/** @brief A trained model as plain data.
 *
 *  k = num_outputs score functions over inputs of d = dimension features.
 *  Fields not used by the kind are ignored by the writer and zero/NULL after
 *  loading. Arrays are borrowed from the caller when the caller fills the
 *  struct (owns_memory = 0), and owned by the struct after ss_model_load or
 *  ss_model_decode (owns_memory = 1; release them with ss_model_free). */
typedef struct SsModel {
  SsModelKind kind;
  SsModelTask task;
  int64_t dimension;    /**< d >= 1, input features */
  int64_t num_outputs;  /**< k: 1 for binary and regression, num_classes for one-vs-rest */
  int64_t num_classes;  /**< 2 (binary), >= 3 (one-vs-rest) or 0 (regression) */
  double *labels;       /**< num_classes distinct finite labels (NULL for regression) */
  int loss;             /**< the SsLoss trained with (svm.h; logistic scores give probabilities) */
  double lambda;        /**< the regularization it was trained with, >= 0 (0: unknown); informational */
  double bias_multiplier; /**< B it was trained with, >= 0; informational (the biases are final) */

  /* SS_MODEL_LINEAR */
  int has_homkermap;    /**< non-zero: scores use the mapped input Psi(x) (homkermap.h) */
  int homkermap_kernel; /**< SsHomKernel */
  int homkermap_window; /**< SsHomWindow */
  double homkermap_gamma;
  int homkermap_order;
  double homkermap_period; /**< the resolved period (> 0) */
  double *weights;      /**< k x D row-major, D = d, or d (2 order + 1) with the map */
  double *biases;       /**< k biases (both kinds) */

  /* SS_MODEL_KERNEL */
  SsModelKernel kernel;
  double gamma;         /**< > 0 (unused by the linear kernel) */
  double coef0;         /**< finite (polynomial and sigmoid) */
  int degree;           /**< >= 1 (polynomial) */
  int64_t num_support_vectors; /**< m >= 0 */
  int64_t *sv_indptr;   /**< m + 1 CSR row offsets, sv_indptr[0] = 0 (dense rows are CSR with every column) */
  int32_t *sv_indices;  /**< sv_indptr[m] columns in [0, d), strictly increasing per row */
  double *sv_values;    /**< sv_indptr[m] finite values */
  double *coefficients; /**< k x m row-major expansion coefficients (non-NULL even for m = 0,
                             as sv_indptr: a model of biases alone points them at storage) */

  /* Both kinds: the feature scaling the model was trained after (SCAL). The
   * scoring functions apply it: score(x) is the model's score of x'. */
  SsModelScaling scaling;  /**< SS_MODEL_SCALING_NONE: no scaling, the arrays NULL */
  double *scaling_offset;  /**< d finite offsets */
  double *scaling_scale;   /**< d finite scales */

  char *metadata;       /**< NUL-terminated UTF-8 text kept as is, or NULL */
  int owns_memory;      /**< 1 if ss_model_free must free the arrays (set by the readers) */
} SsModel;

/** @brief Zero every field (NULL arrays, owns_memory 0): the starting point
 *  for filling a model by hand. NULL is ignored. */
SS_API void ss_model_init(SsModel *model);

/** @brief Free the arrays of a model filled by ss_model_load or
 *  ss_model_decode and zero it; a model with owns_memory = 0 is only zeroed.
 *  NULL is ignored. */
SS_API void ss_model_free(SsModel *model);

/** @brief Check that a model is complete and consistent (sizes, finite
 *  numbers, distinct labels, valid CSR support vectors, kernel and map
 *  parameters in range, a known scaling method with its 2 d finite values,
 *  metadata that is UTF-8 text). The savers and the readers check it, so a
 *  file of metadata in another encoding is neither written nor read.
 *  @param message if not NULL, receives a one-line reason (at most
 *                 message_size bytes, NUL-terminated) when the model is invalid.
 *  @return SS_OK or SS_ERR_BAD_ARG. */
SS_API SsStatus ss_model_validate(const SsModel *model, char *message, size_t message_size);

/** @brief D, the length of each weight vector of a linear model: d, or
 *  d (2 order + 1) with a homogeneous kernel map; 0 for a kernel model or an
 *  invalid map. */
SS_API int64_t ss_model_weight_dimension(const SsModel *model);

/** @brief The size in bytes of the encoded model (the file's size).
 *  @return SS_OK, or SS_ERR_BAD_ARG if the model is invalid (see ss_model_validate). */
SS_API SsStatus ss_model_encoded_size(const SsModel *model, size_t *size);

/** @brief Encode a valid model into @p buffer of @p size bytes (exactly the
 *  size given by ss_model_encoded_size).
 *  @return SS_OK, or SS_ERR_BAD_ARG (invalid model, NULL buffer or wrong size). */
SS_API SsStatus ss_model_encode(const SsModel *model, void *buffer, size_t size);

/** @brief Decode a model from @p size bytes. On success @p model owns new
 *  arrays (free them with ss_model_free); on failure it is zeroed.
 *  @param message if not NULL, receives a one-line reason on failure.
 *  @return SS_OK; SS_ERR_FORMAT (not a model file, truncated, a checksum or
 *          a size that does not match, an inconsistent model); SS_ERR_VERSION
 *          (a newer format or an unknown critical section); SS_ERR_ALLOC;
 *          SS_ERR_BAD_ARG (NULL model, or NULL buffer with size > 0). */
SS_API SsStatus ss_model_decode(SsModel *model, const void *buffer, size_t size,
                                char *message, size_t message_size);

/** @brief Write a valid model to the file @p path atomically: the bytes go to
 *  a temporary file in the same folder, which is flushed and then renamed
 *  over @p path, so readers see either the old file or the whole new one
 *  (on Windows the old file is removed just before the rename).
 *
 *  An existing @p path must be a regular file: a FIFO, device or folder is
 *  refused (SS_ERR_IO) and left alone. A symbolic link is followed: the file
 *  it points to is replaced (the temporary file goes beside that file) and
 *  the link stays. The new file keeps the old one's mode, and its owner and
 *  group where the process may set them (otherwise it drops set-user/group-ID
 *  bits). A file with several hard links is rewritten in place instead, so
 *  that every link sees the new model: that write is not atomic.
 *  @return SS_OK; SS_ERR_BAD_ARG (invalid model or NULL path); SS_ERR_IO (not
 *          a regular file, a link that does not resolve, or the temporary
 *          file could not be created, written or renamed; it is removed and
 *          @p path is unchanged); SS_ERR_ALLOC. */
SS_API SsStatus ss_model_save(const SsModel *model, const char *path, char *message,
                              size_t message_size);

/** @brief Read a model file (see ss_model_decode for @p model and @p message).
 *  Only regular files are read (opened without blocking, so a FIFO cannot
 *  hang the call), and no more bytes than the file's size when opened.
 *  @return as ss_model_decode, plus SS_ERR_IO when the file cannot be opened
 *          or read, is not a regular file, or grows while being read. */
SS_API SsStatus ss_model_load(SsModel *model, const char *path, char *message,
                              size_t message_size);

/** @brief Scores of the n rows of @p data: scores[i k + c] = score_c(x_i),
 *  k = num_outputs. The data must have the model's input dimension d and no
 *  map attached (a linear model with a map applies it itself). A model with
 *  a scaling scores the scaled rows x' = (x - offset) .* scale, computed in
 *  double precision a block of rows at a time (dense blocks, or CSR when
 *  every offset is 0 and the data are CSR): the caller passes raw features.
 *  @return SS_OK; SS_ERR_BAD_ARG (invalid model, NULL pointer, dimension
 *          mismatch); SS_ERR_BAD_DATA (a scaled value overflows to
 *          infinity, or a value of @p data is not finite: its array changed
 *          after the descriptor was made); SS_ERR_NUMERIC (a score is not
 *          finite: finite values overflow against the model; every score is
 *          written, scan them for the row); SS_ERR_ALLOC. */
SS_API SsStatus ss_model_decision_function(const SsModel *model, const SsData *data,
                                           double *scores);

/** @brief Predictions for the n rows of @p data: the label of each row
 *  (binary, one-vs-rest) or the predicted value (regression).
 *  @return as ss_model_decision_function. */
SS_API SsStatus ss_model_predict(const SsModel *model, const SsData *data, double *predictions);

#ifdef __cplusplus
}
#endif

#endif /* STOCHSVM_MODEL_FILE_H */
