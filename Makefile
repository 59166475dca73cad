# SPDX-License-Identifier: GPL-2.0
#
# nfsrdma top-level Makefile.  The kernel modules themselves are described in
# Kbuild; this file only drives kbuild and the project's tooling.

KVER ?= $(shell $(CURDIR)/scripts/kver.sh)
KDIR ?= /lib/modules/$(KVER)/build
INSTALL_MOD_DIR ?= updates/nfsrdma
DESTDIR ?=
# scripts/version.sh: from git tags or the commit in a checkout, from the
# VERSION file in a release tarball.  Worked out on first use only, so that
# 'make module' (DKMS's build, often without git) never runs it.
VERSION = $(eval VERSION := $$(shell $(CURDIR)/scripts/version.sh))$(VERSION)
BUILD ?= $(CURDIR)/build

MODULES := wire/nfsrdma_wire.ko xprtrdma/xprtrdma.ko svcrdma/svcrdma.ko

.PHONY: all module modules lint install uninstall dkms-install dist deb setup check \
	check-full setup-kernels check-kernels \
	bench demo fuzz-live debug-kernel clean help

all: module

# Times are this project's 2-core, KVM-less machine's (every VM under TCG).
help:
	@echo "make               build the modules against KDIR (default: $(KDIR)); under a minute"
	@echo "make lint          W=1, sparse and kernel-doc; any warning fails; about 45 s"
	@echo "make check         setup, lint, codec tests and fuzz smoke, packaging, then the VM"
	@echo "                   tests of tools/testing/tests.conf (Debian's kernel and the debug"
	@echo "                   kernel, rxe and siw); about 78 min on a fresh machine (4672 s"
	@echo "                   here on 2026-12-02), package setup and the debug kernel's build"
	@echo "                   included; CI runs exactly this"
	@echo "make check-full    make check, then tools/testing/tests-full.conf: 90 more boots,"
	@echo "                   50 on the debug kernel; an estimated 12 hours on 2 cores: run it in"
	@echo "                   shards (CHECK_FULL=only: tests-full.conf alone; CHECK_VM=PATTERN)"
	@echo "make check-kernels builds and tools/testing/tests-kernels.conf on Debian 12's 6.12"
	@echo "                   and 6.1-rt kernels (installs them first)"
	@echo "make demo          two VMs on our modules: RDMA mount, copy, checksum, mountstats,"
	@echo "                   server counters; about 2 min (DEMO_TRANSPORT=intree: the in-tree)"
	@echo "make fuzz-live     the live mutation fuzzer, our server then our client, debug"
	@echo "                   kernel: FUZZ_LIVE_SECONDS (600), FUZZ_LIVE_SEED (random, printed)"
	@echo "make bench         fio and perftest in two VMs against the in-tree, TCP and bare"
	@echo "                   rxe, results/bench/; about 65 min"
	@echo "make debug-kernel  build the debug-tier kernel once (20-35 min), then find it cached"
	@echo "make install       install modules and modprobe config (root); seconds"
	@echo "make uninstall     remove what make install put in place (root)"
	@echo "make dkms-install  install the source into DKMS and build it for KVER (root)"
	@echo "make dist          release tarball build/dist/nfsrdma-VERSION.tar.xz (version: $(VERSION))"
	@echo "make deb           Debian package build/deb/nfsrdma-dkms_VERSION-1_all.deb, from that tarball"
	@echo "make setup         install the Debian packages everything needs (root); minutes, once"
	@echo "make setup-kernels the same plus Debian 12's 6.12 and 6.1-rt kernels and headers"
	@echo "make clean         remove build products"

module modules:
	$(MAKE) -C $(KDIR) M=$(CURDIR) modules

lint:
	@scripts/lint.sh "$(KDIR)"

# Debian's kernel signs modules at install time with a key only Debian holds;
# skip that (DKMS signs with the machine's MOK where Secure Boot needs it).
install: module
	$(MAKE) -C $(KDIR) M=$(CURDIR) INSTALL_MOD_DIR=$(INSTALL_MOD_DIR) \
		INSTALL_MOD_PATH=$(DESTDIR) CONFIG_MODULE_SIG_ALL= modules_install
	install -D -m 0644 scripts/nfsrdma.modprobe.conf \
		$(DESTDIR)/etc/modprobe.d/nfsrdma.conf
	depmod -b "$(if $(DESTDIR),$(DESTDIR),/)" -a $(KVER)

uninstall:
	rm -rf $(DESTDIR)/lib/modules/$(KVER)/$(INSTALL_MOD_DIR)
	rm -f $(DESTDIR)/etc/modprobe.d/nfsrdma.conf
	depmod -b "$(if $(DESTDIR),$(DESTDIR),/)" -a $(KVER)

# What the .deb installs, from the same staged tree: the source DKMS
# builds and the modprobe configuration that makes the kernel use it.  A
# version already in DKMS goes first: a "+dirty" version names whatever the
# work tree holds, and DKMS would otherwise keep its old build.
dkms-install:
	scripts/deb.sh $(BUILD)/dist $(BUILD)/deb stage >/dev/null
	if [ -n "$$(dkms status -m nfsrdma -v $(VERSION))" ]; then \
		dkms remove -m nfsrdma -v $(VERSION) --all; fi
	rm -rf /usr/src/nfsrdma-$(VERSION)
	cp -a $(BUILD)/deb/root/usr/src/nfsrdma-$(VERSION) /usr/src/
	dkms install -m nfsrdma -v $(VERSION) -k $(KVER)
	install -D -m 0644 $(BUILD)/deb/root/etc/modprobe.d/nfsrdma.conf \
		/etc/modprobe.d/nfsrdma.conf

# The release tarball: the files git tracks as they are in the work tree
# (or an unpacked tarball's own files) plus VERSION, for building where
# there is no git history.
dist:
	@scripts/dist.sh $(BUILD)/dist

# The DKMS package, built from the tarball above with dpkg-deb alone.
deb:
	@scripts/deb.sh $(BUILD)/dist $(BUILD)/deb

setup:
	@scripts/setup.sh

# CHECK_VM=PATTERN, from the command line or the environment, is passed on
# unexpanded: a grep pattern's '$' is not make's.
check_vm = CHECK_VM='$(value CHECK_VM)'

check:
	@scripts/setup.sh --check
	@KVER=$(KVER) $(check_vm) tools/testing/make-check.sh

# make check plus the instances that do not fit CI's time limit.
# CHECK_FULL=only: tests-full.conf alone, after a make check that passed.
check-full:
	@scripts/setup.sh --check
	@KVER=$(KVER) $(check_vm) CHECK_FULL=$(if $(filter only,$(CHECK_FULL)),only,1) \
		tools/testing/make-check.sh

# Debian 12's other kernels, 6.12 and 6.1 PREEMPT_RT: builds and the VM
# tests in tools/testing/tests-kernels.conf.
setup-kernels:
	@scripts/setup.sh --kernels

check-kernels:
	@scripts/setup.sh --kernels
	@KVER=$(KVER) $(check_vm) CHECK_KERNELS=1 tools/testing/make-check.sh

# The debug-tier kernel the harness boots for kernel=debug instances: built
# once from Debian's linux-source-6.1, cached under /var/cache/nfsrdma.
debug-kernel:
	@scripts/setup.sh
	@nice -n 10 scripts/debug-kernel.sh

bench:
	@scripts/setup.sh
	@KVER=$(KVER) tools/testing/make-bench.sh

demo:
	@scripts/setup.sh
	@KVER=$(KVER) tools/testing/make-demo.sh

# The live mutation fuzzer for FUZZ_LIVE_SECONDS from FUZZ_LIVE_SEED (see the script).
fuzz-live:
	@scripts/setup.sh
	@KVER=$(KVER) tools/testing/make-fuzz-live.sh

clean:
	-$(MAKE) -C $(KDIR) M=$(CURDIR) clean
	-$(MAKE) -C tools/testing/wire clean
