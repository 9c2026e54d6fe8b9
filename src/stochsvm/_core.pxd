# Declarations of the public C API (include/stochsvm/*.h) for Cython.
#
# Declarations only, C names unchanged; the documentation lives in the headers.

from libc.stdint cimport int32_t, int64_t, uint64_t


cdef extern from "stochsvm/stochsvm.h" nogil:
    const char *SS_VERSION_STRING

    const char *ss_version()

    ctypedef enum SsStatus:
        SS_OK
        SS_ERR_ALLOC
        SS_ERR_BAD_ARG
        SS_ERR_BAD_DATA
        SS_ERR_BAD_STATE
        SS_ERR_NUMERIC
        SS_ERR_INTERRUPTED
        SS_ERR_IO
        SS_ERR_FORMAT
        SS_ERR_VERSION

    const char *ss_status_string(SsStatus status)

    ctypedef enum SsDType:
        SS_DTYPE_FLOAT32
        SS_DTYPE_FLOAT64

    ctypedef enum SsLayout:
        SS_LAYOUT_DENSE
        SS_LAYOUT_CSR

    ctypedef struct SsData:
        SsLayout layout
        SsDType dtype
        int64_t num_data
        int64_t dimension
        int64_t row_stride
        const void *values
        const int64_t *indptr
        const int32_t *indices
        # (the homkermap field is set through ss_data_set_homkermap only)

    int64_t ss_data_get_dimension(const SsData *data)
    SsStatus ss_data_init_dense(SsData *data, SsDType dtype, const void *values,
                                int64_t num_data, int64_t dimension, int64_t row_stride)
    SsStatus ss_data_init_csr(SsData *data, SsDType dtype, const void *values,
                              const int64_t *indptr, const int32_t *indices,
                              int64_t num_data, int64_t dimension)
    double ss_data_inner_product(const SsData *data, int64_t i, const double *w)
    void ss_data_accumulate(const SsData *data, int64_t i, double *w, double multiplier)

    ctypedef double (*SsInnerProductFunction)(const void *data, int64_t i, const double *w)
    ctypedef void (*SsAccumulateFunction)(const void *data, int64_t i, double *w,
                                          double multiplier)


cdef extern from "stochsvm/homkermap.h" nogil:
    ctypedef enum SsHomKernel:
        SS_HOMKERNEL_INTERSECTION
        SS_HOMKERNEL_CHI2
        SS_HOMKERNEL_JS

    ctypedef enum SsHomWindow:
        SS_HOMWINDOW_UNIFORM
        SS_HOMWINDOW_RECTANGULAR

    enum: SS_HOMKERMAP_MAX_ORDER

    ctypedef struct SsHomKerMap:
        SsHomKernel kernel
        SsHomWindow window
        double gamma
        int order
        double period
        int frequency[SS_HOMKERMAP_MAX_ORDER + 1]
        double coefficient[SS_HOMKERMAP_MAX_ORDER + 1]

    SsStatus ss_homkermap_init(SsHomKerMap *map, SsHomKernel kernel, double gamma, int order,
                               double period, SsHomWindow window)
    int64_t ss_homkermap_dimension(const SsHomKerMap *map)
    void ss_homkermap_evaluate(const SsHomKerMap *map, double x, double *dest, int64_t stride)
    SsStatus ss_homkermap_expand(const SsHomKerMap *map, const SsData *data, double *values,
                                 int32_t *indices, int64_t *indptr)
    SsStatus ss_data_set_homkermap(SsData *data, const SsHomKerMap *map)


cdef extern from "stochsvm/svm.h" nogil:
    ctypedef struct SsSvm:
        pass

    ctypedef enum SsSolver:
        SS_SOLVER_NONE
        SS_SOLVER_SGD
        SS_SOLVER_SDCA

    ctypedef enum SsLoss:
        SS_LOSS_HINGE
        SS_LOSS_HINGE2
        SS_LOSS_LOGISTIC
        SS_LOSS_L1
        SS_LOSS_L2
        SS_LOSS_CUSTOM

    ctypedef enum SsSvmStatus:
        SS_SVM_STATUS_UNTRAINED
        SS_SVM_STATUS_TRAINING
        SS_SVM_STATUS_CONVERGED
        SS_SVM_STATUS_MAX_ITERATIONS
        SS_SVM_STATUS_INTERRUPTED
        SS_SVM_STATUS_ERROR

    ctypedef struct SsSvmStatistics:
        SsSvmStatus status
        int64_t iteration
        int64_t epoch
        double objective
        double regularizer
        double loss
        double dual_objective
        double duality_gap
        double scores_variation
        double elapsed_time

    ctypedef int (*SsSvmDiagnosticFunction)(const SsSvm *svm, void *user)
    ctypedef int (*SsSvmInterruptFunction)(void *user)

    enum: SS_SVM_INTERRUPT_PERIOD

    # Create and destroy
    SsSvm *ss_svm_new(SsSolver solver, const SsData *data, const double *labels, double lambda_)
    SsStatus ss_svm_check_new(SsSolver solver, const SsData *data, const double *labels,
                              double lambda_)
    SsSvm *ss_svm_new_with_abstract_data(SsSolver solver, const void *data, int64_t dimension,
                                         int64_t num_data, const double *labels, double lambda_,
                                         SsInnerProductFunction inner_product,
                                         SsAccumulateFunction accumulate)
    SsSvm *ss_svm_new_without_data(SsSolver solver, int64_t dimension, double lambda_)
    SsStatus ss_svm_set_data(SsSvm *self, const SsData *data, const double *labels)
    void ss_svm_delete(SsSvm *self)

    # Train
    SsStatus ss_svm_train(SsSvm *self)

    # Setters
    SsStatus ss_svm_set_lambda(SsSvm *self, double lambda_)
    SsStatus ss_svm_set_epsilon(SsSvm *self, double epsilon)
    SsStatus ss_svm_set_max_num_iterations(SsSvm *self, int64_t n)
    SsStatus ss_svm_set_diagnostic_frequency(SsSvm *self, int64_t f)
    SsStatus ss_svm_set_bias_multiplier(SsSvm *self, double B)
    SsStatus ss_svm_set_bias_learning_rate(SsSvm *self, double rate)
    SsStatus ss_svm_set_t0(SsSvm *self, double t0)
    SsStatus ss_svm_unset_t0(SsSvm *self)
    SsStatus ss_svm_set_loss(SsSvm *self, SsLoss loss)
    SsStatus ss_svm_set_weights(SsSvm *self, const double *weights)
    SsStatus ss_svm_set_model(SsSvm *self, const double *model)
    SsStatus ss_svm_set_dual_variables(SsSvm *self, const double *alpha)
    const double *ss_svm_get_dual_variables(const SsSvm *self)
    SsStatus ss_svm_set_shrinking(SsSvm *self, int enabled)
    int ss_svm_get_shrinking(const SsSvm *self)
    int64_t ss_svm_get_num_shrunk(const SsSvm *self)
    SsStatus ss_svm_set_bias(SsSvm *self, double bias)
    SsStatus ss_svm_set_iteration_number(SsSvm *self, int64_t t)
    SsStatus ss_svm_set_seed(SsSvm *self, uint64_t seed)
    SsStatus ss_svm_set_diagnostic_function(SsSvm *self, SsSvmDiagnosticFunction f, void *user)
    SsStatus ss_svm_set_interrupt_function(SsSvm *self, SsSvmInterruptFunction f, void *user)

    # Getters
    SsSolver ss_svm_get_solver(const SsSvm *self)
    double ss_svm_get_lambda(const SsSvm *self)
    double ss_svm_get_epsilon(const SsSvm *self)
    int64_t ss_svm_get_max_num_iterations(const SsSvm *self)
    int64_t ss_svm_get_diagnostic_frequency(const SsSvm *self)
    double ss_svm_get_bias_multiplier(const SsSvm *self)
    double ss_svm_get_bias_learning_rate(const SsSvm *self)
    double ss_svm_get_t0(const SsSvm *self)
    SsLoss ss_svm_get_loss(const SsSvm *self)
    const double *ss_svm_get_weights(const SsSvm *self)
    const double *ss_svm_get_model(const SsSvm *self)
    double ss_svm_get_bias(const SsSvm *self)
    int64_t ss_svm_get_iteration_number(const SsSvm *self)
    uint64_t ss_svm_get_seed(const SsSvm *self)
    int64_t ss_svm_get_dimension(const SsSvm *self)
    int64_t ss_svm_get_num_data(const SsSvm *self)
    const double *ss_svm_get_scores(const SsSvm *self)
    const SsSvmStatistics *ss_svm_get_statistics(const SsSvm *self)


cdef extern from "stochsvm/model_file.h" nogil:
    int SS_MODEL_FILE_VERSION

    ctypedef enum SsModelKind:
        SS_MODEL_LINEAR
        SS_MODEL_KERNEL

    ctypedef enum SsModelTask:
        SS_TASK_BINARY
        SS_TASK_ONE_VS_REST
        SS_TASK_REGRESSION

    ctypedef enum SsModelKernel:
        SS_MODEL_KERNEL_LINEAR
        SS_MODEL_KERNEL_RBF
        SS_MODEL_KERNEL_POLYNOMIAL
        SS_MODEL_KERNEL_SIGMOID

    ctypedef struct SsModel:
        SsModelKind kind
        SsModelTask task
        int64_t dimension
        int64_t num_outputs
        int64_t num_classes
        double *labels
        int loss
        double lambda_ "lambda"
        double bias_multiplier
        int has_homkermap
        int homkermap_kernel
        int homkermap_window
        double homkermap_gamma
        int homkermap_order
        double homkermap_period
        double *weights
        double *biases
        SsModelKernel kernel
        double gamma
        double coef0
        int degree
        int64_t num_support_vectors
        int64_t *sv_indptr
        int32_t *sv_indices
        double *sv_values
        double *coefficients
        char *metadata
        int owns_memory

    void ss_model_init(SsModel *model)
    void ss_model_free(SsModel *model)
    SsStatus ss_model_validate(const SsModel *model, char *message, size_t message_size)
    int64_t ss_model_weight_dimension(const SsModel *model)
    SsStatus ss_model_encoded_size(const SsModel *model, size_t *size)
    SsStatus ss_model_encode(const SsModel *model, void *buffer, size_t size)
    SsStatus ss_model_decode(SsModel *model, const void *buffer, size_t size,
                             char *message, size_t message_size)
    SsStatus ss_model_save(const SsModel *model, const char *path, char *message,
                           size_t message_size)
    SsStatus ss_model_load(SsModel *model, const char *path, char *message,
                           size_t message_size)
    SsStatus ss_model_decision_function(const SsModel *model, const SsData *data, double *scores)
    SsStatus ss_model_predict(const SsModel *model, const SsData *data, double *predictions)
