# umhcap: capability bounds for usermode helpers.
#
# The kernel tree, objects, guests and results live in $(UMHCAP_BUILD),
# never in this checkout.  See README.md.  A '+' recipe passes make's job
# slots on: under 'make check' (scripts/check.mk) a kernel build takes
# only the cores no boot is using.

UMHCAP_BUILD ?= $(HOME)/.cache/umhcap
# The git work tree of 'make edit' and 'make export'.
UMHCAP_WORK ?= $(UMHCAP_BUILD)/work
export UMHCAP_BUILD UMHCAP_WORK

K := $(UMHCAP_BUILD)/patched
# Absolute paths only: a script may run from another directory.
TOP := $(abspath $(dir $(lastword $(MAKEFILE_LIST))))
S := $(TOP)/scripts

.PHONY: help deps kernel guest run shell bench check matrix debian kernel-deb edit export tool package clean

help:
	@grep '^make [a-z]' README.md

deps:
	@$(S)/deps.sh

kernel: deps
	+@$(S)/kernel.sh patched $(TOP)/config/series.config

guest: kernel
	+@$(S)/guest.sh $(K)

run: guest
	@$(S)/run.sh demo

shell: guest
	@$(S)/run.sh shell

bench: guest
	+@$(S)/bench.sh

check: deps
	+@$(S)/check.sh

# The configurations of config/matrix (LINES: some of them), the test
# kernel's built whole.
matrix: kernel
	+@$(S)/kernel.sh --vanilla vanilla >/dev/null
	+@$(S)/matrix.sh objs $(LINES)
	+@$(S)/matrix.sh link $(LINES)

# Debian's own amd64 configuration, built whole, through the guest suite.
debian: guest
	+@$(S)/debian.sh

# The patched kernel as Debian packages (bindeb-pkg): Debian 12's
# cloud-amd64 configuration, whole, with the series.
kernel-deb: kernel
	+@$(S)/matrix.sh deb package

edit: deps
	@$(S)/tree.sh --git $(UMHCAP_WORK)
	@echo "work tree: $(UMHCAP_WORK); 'make export' writes its commits to patches/"

export:
	@$(S)/export.sh

tool:
	@$(MAKE) -s -C $(TOP)/umhcap

# umhcap's Debian package, in $(UMHCAP_BUILD)/pkg (scripts/package.sh).
# KSFT_DIR=... KSRC=... on the command line reach it, and run the tests.
package: deps
	@$(S)/package.sh

clean:
	@$(MAKE) -s -C $(TOP)/umhcap clean
	rm -rf $(addprefix $(UMHCAP_BUILD)/,patched patched-bench vanilla vanilla-bench debug bisect results results-debian run matrix static-umh no-triggers kernel-deb pkg src.git src.git.spare)
