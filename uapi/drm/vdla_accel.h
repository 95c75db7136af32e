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
#define DRM_VDLA_BO_CREATE		0x03
#define DRM_VDLA_BO_INFO		0x04
#define DRM_VDLA_BO_WAIT		0x05
#define DRM_VDLA_BO_IMPORT		0x06
#define DRM_VDLA_CTX_CREATE		0x07
#define DRM_VDLA_CTX_DESTROY		0x08
#define DRM_VDLA_CTX_QUERY		0x09
#define DRM_VDLA_SUBMIT			0x0a
#define DRM_VDLA_FENCE_WAIT		0x0b
#define DRM_VDLA_FENCE_EXPORT		0x0c
#define DRM_VDLA_LEASE_ACQUIRE		0x0d
#define DRM_VDLA_LEASE_RELEASE		0x0e
#define DRM_VDLA_LEASE_QUERY		0x0f
#define DRM_VDLA_PIPELINE_CREATE	0x10
#define DRM_VDLA_PIPELINE_OPEN		0x11
#define DRM_VDLA_PIPELINE_DESTROY	0x12
#define DRM_VDLA_PIPELINE_CLOSE		0x13
#define DRM_VDLA_PIPELINE_QUERY		0x14
#define DRM_VDLA_PIPELINE_SET_EXIT	0x15
#define DRM_VDLA_CHANNEL_CREATE		0x16
#define DRM_VDLA_CHANNEL_DUP		0x17
#define DRM_VDLA_CHANNEL_DESTROY	0x18
#define DRM_VDLA_CHANNEL_ATTR		0x19
#define DRM_VDLA_PORT_BUFFER		0x1a

#define DRM_IOCTL_VDLA_QUERY \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_VDLA_QUERY, struct drm_vdla_query)
#define DRM_IOCTL_VDLA_TEST_IRQ \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_VDLA_TEST_IRQ, struct drm_vdla_test_irq)
#define DRM_IOCTL_VDLA_TEST_BDMA \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_VDLA_TEST_BDMA, struct drm_vdla_test_bdma)
#define DRM_IOCTL_VDLA_BO_CREATE \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_VDLA_BO_CREATE, struct drm_vdla_bo_create)
#define DRM_IOCTL_VDLA_BO_INFO \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_VDLA_BO_INFO, struct drm_vdla_bo_info)
#define DRM_IOCTL_VDLA_BO_WAIT \
	DRM_IOW(DRM_COMMAND_BASE + DRM_VDLA_BO_WAIT, struct drm_vdla_bo_wait)
#define DRM_IOCTL_VDLA_BO_IMPORT \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_VDLA_BO_IMPORT, struct drm_vdla_bo_import)
#define DRM_IOCTL_VDLA_CTX_CREATE \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_VDLA_CTX_CREATE, struct drm_vdla_ctx_create)
#define DRM_IOCTL_VDLA_CTX_DESTROY \
	DRM_IOW(DRM_COMMAND_BASE + DRM_VDLA_CTX_DESTROY, struct drm_vdla_ctx_destroy)
#define DRM_IOCTL_VDLA_CTX_QUERY \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_VDLA_CTX_QUERY, struct drm_vdla_ctx_query)
#define DRM_IOCTL_VDLA_SUBMIT \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_VDLA_SUBMIT, struct drm_vdla_submit)
#define DRM_IOCTL_VDLA_FENCE_WAIT \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_VDLA_FENCE_WAIT, struct drm_vdla_fence_wait)
#define DRM_IOCTL_VDLA_FENCE_EXPORT \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_VDLA_FENCE_EXPORT, struct drm_vdla_fence_export)
#define DRM_IOCTL_VDLA_LEASE_ACQUIRE \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_VDLA_LEASE_ACQUIRE, struct drm_vdla_lease_acquire)
#define DRM_IOCTL_VDLA_LEASE_RELEASE \
	DRM_IOW(DRM_COMMAND_BASE + DRM_VDLA_LEASE_RELEASE, struct drm_vdla_lease_release)
#define DRM_IOCTL_VDLA_LEASE_QUERY \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_VDLA_LEASE_QUERY, struct drm_vdla_lease_query)
#define DRM_IOCTL_VDLA_PIPELINE_CREATE \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_VDLA_PIPELINE_CREATE, struct drm_vdla_pipeline_create)
#define DRM_IOCTL_VDLA_PIPELINE_OPEN \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_VDLA_PIPELINE_OPEN, struct drm_vdla_pipeline_open)
#define DRM_IOCTL_VDLA_PIPELINE_DESTROY \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_VDLA_PIPELINE_DESTROY, struct drm_vdla_pipeline_destroy)
#define DRM_IOCTL_VDLA_PIPELINE_CLOSE \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_VDLA_PIPELINE_CLOSE, struct drm_vdla_pipeline_close)
#define DRM_IOCTL_VDLA_PIPELINE_QUERY \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_VDLA_PIPELINE_QUERY, struct drm_vdla_pipeline_query)
#define DRM_IOCTL_VDLA_PIPELINE_SET_EXIT \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_VDLA_PIPELINE_SET_EXIT, struct drm_vdla_pipeline_set_exit)
#define DRM_IOCTL_VDLA_CHANNEL_CREATE \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_VDLA_CHANNEL_CREATE, struct drm_vdla_channel_create)
#define DRM_IOCTL_VDLA_CHANNEL_DUP \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_VDLA_CHANNEL_DUP, struct drm_vdla_channel_dup)
#define DRM_IOCTL_VDLA_CHANNEL_DESTROY \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_VDLA_CHANNEL_DESTROY, struct drm_vdla_channel_destroy)
#define DRM_IOCTL_VDLA_CHANNEL_ATTR \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_VDLA_CHANNEL_ATTR, struct drm_vdla_channel_attr)
#define DRM_IOCTL_VDLA_PORT_BUFFER \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_VDLA_PORT_BUFFER, struct drm_vdla_port_buffer)

/**
 * enum drm_vdla_query_id - what DRM_IOCTL_VDLA_QUERY reports
 * @DRM_VDLA_QUERY_DEVICE: a struct drm_vdla_query_device
 * @DRM_VDLA_QUERY_MEMORY: a struct drm_vdla_query_memory (driver 1.4)
 * @DRM_VDLA_QUERY_COMPUTE: a struct drm_vdla_query_compute (driver 1.5)
 * @DRM_VDLA_QUERY_SRAM_PARTITIONS: a struct drm_vdla_query_sram_partitions
 *	(driver 1.10)
 * @DRM_VDLA_QUERY_TIME_SHARES: a struct drm_vdla_query_time_shares
 *	(driver 1.11)
 */
enum drm_vdla_query_id {
	DRM_VDLA_QUERY_DEVICE = 0,
	DRM_VDLA_QUERY_MEMORY = 1,
	DRM_VDLA_QUERY_COMPUTE = 2,
	DRM_VDLA_QUERY_SRAM_PARTITIONS = 3,
	DRM_VDLA_QUERY_TIME_SHARES = 4,
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
	/**
	 * @pci_bus: PCI domain << 16 | bus << 8 | devfn of the device; only
	 * the low 16 bits of the domain fit: see @pci_domain.
	 */
	__u32 pci_bus;
	/** @pci_domain: the whole PCI domain number (driver 1.6; 0 before). */
	__u32 pci_domain;
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

/** DRM_VDLA_SRAM_BASE: the device address of the first byte of SRAM. */
#define DRM_VDLA_SRAM_BASE		(1ull << 48)

/**
 * struct drm_vdla_query_memory - the device SRAM, a snapshot
 *
 * All zero when the device has no SRAM (DRM_VDLA_CAP_SRAM clear). Other
 * files allocate and free SRAM at any time: a BO_CREATE of
 * @sram_largest_free bytes may still fail with ENOSPC. With SRAM
 * partitions defined, @sram_free and @sram_largest_free describe the shared
 * pool, where SRAM BOs created without a lease come from.
 */
struct drm_vdla_query_memory {
	/** @sram_base: DRM_VDLA_SRAM_BASE, or 0 without SRAM. */
	__u64 sram_base;
	/** @sram_size: bytes of SRAM. */
	__u64 sram_size;
	/** @sram_free: bytes not held by any SRAM BO (of the shared pool). */
	__u64 sram_free;
	/** @sram_largest_free: the largest SRAM BO that can be created now. */
	__u64 sram_largest_free;
};

/** DRM_VDLA_MAX_SRAM_PARTITIONS: SRAM partitions a device has, at most. */
#define DRM_VDLA_MAX_SRAM_PARTITIONS	8

/**
 * struct drm_vdla_sram_partition - one SRAM partition
 *
 * A named region of the SRAM that only BOs created under a lease on it
 * use (DRM_VDLA_RESOURCE_SRAM_PARTITION). The administrator defines the
 * partitions through the device's sysfs attribute sram_partitions
 * (docs/resources.md); they are carved from the top of the SRAM, and what
 * is left below them is the shared pool of SRAM BOs created without a
 * lease.
 */
struct drm_vdla_sram_partition {
	/** @name: NUL-terminated. */
	char name[16];
	/** @offset: bytes from the start of the SRAM. */
	__u64 offset;
	/** @size: bytes. */
	__u64 size;
};

/**
 * struct drm_vdla_query_sram_partitions - the SRAM partitions (driver 1.10)
 *
 * Entries @count and above are zero. A partition's index in @partitions is
 * its resource index for DRM_IOCTL_VDLA_LEASE_ACQUIRE.
 */
struct drm_vdla_query_sram_partitions {
	/** @count: partitions defined. */
	__u32 count;
	/** @pad: 0. */
	__u32 pad;
	/** @shared_size: bytes of the shared pool, below the first partition. */
	__u64 shared_size;
	struct drm_vdla_sram_partition partitions[DRM_VDLA_MAX_SRAM_PARTITIONS];
};

/** DRM_VDLA_MAX_TIME_SHARES: device-time shares a device has, at most. */
#define DRM_VDLA_MAX_TIME_SHARES	8

/**
 * struct drm_vdla_time_share - one device-time share
 *
 * A guaranteed fraction of the device's time in every period, for the
 * context that holds a lease on it (DRM_VDLA_RESOURCE_TIME_SHARE) and the
 * contexts that joined it. The administrator defines the shares through
 * the device's sysfs attribute time_shares (docs/resources.md); together
 * they make at most 100 percent.
 */
struct drm_vdla_time_share {
	/** @name: NUL-terminated. */
	char name[16];
	/** @percent: of each period, 1 to 100. */
	__u32 percent;
	/** @pad: 0. */
	__u32 pad;
	/** @used_ns: device time its contexts used in the current period. */
	__u64 used_ns;
	/** @total_ns: device time its contexts used since it was defined. */
	__u64 total_ns;
};

/**
 * struct drm_vdla_query_time_shares - the device-time shares (driver 1.11)
 *
 * Entries @count and above are zero. A share's index in @shares is its
 * resource index for DRM_IOCTL_VDLA_LEASE_ACQUIRE.
 */
struct drm_vdla_query_time_shares {
	/** @count: shares defined. */
	__u32 count;
	/** @period_us: the period the percentages are of (vdla.time_share_period_ms). */
	__u32 period_us;
	struct drm_vdla_time_share shares[DRM_VDLA_MAX_TIME_SHARES];
};

/**
 * DRM_VDLA_COMPUTE_PATH_*: which host code computes the emulated device's
 * convolutions, as in the COMPUTE register (docs/hw-spec.md, "Compute
 * paths"). Integer results are the same on every path.
 */
#define DRM_VDLA_COMPUTE_PATH_UNKNOWN	0	/* hardware before 2.1 */
#define DRM_VDLA_COMPUTE_PATH_SCALAR	1
#define DRM_VDLA_COMPUTE_PATH_AVX2	2
#define DRM_VDLA_COMPUTE_PATH_ONEDNN	3

/**
 * DRM_VDLA_COMPUTE_ISA_*: the instruction set oneDNN computes float
 * convolutions with on the host, as in the COMPUTE register.
 */
#define DRM_VDLA_COMPUTE_ISA_OTHER		0
#define DRM_VDLA_COMPUTE_ISA_SSE41		1
#define DRM_VDLA_COMPUTE_ISA_AVX		2
#define DRM_VDLA_COMPUTE_ISA_AVX2		3
#define DRM_VDLA_COMPUTE_ISA_AVX2_VNNI		4
#define DRM_VDLA_COMPUTE_ISA_AVX512_CORE	5
#define DRM_VDLA_COMPUTE_ISA_AVX512_VNNI	6
#define DRM_VDLA_COMPUTE_ISA_AVX512_BF16	7
#define DRM_VDLA_COMPUTE_ISA_AMX		8

/**
 * struct drm_vdla_query_compute - how the emulated device computes
 *
 * Read from the COMPUTE register at probe; all zero on hardware before 2.1.
 * For bug reports: the device's results do not depend on it (integer
 * results are exact on every path, float results within the tolerance of
 * docs/hw-spec.md).
 */
struct drm_vdla_query_compute {
	/** @path: DRM_VDLA_COMPUTE_PATH_*. */
	__u32 path;
	/** @float_isa: DRM_VDLA_COMPUTE_ISA_*. */
	__u32 float_isa;
};

/* ---- Buffers -------------------------------------------------------------
 *
 * A buffer object (BO) is shmem-backed memory the device reaches through the
 * MMU. Each open file has its own device address space; a BO is mapped into
 * the address space of every file that holds a handle to it, at an address
 * chosen by the driver, and unmapped (with the device TLB invalidated) when
 * that file's last handle goes and no queued or running job of the file
 * uses it. Handles are released with DRM_IOCTL_GEM_CLOSE; BOs are exported
 * with DRM_IOCTL_PRIME_HANDLE_TO_FD and imported with
 * DRM_IOCTL_PRIME_FD_TO_HANDLE (read-write) or DRM_IOCTL_VDLA_BO_IMPORT.
 * CPU access: mmap() the node at @mmap_offset; DRM_IOCTL_VDLA_BO_WAIT first
 * orders it after the jobs that use the BO.
 *
 * An SRAM BO (DRM_VDLA_BO_CREATE_SRAM, driver 1.4) lives in the device's
 * SRAM instead: its device address is the same in every address space, at
 * or above DRM_VDLA_SRAM_BASE; it is zero-filled, keeps its contents across
 * device resets, and has no CPU access (its @mmap_offset is 0) and no
 * dma-buf (export fails with EOPNOTSUPP). Jobs use it like any BO, with the
 * same implicit fencing, except as the task descriptor or the op_stats
 * entry (EINVAL). Its SRAM is freed with the BO: when its last handle is
 * closed and no job uses it any more.
 */

/** DRM_VDLA_BO_MAX_SIZE: the largest BO, 1 GiB. */
#define DRM_VDLA_BO_MAX_SIZE		(1ull << 30)

/**
 * struct drm_vdla_bo_create - argument of DRM_IOCTL_VDLA_BO_CREATE
 *
 * Creates a zero-filled BO and maps it into the caller's address space.
 * Errors: EINVAL (size 0 or above DRM_VDLA_BO_MAX_SIZE, flags, pad, a
 * @lease_id without DRM_VDLA_BO_CREATE_SRAM), ENOMEM, ENOSPC (the address
 * space is full; for an SRAM BO: no free SRAM block of that size in the
 * shared pool or the lease's partition), ENODEV (DRM_VDLA_BO_CREATE_SRAM on
 * a device without SRAM), ENOENT (no such lease of the caller), EINVAL (a
 * lease on something else than an SRAM partition), ECANCELED (the lease is
 * not held: still waiting, released or revoked).
 */
struct drm_vdla_bo_create {
	/** @size: in, bytes, rounded up to the page size; out, the rounded size. */
	__u64 size;
	/** @flags: in, DRM_VDLA_BO_CREATE_* bits. */
	__u32 flags;
	/** @handle: out, the GEM handle. */
	__u32 handle;
	/** @device_address: out, where the caller's jobs see the BO. */
	__u64 device_address;
	/** @mmap_offset: out, the offset to mmap() the node at. */
	__u64 mmap_offset;
	/**
	 * @lease_id: in, with DRM_VDLA_BO_CREATE_SRAM, a held lease of the
	 * caller on an SRAM partition: the BO comes from that partition, and
	 * only jobs naming the lease may use it. It is lost when the lease
	 * ends (docs/resources.md). 0: the shared pool (driver 1.10; an older
	 * caller's shorter structure reads as 0).
	 */
	__u32 lease_id;
	/** @pad: must be 0. */
	__u32 pad;
};

/** DRM_VDLA_BO_CREATE_SRAM: put the BO in the device SRAM (driver 1.4). */
#define DRM_VDLA_BO_CREATE_SRAM		(1u << 0)
#define DRM_VDLA_BO_CREATE_FLAGS	DRM_VDLA_BO_CREATE_SRAM

/** DRM_VDLA_BO_ACCESS_*: how the device may access a BO in an address space. */
#define DRM_VDLA_BO_ACCESS_READ		(1u << 0)
#define DRM_VDLA_BO_ACCESS_WRITE	(1u << 1)

/**
 * struct drm_vdla_bo_info - argument of DRM_IOCTL_VDLA_BO_INFO
 *
 * Describes a BO of the caller, mapping it into the caller's address space
 * if it is not yet (a BO imported with DRM_IOCTL_PRIME_FD_TO_HANDLE).
 * Errors: EINVAL (flags, pad), ENOENT (no such handle).
 */
struct drm_vdla_bo_info {
	/** @handle: in. */
	__u32 handle;
	/** @flags: in, must be 0. */
	__u32 flags;
	/** @size: out, bytes. */
	__u64 size;
	/** @device_address: out. */
	__u64 device_address;
	/** @mmap_offset: out. */
	__u64 mmap_offset;
	/** @access: out, DRM_VDLA_BO_ACCESS_* in the caller's address space. */
	__u32 access;
	/** @imported: out, 1 if the BO came from a dma-buf of another device. */
	__u32 imported;
};

/** DRM_VDLA_BO_WAIT_FLAG_WRITERS: wait only for jobs that write the BO. */
#define DRM_VDLA_BO_WAIT_FLAG_WRITERS	(1u << 0)
#define DRM_VDLA_BO_WAIT_FLAGS		DRM_VDLA_BO_WAIT_FLAG_WRITERS

/**
 * struct drm_vdla_bo_wait - argument of DRM_IOCTL_VDLA_BO_WAIT
 *
 * Waits until the queued and running jobs that use the BO (only those that
 * write it, with DRM_VDLA_BO_WAIT_FLAG_WRITERS: enough before the CPU reads)
 * have ended. Errors: EINVAL (flags, pad, negative timeout), ENOENT,
 * ETIMEDOUT (still busy after @timeout_ns; 0 polls), EINTR.
 */
struct drm_vdla_bo_wait {
	/** @handle: in. */
	__u32 handle;
	/** @flags: in, DRM_VDLA_BO_WAIT_FLAG_* bits. */
	__u32 flags;
	/** @timeout_ns: in, relative timeout, 0 to poll. */
	__s64 timeout_ns;
};

/** DRM_VDLA_BO_IMPORT_FLAG_READ_ONLY: the device MMU refuses writes to it. */
#define DRM_VDLA_BO_IMPORT_FLAG_READ_ONLY	(1u << 0)
#define DRM_VDLA_BO_IMPORT_FLAGS		DRM_VDLA_BO_IMPORT_FLAG_READ_ONLY

/**
 * struct drm_vdla_bo_import - argument of DRM_IOCTL_VDLA_BO_IMPORT
 *
 * Imports a dma-buf (of this driver or any exporter) and maps it into the
 * caller's address space. A file holds at most one handle per BO: importing
 * a BO the caller already holds returns that handle again (close it once).
 * Read-only with DRM_VDLA_BO_IMPORT_FLAG_READ_ONLY:
 * an operation that writes it then fails with an MMU fault. Errors: EINVAL
 * (flags, pad), EBADF (not a dma-buf), EBUSY (the caller already holds the
 * BO with a different access), ENOSPC.
 */
struct drm_vdla_bo_import {
	/** @fd: in, the dma-buf file descriptor. */
	__s32 fd;
	/** @flags: in, DRM_VDLA_BO_IMPORT_FLAG_* bits. */
	__u32 flags;
	/** @handle: out. */
	__u32 handle;
	/** @access: out, DRM_VDLA_BO_ACCESS_* as mapped. */
	__u32 access;
	/** @size: out, bytes. */
	__u64 size;
	/** @device_address: out. */
	__u64 device_address;
};

/* ---- Contexts ------------------------------------------------------------
 *
 * A context is a queue of jobs with a priority; it belongs to the file that
 * created it and only that file may submit to it or destroy it. Jobs of one
 * context run in submission order. docs/kmd.md gives the scheduling policy.
 */

/** enum drm_vdla_priority - context priorities */
enum drm_vdla_priority {
	DRM_VDLA_PRIORITY_LOW = 0,
	DRM_VDLA_PRIORITY_NORMAL = 1,
	DRM_VDLA_PRIORITY_HIGH = 2,
	DRM_VDLA_PRIORITIES,
};

/** DRM_VDLA_MAX_CONTEXTS: contexts one file may hold at once. */
#define DRM_VDLA_MAX_CONTEXTS		256

/**
 * struct drm_vdla_ctx_create - argument of DRM_IOCTL_VDLA_CTX_CREATE
 *
 * Errors: EINVAL (priority, flags, pad), EMFILE (DRM_VDLA_MAX_CONTEXTS),
 * ENOMEM.
 */
struct drm_vdla_ctx_create {
	/** @priority: in, enum drm_vdla_priority. */
	__u32 priority;
	/** @flags: in, must be 0. */
	__u32 flags;
	/** @ctx_id: out, non-zero. */
	__u32 ctx_id;
	/** @pad: must be 0. */
	__u32 pad;
};

/**
 * struct drm_vdla_ctx_destroy - argument of DRM_IOCTL_VDLA_CTX_DESTROY
 *
 * Destroys a context of the caller. Its jobs whose dependencies have
 * signalled still run; the call waits at most one second for the others,
 * which then fail with ESRCH. Errors: EINVAL (pad), ENOENT (no such
 * context of the caller).
 */
struct drm_vdla_ctx_destroy {
	/** @ctx_id: in. */
	__u32 ctx_id;
	/** @pad: must be 0. */
	__u32 pad;
};

/** DRM_VDLA_CTX_STATE_*: a context's state */
#define DRM_VDLA_CTX_STATE_ACTIVE	0
#define DRM_VDLA_CTX_STATE_BANNED	1	/* a job faulted or hung */

/**
 * struct drm_vdla_ctx_query - argument of DRM_IOCTL_VDLA_CTX_QUERY
 *
 * Reports a context's state and counters, and what its last failed job
 * reported. Errors: EINVAL (flags, pad), ENOENT.
 */
struct drm_vdla_ctx_query {
	/** @ctx_id: in. */
	__u32 ctx_id;
	/** @flags: in, must be 0. */
	__u32 flags;
	/** @state: out, DRM_VDLA_CTX_STATE_*. */
	__u32 state;
	/** @priority: out, enum drm_vdla_priority. */
	__u32 priority;
	/** @jobs_submitted: out. */
	__u64 jobs_submitted;
	/** @jobs_completed: out, jobs that ended successfully. */
	__u64 jobs_completed;
	/** @jobs_failed: out, jobs that ended with an error (or were cancelled). */
	__u64 jobs_failed;
	/** @jobs_preempted: out, times a job of the context was stopped at a boundary. */
	__u64 jobs_preempted;
	/** @busy_ns: out, device time used by the context's jobs. */
	__u64 busy_ns;
	/** @last_error: out, negative errno of the last failed job, 0 if none. */
	__s32 last_error;
	/** @hw_error: out, the device's STAT_ERROR of that job, 0 if none. */
	__u32 hw_error;
	/** @fault_status: out, MMU_FAULT_STATUS of the last MMU fault. */
	__u32 fault_status;
	/** @error_op: out, operation index the last error is in. */
	__u32 error_op;
	/** @fault_addr: out, the device address of the last MMU fault. */
	__u64 fault_addr;
};

/* ---- Submission ----------------------------------------------------------
 *
 * A job runs one task (vdla_task.h) on a context. The task's address list
 * names buffers by handle and offset; entry @descriptor holds the task
 * itself. SUBMIT checks everything it can, queues the job and returns: it
 * never waits for the device or for in-syncs.
 *
 * A job ends with its out-fence signalled, with one of these errors:
 *   0          success
 *   EINVAL     the firmware refused the task when it started
 *   EFAULT     an operation faulted in the device MMU
 *   EIO        an operation reported an error
 *   ETIMEDOUT  the job ran longer than the vdla.job_timeout_ms parameter
 *   ECANCELED  the job was cancelled (its file closed, its context banned)
 *   ESRCH      its file closed, or its context was destroyed, while it
 *              still waited for its dependencies
 * A context whose job ended with EFAULT, EIO or ETIMEDOUT is banned: later
 * SUBMITs to it fail with ECANCELED.
 */

/** DRM_VDLA_ADDRESS_FLAG_WRITE: the job may write this buffer. */
#define DRM_VDLA_ADDRESS_FLAG_WRITE	(1u << 0)
#define DRM_VDLA_ADDRESS_FLAGS		DRM_VDLA_ADDRESS_FLAG_WRITE

/**
 * struct drm_vdla_address - one address-list entry: a buffer from an offset
 *
 * The entry covers [@offset, BO size) of the BO. The flag decides the
 * implicit fencing: a job waits for earlier writers of every BO it reads,
 * and for every earlier job of a BO it writes. One BO may appear in several
 * entries (at different offsets); it is written if any entry says so.
 */
struct drm_vdla_address {
	/** @handle: in, a BO of the caller. */
	__u32 handle;
	/** @flags: in, DRM_VDLA_ADDRESS_FLAG_* bits. */
	__u32 flags;
	/** @offset: in, bytes, below the BO's size. */
	__u64 offset;
};

/**
 * struct drm_vdla_sync - a syncobj, and for a timeline syncobj a point
 */
struct drm_vdla_sync {
	/** @handle: in, the syncobj handle (0: none, for the out-sync only). */
	__u32 handle;
	/** @flags: in, must be 0. */
	__u32 flags;
	/** @point: in, the timeline point, 0 for a binary syncobj. */
	__u64 point;
};

/**
 * DRM_VDLA_SUBMIT_OP_STATS: report per-operation statistics (driver 1.3).
 *
 * drm_vdla_submit.op_stats names an address-list entry flagged
 * DRM_VDLA_ADDRESS_FLAG_WRITE. When the job completes successfully, the
 * driver writes at that entry's offset, before the job's fence signals, one
 * struct drm_vdla_op_stats per operation of the task (num_ops entries, in
 * operation order). A job that ends with an error writes nothing there.
 */
#define DRM_VDLA_SUBMIT_OP_STATS	(1u << 0)
/**
 * DRM_VDLA_SUBMIT_OP_TIME_ONLY: with DRM_VDLA_SUBMIT_OP_STATS, only each
 * operation's device_ns is measured; macs, bytes_read and bytes_written are
 * 0. Reading one counter instead of four is cheaper for the driver (driver
 * 1.7). Without DRM_VDLA_SUBMIT_OP_STATS it is EINVAL.
 */
#define DRM_VDLA_SUBMIT_OP_TIME_ONLY	(1u << 1)
/**
 * DRM_VDLA_SUBMIT_NO_IMPLICIT: the job waits for its in-syncs (and the
 * memory management's kernel fences) alone, not for the implicit fences of
 * its BOs (explicit synchronisation, as a runtime
 * that orders its jobs by fences does, without false dependencies on other
 * users of a shared BO). The job's own fence is still added to its BOs, so
 * BO_WAIT, CPU access through a dma-buf and jobs without the flag still
 * wait for it (driver 1.9).
 */
#define DRM_VDLA_SUBMIT_NO_IMPLICIT	(1u << 2)
/**
 * DRM_VDLA_SUBMIT_FRAME_BEGIN, DRM_VDLA_SUBMIT_FRAME_END: the job opens or
 * closes a frame, a run of the context's jobs that a lease is never taken
 * away in the middle of (both flags: a frame of one job). A job is a frame
 * of its own outside brackets. A frame cannot nest: BEGIN inside a frame, or
 * END outside one, is EINVAL (driver 1.10).
 */
#define DRM_VDLA_SUBMIT_FRAME_BEGIN	(1u << 3)
#define DRM_VDLA_SUBMIT_FRAME_END	(1u << 4)
#define DRM_VDLA_SUBMIT_FLAGS		(DRM_VDLA_SUBMIT_OP_STATS | DRM_VDLA_SUBMIT_OP_TIME_ONLY | \
					 DRM_VDLA_SUBMIT_NO_IMPLICIT | DRM_VDLA_SUBMIT_FRAME_BEGIN | \
					 DRM_VDLA_SUBMIT_FRAME_END)

/**
 * struct drm_vdla_op_stats - what one operation of a completed job did
 *
 * The device's per-operation counters (docs/hw-spec.md, "Per-operation
 * counters"). The members of a fused chain each report the chain's time.
 * An operation that did not complete (the descriptor changed after SUBMIT)
 * is all zero. A job preempted and resumed runs each operation once: its
 * entries are those of an uninterrupted run.
 */
struct drm_vdla_op_stats {
	/** @device_ns: the operation's device time. */
	__u64 device_ns;
	/** @macs: multiply-accumulates performed. */
	__u64 macs;
	/** @bytes_read: bytes read from memory and SRAM. */
	__u64 bytes_read;
	/** @bytes_written: bytes written to memory and SRAM. */
	__u64 bytes_written;
};

/** DRM_VDLA_MAX_ADDRESSES: address-list entries of one job, at most. */
#define DRM_VDLA_MAX_ADDRESSES		1024
/** DRM_VDLA_MAX_IN_SYNCS: in-syncs of one job, at most. */
#define DRM_VDLA_MAX_IN_SYNCS		64
/*
 * Queued jobs (submitted, not yet ended and freed) SUBMIT accepts, at most;
 * past a limit it fails with EAGAIN until some end. The bytes are the
 * kernel memory the jobs hold (their address lists and task state).
 */
/** DRM_VDLA_MAX_QUEUED_JOBS_PER_CONTEXT: queued jobs of one context. */
#define DRM_VDLA_MAX_QUEUED_JOBS_PER_CONTEXT	256
/** DRM_VDLA_MAX_QUEUED_JOBS_PER_FILE: queued jobs of one open file. */
#define DRM_VDLA_MAX_QUEUED_JOBS_PER_FILE	1024
/** DRM_VDLA_MAX_QUEUED_BYTES_PER_FILE: kernel memory of one file's queued jobs. */
#define DRM_VDLA_MAX_QUEUED_BYTES_PER_FILE	(64u << 20)

/**
 * struct drm_vdla_submit - argument of DRM_IOCTL_VDLA_SUBMIT
 *
 * Errors, before anything is queued: EINVAL (flags, pads, counts, an
 * address-list entry's flags or offset, an @op_stats entry out of range, not
 * flagged for writing or too small, a task the firmware refuses: the
 * @error_* fields say where), ENOENT (a handle or syncobj that does not exist
 * for the caller, a context that is not the caller's, an in-sync point with
 * no fence yet, a lease that is not the caller's), EINVAL (also: a lease
 * of another context of the caller, unless a time share: @ctx_id joins
 * it), EACCES (a read-only BO
 * marked for writing; an SRAM BO of a partition without naming the lease
 * it was created under, on that lease's context), ECANCELED (banned
 * context; a lease not held, released or revoked), EFAULT (unreadable
 * arrays), ENOMEM, EINTR.
 */
struct drm_vdla_submit {
	/** @ctx_id: in, a context of the caller. */
	__u32 ctx_id;
	/** @flags: in, DRM_VDLA_SUBMIT_* bits. */
	__u32 flags;
	/** @addresses: in, user pointer to struct drm_vdla_address[]. */
	__u64 addresses;
	/** @address_count: in, 1..DRM_VDLA_MAX_ADDRESSES. */
	__u32 address_count;
	/** @descriptor: in, the address-list index of the task descriptor. */
	__u32 descriptor;
	/** @in_syncs: in, user pointer to struct drm_vdla_sync[]. */
	__u64 in_syncs;
	/** @in_sync_count: in, 0..DRM_VDLA_MAX_IN_SYNCS. */
	__u32 in_sync_count;
	/**
	 * @op_stats: in, with DRM_VDLA_SUBMIT_OP_STATS the address-list index
	 * of a writable entry with room for num_ops struct drm_vdla_op_stats
	 * from its offset; without the flag it must be 0 (it was a pad field
	 * before driver 1.3).
	 */
	__u32 op_stats;
	/** @out_sync: in, signalled (at its point) when the job ends. */
	struct drm_vdla_sync out_sync;
	/** @seqno: out, the job's sequence number in its context, from 1. */
	__u64 seqno;
	/** @error_op: out, the op a refused task is wrong in (~0: header). */
	__u32 error_op;
	/** @error_field: out, the firmware's enum dla_field of the wrong field. */
	__u32 error_field;
	/** @error_reason: out, the firmware's enum dla_reason. */
	__u32 error_reason;
	/** @error_operand: out, the tensor or table the field belongs to. */
	__u32 error_operand;
	/**
	 * @lease_id: in, a lease of the caller held by @ctx_id that the job
	 * uses, or 0 (driver 1.10; an older caller's shorter structure reads
	 * as 0). Required for BOs of an SRAM partition. A time share held by
	 * another context of the caller: @ctx_id joins it (driver 1.11).
	 */
	__u32 lease_id;
	/** @pad2: must be 0. */
	__u32 pad2;
};

/* ---- Fences ----------------------------------------------------------- */

/* No flags are defined yet: DRM_VDLA_FENCE_WAIT takes 0. */
#define DRM_VDLA_FENCE_WAIT_FLAGS	0u

/**
 * struct drm_vdla_fence_wait - argument of DRM_IOCTL_VDLA_FENCE_WAIT
 *
 * Waits for the fence of a syncobj, at @point of a timeline (0: a binary
 * syncobj, or a timeline's last point), and reports how the point's own
 * fence ended: the same answer as waiting, exporting the fence as a sync
 * file and reading its status, in one call (driver 1.8).
 *
 * Errors: EINVAL (flags, pad, negative timeout), ENOENT (no such syncobj, or
 * no fence of that point: not submitted yet, or merged into a later point's
 * once signalled, which a timeline does with points nobody holds),
 * ETIMEDOUT (not signalled after @timeout_ns; 0 polls), EINTR.
 */
struct drm_vdla_fence_wait {
	/** @handle: in, a syncobj of the caller. */
	__u32 handle;
	/** @flags: in, must be 0. */
	__u32 flags;
	/** @point: in, the timeline point; 0 for a binary syncobj. */
	__u64 point;
	/** @timeout_ns: in, relative timeout, 0 to poll. */
	__s64 timeout_ns;
	/** @error: out, 0, or the negative errno the fence signalled with. */
	__s32 error;
	/** @pad: must be 0. */
	__u32 pad;
	/** @timestamp_ns: out, when the fence signalled (CLOCK_MONOTONIC). */
	__u64 timestamp_ns;
};

/* No flags are defined yet: DRM_VDLA_FENCE_EXPORT takes 0. */
#define DRM_VDLA_FENCE_EXPORT_FLAGS	0u

/**
 * struct drm_vdla_fence_export - argument of DRM_IOCTL_VDLA_FENCE_EXPORT
 *
 * The fence given for @point of a syncobj (0: a binary syncobj's fence, or
 * a timeline's last point) as a new sync file (close-on-exec): it signals
 * when that point's job ends and reports its error (SYNC_IOC_FILE_INFO
 * status) and time; it does not also wait for the points before. One call
 * instead of the core's three (a temporary syncobj, TRANSFER, HANDLE_TO_FD),
 * and never a false success: a point merged away is ENODATA, where the
 * core's export gives a signalled stub (driver 1.9).
 *
 * Errors: EINVAL (flags, pad, no fence at @point yet), ENOENT (no such
 * syncobj), ENODATA (the point was merged into a later one once signalled:
 * its outcome is gone), EMFILE, ENOMEM.
 */
struct drm_vdla_fence_export {
	/** @handle: in, a syncobj of the caller. */
	__u32 handle;
	/** @flags: in, must be 0. */
	__u32 flags;
	/** @point: in, the timeline point; 0 for a binary syncobj. */
	__u64 point;
	/** @fd: out, the sync file. */
	__s32 fd;
	/** @pad: must be 0. */
	__u32 pad;
};

/* ---- Leases (driver 1.10) -------------------------------------------------
 *
 * The resource manager (docs/resources.md): a lease gives one context an
 * exclusive resource, by priority. A claim on a free resource is granted; on
 * a resource held by a strictly lower priority the holder is asked to
 * release it (a DRM_VDLA_EVENT_LEASE_RELEASE_REQUESTED event with a
 * deadline) and the claim waits; on one held by a higher or equal priority
 * the claim is busy, and may wait in the queue. The queue is served by
 * priority, between equals the most recently queued first, and a waiter
 * rises one priority level per vdla.lease_age_passes grants it waits
 * through. A holder that has not released by the deadline is revoked at its
 * next frame boundary: its context's jobs that have not started end with
 * ECANCELED, the running frame completes, later SUBMITs naming the lease
 * fail with ECANCELED, its partition's BOs are lost, and it gets a
 * DRM_VDLA_EVENT_LEASE_REVOKED event.
 *
 * Events are read from the node (read(2), poll(2)) as DRM events; the space
 * for each of a lease's events is reserved when it is acquired, so none is
 * ever lost.
 */

/** DRM_VDLA_RESOURCE_*: what a lease is on */
#define DRM_VDLA_RESOURCE_SRAM_PARTITION	1	/* index: the partition */
/*
 * index: an engine (VDLA_TASK_ENGINE_*). While a context holds a
 * reservation, its ready jobs start before those of contexts that hold
 * none, whatever their priorities, and stop such a job running at its next
 * operation boundary: the device runs one task at a time, so another
 * context's job delays the holder's by one operation at most. Reserve a
 * fused chain's engines with one lease each, in one group.
 */
#define DRM_VDLA_RESOURCE_ENGINE		2
/** DRM_VDLA_NUM_ENGINES: engines a reservation may name (VDLA_TASK_ENGINE_*). */
#define DRM_VDLA_NUM_ENGINES			6
/*
 * index: a device-time share (DRM_VDLA_QUERY_TIME_SHARES; driver 1.11).
 * While a context's share has time left in the current period, its ready
 * jobs start before every other job but those of other shares with time
 * left, and stop any other running job at its next operation boundary; a
 * running job of a share with time left is stopped by nothing. Once the
 * share's time of the period is used, its jobs go by priority again. A
 * context with work ready all period long thus gets at least its share of
 * the device, less one operation. Another context of the holder's file
 * joins the share with its first SUBMIT naming the lease, and is charged
 * to it from then on, while the lease is held (EBUSY if it holds a share
 * of its own). A context claims one share at a time (EEXIST). A
 * revocation cancels nothing.
 */
#define DRM_VDLA_RESOURCE_TIME_SHARE		3

/**
 * DRM_VDLA_LEASE_ACQUIRE_QUEUE: a claim not granted within @timeout_ns
 * stays in the queue instead of failing: ACQUIRE returns with state
 * DRM_VDLA_LEASE_STATE_WAITING, and a DRM_VDLA_EVENT_LEASE_GRANTED event
 * comes with the grant.
 */
#define DRM_VDLA_LEASE_ACQUIRE_QUEUE		(1u << 0)
/**
 * DRM_VDLA_LEASE_ACQUIRE_NO_PREEMPT: never ask a holder to release; against a
 * lower priority the claim is busy as against an equal one. Preempting
 * needs CAP_SYS_NICE, so an unprivileged claim that would preempt fails with
 * EACCES unless it passes this flag.
 */
#define DRM_VDLA_LEASE_ACQUIRE_NO_PREEMPT	(1u << 1)
#define DRM_VDLA_LEASE_ACQUIRE_FLAGS		(DRM_VDLA_LEASE_ACQUIRE_QUEUE | \
						 DRM_VDLA_LEASE_ACQUIRE_NO_PREEMPT)

/** DRM_VDLA_MAX_LEASES_PER_FILE: leases one file holds or waits for at once. */
#define DRM_VDLA_MAX_LEASES_PER_FILE		16
/** DRM_VDLA_LEASE_MAX_TIMEOUT_NS: the longest ACQUIRE wait and release deadline, 60 s. */
#define DRM_VDLA_LEASE_MAX_TIMEOUT_NS		(60ull * 1000000000ull)

/** DRM_VDLA_LEASE_STATE_*: where a lease is */
#define DRM_VDLA_LEASE_STATE_WAITING	1	/* queued for the resource */
#define DRM_VDLA_LEASE_STATE_HELD	2	/* granted */
#define DRM_VDLA_LEASE_STATE_REVOKED	3	/* taken away; RELEASE forgets it */

/**
 * struct drm_vdla_lease_acquire - argument of DRM_IOCTL_VDLA_LEASE_ACQUIRE
 *
 * Claims a resource for a context of the caller, waiting at most
 * @timeout_ns for the grant (interrupted by a signal: EINTR, the claim
 * withdrawn). Errors: EINVAL (flags, resource type, priority, timeouts), ENOENT (no such context of the caller, no such partition),
 * EACCES (a priority above NORMAL, or a claim that would preempt, without
 * CAP_SYS_NICE), EBUSY (not granted and @timeout_ns 0 without
 * DRM_VDLA_LEASE_ACQUIRE_QUEUE: nothing changed), ETIMEDOUT (not granted in
 * @timeout_ns, or a preemption that did not finish in time: the claim is
 * withdrawn), EEXIST (the context already holds or waits for that
 * resource, or for another time share), EAGAIN (DRM_VDLA_MAX_LEASES_PER_FILE, or no room left for the
 * lease's events: read the node's events), ENOMEM.
 */
struct drm_vdla_lease_acquire {
	/** @ctx_id: in, the context whose jobs use the resource. */
	__u32 ctx_id;
	/** @resource: in, DRM_VDLA_RESOURCE_*. */
	__u32 resource;
	/** @index: in, which one (for an SRAM partition, its index). */
	__u32 index;
	/** @priority: in, enum drm_vdla_priority; above NORMAL needs CAP_SYS_NICE. */
	__u32 priority;
	/** @flags: in, DRM_VDLA_LEASE_ACQUIRE_* bits. */
	__u32 flags;
	/**
	 * @group: in, 0 or a group of the caller's leases: when one of them
	 * is asked to release, all of the group's held leases are, with the
	 * same deadline, and are revoked together.
	 */
	__u32 group;
	/** @user_data: in, copied into every event of the lease. */
	__u64 user_data;
	/** @timeout_ns: in, how long ACQUIRE waits for the grant. */
	__u64 timeout_ns;
	/**
	 * @release_timeout_ns: in, how long the lease has to release once
	 * asked, before it is revoked; 0: vdla.lease_release_ms.
	 */
	__u64 release_timeout_ns;
	/** @lease_id: out, non-zero. */
	__u32 lease_id;
	/** @state: out, DRM_VDLA_LEASE_STATE_HELD or _WAITING. */
	__u32 state;
};

/**
 * struct drm_vdla_lease_release - argument of DRM_IOCTL_VDLA_LEASE_RELEASE
 *
 * Gives a lease up and forgets its id. A waiting claim leaves the queue. A
 * held lease refuses later SUBMITs naming it at once, and the resource goes
 * to the next waiter when the jobs already submitted naming it have ended
 * (they are not cancelled, even past a release request's deadline, which
 * goes with the release); its partition's BOs are lost then. A revoked
 * lease is only forgotten. Errors: EINVAL (flags), ENOENT.
 */
struct drm_vdla_lease_release {
	/** @lease_id: in, a lease of the caller. */
	__u32 lease_id;
	/** @flags: in, must be 0. */
	__u32 flags;
};

/**
 * struct drm_vdla_lease_query - argument of DRM_IOCTL_VDLA_LEASE_QUERY
 *
 * Errors: EINVAL (flags), ENOENT.
 */
struct drm_vdla_lease_query {
	/** @lease_id: in, a lease of the caller. */
	__u32 lease_id;
	/** @flags: in, must be 0. */
	__u32 flags;
	/** @state: out, DRM_VDLA_LEASE_STATE_*. */
	__u32 state;
	/** @release_requested: out, 1 while the holder is asked to release. */
	__u32 release_requested;
	/** @queue_priority: out, a waiter's priority in the queue, raised by aging. */
	__u32 queue_priority;
	/** @waiters: out, claims queued for the resource. */
	__u32 waiters;
	/** @deadline_ns: out, CLOCK_MONOTONIC revocation time while asked, else 0. */
	__u64 deadline_ns;
};

/** DRM_VDLA_EVENT_LEASE_*: the type of a struct drm_vdla_event_lease */
#define DRM_VDLA_EVENT_LEASE_GRANTED		0x80000000
#define DRM_VDLA_EVENT_LEASE_RELEASE_REQUESTED	0x80000001
#define DRM_VDLA_EVENT_LEASE_REVOKED		0x80000002

/** DRM_VDLA_LEASE_REASON_*: why a lease is asked to release, or was revoked */
#define DRM_VDLA_LEASE_REASON_PREEMPTED		1	/* a higher priority claims it */
#define DRM_VDLA_LEASE_REASON_GROUP		2	/* a lease of its group was asked */
#define DRM_VDLA_LEASE_REASON_FRAME_OVERRUN	3	/* revoked: its frame did not end in time */

/**
 * struct drm_vdla_event_lease - a lease's event, read from the node
 *
 * GRANTED: a claim ACQUIRE left waiting holds the resource now.
 * RELEASE_REQUESTED: release before @deadline_ns, at a frame boundary.
 * REVOKED: the lease was taken away at @deadline_ns's frame boundary; its
 * jobs that had not started ended with ECANCELED.
 */
struct drm_vdla_event_lease {
	struct drm_event base;
	/** @user_data: the ACQUIRE's. */
	__u64 user_data;
	__u32 lease_id;
	__u32 ctx_id;
	__u32 resource;
	__u32 index;
	/** @reason: DRM_VDLA_LEASE_REASON_* (0 for GRANTED). */
	__u32 reason;
	/** @priority: RELEASE_REQUESTED: the priority of the claim that asks. */
	__u32 priority;
	/** @deadline_ns: RELEASE_REQUESTED, REVOKED: CLOCK_MONOTONIC. */
	__u64 deadline_ns;
	/** @timestamp_ns: when the event was sent, CLOCK_MONOTONIC. */
	__u64 timestamp_ns;
};

/* ---- Pipelines, channels and ports (driver 1.12) ------------------------
 *
 * docs/ownership.md. A pipeline is a device-global object with a unique
 * name. A privileged process creates it and is its owner; any process
 * opens it by name and gets a reference, with the creator's parameters.
 * Handles to pipelines are per open file (ENOENT for another file's);
 * channel ids are per pipeline, visible to every file that has it open.
 * Ownership is by open file; the owner named in errors is the process that
 * opened it.
 *
 * The errors follow one convention: ENOENT an id not in the caller's
 * namespace; EPERM an operation reserved to an owner (the owner's pid and
 * name are reported in @owner); EACCES missing privilege or access mode;
 * EBUSY held or in use; EEXIST done once already; EAGAIN a limit reached;
 * ECANCELED a pipeline that is gone (destroyed with FORCE, or its owner's
 * file closed): only CLOSE and QUERY still work on its handle.
 */

/** DRM_VDLA_PIPELINE_NAME_LEN: a pipeline's name, NUL included. */
#define DRM_VDLA_PIPELINE_NAME_LEN		32
/** DRM_VDLA_PIPELINE_PARAMS: the creator's parameters, numbers the pipeline's users agree on. */
#define DRM_VDLA_PIPELINE_PARAMS		8
/** DRM_VDLA_CHANNEL_ATTRS: a channel's attributes. */
#define DRM_VDLA_CHANNEL_ATTRS			8
/** DRM_VDLA_MAX_PIPELINES: pipelines of one device. */
#define DRM_VDLA_MAX_PIPELINES			16
/** DRM_VDLA_MAX_PIPELINE_HANDLES: pipelines one file has open (its own included). */
#define DRM_VDLA_MAX_PIPELINE_HANDLES		16
/** DRM_VDLA_MAX_CHANNELS: channels of one pipeline. */
#define DRM_VDLA_MAX_CHANNELS			32
/**
 * DRM_VDLA_OWNER_CHANNELS: of those, how many only the pipeline's owner
 * creates: the other files cannot take every slot (and keep the owner
 * from rebuilding its own channels).
 */
#define DRM_VDLA_OWNER_CHANNELS			8
/** DRM_VDLA_CHANNEL_PORTS: ports of a channel. */
#define DRM_VDLA_CHANNEL_PORTS			4
/** DRM_VDLA_PORT_BUFFERS: buffers of one port. */
#define DRM_VDLA_PORT_BUFFERS			8

/**
 * struct drm_vdla_owner - who holds something, in errors and queries
 *
 * @pid is the process that opened the holding file, in the caller's pid
 * namespace; @comm its name then. Both are 0 if that process is not
 * visible in the caller's pid namespace.
 */
struct drm_vdla_owner {
	__s32 pid;
	__u32 pad;
	char comm[16];
};

/**
 * struct drm_vdla_pipeline_create - argument of DRM_IOCTL_VDLA_PIPELINE_CREATE
 *
 * Creates a pipeline; the caller's file owns it. Needs CAP_SYS_ADMIN or
 * membership of the group vdla.pipeline_group (a gid of the initial user
 * namespace). Errors: EINVAL (flags,
 * pad, an empty or unterminated name), EACCES (no privilege), EEXIST (the
 * name is taken: @owner is its owner), EAGAIN (DRM_VDLA_MAX_PIPELINES, or
 * DRM_VDLA_MAX_PIPELINE_HANDLES), ENOMEM.
 */
struct drm_vdla_pipeline_create {
	/** @name: in, NUL-terminated. */
	char name[DRM_VDLA_PIPELINE_NAME_LEN];
	/** @params: in, returned to every OPEN. */
	__u32 params[DRM_VDLA_PIPELINE_PARAMS];
	/** @flags: in, must be 0. */
	__u32 flags;
	/** @handle: out, the owner's handle. */
	__u32 handle;
	/** @owner: out, on EEXIST. */
	struct drm_vdla_owner owner;
};

/** DRM_VDLA_PIPELINE_OPEN_EXACT: refuse the pipeline if its parameters are not @params (EEXIST). */
#define DRM_VDLA_PIPELINE_OPEN_EXACT		(1u << 0)
#define DRM_VDLA_PIPELINE_OPEN_FLAGS		DRM_VDLA_PIPELINE_OPEN_EXACT

/**
 * struct drm_vdla_pipeline_open - argument of DRM_IOCTL_VDLA_PIPELINE_OPEN
 *
 * Opens a pipeline by name: a reference, which the caller drops with
 * CLOSE (or by closing the file). @params comes back as the creator's;
 * @params_differ says whether they differed from the caller's. One handle
 * per pipeline and file. Errors: EINVAL (flags, pad, name), ENOENT (no
 * such pipeline), EEXIST (the caller has it open, or owns it, already,
 * @params_differ 0; with EXACT: the parameters differ, @params_differ 1,
 * nothing opened), EAGAIN
 * (DRM_VDLA_MAX_PIPELINE_HANDLES, no room for the pipeline's events),
 * ENOMEM.
 */
struct drm_vdla_pipeline_open {
	/** @name: in. */
	char name[DRM_VDLA_PIPELINE_NAME_LEN];
	/** @params: in, the caller's; out, the creator's. */
	__u32 params[DRM_VDLA_PIPELINE_PARAMS];
	/** @flags: in, DRM_VDLA_PIPELINE_OPEN_* bits. */
	__u32 flags;
	/** @handle: out. */
	__u32 handle;
	/** @params_differ: out, 1 if the creator's parameters are not the caller's. */
	__u32 params_differ;
	/** @pad: must be 0. */
	__u32 pad;
	/** @owner: out, the pipeline's owner. */
	struct drm_vdla_owner owner;
};

/** DRM_VDLA_PIPELINE_DESTROY_FORCE: destroy even with references: their holders are told. */
#define DRM_VDLA_PIPELINE_DESTROY_FORCE		(1u << 0)
#define DRM_VDLA_PIPELINE_DESTROY_FLAGS		DRM_VDLA_PIPELINE_DESTROY_FORCE

/**
 * struct drm_vdla_pipeline_destroy - argument of DRM_IOCTL_VDLA_PIPELINE_DESTROY
 *
 * The owner destroys its pipeline: its channels are stopped (their jobs
 * not started are cancelled) and destroyed, its name is free again.
 * With FORCE, the other holders get DRM_VDLA_EVENT_PIPELINE_GONE and
 * their later calls on it ECANCELED, until they CLOSE it. Errors: EINVAL
 * (flags), ENOENT (no such handle), EPERM (not the owner: @owner is),
 * EBUSY (other files hold references and no FORCE: @references says how
 * many; nothing changed), ECANCELED (gone already).
 */
struct drm_vdla_pipeline_destroy {
	/** @handle: in. */
	__u32 handle;
	/** @flags: in, DRM_VDLA_PIPELINE_DESTROY_* bits. */
	__u32 flags;
	/** @references: out, the references of other files. */
	__u32 references;
	/** @pad: must be 0. */
	__u32 pad;
	/** @owner: out, the owner. */
	struct drm_vdla_owner owner;
};

/**
 * struct drm_vdla_pipeline_close - argument of DRM_IOCTL_VDLA_PIPELINE_CLOSE
 *
 * Drops the caller's reference: its channel handles are destroyed and the
 * port buffers it took are returned (their handles closed), as when its
 * file is closed; the last reference of a file other than the owner's
 * runs the exit action. Also forgets the handle of a pipeline that is
 * gone: the buffers taken through it before it went stay with the caller,
 * whose handles hold them until it closes them. Errors: EINVAL (flags;
 * the owner's handle, which only DESTROY ends), ENOENT.
 */
struct drm_vdla_pipeline_close {
	/** @handle: in. */
	__u32 handle;
	/** @flags: in, must be 0. */
	__u32 flags;
};

/** DRM_VDLA_PIPELINE_STATE_*: where a pipeline is */
#define DRM_VDLA_PIPELINE_STATE_LIVE		1
#define DRM_VDLA_PIPELINE_STATE_GONE		2	/* destroyed with FORCE, or its owner's file closed */

/**
 * struct drm_vdla_pipeline_query - argument of DRM_IOCTL_VDLA_PIPELINE_QUERY
 *
 * Errors: EINVAL (flags), ENOENT.
 */
struct drm_vdla_pipeline_query {
	/** @handle: in. */
	__u32 handle;
	/** @flags: in, must be 0. */
	__u32 flags;
	/** @name: out. */
	char name[DRM_VDLA_PIPELINE_NAME_LEN];
	/** @params: out, the creator's. */
	__u32 params[DRM_VDLA_PIPELINE_PARAMS];
	/** @state: out, DRM_VDLA_PIPELINE_STATE_*. */
	__u32 state;
	/** @is_owner: out, 1 for the owner's handle. */
	__u32 is_owner;
	/** @references: out, the references of files other than the owner's. */
	__u32 references;
	/** @channels: out, channels that exist. */
	__u32 channels;
	/** @exit_actions: out, DRM_VDLA_PIPELINE_EXIT_* registered. */
	__u32 exit_actions;
	/** @exit_runs: out, how many times the exit action ran. */
	__u32 exit_runs;
	/** @owner: out. */
	struct drm_vdla_owner owner;
};

/** DRM_VDLA_PIPELINE_EXIT_STOP_CHANNELS: stop every channel, cancelling its context's jobs not started. */
#define DRM_VDLA_PIPELINE_EXIT_STOP_CHANNELS	(1u << 0)
/** DRM_VDLA_PIPELINE_EXIT_RESET_ATTRS: set every channel's attributes back to the creator's. */
#define DRM_VDLA_PIPELINE_EXIT_RESET_ATTRS	(1u << 1)
/** DRM_VDLA_PIPELINE_EXIT_NOTIFY: send the owner DRM_VDLA_EVENT_PIPELINE_IDLE. */
#define DRM_VDLA_PIPELINE_EXIT_NOTIFY		(1u << 2)
#define DRM_VDLA_PIPELINE_EXIT_ACTIONS		(DRM_VDLA_PIPELINE_EXIT_STOP_CHANNELS | \
						 DRM_VDLA_PIPELINE_EXIT_RESET_ATTRS | \
						 DRM_VDLA_PIPELINE_EXIT_NOTIFY)

/**
 * struct drm_vdla_pipeline_set_exit - argument of DRM_IOCTL_VDLA_PIPELINE_SET_EXIT
 *
 * The owner registers the exit action, replacing the last: what the
 * driver does itself when the last reference of a file other than the
 * owner's goes (CLOSE, or its file closed: the process exited or was
 * killed). The driver runs it in the closing file's context, whether or
 * not the owner is scheduled. With NOTIFY the IDLE event is reserved here
 * and again after each one is sent; if the owner's event space is full
 * then, the next run is not told, only counted (QUERY's @exit_runs).
 * Errors: EINVAL (flags, unknown actions), ENOENT, EPERM (not the owner),
 * ECANCELED, EAGAIN (NOTIFY without room for the event: read the node's
 * events).
 */
struct drm_vdla_pipeline_set_exit {
	/** @handle: in. */
	__u32 handle;
	/** @actions: in, DRM_VDLA_PIPELINE_EXIT_* bits, 0 for none. */
	__u32 actions;
	/** @user_data: in, copied into the IDLE event. */
	__u64 user_data;
	/** @owner: out, on EPERM. */
	struct drm_vdla_owner owner;
};

/**
 * struct drm_vdla_channel_create - argument of DRM_IOCTL_VDLA_CHANNEL_CREATE
 *
 * Creates a channel in a pipeline the caller has open; the caller's file
 * owns it and is the only one that may dup it out or, with its own handle,
 * destroy it. The channel's work is the jobs of @ctx_id (0: none), a
 * context of the caller: stopping the channel cancels those submitted
 * until then that have not started (not later ones: the state does not
 * gate SUBMIT).
 * It starts started. Errors: EINVAL (flags), ENOENT (no such handle or
 * context), EAGAIN (DRM_VDLA_MAX_CHANNELS; for a file other than the
 * owner's, DRM_VDLA_MAX_CHANNELS - DRM_VDLA_OWNER_CHANNELS created by
 * such files), ECANCELED, ENOMEM.
 */
struct drm_vdla_channel_create {
	/** @pipeline: in, a pipeline handle of the caller. */
	__u32 pipeline;
	/** @ctx_id: in, 0 or a context of the caller. */
	__u32 ctx_id;
	/** @attrs: in, the initial attributes, which RESET_ATTRS restores. */
	__u64 attrs[DRM_VDLA_CHANNEL_ATTRS];
	/** @flags: in, must be 0. */
	__u32 flags;
	/** @channel_id: out, non-zero, unique in the pipeline. */
	__u32 channel_id;
};

/**
 * struct drm_vdla_channel_dup - argument of DRM_IOCTL_VDLA_CHANNEL_DUP
 *
 * Gives the caller a handle to another file's channel: once per channel,
 * ever. The duplicate is destroyed with CHANNEL_DESTROY like a created
 * channel, and the channel lives until both its handles are gone. Errors:
 * EINVAL (flags, pad), ENOENT (no such pipeline handle or channel),
 * EEXIST (the channel was duplicated already, or the caller owns it:
 * @owner is who holds the duplicate, or the owner), ECANCELED.
 */
struct drm_vdla_channel_dup {
	/** @pipeline: in. */
	__u32 pipeline;
	/** @channel_id: in. */
	__u32 channel_id;
	/** @flags: in, must be 0. */
	__u32 flags;
	/** @pad: must be 0. */
	__u32 pad;
	/** @owner: out, the channel's owner; on EEXIST, who holds the duplicate. */
	struct drm_vdla_owner owner;
};

/**
 * struct drm_vdla_channel_destroy - argument of DRM_IOCTL_VDLA_CHANNEL_DESTROY
 *
 * Destroys the caller's handle to a channel: its own, or its duplicate.
 * The last handle's going stops the channel, cancelling its context's jobs
 * not started, and frees its ports. Errors: EINVAL (flags, pad), ENOENT,
 * EPERM (the caller holds no handle to it: @owner is its owner),
 * ECANCELED.
 */
struct drm_vdla_channel_destroy {
	/** @pipeline: in. */
	__u32 pipeline;
	/** @channel_id: in. */
	__u32 channel_id;
	/** @flags: in, must be 0. */
	__u32 flags;
	/** @pad: must be 0. */
	__u32 pad;
	/** @owner: out, on EPERM. */
	struct drm_vdla_owner owner;
};

/** DRM_VDLA_CHANNEL_ATTR_OP_*: what CHANNEL_ATTR does */
#define DRM_VDLA_CHANNEL_ATTR_OP_GET		0	/* read @key (and the state) */
#define DRM_VDLA_CHANNEL_ATTR_OP_SET		1	/* write @key */
#define DRM_VDLA_CHANNEL_ATTR_OP_START		2	/* start the channel */
#define DRM_VDLA_CHANNEL_ATTR_OP_STOP		3	/* stop it: its context's jobs not started are cancelled */

/** DRM_VDLA_CHANNEL_STATE_*: a channel's state */
#define DRM_VDLA_CHANNEL_STATE_STARTED		1
#define DRM_VDLA_CHANNEL_STATE_STOPPED		2

/**
 * struct drm_vdla_channel_attr - argument of DRM_IOCTL_VDLA_CHANNEL_ATTR
 *
 * Any file with the pipeline open gets and sets a channel's attributes and
 * starts and stops it. Errors: EINVAL (op, key, flags), ENOENT,
 * ECANCELED.
 */
struct drm_vdla_channel_attr {
	/** @pipeline: in. */
	__u32 pipeline;
	/** @channel_id: in. */
	__u32 channel_id;
	/** @op: in, DRM_VDLA_CHANNEL_ATTR_OP_*. */
	__u32 op;
	/** @key: in, GET and SET: below DRM_VDLA_CHANNEL_ATTRS; else 0. */
	__u32 key;
	/** @value: in, SET; out, GET. */
	__u64 value;
	/** @state: out, DRM_VDLA_CHANNEL_STATE_*. */
	__u32 state;
	/** @flags: in, must be 0. */
	__u32 flags;
};

/** DRM_VDLA_PORT_OP_*: what PORT_BUFFER does */
#define DRM_VDLA_PORT_OP_ATTACH		0	/* the channel's owner adds @handle to the port */
#define DRM_VDLA_PORT_OP_TAKE		1	/* take a free buffer: @handle, @index out */
#define DRM_VDLA_PORT_OP_RETURN		2	/* give buffer @index back */

/** DRM_VDLA_PORT_READ_ONLY: ATTACH, in: takers get the buffer read-only. */
#define DRM_VDLA_PORT_READ_ONLY		(1u << 0)
#define DRM_VDLA_PORT_FLAGS		DRM_VDLA_PORT_READ_ONLY
/**
 * DRM_VDLA_PORT_TAKEN_OWN: TAKE, out: the caller is the channel's owner,
 * and @handle is the handle it attached the buffer with, with the access
 * it has; RETURN leaves that handle open.
 */
#define DRM_VDLA_PORT_TAKEN_OWN		(1u << 1)

/**
 * struct drm_vdla_port_buffer - argument of DRM_IOCTL_VDLA_PORT_BUFFER
 *
 * A port is a set of buffers a channel lends, all alike: read-only or
 * not. Its owner ATTACHes them (a BO of its own, or a shared buffer it
 * imported). Any file with the pipeline open TAKEs a free one: it gets a
 * handle to it in its own file, read-only (for the device and the CPU) if
 * the port lends so, and the same file RETURNs it, which closes that
 * handle. The channel's owner takes its own buffers too (to fill them,
 * say): by the handle it attached them with (DRM_VDLA_PORT_TAKEN_OWN),
 * which RETURN leaves open. A file's taken buffers are returned when it
 * closes the pipeline or itself. A read-write port trusts its takers: a
 * CPU mapping a taker made outlives the return (the kernel cannot revoke
 * it); lend read-only to applications that are not trusted to write.
 *
 * Errors: EINVAL (op, flags, pad, port; ATTACH of a buffer unlike the
 * port's others, or of an SRAM BO, which never leaves its file), ENOENT (no such pipeline handle, channel, BO or taken
 * buffer; TAKE by the owner: it closed the handle it attached the buffer
 * with), EPERM (ATTACH by another file than the channel's owner; RETURN
 * of a buffer another file took: @owner is the one that holds it), EEXIST
 * (ATTACH: the BO is in the port already), EAGAIN (ATTACH: the port is
 * full; TAKE: no buffer free), EBUSY (TAKE: the caller, not the owner,
 * holds every free buffer's BO already), EACCES (ATTACH of a BO the
 * owner may not write, without READ_ONLY; of a buffer the caller took
 * from a port), ECANCELED. TAKE writes @flags: clear it before reusing
 * the structure for another op.
 */
struct drm_vdla_port_buffer {
	/** @pipeline: in. */
	__u32 pipeline;
	/** @channel_id: in. */
	__u32 channel_id;
	/** @port: in, below DRM_VDLA_CHANNEL_PORTS. */
	__u32 port;
	/** @op: in, DRM_VDLA_PORT_OP_*. */
	__u32 op;
	/** @flags: in, ATTACH: DRM_VDLA_PORT_FLAGS bits, else 0; out, TAKE: DRM_VDLA_PORT_TAKEN_OWN. */
	__u32 flags;
	/** @handle: in, ATTACH: the caller's BO; out, TAKE: the caller's new handle. */
	__u32 handle;
	/** @index: out, ATTACH and TAKE; in, RETURN. */
	__u32 index;
	/** @pad: must be 0. */
	__u32 pad;
	/** @owner: out, on EPERM. */
	struct drm_vdla_owner owner;
};

/** DRM_VDLA_EVENT_PIPELINE_*: the type of a struct drm_vdla_event_pipeline */
#define DRM_VDLA_EVENT_PIPELINE_IDLE		0x80000010	/* to the owner: the exit action ran */
#define DRM_VDLA_EVENT_PIPELINE_GONE		0x80000011	/* to the others: the pipeline is gone */

/** struct drm_vdla_event_pipeline - a pipeline's event, read from the node */
struct drm_vdla_event_pipeline {
	struct drm_event base;
	/** @user_data: IDLE: SET_EXIT's. */
	__u64 user_data;
	/** @handle: the receiver's handle to the pipeline. */
	__u32 handle;
	/** @actions: IDLE: the DRM_VDLA_PIPELINE_EXIT_* that ran. */
	__u32 actions;
	/** @pid: IDLE: the process whose reference was the last, in the owner's pid namespace. */
	__s32 pid;
	__u32 pad;
	/** @timestamp_ns: CLOCK_MONOTONIC. */
	__u64 timestamp_ns;
};

#if defined(__cplusplus)
}
#endif

#endif /* _UAPI_VDLA_ACCEL_H_ */
