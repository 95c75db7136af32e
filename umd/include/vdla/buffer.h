/* SPDX-License-Identifier: MIT */
/*
 * vdla::Buffer: a buffer object (BO) of a Device, mapped into the device
 * address space of that Device's file, and optionally into the CPU's.
 */
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>

#include <vdla/result.h>

namespace vdla {

class Device;

class Lease;

class Buffer
{
public:
	/* How the device may access the buffer through this Device. */
	enum class Access {
		ReadWrite,
		/* The device MMU refuses writes; a task marked to write it is refused. */
		ReadOnly,
	};

	/* How the CPU accesses the buffer between beginCpuAccess and endCpuAccess. */
	enum class CpuAccess {
		Read,
		Write,
		ReadWrite,
	};

	/* Where the buffer's bytes live. */
	enum class Placement {
		/* System memory, reached through the device MMU. */
		Memory,
		/*
		 * The device SRAM: faster for the engines, small, shared by
		 * every process, with no CPU access and no dma-buf export.
		 */
		Sram,
	};

	/*
	 * A new zero-filled buffer of at least @size bytes (rounded up to the
	 * page size). Errors: EINVAL (size 0 or above 1 GiB), ENOMEM, ENOSPC
	 * (the device address space is full; for SRAM: no free block that
	 * large, see Device::memory()), ENODEV (SRAM on a device without).
	 */
	static Result<std::unique_ptr<Buffer>> create(
		Device &device, uint64_t size, Placement placement = Placement::Memory);

	/*
	 * A new SRAM buffer in the SRAM partition @lease holds (driver 1.10).
	 * Only jobs naming the lease may use it, and it loses its SRAM when
	 * the lease ends: submits using it then fail with ECANCELED. Errors:
	 * ECANCELED (the lease does not hold its partition), ENOSPC (the
	 * partition is full), EOPNOTSUPP (driver before 1.10).
	 */
	static Result<std::unique_ptr<Buffer>> create(Device &device, uint64_t size,
						      const Lease &lease);

	/*
	 * Imports the dma-buf @dmabufFd (of any vdla device or any exporter);
	 * the caller keeps its fd. Importing a buffer this Device already
	 * holds gives a second Buffer of the same handle; the handle is closed
	 * with the last of them. Errors: EBADF (not a dma-buf), EBUSY (already
	 * held here with the other access), ENOSPC, ENOMEM.
	 */
	static Result<std::unique_ptr<Buffer>> import(
		Device &device, int dmabufFd, Access access = Access::ReadWrite);

	~Buffer();
	Buffer(const Buffer &) = delete;
	Buffer &operator=(const Buffer &) = delete;

	Device &device() const;
	/* Bytes, a multiple of the page size. */
	uint64_t size() const;
	/* The GEM handle in the Device's file. */
	uint32_t handle() const;
	/* Where the Device's tasks see the buffer. */
	uint64_t deviceAddress() const;
	Access access() const;
	/* True if the buffer came from a dma-buf of another device. */
	bool imported() const;
	Placement placement() const;

	/*
	 * Maps the whole buffer for the CPU (once; later calls return the same
	 * pointer): read-only for a ReadOnly buffer, whose pages the kernel
	 * will not let this process write by any mapping. The mapping is
	 * coherent with the device; wait() or a fence orders CPU access after
	 * the device's. Errors: those of mmap(), EINVAL for an SRAM buffer.
	 */
	Result<uint8_t *> map();
	/* The pointer map() returned, or nullptr if unmapped. */
	uint8_t *data() const;
	/* Removes the CPU mapping (pointers into it become invalid). */
	void unmap();

	/*
	 * A dma-buf of the buffer (PRIME export), close-on-exec, owned by the
	 * caller, carrying @access: whoever receives a ReadOnly one can
	 * neither map it for writing nor import it for the device to write
	 * (docs/uapi.md, "Buffer objects"). Errors: those of
	 * DRM_IOCTL_PRIME_HANDLE_TO_FD: EACCES for ReadWrite from a ReadOnly
	 * buffer, EOPNOTSUPP for ReadOnly from a read-write import of another
	 * device's buffer (its exporter has to make the read-only dma-buf).
	 */
	Result<int> exportFd(Access access = Access::ReadWrite) const;

	/*
	 * A sync file that signals when every job queued on the buffer by
	 * then (in any process, reading or writing it) has ended: what a
	 * writer must wait for before reusing the buffer whose last users are
	 * gone (DMA_BUF_IOCTL_EXPORT_SYNC_FILE). Owned by the caller. Errors:
	 * EINVAL for SRAM (no dma-buf), those of exportFd() and of the ioctl.
	 */
	Result<int> exportPendingJobs() const;

	/*
	 * Waits until the queued and running jobs that use the buffer have
	 * ended (with @writersOnly: those that write it, enough before the CPU
	 * reads). A zero @timeout polls. Errors: ETIMEDOUT (still busy), EINTR.
	 */
	Result<void> wait(std::chrono::nanoseconds timeout, bool writersOnly = false) const;

	/*
	 * Brackets CPU access to the buffer (through map()) with
	 * DMA_BUF_IOCTL_SYNC on a dma-buf of it, exported on first use and
	 * kept until the Buffer goes. begin waits for the device jobs that
	 * conflict with @access: those writing the buffer for Read, every one
	 * using it for Write and ReadWrite. Not thread-safe on one Buffer, like
	 * map(). Errors: EINVAL for an SRAM buffer (it has no dma-buf), those
	 * of exportFd() and of the ioctl.
	 */
	Result<void> beginCpuAccess(CpuAccess access);
	Result<void> endCpuAccess(CpuAccess access);

	/*
	 * The same on a dma-buf @dmabufFd of any buffer (e.g. from exportFd()),
	 * for CPU access through a mapping of that dma-buf.
	 */
	static Result<void> beginCpuAccess(int dmabufFd, CpuAccess access);
	static Result<void> endCpuAccess(int dmabufFd, CpuAccess access);

private:
	class Private;
	/* Channel::take() makes the Buffer of a port buffer with borrowed(). */
	friend class Channel;

	explicit Buffer(std::unique_ptr<Private> d);
	/*
	 * A Buffer of @handle, which someone else closes: its destructor
	 * unmaps it but leaves the handle open. A port buffer's (TAKE made
	 * the handle, and its RETURN closes it in the kernel: closing it here
	 * as well would close whatever BO the number names by then).
	 */
	static Result<std::unique_ptr<Buffer>> borrowed(Device &device, uint32_t handle);
	/* The Buffer of the BO a BO_CREATE just made, its handle counted. */
	static std::unique_ptr<Buffer> created(Device &device, const void *createArgs,
					       Placement placement);
	std::unique_ptr<Private> d_;
};

} /* namespace vdla */
