/* SPDX-License-Identifier: MIT */
/*
 * vDLA register map: the hardware's published header.
 *
 * This file is the machine-readable half of docs/hw-spec.md; the two are kept
 * in step. It is plain C with no dependencies so that the device model, the
 * firmware core and the kernel driver all include the same definitions.
 */
#ifndef VDLA_REGS_H
#define VDLA_REGS_H

/* PCI identity. 0x1234 is QEMU's vendor id for experimental devices. */
#define VDLA_PCI_VENDOR_ID		0x1234
#define VDLA_PCI_DEVICE_ID		0xd1a0
#define VDLA_PCI_REVISION		0x01
#define VDLA_PCI_CLASS			0x1200	/* processing accelerator */

/* BARs */
#define VDLA_BAR_MMIO			0
#define VDLA_BAR_MSIX			4
#define VDLA_MMIO_SIZE			0x10000

/* MSI-X vectors */
#define VDLA_MSIX_VECTOR_GLOBAL		0
#define VDLA_MSIX_VECTORS		1

/* Global block, 0x0000-0x0fff. Every register is 32 bits wide. */
#define VDLA_REG_ID			0x0000	/* RO: VDLA_ID_MAGIC */
#define VDLA_REG_VERSION		0x0004	/* RO: hardware version */
#define VDLA_REG_CAPS			0x0008	/* RO: VDLA_CAP_* */
#define VDLA_REG_IRQ_VECTORS		0x000c	/* RO: MSI-X vectors implemented */
#define VDLA_REG_SCRATCH(n)		(0x0010 + 4 * (n))	/* RW, n < 4 */
#define VDLA_NUM_SCRATCH		4
#define VDLA_REG_RESET			0x0020	/* WO: write VDLA_RESET_SOFT */
#define VDLA_REG_RESET_COUNT		0x0024	/* RO: soft resets since power-on */
#define VDLA_REG_INT_STATUS		0x0030	/* RW1C: pending VDLA_INT_* */
#define VDLA_REG_INT_ENABLE		0x0034	/* RW: VDLA_INT_* that signal MSI-X */
#define VDLA_REG_INT_SET		0x0038	/* WO: software-raised VDLA_INT_* */
#define VDLA_REG_TIME_LO		0x0040	/* RO: device time, ns, low word */
#define VDLA_REG_TIME_HI		0x0044	/* RO: high word latched by TIME_LO read */

#define VDLA_ID_MAGIC			0x56444c41	/* "VDLA" */

#define VDLA_VERSION(major, minor, patch) \
	(((major) << 16) | ((minor) << 8) | (patch))
#define VDLA_VERSION_MAJOR(v)		(((v) >> 16) & 0xffff)
#define VDLA_VERSION_MINOR(v)		(((v) >> 8) & 0xff)
#define VDLA_VERSION_PATCH(v)		((v) & 0xff)
#define VDLA_HW_VERSION			VDLA_VERSION(1, 0, 0)

#define VDLA_CAP_TEST_IRQ		(1u << 0)
#define VDLA_CAP_SOFT_RESET		(1u << 1)
#define VDLA_CAP_TIMER			(1u << 2)

#define VDLA_RESET_SOFT			0x1

#define VDLA_INT_TEST			(1u << 0)
/* Bits that software may raise through VDLA_REG_INT_SET. */
#define VDLA_INT_SOFTWARE_MASK		VDLA_INT_TEST
/* Every implemented interrupt bit. */
#define VDLA_INT_ALL			VDLA_INT_TEST

#endif /* VDLA_REGS_H */
