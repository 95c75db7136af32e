/* SPDX-License-Identifier: MIT */
/* vdla::SharedBuffer: allocation from a reconciled list, export and import. */
#include <vdla/shared_buffer.h>

#include <vdla/device.h>

#include <algorithm>
#include <cerrno>

#include "wire.h"

namespace vdla {

namespace {

Buffer::Access bufferAccess(Permission permission)
{
	return permission == Permission::ReadWrite ? Buffer::Access::ReadWrite
						   : Buffer::Access::ReadOnly;
}

} /* namespace */

Result<void> sendAttrList(IpcEndpoint &endpoint, const AttrList &list)
{
	return endpoint.send(kIpcAttrList, list.encode());
}

Result<AttrList> receiveAttrList(IpcEndpoint &endpoint, std::chrono::milliseconds timeout)
{
	auto message = endpoint.receive(kIpcAttrList, timeout);
	if (!message)
		return message.error();
	return AttrList::decode(message->payload.data(), message->payload.size());
}

SharedBuffer::SharedBuffer(AttrList attributes, std::unique_ptr<Buffer> buffer,
	Permission permission)
	: attributes_(std::move(attributes)), buffer_(std::move(buffer)), permission_(permission)
{
}

SharedBuffer::~SharedBuffer() = default;

Result<std::unique_ptr<SharedBuffer>> SharedBuffer::allocate(Device &device,
	const AttrList &reconciled)
{
	if (!reconciled.reconciled())
		return Error(EINVAL, "a buffer is allocated from a reconciled list; "
				     "the list of " + reconciled.owner() + " is not");
	if (!reconciled.size() || !*reconciled.size())
		return Error(EINVAL, "the reconciled list gives no size");
	if (reconciled.alignment().value_or(1) > AttrList::kDlaAlignment)
		return Error(EINVAL, "the reconciled list asks for an alignment of "
				     + std::to_string(*reconciled.alignment())
				     + " bytes; buffers start on 4096-byte pages");
	Buffer::Placement placement = Buffer::Placement::Memory;
	if (reconciled.memoryDomain() == MemoryDomain::Sram) {
		/* Reconciliation gives SRAM only for a single vDLA accessor. */
		const uint32_t index = device.accelMinor();
		const auto &accessors = *reconciled.accessors();
		if (std::find(accessors.begin(), accessors.end(), Accessor::dla(index))
			== accessors.end())
			return Error(ENODEV, "the reconciled list puts the buffer in the SRAM of "
					     + accessors.front().toString() + ", not of dla:"
					     + std::to_string(index) + " (" + device.info().node + ")");
		placement = Buffer::Placement::Sram;
	}
	auto buffer = Buffer::create(device, *reconciled.size(), placement);
	if (!buffer)
		return buffer.error();
	const Permission permission = reconciled.actualPermission().value_or(Permission::ReadOnly);
	std::unique_ptr<SharedBuffer> shared(
		new SharedBuffer(reconciled, std::move(*buffer), Permission::ReadWrite));
	/* No party asked to write: even the allocator holds it read-only. */
	if (permission == Permission::ReadOnly && placement == Buffer::Placement::Memory)
		return shared->duplicate(Permission::ReadOnly);
	return shared;
}

const AttrList &SharedBuffer::attributes() const
{
	return attributes_;
}

Permission SharedBuffer::permission() const
{
	return permission_;
}

Buffer &SharedBuffer::buffer() const
{
	return *buffer_;
}

Result<uint8_t *> SharedBuffer::map()
{
	if (!attributes_.needCpuAccess().value_or(false))
		return Error(EACCES, "the reconciled list gives the CPU no access "
				     "(no party set General.NeedCpuAccess or named the CPU)");
	return buffer_->map();
}

Result<void> SharedBuffer::beginCpuAccess(Buffer::CpuAccess access)
{
	if (access != Buffer::CpuAccess::Read && permission_ == Permission::ReadOnly)
		return Error(EACCES, "the buffer is read-only here: the CPU may only read it");
	return buffer_->beginCpuAccess(access);
}

Result<void> SharedBuffer::endCpuAccess(Buffer::CpuAccess access)
{
	if (access != Buffer::CpuAccess::Read && permission_ == Permission::ReadOnly)
		return Error(EACCES, "the buffer is read-only here: the CPU may only read it");
	return buffer_->endCpuAccess(access);
}

Result<std::unique_ptr<SharedBuffer>> SharedBuffer::duplicate(Permission permission) const
{
	if (permission > permission_)
		return Error(EACCES, "a duplicate cannot have more permission than its original");
	if (buffer_->placement() == Buffer::Placement::Sram)
		return Error(EINVAL, "an SRAM buffer has no dma-buf to duplicate through");
	auto fd = buffer_->exportFd(bufferAccess(permission));
	if (!fd)
		return fd.error();
	UniqueFd dmabuf(*fd);
	auto copy = Buffer::import(buffer_->device(), dmabuf.get(), bufferAccess(permission));
	if (!copy)
		return copy.error();
	return std::unique_ptr<SharedBuffer>(
		new SharedBuffer(attributes_, std::move(*copy), permission));
}

Result<void> SharedBuffer::exportTo(IpcEndpoint &endpoint, Permission permission) const
{
	if (permission > permission_)
		return Error(EACCES, "cannot export the buffer with more permission than this "
				     "process holds on it");
	if (buffer_->placement() == Buffer::Placement::Sram)
		return Error(EINVAL, "an SRAM buffer cannot leave its device: it has no dma-buf");
	auto fd = buffer_->exportFd(bufferAccess(permission));
	if (!fd)
		return fd.error();
	UniqueFd dmabuf(*fd);
	wire::Writer w;
	w.u8(static_cast<uint8_t>(permission));
	std::vector<uint8_t> list = attributes_.encode();
	w.u32(static_cast<uint32_t>(list.size()));
	std::vector<uint8_t> payload = w.take();
	payload.insert(payload.end(), list.begin(), list.end());
	return endpoint.send(kIpcBuffer, payload, { dmabuf.get() });
}

Result<std::unique_ptr<SharedBuffer>> SharedBuffer::importFrom(IpcEndpoint &endpoint,
	Device &device, Permission permission, std::chrono::milliseconds timeout,
	const AttrList *needs)
{
	auto message = endpoint.receive(kIpcBuffer, timeout);
	if (!message)
		return message.error();
	wire::Reader r(message->payload.data(), message->payload.size());
	const uint8_t granted = r.u8();
	const uint32_t listSize = r.u32();
	constexpr size_t kPrefix = 5;
	if (!r.ok() || granted > static_cast<uint8_t>(Permission::ReadWrite)
		|| listSize != message->payload.size() - kPrefix || message->fds.size() != 1)
		return Error(EBADMSG, "the buffer message received is malformed (a permission, "
				      "a list and one dma-buf)");
	auto list = AttrList::decode(message->payload.data() + kPrefix, listSize);
	if (!list)
		return list.error();
	return importDmaBuf(device, message->fds[0].get(), std::move(*list),
		static_cast<Permission>(granted), permission, needs);
}

Result<std::unique_ptr<SharedBuffer>> SharedBuffer::importDmaBuf(Device &device, int dmabuf,
	AttrList list, Permission granted, Permission permission, const AttrList *needs)
{
	if (permission > granted)
		return Error(EACCES, "the sender granted read-only access to the buffer; "
				     "it cannot be imported read-write");
	if (!list.reconciled() || !list.size())
		return Error(EBADMSG, "the buffer received comes with an unreconciled list, or "
				      "one without a size");
	if (list.memoryDomain() == MemoryDomain::Sram)
		return Error(EBADMSG, "the buffer received claims to be in SRAM, which has no dma-buf");
	if (needs) {
		auto conflicts = validateReconciled(list, { needs });
		if (!conflicts)
			return conflicts.error();
		if (!conflicts->empty())
			return Error(EBADMSG, "the buffer received does not serve this party: "
					      + conflicts->front().message());
	}
	auto buffer = Buffer::import(device, dmabuf, bufferAccess(permission));
	if (!buffer)
		return buffer.error();
	if ((*buffer)->size() < *list.size())
		return Error(EBADMSG, "the buffer received (" + std::to_string((*buffer)->size())
				      + " bytes) is smaller than its list says ("
				      + std::to_string(*list.size()) + ")");
	return std::unique_ptr<SharedBuffer>(
		new SharedBuffer(std::move(list), std::move(*buffer), permission));
}

} /* namespace vdla */
