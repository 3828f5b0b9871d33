# SPDX-License-Identifier: GPL-2.0
# user_events for Linux 6.12: build, boot and test the patch series.
# See README.md.  Everything lands under build/ (kept between runs).

FLAVOUR ?= test
S := scripts
# make series-check WITHOUT="bpf groups": the series less the patches that
# the series file marks "drop: NAME".  Kept from the kernel's make.
unexport WITHOUT
MAKEOVERRIDES := $(filter-out WITHOUT=%,$(MAKEOVERRIDES))

.PHONY: help deps base apply kernel headers user run shell check lint series series-check clean

help:
	@echo "make run      build the patched kernel, boot it, run the user_events demo"
	@echo "make check    KUnit + kselftests on the debug kernel; ends 'N passed, N failed'"
	@echo "make kernel   build/\$$FLAVOUR/arch/x86/boot/bzImage (FLAVOUR=test|bench)"
	@echo "make headers  UAPI headers in build/\$$FLAVOUR/usr/include"
	@echo "make shell    interactive shell in the guest"
	@echo "make lint     W=1, sparse, kernel-doc, checkpatch and Sphinx on our files"
	@echo "make series   build/series/: the mails of the series for the unmodified Debian tree"
	@echo "make series-check [WITHOUT=\"bpf groups\"]   git am, build and KUnit at every step"
	@echo "scripts/vm.sh -- CMD   run one command in the guest"

deps:
	@$(S)/deps.sh

base: deps
	@$(S)/base.sh

apply: base
	@$(S)/apply.sh

kernel: deps
	@$(S)/build.sh $(FLAVOUR)

headers: deps
	@$(S)/build.sh $(FLAVOUR) -s headers
	@echo "headers in build/$(FLAVOUR)/usr/include"

user: kernel
	@$(S)/build-user.sh $(FLAVOUR)

run: user
	@$(S)/vm.sh --flavour $(FLAVOUR) -- $(CURDIR)/$(S)/demo.sh $(CURDIR)/build/samples

shell: kernel
	@$(S)/vm.sh --flavour $(FLAVOUR) --shell

check:
	@$(S)/check.sh

lint: deps
	@$(S)/lint.sh

series: base
	@$(S)/series-export.sh export

series-check: series
	@$(S)/series-export.sh check $(WITHOUT)

clean:
	rm -rf build

# make bench [REF=1] [BOOTS=N] [TIMED=1]: the benchmark table
# (bench/README.md).  Counted by default (COUNT=1: guest instructions under
# QEMU -icount, one vCPU); TIMED=1 (or COUNT=0) times on two vCPUs instead.
# REF=1 adds the unmodified Debian 6.12 kernel's own user_events as a second
# column; BOOTS=N boots each kernel N times and shows medians over the boots.
COUNT ?= 1
.PHONY: bench
bench: deps
	@$(S)/bench.sh $(if $(REF),--ref) $(if $(BOOTS),--boots $(BOOTS)) \
		$(if $(or $(TIMED),$(filter 0,$(COUNT))),--timed)
