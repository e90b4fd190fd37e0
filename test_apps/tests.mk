# test_apps/tests.mk - included by the Makefile.  Test programs are found by
# wildcard, so adding a test means adding a file, not editing this list:
#   test_apps/unit/*.c       no MPI; linked with engine/ (its subfolders,
#                            engine/kernels/, too), relabel/, config/ and
#                            UNIT_SHIM_OBJS
#   test_apps/unit/NAME/*.c  more source files of unit test NAME (a test of
#                            several files), linked into it
#                            (test_shim_hist includes shim/shim_hist.c,
#                            below)
#   test_apps/mpi/*.c        MPI engine tests; same objects, plus MPI
#   test_apps/scalapack/*.c  plain ScaLAPACK C programs (never the shim)
#   test_apps/scalapack/*.f90  plain ScaLAPACK Fortran programs
#   test_apps/bench/*.c      benchmark programs (plain ScaLAPACK)
#   test_apps/scalapack/*_plugin.c  ScaLAPACK programs as shared objects
#   test_apps/plain/*.c      programs without MPI (the plain C compiler)
#   test_apps/lib/*_preload.c  small LD_PRELOAD helpers for the test runs
#   test_apps/race/*.c       thread-race tests: ThreadSanitizer, built from
#                            the library files of RACE_LIB_SRCS
# Check scripts live in test_apps/checks/ and are run by run_checks.sh.

# the objects of every module but shim/ (% matches subfolders too)
MOD_OBJS := $(filter $(B)/engine/% $(B)/relabel/% $(B)/config/%,$(LIB_OBJS))
# and the shim's files the unit programs test directly: no MPI, no state
UNIT_SHIM_OBJS := $(B)/shim/relabel/shape.o

UNIT_SRCS := $(wildcard test_apps/unit/*.c)
UNIT_PARTS := $(wildcard test_apps/unit/*/*.c)
MPI_SRCS  := $(wildcard test_apps/mpi/*.c)
PLUG_SRCS := $(wildcard test_apps/scalapack/*_plugin.c)
SCA_SRCS  := $(filter-out $(PLUG_SRCS),$(wildcard test_apps/scalapack/*.c))
PLAIN_SRCS := $(wildcard test_apps/plain/*.c)
SCAF_SRCS := $(wildcard test_apps/scalapack/*.f90)
BENCH_SRCS := $(wildcard test_apps/bench/*.c)
PRE_SRCS  := $(wildcard test_apps/lib/*_preload.c)
TLIB_SRCS := $(filter-out $(PRE_SRCS),$(wildcard test_apps/lib/*.c))
RACE_SRCS := $(wildcard test_apps/race/*.c)

UNIT_BINS := $(patsubst test_apps/unit/%.c,$(T)/unit/%,$(UNIT_SRCS))
MPI_BINS  := $(patsubst test_apps/mpi/%.c,$(T)/mpi/%,$(MPI_SRCS))
SCA_BINS  := $(patsubst test_apps/scalapack/%.c,$(T)/scalapack/%,$(SCA_SRCS))
PLUG_LIBS := $(patsubst test_apps/scalapack/%.c,$(T)/scalapack/%.so,$(PLUG_SRCS))
PLAIN_BINS := $(patsubst test_apps/plain/%.c,$(T)/plain/%,$(PLAIN_SRCS))
SCAF_BINS := $(patsubst test_apps/scalapack/%.f90,$(T)/scalapack/%,$(SCAF_SRCS))
BENCH_BINS := $(patsubst test_apps/bench/%.c,$(T)/bench/%,$(BENCH_SRCS))
PRE_LIBS  := $(patsubst test_apps/lib/%.c,$(T)/lib/%.so,$(PRE_SRCS))
TLIB_OBJS := $(patsubst test_apps/lib/%.c,$(T)/lib/%.o,$(TLIB_SRCS))
RACE_BINS := $(patsubst test_apps/race/%.c,$(T)/race/%,$(RACE_SRCS))

test_apps: $(UNIT_BINS) $(MPI_BINS) $(SCA_BINS) $(SCAF_BINS) $(BENCH_BINS) \
           $(PRE_LIBS) $(PLUG_LIBS) $(PLAIN_BINS) $(RACE_BINS)

$(T)/lib/%.o: test_apps/lib/%.c
	@mkdir -p $(dir $@)
	@echo "  CC      $<"
	$(Q)$(MPICC) $(TEST_CFLAGS) -MMD -MP -c $< -o $@

# $(filter %.c,$^): the test's own file first, then its parts (below).
$(T)/unit/%: test_apps/unit/%.c $(MOD_OBJS) $(UNIT_SHIM_OBJS) \
             $(TLIB_OBJS)
	@mkdir -p $(dir $@)
	@echo "  CC      $<"
	$(Q)$(MPICC) $(TEST_CFLAGS) $(OMPFLAGS) $(SANFLAGS) -o $@ \
	    $(filter-out shim/%,$(filter %.c,$^)) $(MOD_OBJS) $(UNIT_SHIM_OBJS) \
	    $(TLIB_OBJS) -lm -lpthread

# test_apps/unit/NAME/X.c is a prerequisite (and so a source) of unit NAME.
$(foreach p,$(UNIT_PARTS),$(eval \
    $(T)/unit/$(notdir $(patsubst %/,%,$(dir $(p)))): $(p)))

# The shim's one file without MPI or ScaLAPACK that a unit test takes
# whole (the histogram of the report's call times; the test #includes it
# to reach its static helpers, so the recipe above leaves shim/ sources
# out); the shim's others need both.
$(T)/unit/test_shim_hist: shim/shim_hist.c shim/shim_hist_int.h

$(T)/mpi/%: test_apps/mpi/%.c $(MOD_OBJS) $(TLIB_OBJS)
	@mkdir -p $(dir $@)
	@echo "  CC      $<"
	$(Q)$(MPICC) $(TEST_CFLAGS) $(OMPFLAGS) $(SANFLAGS) -o $@ $< $(MOD_OBJS) \
	    $(TLIB_OBJS) -lm -lpthread

$(T)/scalapack/%: test_apps/scalapack/%.c $(TLIB_OBJS)
	@mkdir -p $(dir $@)
	@echo "  CC      $<"
	$(Q)$(MPICC) $(TEST_CFLAGS) -o $@ $< $(TLIB_OBJS) $(SCALAPACK_LIBS) -lm

$(T)/scalapack/%: test_apps/scalapack/%.f90
	@mkdir -p $(dir $@)
	@echo "  FC      $<"
	$(Q)$(MPIF90) $(TEST_FFLAGS) -J $(dir $@) -o $@ $< $(FLINK_$(MPI)) \
	    $(SCALAPACK_LIBS)

$(T)/bench/%: test_apps/bench/%.c $(TLIB_OBJS)
	@mkdir -p $(dir $@)
	@echo "  CC      $<"
	$(Q)$(MPICC) $(TEST_CFLAGS) -o $@ $< $(TLIB_OBJS) $(SCALAPACK_LIBS) -ldl -lm

$(T)/scalapack/%_plugin.so: test_apps/scalapack/%_plugin.c
	@mkdir -p $(dir $@)
	@echo "  CC      $<"
	$(Q)$(MPICC) $(TEST_CFLAGS) -fPIC -shared -o $@ $< $(SCALAPACK_LIBS)

# No MPI wrapper: these programs must not name MPI in DT_NEEDED.
$(T)/plain/%: test_apps/plain/%.c
	@mkdir -p $(dir $@)
	@echo "  CC      $<"
	$(Q)$(CC) $(TEST_CFLAGS) -o $@ $< -ldl

$(T)/lib/%_preload.so: test_apps/lib/%_preload.c
	@mkdir -p $(dir $@)
	@echo "  CC      $<"
	$(Q)$(MPICC) $(TEST_CFLAGS) -fPIC -shared -o $@ $< -ldl

# The race tests compile the library files that keep process-wide state
# themselves, with ThreadSanitizer (the library's objects are built
# without it, or with SAN's sanitizers, which do not mix with it), and
# link ScaLAPACK so that shim_real.c finds the real routines.  The
# engine's and relabel/'s files (no process-wide state; the shape cache
# computes with them) are compiled once into $(T)/race/obj/, without
# any sanitizer: SAN's do not mix with ThreadSanitizer, and
# ThreadSanitizer's code in the kernels' ifunc resolvers crashes before
# it is initialised.  The headers are listed so that a change to them
# rebuilds.
RACE_LIB_SRCS := config/log.c config/env.c config/config_table.c \
                 shim/shim_process.c shim/shim_mpi.c shim/shim_sym.c \
                 shim/shim_routines.c shim/shim_real.c \
                 shim/shim_grid_registry.c shim/shim_memory.c \
                 shim/shim_fault.c shim/shim_plan_cache.c \
                 shim/shim_digest.c shim/relabel/cache.c \
                 shim/relabel/shape.c
RACE_MOD_OBJS := $(patsubst %.c,$(T)/race/obj/%.o,\
                     $(filter engine/% relabel/%,$(LIB_SRCS)))
RACE_CFLAGS := -std=c11 -D_GNU_SOURCE $(WARN) -I. -Itest_apps/lib -O1 -g
$(T)/race/obj/%.o: %.c
	@mkdir -p $(dir $@)
	@echo "  CC      $< (for the race tests)"
	$(Q)$(MPICC) $(filter-out $(SANFLAGS),$(LIB_CFLAGS)) -MMD -MP -c $< \
	    -o $@
-include $(RACE_MOD_OBJS:.o=.d)
RACE_HDRS := $(wildcard config/*.h shim/*.h shim/relabel/*.h \
                        test_apps/lib/cs_test.h)
$(T)/race/%: test_apps/race/%.c $(RACE_LIB_SRCS) $(RACE_HDRS) \
             $(RACE_MOD_OBJS) test_apps/lib/cs_test.c
	@mkdir -p $(dir $@)
	@echo "  CC      $< (tsan)"
	$(Q)$(MPICC) $(RACE_CFLAGS) -fsanitize=thread -o $@ $< \
	    test_apps/lib/cs_test.c \
	    $(RACE_LIB_SRCS) $(RACE_MOD_OBJS) $(SCALAPACK_LIBS) \
	    $(OMPFLAGS) -ldl -lpthread -lm

-include $(TLIB_OBJS:.o=.d)

# test_apps/lib objects are prerequisites of pattern rules only: keep them
# (make would delete them as intermediates and rebuild every program).
.SECONDARY: $(TLIB_OBJS) $(RACE_MOD_OBJS)
