# SPDX-License-Identifier: GPL-2.0
#
# P2PDMA as a generic backend of the streaming DMA API: build, boot, test.
#
#   make demo      main job: prepare the tree, apply the series, build the
#                  kernel and guest, show P2P copy offload in QEMU
#   make test      every test; ends with "N passed, N failed"
#
# Steps, each incremental:
#   make prepare   Debian's linux-source -> git tree in build/ (tag 'base')
#   make apply     apply series/series to the tree (git am)
#   make export    write the tree's commits back to the patch files
#   make kernel    configure and build the guest kernel (build/obj)
#   make guest     the guest image with the test modules (build/obj/p2p-initramfs.cpio.gz)
#   make boot TOPO=switch [T=test,...]   boot one topology, keep its logs
#   make test T=copy-offload TOPO=switch run some tests only
#   make test-debug  every guest test on a KASAN + kmemleak + DEBUG_VM
#                  kernel (build/obj-debug); longer, not part of 'make test'
#   make gates     the series' quality gates only (sparse and W=1 against
#                  the base tree, checkpatch, kernel-doc, cover letter,
#                  every prefix builds); part of 'make test'
#   make bisect    build every prefix of the series (incremental, about
#                  a minute per patch; also a gate of 'make test')
#   make bench     the benchmarks: map+unmap cost of P2P and RAM pages, the
#                  series against the base tree, the lookup against 1-64
#                  windows, 4 KiB reads, fio and copies into P2P memory
#                  (qemu/bench.sh, two kernels of their own;
#                  instruction counts and emulation time, not part of
#                  'make test'; BOOTS=0: the counts alone)
#   make deb       Debian packages (linux-image, linux-headers, p2pdma-tools) of the
#                  series with Debian's own config, trimmed by localmodconfig
#                  to this machine's modules (LSMOD=FILE for another list);
#                  build/deb/ (scripts/deb.sh, objects in build/obj-deb-host)
#   make test-distro  the guest tests on the kernel and modules of those
#                  packages, built for the modules the guests need
#                  (qemu/config/distro.lsmod; build/obj-deb, build/deb-guest),
#                  loaded with modprobe
#   make test-system  the packages installed on a Debian 12 disk image
#                  (mmdebstrap, no loop device) with dpkg -i as the README
#                  says, booted through GRUB, used with Debian's tools,
#                  upgraded to a second build and removed (qemu/system.sh;
#                  packages for qemu/config/system.lsmod in build/deb-system
#                  and build/deb-system.2, objects in build/obj-deb-system)
#   make boot-loop TOPO=hotplug BOOTS=100   boot the test kernel BOOTS
#                  times to the guest runner and count panics
#   make clean     remove build/ (the tree, objects, images, logs)

SHELL := /bin/bash
T ?=
TOPO ?=

DEBUG_ENV := P2P_OBJ=$(CURDIR)/build/obj-debug \
	P2P_FRAGMENTS="$(CURDIR)/qemu/config/p2pdma.config $(CURDIR)/qemu/config/debian.config $(CURDIR)/qemu/config/series.config $(CURDIR)/qemu/config/debug.config"

# make test-distro builds its packages apart from make deb's.
DISTRO_ENV := P2P_DEB_OBJ=$(CURDIR)/build/obj-deb P2P_DEB_OUT=$(CURDIR)/build/deb-guest

# make test-system: packages for the modules of a Debian system on QEMU.
SYSTEM_ENV := P2P_DEB_OBJ=$(CURDIR)/build/obj-deb-system LSMOD=$(CURDIR)/qemu/config/system.lsmod

GATES := gate-sparse-w1,gate-checkpatch,gate-kernel-doc,gate-cover-letter,gate-bisect

.PHONY: all demo test test-debug test-distro test-system deb boot-loop gates bisect bench prepare apply export kernel guest boot clean

all: demo

prepare:
	@scripts/prepare-tree.sh

apply: prepare
	@scripts/apply-series.sh

export:
	@scripts/export-series.sh
	@scripts/cover-letter.sh

kernel: apply
	@qemu/kernel.sh

guest: kernel
	@qemu/initramfs.sh

demo: kernel guest
	@qemu/demo.sh

test: kernel guest
	@tests/run.sh $(if $(T),-t $(T)) $(if $(TOPO),-T $(TOPO))

test-debug: apply
	@$(DEBUG_ENV) qemu/kernel.sh
	@$(DEBUG_ENV) qemu/initramfs.sh
	@$(DEBUG_ENV) tests/run.sh --guest-only $(if $(T),-t $(T)) $(if $(TOPO),-T $(TOPO))

gates: kernel
	@tests/run.sh --host-only -t $(GATES)

bisect: apply
	@scripts/bisect-build.sh

bench: apply
	@P2P_SMP=1 qemu/bench.sh $(BOOTS)

deb: apply
	@scripts/deb.sh
	@scripts/tools-deb.sh

test-distro: apply
	@$(DISTRO_ENV) LSMOD=$(CURDIR)/qemu/config/distro.lsmod scripts/deb.sh
	@$(DISTRO_ENV) qemu/distro.sh $(if $(T),-t $(T)) $(if $(TOPO),-T $(TOPO))

# Two builds of the packages, the second an upgrade of the first (their
# versions carry the build's time, scripts/deb.sh).
test-system: apply
	@$(SYSTEM_ENV) P2P_DEB_OUT=$(CURDIR)/build/deb-system scripts/deb.sh
	@scripts/tools-deb.sh $(CURDIR)/build/deb-system
	@$(SYSTEM_ENV) P2P_DEB_OUT=$(CURDIR)/build/deb-system.2 scripts/deb.sh
	@scripts/tools-deb.sh $(CURDIR)/build/deb-system.2
	@P2P_DEB_OUT=$(CURDIR)/build/deb-system qemu/system.sh

boot-loop: kernel guest
	@qemu/boot-loop.sh $(or $(TOPO),hotplug) $(or $(BOOTS),100)

boot: kernel guest
	@qemu/boot.sh $(or $(TOPO),switch) $(if $(T),--only $(T))

clean:
	rm -rf build
