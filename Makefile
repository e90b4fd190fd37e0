# costa-shim: one GNU Makefile for the library, the test programs and the
# benchmarks.  Site overrides go into an optional config.mk.
#
#   make            libcosta_shim.so (MPICH and its ABI family)
#   make MPI=openmpi  libcosta_shim-openmpi.so (Open MPI)
#   make check      the whole test suite for both MPI flavours (what CI runs)
#   make check-apps real applications (CP2K, NWChem, ...) native vs shim
#   make bench-apps what the applications gain (docs/applications.md)
#   make demo       a test application natively and under the shim
#   make demo-relabel  process relabeling: off, report, apply
#   make bench      benchmarks (timings never run in check)
#   make install PREFIX=/usr/local
#   make V=1 ...    echo commands

-include config.mk

# MPI flavour: one source, one library per MPI ABI, build trees apart.
# mpich covers MPICH, Intel MPI, Cray MPICH and MVAPICH (the MPICH ABI);
# openmpi is Debian's Open MPI.  Each flavour has its own wrappers,
# launcher and ScaLAPACK; MPICC=... etc. on the command line still win.
MPI      ?= mpich
MPIS     := mpich openmpi
ifeq ($(filter $(MPI),$(MPIS)),)
$(error MPI=$(MPI): the flavours are $(MPIS))
endif
MPICC_mpich     ?= mpicc.mpich
MPIF90_mpich    ?= mpif90.mpich
MPIEXEC_mpich   ?= mpiexec.mpich
SCALAPACK_mpich ?= -lscalapack-mpich -llapack -lblas
LIBNAME_mpich   := libcosta_shim.so
MPICC_openmpi     ?= mpicc.openmpi
MPIF90_openmpi    ?= mpif90.openmpi
MPIEXEC_openmpi   ?= mpiexec.openmpi
SCALAPACK_openmpi ?= -lscalapack-openmpi -llapack -lblas
LIBNAME_openmpi   := libcosta_shim-openmpi.so

# Debian's mpif90.openmpi names -lmpi without Open MPI's library folder,
# so the link took whatever /usr/lib/<arch>/libmpi.so points to (the `mpi`
# alternative: MPICH's on a machine set up for MPICH): name the folder.
FLINK_mpich   =
FLINK_openmpi = $(addprefix -L,$(shell $(MPICC) --showme:libdirs 2>/dev/null))

MPICC    ?= $(MPICC_$(MPI))
MPIF90   ?= $(MPIF90_$(MPI))
MPIEXEC  ?= $(MPIEXEC_$(MPI))
SCALAPACK_LIBS ?= $(SCALAPACK_$(MPI))
# The flavours make check runs (CHECK_MPIS=mpich for one).
CHECK_MPIS ?= $(MPIS)
PYTHON   ?= python3
PREFIX   ?= /usr/local
BUILD    ?= release
OPENMP   ?= 1

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
# SAN=address,undefined: the library (and the unit and engine tests built
# from its objects) instrumented, in a tree and under a name of their own;
# MPI, ScaLAPACK and the ScaLAPACK test programs stay as they are.
SAN ?=
SANFLAGS := $(if $(SAN),-fsanitize=$(SAN) -fno-omit-frame-pointer \
            -fno-sanitize-recover=undefined)
SANSUFFIX := $(if $(SAN),-san)
# The ASan runtime, which the checks preload in front of the library.
SAN_RT = $(if $(findstring address,$(SAN)),$(realpath $(shell $(MPICC) \
         -print-file-name=libasan.so)))
# make check also runs this slice of the suite under these sanitizers (the
# whole suite under them in make check-full).
SAN_CHECK := address,undefined
SAN_SLICE := 10_ 12_ 13_ 14_ 30_ 35_ 39_ 41_ 42_ 44_ 52_verify
LIB_CFLAGS := -std=c11 -D_GNU_SOURCE $(WARN) -fPIC -fvisibility=hidden \
              -ffp-contract=off -fcx-fortran-rules $(OMPFLAGS) -I. $(CFLAGS) $(SANFLAGS)
LIB_LDFLAGS := -shared -Wl,--version-script=shim/exports.map \
               -Wl,--as-needed -Wl,-z,defs $(OMPFLAGS) $(SANFLAGS)
LIB_LIBS := -ldl -lpthread -lm

B := build/$(MPI)-$(BUILD)$(SANSUFFIX)
LIB := $(patsubst %.so,%$(SANSUFFIX).so,$(LIBNAME_$(MPI)))

# every module's sources, also those of its rooms one level down
# (shim/report/, shim/relabel/, engine/kernels/: house-style 2.1)
LIB_DIRS := shim engine relabel config
LIB_SRCS := $(wildcard $(addsuffix /*.c,$(LIB_DIRS)) \
                       $(addsuffix /*/*.c,$(LIB_DIRS)))
LIB_OBJS := $(patsubst %.c,$(B)/%.o,$(LIB_SRCS))

.PHONY: all lib build-all test_apps check check-full check-one check-apps \
        bench-apps deps-apps demo demo-relabel bench install uninstall \
        clean distclean showconfig symbols deps docs
all: $(LIB)
lib: $(LIB)

$(LIB): $(LIB_OBJS) shim/exports.map
	@echo "  LD      $@"
	$(Q)$(MPICC) $(LIB_LDFLAGS) -o $@ $(LIB_OBJS) $(LIB_LIBS)

# The library must not name the MPI library in DT_NEEDED: preloaded into a
# program of the other flavour it would put a second MPI into the process,
# ahead of the program's own (Open MPI's Fortran MPI_Init would reach
# MPICH's).  So every reference to MPI is made weak here, which
# --as-needed then does not count: the symbols bind to whatever MPI the
# program loaded, and shim/shim_mpi.c checks that it is ours before any
# call.  (objcopy refuses an empty list, hence the test.)
MPI_SYMS_RE := ^(P?MPIX?_|MPIR_|ompi_|OMPI_)
$(B)/%.o: %.c
	@mkdir -p $(dir $@)
	@echo "  CC      $<"
	$(Q)$(MPICC) $(LIB_CFLAGS) -MMD -MP -MF $(@:.o=.d) -MT $@ -c $< \
	    -o $@.tmp
	$(Q)nm -u $@.tmp | awk '$$2 ~ /$(MPI_SYMS_RE)/ { print $$2 }' > $@.weak
	$(Q)if [ -s $@.weak ]; then objcopy --weaken-symbols=$@.weak $@.tmp; fi
	$(Q)rm -f $@.weak && mv $@.tmp $@

-include $(LIB_OBJS:.o=.d)

# ---------------------------------------------------------------- tests
# Test programs are plain ScaLAPACK programs: they never link the shim.
T := $(B)/t
TEST_CFLAGS := -std=c11 -D_GNU_SOURCE $(WARN) -I. -Itest_apps/lib $(CFLAGS)
TEST_FFLAGS := -O2 -g -Wall -fimplicit-none
include test_apps/tests.mk

deps:
	$(Q)scripts/install-deps.sh --if-missing

# make check: the whole suite once per flavour of CHECK_MPIS, each in its
# own build tree and output folder (test_apps/out/<flavour>/); both run even
# when the first fails.  check-one is one flavour (MPI=...).
OTHER_mpich   := openmpi
OTHER_openmpi := mpich
OTHER := $(OTHER_$(MPI))
CHECK_ENV = CS_MPI="$(MPI)" CS_SHIM="$(CURDIR)/$(LIB)" \
            MPIEXEC="$(CHECK_MPIEXEC_$(MPI))" CS_MPIEXEC_REAL="$(MPIEXEC)" \
            BUILD_DIR="$(B)" PYTHON="$(PYTHON)" \
            CS_OTHER_MPI="$(OTHER)" \
            CS_OTHER_BUILD_DIR="$(CURDIR)/build/$(OTHER)-$(BUILD)$(SANSUFFIX)" \
            CS_SAN="$(SAN)" CS_SAN_RT="$(SAN_RT)" \
            CS_OTHER_MPIEXEC="$(CHECK_MPIEXEC_$(OTHER))" \
            CS_OTHER_MPIEXEC_REAL="$(MPIEXEC_$(OTHER))" \
            CS_OPENMPI_MPIEXEC="$(MPIEXEC_openmpi)"
# Open MPI is launched through a wrapper that gives it what the checks
# assume of MPICH's mpiexec (root, oversubscription, yielding, -genv).
CHECK_MPIEXEC_mpich   = $(MPIEXEC_mpich)
CHECK_MPIEXEC_openmpi = $(CURDIR)/test_apps/lib/mpiexec_openmpi.sh

# Every flavour is built before any runs: the mix-up check preloads each
# flavour's library into the other flavour's programs.
build-all:
	$(Q)for m in $(MPIS); do \
	    $(MAKE) --no-print-directory MPI=$$m lib test_apps || exit 1; \
	done

# Without SAN both also run the suite (check: its slice SAN_SLICE) with the
# library built under SAN_CHECK, in its own trees (build/*-san, *-san.so).
check: deps build-all
	$(Q)st=0; for m in $(CHECK_MPIS); do \
	    $(MAKE) --no-print-directory MPI=$$m check-one || st=1; \
	done; \
	if [ -z "$(SAN)" ]; then \
	    $(MAKE) --no-print-directory SAN=$(SAN_CHECK) \
	        CS_CHECK_ONLY="$(SAN_SLICE)" check || st=1; \
	fi; exit $$st

check-full: deps build-all
	$(Q)st=0; for m in $(CHECK_MPIS); do \
	    $(MAKE) --no-print-directory MPI=$$m CS_CHECK_FULL=1 check-one || \
	    st=1; \
	done; \
	if [ -z "$(SAN)" ]; then \
	    $(MAKE) --no-print-directory SAN=$(SAN_CHECK) check-full || st=1; \
	fi; exit $$st

check-one: $(LIB) test_apps
	@echo "== make check, MPI flavour $(MPI) ($(LIB), $(MPIEXEC))$(if $(SAN), under $(SAN)$(if $(CS_CHECK_ONLY),: $(CS_CHECK_ONLY)))"
	$(Q)$(CHECK_ENV) CS_CHECK_FULL="$(CS_CHECK_FULL)" \
	    CS_CHECK_ONLY="$(CS_CHECK_ONLY)" test_apps/run_checks.sh

# Real applications (CP2K, NWChem, ...): both builds, the applications
# from Debian (scripts/install-deps.sh --apps), identical results required.
APPS_ENV = CS_SHIM_MPICH="$(CURDIR)/$(LIBNAME_mpich)" \
           CS_SHIM_OPENMPI="$(CURDIR)/$(LIBNAME_openmpi)" \
           CS_MPIEXEC_MPICH="$(MPIEXEC_mpich)" \
           CS_MPIEXEC_OPENMPI="$(MPIEXEC_openmpi)" PYTHON="$(PYTHON)"

deps-apps:
	$(Q)scripts/install-deps.sh --apps --if-missing

check-apps: deps deps-apps build-all
	$(Q)$(APPS_ENV) test_apps/apps/run_apps.sh

bench-apps: deps deps-apps build-all
	$(Q)$(APPS_ENV) scripts/bench_apps.sh

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

# Installs this flavour's library and every other flavour's already built
# here (make && make MPI=openmpi && make install: both).
BUILT_LIBS = $(sort $(LIB) $(wildcard $(foreach m,$(MPIS),$(LIBNAME_$(m)))))
install: $(LIB)
	install -d $(DESTDIR)$(PREFIX)/lib $(DESTDIR)$(PREFIX)/bin \
	    $(DESTDIR)$(PREFIX)/share/doc/costa-shim \
	    $(DESTDIR)$(PREFIX)/share/man/man7
	install -m 0755 $(BUILT_LIBS) $(DESTDIR)$(PREFIX)/lib/
	install -m 0755 $(INSTALL_SCRIPTS) $(DESTDIR)$(PREFIX)/bin/
	install -m 0644 docs/costa_shim.7 $(DESTDIR)$(PREFIX)/share/man/man7/
	install -m 0644 README.md $(wildcard docs/*.md) \
	    $(DESTDIR)$(PREFIX)/share/doc/costa-shim/

uninstall:
	rm -f $(foreach m,$(MPIS),$(DESTDIR)$(PREFIX)/lib/$(LIBNAME_$(m)))
	rm -f $(addprefix $(DESTDIR)$(PREFIX)/bin/,$(notdir $(INSTALL_SCRIPTS)))
	rm -f $(DESTDIR)$(PREFIX)/share/man/man7/costa_shim.7
	rm -rf $(DESTDIR)$(PREFIX)/share/doc/costa-shim

symbols: $(LIB)
	$(Q)nm -D --defined-only $(LIB) | awk '{print $$3}' | sort

showconfig:
	@echo "MPI            = $(MPI) -> $(LIB) (flavours: $(MPIS); make check runs $(CHECK_MPIS))"
	@echo "MPICC          = $(MPICC) ($$($(MPICC) -show 2>/dev/null))"
	@echo "MPIF90         = $(MPIF90)"
	@echo "MPIEXEC        = $(MPIEXEC)"
	@echo "MPI library    = $$($(MPIEXEC) --version 2>/dev/null | grep -m1 -i -E 'version|open' | tr -s ' \t' ' ')"
	@echo "BUILD          = $(BUILD) ($(OPTFLAGS_$(BUILD))), tree $(B)"
	@echo "OPENMP         = $(OPENMP) ($(OMPFLAGS))"
	@echo "CFLAGS         = $(LIB_CFLAGS)"
	@echo "SCALAPACK_LIBS = $(SCALAPACK_LIBS)"
	@for m in $(MPIS); do [ "$$m" = "$(MPI)" ] || echo "other flavour  : $$m ($(MAKE) MPI=$$m showconfig)"; done

clean:
	rm -rf build $(foreach m,$(MPIS),$(LIBNAME_$(m)) \
	    $(patsubst %.so,%-san.so,$(LIBNAME_$(m))))

distclean: clean
	rm -rf test_apps/out bench_out
