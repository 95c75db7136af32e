/* SPDX-License-Identifier: MIT */
/*
 * vdla::SharedBuffer: a buffer allocated from a reconciled attribute list,
 * which it keeps, with the permission this process holds on it; exported
 * to other processes over an IpcEndpoint with a permission they cannot
 * exceed, and duplicated with a lower one (docs/sharing.md).
 */
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>

#include <vdla/attr_list.h>
#include <vdla/buffer.h>
#include <vdla/ipc.h>
#include <vdla/result.h>

namespace vdla {

class Device;

/* Sends @list (unreconciled or reconciled) as one message. */
Result<void> sendAttrList(IpcEndpoint &endpoint, const AttrList &list);
/*
 * Receives a list sent by sendAttrList(), checked by AttrList::decode().
 * Errors: those of IpcEndpoint::receive() and of decode().
 */
Result<AttrList> receiveAttrList(IpcEndpoint &endpoint, std::chrono::milliseconds timeout);

class SharedBuffer
{
public:
	/*
	 * A zero-filled buffer for @reconciled on @device: its size, in SRAM
	 * or system memory as reconciled, with the reconciled permission
	 * (ReadOnly when no party asked to write: the allocator too can only
	 * read it; an SRAM buffer, which has no read-only view, stays
	 * writable for the device, and permission() says ReadWrite).
	 * Errors: EINVAL (the list is not reconciled, has no size, or asks
	 * for an alignment beyond the 4 KiB pages buffers start on), ENODEV
	 * (SRAM was reconciled for another vDLA than @device), and those of
	 * Buffer::create() (ENOSPC when SRAM is full).
	 */
	static Result<std::unique_ptr<SharedBuffer>> allocate(Device &device,
		const AttrList &reconciled);

	/*
	 * Receives a buffer sent by exportTo() and imports it into @device
	 * with @permission. The list that comes with it is checked
	 * (AttrList::decode()) and must describe the buffer received; with
	 * @needs (this party's own unreconciled list), it must also serve it
	 * (validateReconciled()): a sender cannot hand over another type,
	 * shape or layout than the receiver asked for. Errors: EACCES
	 * (@permission above what the sender granted: the kernel would refuse
	 * it anyway), EBADMSG (no dma-buf, a list that does not reconcile,
	 * one larger than the buffer, or one that does not serve @needs: the
	 * reason names the first conflict), those of IpcEndpoint::receive()
	 * and Buffer::import().
	 */
	static Result<std::unique_ptr<SharedBuffer>> importFrom(IpcEndpoint &endpoint,
		Device &device, Permission permission, std::chrono::milliseconds timeout,
		const AttrList *needs = nullptr);

	/*
	 * Imports the dma-buf @dmabuf (the caller keeps its descriptor), which
	 * its sender granted @granted on, described by the reconciled @list,
	 * with @permission; the checks and errors of importFrom().
	 */
	static Result<std::unique_ptr<SharedBuffer>> importDmaBuf(Device &device, int dmabuf,
		AttrList list, Permission granted, Permission permission,
		const AttrList *needs = nullptr);

	~SharedBuffer();
	SharedBuffer(const SharedBuffer &) = delete;
	SharedBuffer &operator=(const SharedBuffer &) = delete;

	/* The reconciled list the buffer was allocated from. */
	const AttrList &attributes() const;
	/* What this process may do with it: ReadOnly maps and imports read-only. */
	Permission permission() const;
	/* The buffer, for tasks (Task::addBuffer...) and waits. */
	Buffer &buffer() const;

	/*
	 * The CPU's view, read-only when permission() is. Errors: EACCES when
	 * the reconciled list does not give CPU access (General.NeedCpuAccess
	 * or a CPU accessor), EINVAL for SRAM, those of Buffer::map().
	 */
	Result<uint8_t *> map();
	/*
	 * Bracket CPU access through map(): begin waits for the device jobs
	 * that conflict and makes the CPU's caches see their writes; end
	 * makes the device see the CPU's. Errors: EACCES for Write or
	 * ReadWrite on a ReadOnly buffer, and those of Buffer::beginCpuAccess().
	 */
	Result<void> beginCpuAccess(Buffer::CpuAccess access);
	Result<void> endCpuAccess(Buffer::CpuAccess access);

	/*
	 * A second SharedBuffer over the same memory with @permission, no
	 * higher than this one's (EACCES); a ReadOnly duplicate is a buffer
	 * the device and the CPU can only read, whatever the original may do.
	 * Errors: EINVAL for SRAM (it has no dma-buf), those of
	 * Buffer::exportFd() and Buffer::import().
	 */
	Result<std::unique_ptr<SharedBuffer>> duplicate(Permission permission) const;

	/*
	 * Sends the reconciled list and the buffer, as a dma-buf carrying
	 * @permission, no higher than this one's (EACCES). A ReadOnly export
	 * binds the receiver and whatever it passes the buffer on to: no vDLA
	 * job, CPU mapping, import or export of it can write (another driver
	 * importing the dma-buf is trusted to honour its read-only mode).
	 * Errors: EINVAL for SRAM, those of Buffer::exportFd() and of
	 * IpcEndpoint::send().
	 */
	Result<void> exportTo(IpcEndpoint &endpoint, Permission permission) const;

private:
	SharedBuffer(AttrList attributes, std::unique_ptr<Buffer> buffer, Permission permission);

	AttrList attributes_;
	std::unique_ptr<Buffer> buffer_;
	Permission permission_;
};

} /* namespace vdla */
