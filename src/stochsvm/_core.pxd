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
    SsStatus ss_kernel_svm_train(SsKernelSvm *self)
    SsStatus ss_kernel_svm_decision_function(const SsKernelSvm *self, const SsData *data,
                                             double *scores)
    SsStatus ss_kernel_svm_set_lambda(SsKernelSvm *self, double lambda_)
    SsStatus ss_kernel_svm_set_nu(SsKernelSvm *self, double nu)
    SsStatus ss_kernel_svm_set_unregularized_bias(SsKernelSvm *self, int enabled)
    SsStatus ss_kernel_svm_set_eta0(SsKernelSvm *self, double eta0)
    SsStatus ss_kernel_svm_set_epsilon(SsKernelSvm *self, double epsilon)
    SsStatus ss_kernel_svm_set_max_num_iterations(SsKernelSvm *self, int64_t n)
    SsStatus ss_kernel_svm_set_diagnostic_frequency(SsKernelSvm *self, int64_t f)
    SsStatus ss_kernel_svm_set_seed(SsKernelSvm *self, uint64_t seed)
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
    int64_t ss_kernel_svm_get_iteration_number(const SsKernelSvm *self)
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
