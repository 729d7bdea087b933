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
#   make guest     the guest image (build/initramfs.cpio.gz)
#   make boot TOPO=switch [T=test,...]   boot one topology, keep its logs
#   make test T=copy-offload TOPO=switch run some tests only
#   make clean     remove build/ (the tree, objects, images, logs)

SHELL := /bin/bash
T ?=
TOPO ?=

.PHONY: all demo test prepare apply export kernel guest boot clean

all: demo

prepare:
	@scripts/prepare-tree.sh

apply: prepare
	@scripts/apply-series.sh

export:
	@scripts/export-series.sh

kernel: apply
	@qemu/kernel.sh

guest: prepare
	@qemu/initramfs.sh

demo: kernel guest
	@qemu/demo.sh

test: kernel guest
	@tests/run.sh $(if $(T),-t $(T)) $(if $(TOPO),-T $(TOPO))

boot: kernel guest
	@qemu/boot.sh $(or $(TOPO),switch) $(if $(T),--only $(T))

clean:
	rm -rf build
