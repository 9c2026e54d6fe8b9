# Declarations of the public C API (include/stochsvm/*.h) for Cython.
#
# Declarations only, C names unchanged; the documentation lives in the headers.

from libc.stdint cimport int32_t, int64_t, uint64_t


cdef extern from "stochsvm/stochsvm.h" nogil:
    const char *SS_VERSION_STRING

    const char *ss_version()
    double SS_LAMBDA_MIN
    double SS_LAMBDA_MAX

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
        SS_ERR_DIVERGED

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
        SS_SOLVER_RES
        SS_SOLVER_LRES
        SS_SOLVER_SVMSGD2
        SS_SOLVER_SGDQN

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
        SS_SVM_STATUS_DIVERGED
        SS_SVM_STATUS_BUDGET_LIMITED

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
        int64_t num_step_backoffs
        int64_t num_newton_iterations

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
    const char *ss_svm_get_last_error(const SsSvm *self)

    # Train
    SsStatus ss_svm_train(SsSvm *self)
    SsStatus ss_svm_settle(SsSvm *self)

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
    SsStatus ss_svm_shift_sdca_model(SsSvm *self, const double *shift, double bias_shift)
    const double *ss_svm_get_dual_variables(const SsSvm *self)
    SsStatus ss_svm_set_shrinking(SsSvm *self, int enabled)
    int ss_svm_get_shrinking(const SsSvm *self)
    SsStatus ss_svm_set_newton_fallback(SsSvm *self, int enabled)
    int ss_svm_get_newton_fallback(const SsSvm *self)
    int64_t ss_svm_get_num_shrunk(const SsSvm *self)
    ctypedef enum SsSdcaModel:
        SS_SDCA_MODEL_NONE
        SS_SDCA_MODEL_DUAL
        SS_SDCA_MODEL_EARLIER
        SS_SDCA_MODEL_AVERAGE
        SS_SDCA_MODEL_RAY
        SS_SDCA_MODEL_NEWTON
    SsSdcaModel ss_svm_get_sdca_model(const SsSvm *self)
    SsStatus ss_svm_set_bias(SsSvm *self, double bias)
    SsStatus ss_svm_set_iteration_number(SsSvm *self, int64_t t)
    SsStatus ss_svm_set_seed(SsSvm *self, uint64_t seed)
    SsStatus ss_svm_set_num_threads(SsSvm *self, int num_threads)
    int ss_svm_get_num_threads(const SsSvm *self)
    SsStatus ss_svm_decision_function(const SsSvm *self, const SsData *data, double *scores)
    SsStatus ss_svm_set_shuffle(SsSvm *self, int enabled)
    int ss_svm_get_shuffle(const SsSvm *self)
    ctypedef enum SsVisitOrder:
        SS_VISIT_DATA_ORDER
        SS_VISIT_PERMUTATION
        SS_VISIT_BLOCKS
        SS_VISIT_INTERLEAVED
    SsStatus ss_svm_set_visit_order(SsSvm *self, SsVisitOrder order)
    SsVisitOrder ss_svm_get_visit_order(const SsSvm *self)
    SsStatus ss_svm_set_diagnostic_function(SsSvm *self, SsSvmDiagnosticFunction f, void *user)
    SsStatus ss_svm_set_interrupt_function(SsSvm *self, SsSvmInterruptFunction f, void *user)

    # Getters
    enum: SS_SVM_SKIP_CONSTANT
    enum: SS_SVM_CALIBRATION_GRID
    SsStatus ss_svm_set_skip(SsSvm *self, int64_t skip)
    SsStatus ss_svm_unset_skip(SsSvm *self)
    int64_t ss_svm_get_skip(const SsSvm *self)
    double ss_svm_get_density(const SsSvm *self)
    const double *ss_svm_get_scaling(const SsSvm *self)
    SsStatus ss_svm_reset_scaling(SsSvm *self)
    int64_t ss_svm_get_scaling_updates(const SsSvm *self)
    SsStatus ss_svm_set_scaling(SsSvm *self, const double *scaling, int64_t updates)
    SsStatus ss_svm_calibrate_t0(SsSvm *self, const double *candidates, int64_t num_candidates,
                                 double *objectives)

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
    int64_t ss_svm_poll_iteration_number(const SsSvm *self)
    uint64_t ss_svm_get_seed(const SsSvm *self)
    int64_t ss_svm_get_dimension(const SsSvm *self)
    int64_t ss_svm_get_num_data(const SsSvm *self)
    const double *ss_svm_get_scores(const SsSvm *self)
    const SsSvmStatistics *ss_svm_get_statistics(const SsSvm *self)


cdef extern from "stochsvm/res.h" nogil:
    enum: SS_RES_MAX_DIMENSION
    enum: SS_LRES_MAX_MEMORY
    SsStatus ss_svm_set_res_minibatch_size(SsSvm *self, int64_t L)
    SsStatus ss_svm_set_res_delta(SsSvm *self, double delta)
    SsStatus ss_svm_set_res_gamma(SsSvm *self, double gamma)
    SsStatus ss_svm_set_res_eps0(SsSvm *self, double eps0)
    SsStatus ss_svm_set_res_tau(SsSvm *self, double tau)
    SsStatus ss_svm_set_res_initial_curvature(SsSvm *self, double b0)
    SsStatus ss_svm_set_lres_memory(SsSvm *self, int64_t m)
    int64_t ss_svm_get_res_minibatch_size(const SsSvm *self)
    double ss_svm_get_res_delta(const SsSvm *self)
    double ss_svm_get_res_gamma(const SsSvm *self)
    double ss_svm_get_res_eps0(const SsSvm *self)
    double ss_svm_get_res_tau(const SsSvm *self)
    double ss_svm_get_res_initial_curvature(const SsSvm *self)
    int64_t ss_svm_get_lres_memory(const SsSvm *self)
    int64_t ss_svm_get_res_num_curvature_updates(const SsSvm *self)
    int64_t ss_svm_get_res_num_curvature_skips(const SsSvm *self)
    int64_t ss_svm_get_res_num_curvature_restarts(const SsSvm *self)
    int64_t ss_svm_get_res_curvature_state_size(const SsSvm *self)
    SsStatus ss_svm_get_res_curvature_state(const SsSvm *self, double *state)
    SsStatus ss_svm_set_res_curvature_state(SsSvm *self, const double *state)
    SsStatus ss_svm_reset_res_curvature(SsSvm *self)
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
        int scaling
        double *scaling_offset
        double *scaling_scale
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

cdef extern from "stochsvm/kernel.h" nogil:
    ctypedef enum SsKernelType:
        SS_KERNEL_LINEAR
        SS_KERNEL_RBF
        SS_KERNEL_POLYNOMIAL
        SS_KERNEL_SIGMOID
        SS_KERNEL_PRECOMPUTED

    ctypedef struct SsKernel:
        SsKernelType type
        double gamma
        double coef0
        int degree

    SsStatus ss_kernel_init(SsKernel *kernel, SsKernelType type, double gamma, double coef0,
                            int degree)
    SsStatus ss_kernel_init_gaussian(SsKernel *kernel, double sigma2)
    SsStatus ss_kernel_check(const SsKernel *kernel)
    double ss_kernel_value(const SsKernel *kernel, double dot, double norm2_x, double norm2_z)
    SsStatus ss_kernel_squared_norms(const SsData *data, double *norms2)
    SsStatus ss_kernel_row(const SsKernel *kernel, const SsData *queries, int64_t q,
                           const SsData *data, const double *norms2, double *out,
                           int64_t *num_evaluations)


cdef extern from "stochsvm/kernel_svm.h" nogil:
    ctypedef struct SsKernelSvm:
        pass

    ctypedef enum SsKernelSolver:
        SS_KSOLVER_NONE
        SS_KSOLVER_SBP
        SS_KSOLVER_PEGASOS
        SS_KSOLVER_SDCA
        SS_KSOLVER_PERCEPTRON
        SS_KSOLVER_BSCA
        SS_KSOLVER_BSGD

    ctypedef struct SsKernelSvmStatistics:
        SsSvmStatus status
        int64_t iteration
        int64_t epoch
        double objective
        double primal_objective
        double regularizer
        double loss
        double dual_objective
        double duality_gap
        double margin
        double training_error
        int64_t num_kernel_evaluations
        int64_t num_support_vectors
        double elapsed_time
        double finish_epochs
        double exact_cost

    ctypedef int (*SsKernelSvmDiagnosticFunction)(const SsKernelSvm *svm, void *user)

    enum: SS_KERNEL_SVM_INTERRUPT_PERIOD

    SsKernelSvm *ss_kernel_svm_new(SsKernelSolver solver, const SsKernel *kernel,
                                   const SsData *data, const double *labels, double lambda_)
    SsStatus ss_kernel_svm_check_new(SsKernelSolver solver, const SsKernel *kernel,
                                     const SsData *data, const double *labels, double lambda_)
    SsKernelSvm *ss_kernel_svm_new_without_data(SsKernelSolver solver, const SsKernel *kernel,
                                                int64_t dimension, double lambda_)
    SsStatus ss_kernel_svm_set_data(SsKernelSvm *self, const SsData *data, const double *labels)
    void ss_kernel_svm_delete(SsKernelSvm *self)
    const char *ss_kernel_svm_get_last_error(const SsKernelSvm *self)
    SsStatus ss_kernel_svm_train(SsKernelSvm *self)
    SsStatus ss_kernel_svm_decision_function(const SsKernelSvm *self, const SsData *data,
                                             double *scores)
    SsStatus ss_kernel_svm_set_lambda(SsKernelSvm *self, double lambda_)
    SsStatus ss_kernel_svm_set_weights(SsKernelSvm *self, const double *weights)
    const double *ss_kernel_svm_get_weights(const SsKernelSvm *self)
    SsStatus ss_kernel_svm_set_nu(SsKernelSvm *self, double nu)
    SsStatus ss_kernel_svm_unset_nu(SsKernelSvm *self)
    SsStatus ss_kernel_svm_set_unregularized_bias(SsKernelSvm *self, int enabled)
    SsStatus ss_kernel_svm_set_cache_size(SsKernelSvm *self, double megabytes)
    double ss_kernel_svm_get_cache_size(const SsKernelSvm *self)
    SsStatus ss_kernel_svm_share_kernel_rows(SsKernelSvm *self, SsKernelSvm *source)
    ctypedef enum SsKernelPrecision:
        SS_KERNEL_ROWS_FLOAT64
        SS_KERNEL_ROWS_FLOAT32
    SsStatus ss_kernel_svm_set_kernel_precision(SsKernelSvm *self, SsKernelPrecision precision)
    SsKernelPrecision ss_kernel_svm_get_kernel_precision(const SsKernelSvm *self)
    SsStatus ss_kernel_svm_set_shrinking(SsKernelSvm *self, int enabled)
    SsStatus ss_kernel_svm_set_sdca_finish(SsKernelSvm *self, int mode)
    int ss_kernel_svm_get_sdca_finish(const SsKernelSvm *self)
    int ss_kernel_svm_get_shrinking(const SsKernelSvm *self)
    SsStatus ss_kernel_svm_set_row_copy(SsKernelSvm *self, int enabled)
    int ss_kernel_svm_get_row_copy(const SsKernelSvm *self)
    SsStatus ss_kernel_svm_set_eta0(SsKernelSvm *self, double eta0)
    SsStatus ss_kernel_svm_set_epsilon(SsKernelSvm *self, double epsilon)
    SsStatus ss_kernel_svm_set_max_num_iterations(SsKernelSvm *self, int64_t n)
    SsStatus ss_kernel_svm_set_diagnostic_frequency(SsKernelSvm *self, int64_t f)
    SsStatus ss_kernel_svm_set_seed(SsKernelSvm *self, uint64_t seed)
    SsStatus ss_kernel_svm_set_num_threads(SsKernelSvm *self, int num_threads)
    SsStatus ss_kernel_svm_set_diagnostic_function(SsKernelSvm *self,
                                                   SsKernelSvmDiagnosticFunction f, void *user)
    SsStatus ss_kernel_svm_set_interrupt_function(SsKernelSvm *self, SsSvmInterruptFunction f,
                                                  void *user)
    SsStatus ss_kernel_svm_set_model(SsKernelSvm *self, const SsData *support_vectors,
                                     const int64_t *indices, const double *coefficients,
                                     int64_t m, double bias)
    SsKernelSolver ss_kernel_svm_get_solver(const SsKernelSvm *self)
    const SsKernel *ss_kernel_svm_get_kernel(const SsKernelSvm *self)
    double ss_kernel_svm_get_lambda(const SsKernelSvm *self)
    double ss_kernel_svm_get_nu(const SsKernelSvm *self)
    int ss_kernel_svm_get_unregularized_bias(const SsKernelSvm *self)
    double ss_kernel_svm_get_eta0(const SsKernelSvm *self)
    double ss_kernel_svm_get_epsilon(const SsKernelSvm *self)
    int64_t ss_kernel_svm_get_max_num_iterations(const SsKernelSvm *self)
    int64_t ss_kernel_svm_get_diagnostic_frequency(const SsKernelSvm *self)
    uint64_t ss_kernel_svm_get_seed(const SsKernelSvm *self)
    int ss_kernel_svm_get_num_threads(const SsKernelSvm *self)
    int64_t ss_kernel_svm_get_iteration_number(const SsKernelSvm *self)
    int64_t ss_kernel_svm_get_last_train_iterations(const SsKernelSvm *self)
    int64_t ss_kernel_svm_poll_iteration_number(const SsKernelSvm *self)
    int64_t ss_kernel_svm_get_dimension(const SsKernelSvm *self)
    int64_t ss_kernel_svm_get_num_data(const SsKernelSvm *self)
    int64_t ss_kernel_svm_get_num_kernel_evaluations(const SsKernelSvm *self)
    int64_t ss_kernel_svm_get_num_support_vectors(const SsKernelSvm *self)
    const SsData *ss_kernel_svm_get_support_vectors(const SsKernelSvm *self)
    const int64_t *ss_kernel_svm_get_support_indices(const SsKernelSvm *self)
    const double *ss_kernel_svm_get_coefficients(const SsKernelSvm *self)
    double ss_kernel_svm_get_bias(const SsKernelSvm *self)
    const double *ss_kernel_svm_get_dual_variables(const SsKernelSvm *self)
    const SsKernelSvmStatistics *ss_kernel_svm_get_statistics(const SsKernelSvm *self)
    SsStatus ss_kernel_svm_nu_from_model(const SsKernelSvm *self, double *nu)
    SsStatus ss_kernel_svm_estimate_nu(const SsKernelSvm *self, int64_t epochs, double *nu)
    SsStatus ss_sbp_find_gamma(const double *c, int64_t n, double volume, double *work,
                               double *gamma)
    SsStatus ss_sbp_find_gamma_and_bias(const double *y, const double *c, int64_t n,
                                        double volume, double *work, double *gamma,
                                        double *bias, int64_t *covered)


cdef extern from "stochsvm/kernel_budget.h" nogil:
    ctypedef enum SsBudgetMaintenance:
        SS_BUDGET_MAINTENANCE_AUTO
        SS_BUDGET_MAINTENANCE_MERGE
        SS_BUDGET_MAINTENANCE_REMOVE
        SS_BUDGET_MAINTENANCE_PROJECT

    ctypedef struct SsBudgetStatistics:
        int64_t budget
        int64_t num_points
        int64_t num_updates
        int64_t num_maintenance
        int64_t num_merges
        int64_t num_removals
        int64_t num_projections
        double weight_degradation
        double solver_seconds

    SsStatus ss_kernel_svm_set_budget(SsKernelSvm *self, int64_t budget)
    int64_t ss_kernel_svm_get_budget(const SsKernelSvm *self)
    SsStatus ss_kernel_svm_set_budget_maintenance(SsKernelSvm *self,
                                                  SsBudgetMaintenance maintenance)
    SsBudgetMaintenance ss_kernel_svm_get_budget_maintenance(const SsKernelSvm *self)
    SsStatus ss_kernel_svm_get_budget_statistics(const SsKernelSvm *self, SsBudgetStatistics *out)
