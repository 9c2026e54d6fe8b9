/* steps_kinds_end.h -- closes one instantiation of steps_kinds.h: forgets
 * the macros that described the data kind. No include guard, on purpose. */
#undef STEPS_NAME
#undef STEPS_SETUP
#undef ROW_DOT
#undef ROW_AXPY
#undef ROW_AXPY_DIAG
#undef ROW_PREFETCH
#undef INDEX_PREFETCH
