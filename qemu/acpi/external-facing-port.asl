/* SPDX-License-Identifier: GPL-2.0 */
/*
 * An SSDT that marks the q35 root port at 00:03.0 as external facing, as
 * firmware marks the root ports of Thunderbolt and USB4 connectors: a _DSD
 * with the u8 device property "ExternalFacingPort" = 1. Linux reads it in
 * pci_acpi_set_external_facing() (drivers/pci/pci-acpi.c), and every
 * device found below the port is then untrusted (set_pcie_untrusted() and
 * arch_pci_dev_is_removable() in arch/x86/pci/acpi.c): the IOMMU must
 * translate its DMA, and dma-iommu bounces its unaligned mappings through
 * swiotlb. Loaded with QEMU's -acpitable by topologies that list it in
 * QEMU_ACPI_TABLES (see qemu/boot.sh), compiled by iasl.
 *
 * QEMU names a device of pcie.0 "S" + its devfn in hex (slot * 8 +
 * function), padded to four characters: 00:03.0 is S18_. A topology using
 * this table must put the port at addr=0x3.
 *
 * The UUID is the one Microsoft defines for this property; Linux accepts it
 * as equivalent to the generic device-properties UUID (prp_guids[] in
 * drivers/acpi/property.c).
 */
DefinitionBlock ("", "SSDT", 2, "P2PDMA", "EXTPORT", 0x00000001)
{
	External (\_SB.PCI0.S18_, DeviceObj)

	Scope (\_SB.PCI0.S18_)
	{
		Name (_DSD, Package ()
		{
			ToUUID ("efcc06cc-73ac-4bc3-bff0-76143807c389"),
			Package ()
			{
				Package () { "ExternalFacingPort", 1 }
			}
		})
	}
}
