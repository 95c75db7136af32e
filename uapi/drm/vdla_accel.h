/* SPDX-License-Identifier: MIT */
/*
 * vdla_accel.h: the user/kernel contract of the vdla DRM accel driver.
 *
 * Rules that hold for every ioctl here:
 *  - structures are fixed-width and naturally aligned, identical for 32- and
 *    64-bit userspace;
 *  - every field named flags accepts only the flags defined for it, anything
 *    else fails with EINVAL;
 *  - every field named pad or reserved must be zero on input, else EINVAL;
 *  - user pointers are passed as __u64.
 *
 * docs/uapi.md describes each ioctl with its errors.
 */
#ifndef _UAPI_VDLA_ACCEL_H_
#define _UAPI_VDLA_ACCEL_H_

#include "drm.h"

#if defined(__cplusplus)
extern "C" {
#endif

#define DRM_VDLA_QUERY			0x00
#define DRM_VDLA_TEST_IRQ		0x01
#define DRM_VDLA_TEST_BDMA		0x02

#define DRM_IOCTL_VDLA_QUERY \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_VDLA_QUERY, struct drm_vdla_query)
#define DRM_IOCTL_VDLA_TEST_IRQ \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_VDLA_TEST_IRQ, struct drm_vdla_test_irq)
#define DRM_IOCTL_VDLA_TEST_BDMA \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_VDLA_TEST_BDMA, struct drm_vdla_test_bdma)

/**
 * enum drm_vdla_query_id - what DRM_IOCTL_VDLA_QUERY reports
 * @DRM_VDLA_QUERY_DEVICE: a struct drm_vdla_query_device
 */
enum drm_vdla_query_id {
	DRM_VDLA_QUERY_DEVICE = 0,
};

/**
 * struct drm_vdla_query - argument of DRM_IOCTL_VDLA_QUERY
 *
 * Copies the structure selected by @query to @data. Call it once with
 * @size 0 to learn the size, then with a buffer of exactly that size.
 */
struct drm_vdla_query {
	/** @query: in, one of enum drm_vdla_query_id. */
	__u32 query;
	/**
	 * @size: in, the size of the buffer at @data, which must equal the
	 * size of the structure @query selects; 0 asks for that size, which the
	 * driver writes back here without touching @data.
	 */
	__u32 size;
	/** @data: in, user pointer to the buffer to fill. */
	__u64 data;
	/** @flags: in, must be 0 (no flags defined yet). */
	__u32 flags;
	/** @pad: must be 0. */
	__u32 pad;
};

/** DRM_VDLA_CAP_*: hardware capability bits, as in the CAPS register. */
#define DRM_VDLA_CAP_TEST_IRQ		(1u << 0)
#define DRM_VDLA_CAP_SOFT_RESET		(1u << 1)
#define DRM_VDLA_CAP_TIMER		(1u << 2)
#define DRM_VDLA_CAP_MMU		(1u << 3)
#define DRM_VDLA_CAP_SRAM		(1u << 4)
#define DRM_VDLA_CAP_FUSION		(1u << 5)
#define DRM_VDLA_CAP_FAULT_INJECTION	(1u << 6)
#define DRM_VDLA_CAP_INT8		(1u << 8)
#define DRM_VDLA_CAP_INT16		(1u << 9)
#define DRM_VDLA_CAP_FP16		(1u << 10)
#define DRM_VDLA_CAP_FP32		(1u << 11)

/**
 * struct drm_vdla_query_device - identity and capabilities of one vDLA
 *
 * Every value is read from the device (PCI configuration space and the ID,
 * VERSION, CAPS and IRQ_VECTORS registers, see docs/hw-spec.md) except the
 * driver version.
 */
struct drm_vdla_query_device {
	/** @pci_vendor_id: PCI vendor id. */
	__u16 pci_vendor_id;
	/** @pci_device_id: PCI device id. */
	__u16 pci_device_id;
	/** @pci_revision: PCI revision id. */
	__u8 pci_revision;
	/** @pad0: zero. */
	__u8 pad0[3];
	/** @hw_version: VERSION register: major << 16 | minor << 8 | patch. */
	__u32 hw_version;
	/** @hw_caps: CAPS register, DRM_VDLA_CAP_* bits. */
	__u32 hw_caps;
	/** @irq_vectors: MSI-X vectors the device implements. */
	__u32 irq_vectors;
	/** @driver_major: driver (UAPI) major version. */
	__u32 driver_major;
	/** @driver_minor: driver (UAPI) minor version. */
	__u32 driver_minor;
	/** @driver_patch: driver patch level. */
	__u32 driver_patch;
	/** @pci_bus: PCI domain << 16 | bus << 8 | devfn of the device. */
	__u32 pci_bus;
};

/** DRM_VDLA_TEST_IRQ_FLAG_MASKED: raise the interrupt with delivery masked. */
#define DRM_VDLA_TEST_IRQ_FLAG_MASKED	(1u << 0)
#define DRM_VDLA_TEST_IRQ_FLAGS		DRM_VDLA_TEST_IRQ_FLAG_MASKED

/** DRM_VDLA_TEST_IRQ_MAX_TIMEOUT_MS: the longest wait a caller may ask for. */
#define DRM_VDLA_TEST_IRQ_MAX_TIMEOUT_MS	10000

/**
 * struct drm_vdla_test_irq - argument of DRM_IOCTL_VDLA_TEST_IRQ
 *
 * Makes the device raise its test interrupt and waits for the driver's
 * interrupt thread to see it. Fails with ETIMEDOUT if it does not arrive in
 * time: with DRM_VDLA_TEST_IRQ_FLAG_MASKED it never does, which exercises the
 * timeout path. Calls from several threads are served one at a time.
 */
struct drm_vdla_test_irq {
	/** @flags: in, DRM_VDLA_TEST_IRQ_FLAG_* bits. */
	__u32 flags;
	/** @timeout_ms: in, 1 to DRM_VDLA_TEST_IRQ_MAX_TIMEOUT_MS. */
	__u32 timeout_ms;
	/**
	 * @latency_ns: out, time from the register write that raises the
	 * interrupt to the interrupt thread handling it.
	 */
	__u64 latency_ns;
};

/** DRM_VDLA_TEST_BDMA_FLAG_DST_READ_ONLY: map the destination read-only. */
#define DRM_VDLA_TEST_BDMA_FLAG_DST_READ_ONLY	(1u << 0)
#define DRM_VDLA_TEST_BDMA_FLAGS		DRM_VDLA_TEST_BDMA_FLAG_DST_READ_ONLY
/** DRM_VDLA_TEST_BDMA_MAX_SIZE: the largest copy TEST_BDMA accepts. */
#define DRM_VDLA_TEST_BDMA_MAX_SIZE		(1u << 20)

/**
 * struct drm_vdla_test_bdma - argument of DRM_IOCTL_VDLA_TEST_BDMA
 *
 * A bring-up test of the data path: the driver pins both user buffers, maps
 * them into MMU context 0 of the device through page tables it builds, and
 * has the BDMA engine copy @size bytes from @src to @dst with the MMU on.
 * It returns 0 when the device reports success (the caller then compares
 * the buffers), EIO when the device reports an error (described by the out
 * fields), ETIMEDOUT if the device does not finish within 5 s (the device is
 * reset). Calls are served one at a time. Replaced by SUBMIT for real work.
 */
struct drm_vdla_test_bdma {
	/** @src: in, user pointer to the source. */
	__u64 src;
	/** @dst: in, user pointer to the destination, must not overlap @src. */
	__u64 dst;
	/** @size: in, bytes, 1 to DRM_VDLA_TEST_BDMA_MAX_SIZE. */
	__u32 size;
	/** @flags: in, DRM_VDLA_TEST_BDMA_FLAG_* bits. */
	__u32 flags;
	/** @hw_error: out, the operation's STAT_ERROR (0: success). */
	__u32 hw_error;
	/** @fault_status: out, MMU_FAULT_STATUS when @hw_error is an MMU fault. */
	__u32 fault_status;
	/** @fault_addr: out, the faulting device address. */
	__u64 fault_addr;
	/** @src_va: out, the device address the source was mapped at. */
	__u64 src_va;
	/** @dst_va: out, the device address the destination was mapped at. */
	__u64 dst_va;
	/** @device_ns: out, the operation's device time. */
	__u64 device_ns;
};

#if defined(__cplusplus)
}
#endif

#endif /* _UAPI_VDLA_ACCEL_H_ */
