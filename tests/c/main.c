/* main.c -- runs every C test of the core, prints "ok name" or "FAIL name"
 * for each, then "N passed, M failed"; exits non-zero on any failure.
 * `test_core --shard K/N` runs only the tests whose index in the table is K
 * modulo N, so that meson can run N shards side by side (tests/c/meson.build).
 * On POSIX systems a watchdog turns a test that hangs into a failure and
 * goes on with the next test. */
#if !defined(_WIN32)
#define _POSIX_C_SOURCE 200809L
#include <setjmp.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>
#define MT_WATCHDOG 1
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "minitest.h"

/* Seconds one test may run before the watchdog declares it hung. */
/* A test that runs longer than this is reported as hung. Slow builds
 * (valgrind, sanitizers on a loaded machine) raise it through the
 * environment variable STOCHSVM_TEST_TIMEOUT (seconds). */
#define MT_TIMEOUT_SECONDS 60

int mt_current_failed = 0;

void mt_report(const char *file, int line, const char *what) {
  printf("  %s:%d: check failed: %s\n", file, line, what);
  mt_current_failed = 1;
}

void mt_report_close(const char *file, int line, const char *a_expr, const char *b_expr,
                     double a, double b, double tol) {
  printf("  %s:%d: %s = %.17g, %s = %.17g, differ by more than %.3g\n", file, line, a_expr, a,
         b_expr, b, tol);
  mt_current_failed = 1;
}

void mt_report_int(const char *file, int line, const char *a_expr, const char *b_expr,
                   long long a, long long b) {
  printf("  %s:%d: %s = %lld, expected %s = %lld\n", file, line, a_expr, a, b_expr, b);
  mt_current_failed = 1;
}

/* The table of tests: X(name) for each `void test_name(void)`. */
#define TESTS(X)                                                \
  /* test_data.c */                                             \
  X(data_dense_valid)                                           \
  X(data_dense_padding_not_read)                                \
  X(data_dense_rejects)                                         \
  X(data_csr_valid)                                             \
  X(data_csr_rejects)                                           \
  X(data_row_kernels)                                           \
  X(data_row_kernels_agree)                                     \
  X(status_strings)                                             \
  X(version)                                                    \
  /* test_unit_rows.c */                                         \
  X(unit_rows_detected)                                         \
  X(unit_rows_bitwise)                                          \
  /* test_steps_prefetch.c */                                    \
  X(steps_prefetch_bitwise)                                     \
  /* test_last_error.c */                                       \
  X(last_error_svm_setters)                                     \
  X(last_error_svm_train)                                       \
  X(last_error_kernel_svm)                                      \
  X(last_error_callbacks_may_only_read)                         \
  /* test_lifecycle.c */                                        \
  X(delete_null)                                                \
  X(getters_take_null)                                          \
  X(new_rejects)                                                \
  X(new_copies_labels_and_descriptor)                           \
  X(lifecycle_loops)                                            \
  X(abstract_data_matches_dense)                                \
  X(abstract_data_rejects)                                      \
  X(without_data)                                               \
  X(set_data_clears_weights)                                    \
  /* test_setters.c */                                          \
  X(defaults)                                                   \
  X(defaults_follow_lambda)                                     \
  X(default_t0_follows_loss)                                    \
  X(valid_setters_roundtrip)                                    \
  X(setters_reject_bad_values)                                  \
  X(set_weights_rejects)                                        \
  X(set_model_rejects)                                          \
  X(bias_and_multiplier_order)                                  \
  /* test_sgd.c */                                              \
  X(sgd_optimum_1d_hinge_no_bias)                               \
  X(sgd_optimum_2d_hinge_bias)                                  \
  X(sgd_optimum_2d_hinge2_bias)                                 \
  X(sgd_optimum_2d_logistic_bias)                               \
  X(losses_finite_differences)                                  \
  X(none_statistics)                                            \
  X(sgd_storages_agree)                                         \
  X(sgd_warm_start_epoch_boundary)                              \
  X(sgd_warm_start_mid_epoch)                                   \
  X(sgd_warm_start_fresh_object)                                \
  X(sgd_iteration_number_is_used)                               \
  X(sgd_schedule_shrinkage)                                     \
  X(sgd_replay_single_example)                                  \
  X(sgd_set_model_after_training)                               \
  X(sgd_seeds)                                                  \
  X(sgd_diagnostic_interrupts)                                  \
  X(sgd_diagnostic_schedule)                                    \
  X(sgd_interrupt_callback)                                     \
  X(sgd_diverges_huge_bias_rate)                                \
  X(sgd_diverges_huge_data)                                     \
  X(overflowing_squared_norms_refused)                          \
  X(values_changed_after_set_data_are_named)                    \
  X(sgd_rejects_non_binary_labels)                              \
  X(weights_equal_replication)                                  \
  X(zero_weight_examples_do_not_move_model)                     \
  X(sgd_converges_with_epsilon)                                 \
  X(sgd_statistics_consistent)                                  \
  /* test_sdca.c */                                            \
  X(loss_derivative_and_fenchel_young)                          \
  X(loss_dual_update_is_maximiser)                              \
  X(logistic_update_accuracy)                                   \
  X(sdca_converges_all_losses)                                  \
  X(sdca_exact_restart)                                         \
  X(sdca_state_errors)                                          \
  X(sdca_custom_loss_matches_builtin)                           \
  /* test_sdca_shrinking.c */                                   \
  X(sdca_shrinking_reaches_same_optimum)                        \
  X(sdca_shrinking_split_equals_whole)                          \
  X(sdca_shrinking_state)                                       \
  X(sdca_shrinking_first_epoch_is_unshrunk)                     \
  X(sdca_shrinking_cuts_and_orders)                             \
  X(sdca_shrinking_gated_stop_is_certified)                     \
  /* test_sdca_shift.c */                                       \
  X(sdca_shift_rejects_and_keeps_state)                         \
  X(sdca_shift_moves_the_model_and_the_steps)                   \
  /* test_sdca_ray.c */                                         \
  X(sdca_ray_never_above_the_zero_model)                        \
  X(sdca_ray_is_needed_here)                                    \
  X(sdca_ray_whatever_is_read_first)                            \
  X(sdca_ray_split_equals_whole)                                \
  X(sdca_ray_not_taken)                                         \
  /* test_sdca_best.c */                                        \
  X(sdca_best_is_returned_and_certified)                        \
  X(sdca_best_warm_start_continues_from_alpha)                  \
  /* test_sdca_newton.c */                                      \
  X(sdca_newton_reaches_a_certified_optimum)                    \
  X(sdca_newton_stall_rule)                                     \
  X(sdca_newton_near_separable_squared_hinge)                   \
  X(sdca_newton_l2_closed_form)                                 \
  X(sdca_newton_dense_csr_float32_repeat)                       \
  X(sdca_newton_continues)                                      \
  X(sdca_newton_refusals)                                       \
  /* test_primal_finish.c */                                     \
  X(primal_finish_certified)                                    \
  X(primal_finish_respects_an_explicit_cap)                     \
  X(primal_finish_warm_start)                                   \
  X(primal_finish_interrupted)                                  \
  X(primal_finish_hinge_certified)                              \
  X(primal_finish_hinge_weights_and_offset)                     \
  X(primal_finish_hinge_dual_stage)                             \
  X(hinge_finish_never_worse)                                   \
  X(newton_finish_badly_scaled)                                 \
  /* test_kernel_finish.c */                                    \
  X(kernel_finish_certified)                                    \
  X(kernel_finish_modes_and_caps)                               \
  X(kernel_finish_predicted_cost)                               \
  X(kernel_finish_not_applicable)                               \
  X(kernel_finish_bias_free_mode)                               \
  X(kernel_finish_interrupted)                                  \
  X(kernel_finish_warm_start)                                   \
  X(kernel_finish_problem_changes)                              \
  /* test_sdca_newton_hinge.c */                                \
  X(sdca_newton_hinge_certified)                                \
  X(sdca_newton_hinge_stall_rule)                               \
  X(sdca_newton_hinge_band_products)                            \
  X(sdca_newton_hinge_interrupt)                                \
  /* test_homkermap.c */                                        \
  X(homkermap_rejects_bad_arguments)                            \
  X(homkermap_expand_reports_overflow)                          \
  X(homkermap_automatic_period)                                 \
  X(homkermap_coefficients_closed_forms)                        \
  X(homkermap_rectangular_long_periods)                         \
  X(homkermap_approximates_kernels)                             \
  X(homkermap_symmetry_and_homogeneity)                         \
  X(homkermap_on_the_fly_equals_explicit_sgd)                   \
  X(homkermap_on_the_fly_equals_explicit_sdca)                  \
  X(homkermap_set_data_keeps_dimension)                         \
  /* test_res.c */                                              \
  X(res_setters)                                                \
  X(res_curvature_floor)                                        \
  X(res_textbook_bfgs)                                          \
  X(res_lres_reach_optimum)                                     \
  X(res_defaults_on_wide_scales)                                \
  X(res_lres_split_equals_whole)                                \
  X(res_state_errors)                                           \
  X(res_huge_iteration_number)                                  \
  X(res_dimension_limits)                                       \
  X(res_lres_backs_off)                                         \
  X(res_back_off_op)                                            \
  /* test_sgdqn.c */                                            \
  X(svmsgd2_replays_paper)                                      \
  X(sgdqn_default_t0_ignores_outlier_row)                       \
  X(sgdqn_replays_paper)                                        \
  X(sgdqn_data_order_replays_paper)                             \
  X(sgdqn_converges_to_sdca_optimum)                            \
  X(sgdqn_dense_equals_csr)                                     \
  X(sgdqn_warm_start_split)                                     \
  X(sgdqn_scaling_bounds)                                       \
  X(sgdqn_setters_and_errors)                                   \
  X(calibrate_t0)                                               \
  X(sgdqn_interrupt)                                            \
  X(sgdqn_fresh_object_continues)                               \
  X(sgdqn_abstract_data_matches_dense)                          \
  /* test_model_file.c */                                        \
  X(model_linear_round_trip)                                    \
  X(model_kernel_scores)                                        \
  X(model_homkermap_scores)                                     \
  X(model_validate_rejects)                                     \
  X(model_decode_truncated)                                     \
  X(model_decode_corrupted)                                     \
  X(model_decode_versions)                                      \
  X(model_save_load)                                            \
  X(model_from_trained_svm)                                     \
  X(model_scaling_section_rejects)                              \
  /* test_threads.c */                                           \
  X(vexp_matches_libm)                                          \
  X(vexp_kernel_matches_vexp)                                   \
  X(kernel_svm_num_threads_setter)                              \
  X(kernel_threads_bitwise)                                     \
  X(kernel_sdca_threads_split_rows)                             \
  X(kernel_changed_rows_on_threads)                             \
  X(kernel_row_blocks_match_entries)                            \
  X(kernel_rbf_row_matches_scalar)                              \
  X(sbp_window_level_matches_full_filling)                      \
  /* test_sbp_rescan.c */                                        \
  X(sbp_rescan_matches_full_filling)                            \
  X(sbp_bias_rescan_matches_full_filling)                       \
  X(sbp_water_level_near_matches)                              \
  X(sbp_window_scan_matches_scalar)                             \
  X(sbp_level_passes_match_scalar)                              \
  X(sbp_sample_of_rank_matches_sorting)                         \
  /* test_sbp_sort.c */                                          \
  X(sbp_sort_heights_matches_qsort)                             \
  X(sbp_two_levels_window_pool_matches_serial)                  \
  /* test_kernel_f32.c */                                         \
  X(vexpf_matches_libm)                                         \
  X(kernel_rows_f32_within_bound)                               \
  X(kernel_precision_setter_refuses)                            \
  X(kernel_f32_rows_train_close)                                \
  X(kernel_f32_cache_stores_floats)                             \
  /* test_dense_dots.c */                                         \
  X(dense_dots_match_reference)                                 \
  X(dense_dots_rows_threads)                                    \
  /* test_kernel_row_copy.c */                                    \
  X(kernel_row_copy_sliced)                                     \
  X(kernel_row_copy_bits)                                       \
  X(kernel_row_copy_declined)                                   \
  X(kernel_row_copy_sbp_same_iterates)                          \
  X(kernel_row_copy_setter)                                     \
  X(kernel_row_copy_mixed_parity)                               \
  X(kernel_row_copy_aligned)                                    \
  X(kernel_row_copy_cache_rows)                                 \
  X(kernel_row_copy_exact_same_iterates)                        \
  X(kernel_row_copy_support_lists_same_iterates)                \
  X(kernel_sbp_drawn_alpha)                                     \
  /* test_threads_linear.c */                                   \
  X(svm_num_threads_setter)                                     \
  X(svm_threads_bitwise)                                        \
  /* test_thread_pool.c */                                      \
  X(thread_pool_serial_fallbacks)                               \
  X(thread_pool_jobs_of_any_size)                               \
  X(thread_pool_many_tiny_jobs)                                 \
  X(thread_pool_nested_job_runs_serially)                       \
  X(thread_pool_two_callers)                                    \
  X(thread_pool_workers_pay_rule)                               \
  X(thread_pool_long_job_run_alone)                             \
  X(thread_pool_home_chunks_taken_when_the_caller_stalls)       \
  X(thread_pool_delete_untrained)                               \
  X(thread_pool_count_capped)                                   \
  X(thread_pool_after_fork)                                     \
  X(thread_pool_count_changed_between_trains)                   \
  /* test_model_scaling.c */                                     \
  X(model_scaling_saved_loaded_and_applied)                     \
  X(model_scaling_section_layout)                               \
  X(model_scaling_rejects)                                      \
  /* test_kernel_overflow.c */                                   \
  X(kernel_overflow_on_the_diagonal)                            \
  X(kernel_overflow_off_the_diagonal)                           \
  X(kernel_overflow_finite_values_train)                        \
  X(kernel_overflow_in_the_sum)                                 \
  /* test_score_overflow.c */                                    \
  X(score_overflow_linear)                                      \
  X(score_overflow_kernel)                                      \
  X(score_overflow_model)                                       \
  X(score_overflow_rbf)                                         \
  /* test_model_file_io.c */                                     \
  X(model_load_refuses_non_regular_files)                       \
  X(model_load_truncated_and_corrupted_files)                   \
  X(model_save_refuses_non_regular_targets)                     \
  X(model_save_keeps_the_mode)                                  \
  X(model_save_follows_symbolic_links)                          \
  X(model_save_hard_links_stay_linked)                          \
  X(model_save_replaces_atomically)                             \
  X(model_save_says_why_a_write_failed)                         \
  X(model_save_a_long_name)                                     \
  /* test_final_diagnostic.c */                                  \
  X(final_diagnostic_waits_for_a_reader)                        \
  X(final_diagnostic_lazy_equals_eager)                         \
  X(final_diagnostic_divergence_verdict)                        \
  X(final_diagnostic_new_data)                                  \
  X(final_diagnostic_order_buffer_reuse)                        \
  X(final_diagnostic_split_calls_cost_one_call)                 \
  /* test_visit_order.c */                                       \
  X(visit_order_setters)                                        \
  X(visit_order_blocks_visit_each_block_whole)                  \
  X(visit_order_interleaved_streams)                            \
  X(visit_order_interleaved_epochs_are_permutations)            \
  /* test_iteration_room.c */                                    \
  X(svm_train_needs_room_for_the_cap)                           \
  X(kernel_svm_train_needs_room_for_the_cap)                    \
  /* test_kernel.c */                                            \
  X(kernel_init_rejects)                                        \
  X(kernel_rows_layouts_agree)                                  \
  X(sbp_find_gamma_matches_sorting)                             \
  X(sbp_find_gamma_and_bias_matches_sorting)                    \
  X(sbp_two_levels_window_matches_sorting)                      \
  X(kernel_svm_lifecycle_and_rejects)                           \
  X(kernel_svm_warm_start_bitwise)                              \
  X(kernel_sdca_duality_gap_closes)                             \
  X(kernel_svm_model_and_precomputed)                           \
  X(kernel_svm_interrupt)                                       \
  X(kernel_svm_interrupt_poll_makes_no_pass)                    \
  X(kernel_svm_interrupt_polls_in_the_pass)                     \
  /* test_budget.c */                                           \
  X(merge_golden_section_vs_grid)                               \
  X(merge_relative_degradation)                                 \
  X(merge_degradation_matches_points)                           \
  X(merge_chooses_least_degradation)                            \
  X(merge_without_partner_removes)                              \
  X(projection_is_least_squares)                                \
  X(removal_definition)                                         \
  X(maintenance_adversarial_points)                             \
  X(gaussian_scores_track_the_points)                           \
  /* test_bsca.c */                                             \
  X(bsca_no_budget_reaches_dual_optimum)                        \
  X(budget_never_exceeded)                                      \
  X(budget_split_equals_whole)                                  \
  X(bsgd_approaches_optimum)                                    \
  /* test_sbp_nu.c */                                           \
  X(kernel_bias_defaults)                                       \
  X(sbp_nu_default_is_derived_from_lambda)                      \
  X(sbp_nu_matches_the_optimum_and_is_monotone)                 \
  X(sbp_nu_bias_free_starts_from_the_bias_solution)             \
  X(sbp_nu_sampled_is_near_the_optimum)                         \
  X(sbp_nu_sample_is_stratified)                                \
  X(sbp_nu_rejects)                                             \
  X(sbp_stop_is_certified)                                      \
  X(sbp_bound_cost_bounds_the_bound)                            \
  /* test_kernel_budget.c */                                    \
  X(bsca_object_matches_kernel_sdca)                            \
  X(budget_object_never_exceeded)                               \
  X(budget_object_warm_start_and_model)                         \
  X(budget_object_storage_agrees)                               \
  X(budget_object_setters)                                      \
  /* test_budget_stop.c */                                      \
  X(budget_rule_fires_on_a_plateau)                             \
  X(budget_rule_waits_for_a_falling_gap)                        \
  X(budget_rule_judges_two_epochs_at_least)                     \
  X(budget_rule_needs_a_full_budget_and_a_tolerance)            \
  X(budget_rule_stops_bsca_on_a_small_budget)                   \
  X(budget_rule_silent_when_budget_has_room)                    \
  X(budget_rule_estimate_never_certifies)                       \
  X(budget_rule_bsca_after_maintenance_not_certified)           \
  /* test_budget_storage.c */                                   \
  X(budget_capacity_is_min_of_budget_and_n)                     \
  X(budget_huge_budget_small_problem)                           \
  /* test_budget_threads.c */                                   \
  X(budget_threads_bitwise)                                     \
  X(budget_merge_threads_ties)                                  \
  X(budget_threads_threshold)                                   \
  /* test_bsca_bias.c */                                        \
  X(bsca_bias_reaches_kkt_optimum)                              \
  X(bsca_bias_primal_bias_minimises_hinge)                      \
  /* test_budget_kept.c */                                      \
  X(budget_merge_takes_kept_values_bitwise)                     \
  X(budget_kept_values_offered_only_while_valid)                \
  /* test_budget_cholesky.c */                                  \
  X(cholesky_updates_match_full_factor)                         \
  X(projection_kept_factor_equals_new_factor)                   \
  /* test_kernel_exact.c */                                     \
  X(kernel_cache_rows_lru_and_growth)                           \
  X(kernel_cache_rows_follow_nested_lists)                      \
  X(kernel_exact_packed_passes_follow_the_examples)             \
  X(kernel_exact_reaches_kkt)                                   \
  X(kernel_exact_settings)                                      \
  X(kernel_exact_tiny_problems)                                 \
  X(kernel_exact_shared_rows_bitwise)                           \
  X(kernel_exact_shared_rows_refusals_and_lifetime)             \
  X(kernel_exact_shared_rows_csr)                               \
  X(kernel_exact_vector_passes_equal_scalar)                    \
  X(kernel_exact_chunked_passes_equal_one_scan)                 \
  X(kernel_exact_bias_free_two_coordinates)                     \
  X(kernel_exact_bias_free_indefinite_kernel)                   \
  /* test_kernel_weights.c */                                   \
  X(kernel_weights_rejects)                                     \
  X(kernel_weights_duplicate_and_zero)                          \
  X(kernel_weights_stochastic_solvers)                          \
  /* test_example.c */                                          \
  X(example_pipeline)                                           \
  /* test_fuzz_regressions.c */                                 \
  X(fuzz_csr_all_zero_null_arrays)                              \
  X(fuzz_sdca_iteration_near_int64_max)                         \
  X(fuzz_score_overflow_is_numeric)                             \
  X(fuzz_homkermap_tiny_period)                                 \
  X(fuzz_homkermap_js_long_period)                              \
  X(fuzz_homkermap_rectangular_tiny_period)                     \
  X(fuzz_model_kernel_huge_dimension)                           \
  X(fuzz_budget_maintenance_nonfinite_coefficients)             \
  X(untrained_statistics_are_nan)                               \
  /* last: overflow edge cases that could abort a sanitizer build */\
  X(sgd_huge_iteration_number)                                  \
  X(sgdqn_huge_iteration_number)                                \
  /* test_run.c */                                              \
  X(run_stops_on_cap)                                           \
  X(run_relative_gap_certificate)                               \
  X(run_window_no_false_convergence)                            \
  X(run_window_converges)                                       \
  X(run_window_may_fire_by)                                     \
  X(run_primal_certificate)                                     \
  X(run_divergence_status)                                      \
  X(run_step_backoff)                                           \
  X(run_step_backoff_outlier)                                    \
  X(run_interrupt)                                              \
  X(run_split_equals_whole)                                     \
  X(run_kernel_relative_gap)                                    \
  X(run_poll_iteration_number)                                  \
  X(run_diagnostic_budget)                                      \
  X(run_diagnostic_futile)                                      \
  X(sdca_trend_futile)

#define DECLARE(name) void test_##name(void);
TESTS(DECLARE)

typedef struct TestCase {
  const char *name;
  void (*fn)(void);
} TestCase;

#define ENTRY(name) {#name, test_##name},
static const TestCase tests[] = {TESTS(ENTRY)};

#ifdef MT_WATCHDOG
static sigjmp_buf mt_jump;

/* The running test hung: abandon it (its objects leak) and go on. */
static void mt_on_alarm(int sig) {
  (void)sig;
  siglongjmp(mt_jump, 1);
}
#endif

/* Run one test under the watchdog; 1 if it failed. */
static unsigned mt_timeout_seconds(void) {
  const char *text = getenv("STOCHSVM_TEST_TIMEOUT");
  long value = text ? strtol(text, NULL, 10) : 0;
  return value > 0 && value < 86400 ? (unsigned)value : MT_TIMEOUT_SECONDS;
}

static int run_one(const TestCase *test) {
  mt_current_failed = 0;
#ifdef MT_WATCHDOG
  volatile const unsigned timeout = mt_timeout_seconds(); /* read after siglongjmp */
  if (sigsetjmp(mt_jump, 1) == 0) {
    alarm(timeout);
    test->fn();
  } else {
    printf("  timed out after %u s (hung?)\n", timeout);
    mt_current_failed = 1;
  }
  alarm(0);
#else
  test->fn();
#endif
  return mt_current_failed;
}

/* Parse "K/N" with 0 <= K < N <= 1000; 0 if it is not that. */
static int parse_shard(const char *text, size_t *k, size_t *n) {
  char *end;
  long a = strtol(text, &end, 10);
  if (end == text || *end != '/') return 0;
  const char *rest = end + 1;
  long b = strtol(rest, &end, 10);
  if (end == rest || *end != '\0' || b < 1 || b > 1000 || a < 0 || a >= b) return 0;
  *k = (size_t)a;
  *n = (size_t)b;
  return 1;
}

int main(int argc, char **argv) {
  size_t shard = 0, shards = 1;
  if (argc == 3 && strcmp(argv[1], "--shard") == 0) {
    if (!parse_shard(argv[2], &shard, &shards)) {
      fprintf(stderr, "test_core: --shard wants K/N with 0 <= K < N, not '%s'\n", argv[2]);
      return 2;
    }
  } else if (argc != 1) {
    fprintf(stderr, "usage: test_core [--shard K/N]\n");
    return 2;
  }
#ifdef MT_WATCHDOG
  struct sigaction action;
  memset(&action, 0, sizeof action);
  action.sa_handler = mt_on_alarm;
  sigemptyset(&action.sa_mask);
  sigaction(SIGALRM, &action, NULL);
#endif
  int passed = 0, failed = 0;
  for (size_t k = shard; k < sizeof tests / sizeof tests[0]; k += shards) {
    fflush(stdout);
#ifdef MT_WATCHDOG
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
#endif
    int f = run_one(&tests[k]);
#ifdef MT_WATCHDOG
    clock_gettime(CLOCK_MONOTONIC, &t1);
    printf("%s %s (%.2f s)\n", f ? "FAIL" : "ok", tests[k].name,
           (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec));
#else
    printf("%s %s\n", f ? "FAIL" : "ok", tests[k].name);
#endif
    fflush(stdout);
    if (f) ++failed; else ++passed;
  }
  printf("%d passed, %d failed\n", passed, failed);
  return failed ? 1 : 0;
}
