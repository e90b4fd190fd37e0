# costa-shim: one GNU Makefile for the library, the test programs and the
# benchmarks.  Site overrides go into an optional config.mk.
#
#   make            libcosta_shim.so
#   make check      the whole test suite (what CI runs)
#   make demo       a test application natively and under the shim
#   make demo-relabel  process relabeling: off, report, apply
#   make bench      benchmarks (timings never run in check)
#   make install PREFIX=/usr/local
#   make V=1 ...    echo commands

-include config.mk

MPICC    ?= mpicc.mpich
MPIF90   ?= mpif90.mpich
MPIEXEC  ?= mpiexec.mpich
PYTHON   ?= python3
PREFIX   ?= /usr/local
BUILD    ?= release
OPENMP   ?= 1
SCALAPACK_LIBS ?= -lscalapack-mpich -llapack -lblas

ifeq ($(V),1)
Q :=
else
Q := @
endif

OPTFLAGS_release := -O3 -DNDEBUG
OPTFLAGS_debug   := -O0 -DCS_DEBUG
OMPFLAGS_1 := -fopenmp
OMPFLAGS_0 :=
OMPFLAGS := $(OMPFLAGS_$(OPENMP))

WARN    := -Wall -Wextra -Werror -Wshadow
# -ffp-contract=off: the transform kernels must round exactly as ScaLAPACK;
# -fcx-fortran-rules: complex products as Fortran computes them (no NaN
# recovery step, which C99 Annex G would add).
CFLAGS  ?= $(OPTFLAGS_$(BUILD)) -g
LIB_CFLAGS := -std=c11 -D_GNU_SOURCE $(WARN) -fPIC -fvisibility=hidden \
              -ffp-contract=off -fcx-fortran-rules $(OMPFLAGS) -I. $(CFLAGS)
LIB_LDFLAGS := -shared -Wl,--version-script=shim/exports.map \
               -Wl,--as-needed -Wl,-z,defs $(OMPFLAGS)
LIB_LIBS := -ldl -lpthread -lm

B := build/$(BUILD)
LIB := libcosta_shim.so

LIB_SRCS := $(wildcard shim/*.c engine/*.c relabel/*.c config/*.c)
LIB_OBJS := $(patsubst %.c,$(B)/%.o,$(LIB_SRCS))

.PHONY: all lib test_apps check check-full demo demo-relabel bench install uninstall \
        clean distclean showconfig symbols deps docs
all: $(LIB)

$(LIB): $(LIB_OBJS) shim/exports.map
	@echo "  LD      $@"
	$(Q)$(MPICC) $(LIB_LDFLAGS) -o $@ $(LIB_OBJS) $(LIB_LIBS)

$(B)/%.o: %.c
	@mkdir -p $(dir $@)
	@echo "  CC      $<"
	$(Q)$(MPICC) $(LIB_CFLAGS) -MMD -MP -c $< -o $@

-include $(LIB_OBJS:.o=.d)

# ---------------------------------------------------------------- tests
# Test programs are plain ScaLAPACK programs: they never link the shim.
T := $(B)/t
TEST_CFLAGS := -std=c11 -D_GNU_SOURCE $(WARN) -I. -Itest_apps/lib $(CFLAGS)
TEST_FFLAGS := -O2 -g -Wall -fimplicit-none
include test_apps/tests.mk

deps:
	$(Q)scripts/install-deps.sh --if-missing

check: deps $(LIB) test_apps
	$(Q)MPIEXEC="$(MPIEXEC)" BUILD_DIR="$(B)" PYTHON="$(PYTHON)" \
	    test_apps/run_checks.sh

check-full: deps $(LIB) test_apps
	$(Q)CS_CHECK_FULL=1 MPIEXEC="$(MPIEXEC)" BUILD_DIR="$(B)" \
	    PYTHON="$(PYTHON)" test_apps/run_checks.sh

demo: deps $(LIB) test_apps
	$(Q)MPIEXEC="$(MPIEXEC)" BUILD_DIR="$(B)" PYTHON="$(PYTHON)" \
	    scripts/demo.sh

demo-relabel: deps $(LIB) test_apps
	$(Q)MPIEXEC="$(MPIEXEC)" BUILD_DIR="$(B)" PYTHON="$(PYTHON)" \
	    scripts/demo_relabel.sh

bench: deps $(LIB) test_apps
	$(Q)MPIEXEC="$(MPIEXEC)" BUILD_DIR="$(B)" PYTHON="$(PYTHON)" \
	    scripts/bench.sh

docs: $(T)/unit/gen_env_doc
	$(Q)$< > docs/env.md

# ---------------------------------------------------------------- misc
INSTALL_SCRIPTS := scripts/costa-shim-run scripts/costa-shim-check \
                   scripts/costa_shim_report.py

install: $(LIB)
	install -d $(DESTDIR)$(PREFIX)/lib $(DESTDIR)$(PREFIX)/bin \
	    $(DESTDIR)$(PREFIX)/share/doc/costa-shim \
	    $(DESTDIR)$(PREFIX)/share/man/man7
	install -m 0755 $(LIB) $(DESTDIR)$(PREFIX)/lib/
	install -m 0755 $(INSTALL_SCRIPTS) $(DESTDIR)$(PREFIX)/bin/
	install -m 0644 docs/costa_shim.7 $(DESTDIR)$(PREFIX)/share/man/man7/
	install -m 0644 README.md $(wildcard docs/*.md) \
	    $(DESTDIR)$(PREFIX)/share/doc/costa-shim/

uninstall:
	rm -f $(DESTDIR)$(PREFIX)/lib/$(LIB)
	rm -f $(addprefix $(DESTDIR)$(PREFIX)/bin/,$(notdir $(INSTALL_SCRIPTS)))
	rm -f $(DESTDIR)$(PREFIX)/share/man/man7/costa_shim.7
	rm -rf $(DESTDIR)$(PREFIX)/share/doc/costa-shim

symbols: $(LIB)
	$(Q)nm -D --defined-only $(LIB) | awk '{print $$3}' | sort

showconfig:
	@echo "MPICC          = $(MPICC) ($$($(MPICC) -show 2>/dev/null))"
	@echo "MPIF90         = $(MPIF90)"
	@echo "MPIEXEC        = $(MPIEXEC)"
	@echo "MPI            = $$(mpichversion 2>/dev/null | head -2 | tr -s ' \t' ' ' | tr '\n' ' ')"
	@echo "BUILD          = $(BUILD) ($(OPTFLAGS_$(BUILD)))"
	@echo "OPENMP         = $(OPENMP) ($(OMPFLAGS))"
	@echo "CFLAGS         = $(LIB_CFLAGS)"
	@echo "SCALAPACK_LIBS = $(SCALAPACK_LIBS)"

clean:
	rm -rf build $(LIB)

distclean: clean
	rm -rf test_apps/out bench_out
