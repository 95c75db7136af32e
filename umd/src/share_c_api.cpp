/* SPDX-License-Identifier: MIT */
/*
 * The C API of sharing (vdla/vdla_share.h): handles that own the C++
 * objects, errors as negative errnos with the reason kept per thread, and
 * no exception ever reaching C.
 */
#include <vdla/vdla_share.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <new>
#include <string>

#include <vdla/device.h>
#include <vdla/ipc.h>
#include <vdla/shared_buffer.h>
#include <vdla/sync.h>

using namespace vdla;

struct vdla_device {
	std::unique_ptr<Device> device;
};
struct vdla_attr_list {
	AttrList list;
};
struct vdla_sync_attr_list {
	SyncAttrList list;
};
struct vdla_ipc_endpoint {
	std::unique_ptr<IpcEndpoint> endpoint;
};
struct vdla_ipc_listener {
	std::unique_ptr<IpcListener> listener;
};
struct vdla_shared_buffer {
	std::unique_ptr<SharedBuffer> buffer;
};
struct vdla_sync_object {
	std::unique_ptr<SyncObject> object;
};
struct vdla_sync_fence {
	SyncFence fence;
};

namespace {

thread_local std::string lastError;

/* Keeps @error's reason for vdla_last_error(); its negative errno. */
int fail(const Error &error)
{
	lastError = error.reason();
	return -error.code();
}

int check(const Result<void> &r)
{
	return r ? 0 : fail(r.error());
}

int invalid(const char *why)
{
	lastError = why;
	return -EINVAL;
}

Accessor accessorOf(const vdla_accessor &a)
{
	switch (a.kind) {
	case vdla_accessor::VDLA_ACCESSOR_CPU:
		return Accessor::cpu();
	case vdla_accessor::VDLA_ACCESSOR_DLA:
		return Accessor::dla(a.device);
	default:
		return Accessor::other(a.name ? a.name : "");
	}
}

bool badPermission(vdla_permission p)
{
	if (p == VDLA_PERMISSION_READ_ONLY || p == VDLA_PERMISSION_READ_WRITE)
		return false;
	lastError = "no such permission";
	return true;
}

bool badAccess(vdla_cpu_access a)
{
	if (a == VDLA_CPU_READ || a == VDLA_CPU_WRITE || a == VDLA_CPU_READ_WRITE)
		return false;
	lastError = "no such CPU access";
	return true;
}

std::chrono::milliseconds ms(int64_t timeout)
{
	return std::chrono::milliseconds(timeout);
}

template <typename T> std::vector<T> vec(const T *values, size_t count)
{
	return values ? std::vector<T>(values, values + count) : std::vector<T>{};
}

/* Copies @values out: -ENOSPC (with the count) if @room is too small. */
template <typename T, typename Out>
int copyOut(const std::optional<std::vector<T>> &values, Out *out, size_t *count,
	Out (*convert)(const T &))
{
	if (!values) {
		lastError = "the list has no such output: is it reconciled?";
		return -ENOENT;
	}
	const size_t room = *count;
	*count = values->size();
	if (values->size() > room) {
		lastError = "too small an array for the output";
		return -ENOSPC;
	}
	for (size_t i = 0; i < values->size(); i++)
		out[i] = convert((*values)[i]);
	return 0;
}

template <typename T> int getOne(const std::optional<T> &value, T *out)
{
	if (!value) {
		lastError = "the list has no such output: is it reconciled?";
		return -ENOENT;
	}
	*out = *value;
	return 0;
}

char *joinMessages(const std::vector<std::string> &messages)
{
	std::string text;
	for (const std::string &m : messages)
		text += m + "\n";
	return strdup(text.c_str());
}

/*
 * Runs @body, which must not let an exception out into C: memory running
 * out becomes -ENOMEM (NULL for the functions that return a handle).
 */
template <typename F> int guarded(F body)
{
	try {
		return body();
	} catch (const std::bad_alloc &) {
		lastError = "out of memory";
		return -ENOMEM;
	} catch (const std::exception &e) {
		/* A count no container can hold (std::length_error). */
		lastError = e.what();
		return -EINVAL;
	}
}

template <typename F> auto guardedPointer(F body) -> decltype(body())
{
	try {
		return body();
	} catch (const std::exception &) {
		lastError = "out of memory";
		return nullptr;
	}
}

} /* namespace */

extern "C" {

const char *vdla_last_error(void)
{
	return lastError.c_str();
}

int vdla_device_open(const char *node, vdla_device **device)
{
	return guarded([&]() -> int {
		if (!node || !device)
			return invalid("vdla_device_open: NULL argument");
		auto d = Device::open(node);
		if (!d)
			return fail(d.error());
		*device = new vdla_device{ std::move(*d) };
		return 0;
	});
}

int vdla_device_open_index(uint32_t index, vdla_device **device)
{
	return guarded([&]() -> int {
		const std::string node = "/dev/accel/accel" + std::to_string(index);
		int ret = vdla_device_open(node.c_str(), device);
		/* No such node: no vDLA of that number. */
		return ret == -ENOENT ? -ENODEV : ret;
	});
}

void vdla_device_free(vdla_device *device)
{
	delete device;
}

vdla_attr_list *vdla_attr_list_create(const char *owner)
{
	return guardedPointer([&]() { return new vdla_attr_list{ AttrList(owner ? owner : "") }; });
}

void vdla_attr_list_free(vdla_attr_list *list)
{
	delete list;
}

int vdla_attr_list_reconciled(const vdla_attr_list *list)
{
	return guarded([&]() -> int { return list->list.reconciled(); });
}

int vdla_attr_list_set_types(vdla_attr_list *l, const vdla_buffer_type *types, size_t count)
{
	return guarded([&]() -> int {
		std::vector<BufferType> v;
		for (size_t i = 0; i < count; i++)
			v.push_back(static_cast<BufferType>(types[i]));
		return check(l->list.setTypes(v));
	});
}

int vdla_attr_list_set_need_cpu_access(vdla_attr_list *l, int need)
{
	return guarded([&]() -> int { return check(l->list.setNeedCpuAccess(need != 0)); });
}

int vdla_attr_list_set_required_permission(vdla_attr_list *l, vdla_permission permission)
{
	return guarded([&]() -> int {
		if (permission != VDLA_PERMISSION_READ_ONLY
			&& permission != VDLA_PERMISSION_READ_WRITE)
			return invalid("General.RequiredPermission: no such permission");
		return check(l->list.setRequiredPermission(static_cast<Permission>(permission)));
	});
}

int vdla_attr_list_set_enable_cpu_cache(vdla_attr_list *l, int enable)
{
	return guarded([&]() -> int { return check(l->list.setEnableCpuCache(enable != 0)); });
}

int vdla_attr_list_set_accessors(vdla_attr_list *l, const vdla_accessor *accessors, size_t count)
{
	return guarded([&]() -> int {
		std::vector<Accessor> v;
		for (size_t i = 0; i < count; i++)
			v.push_back(accessorOf(accessors[i]));
		return check(l->list.setAccessors(v));
	});
}

int vdla_attr_list_set_memory_domain(
	vdla_attr_list *l, vdla_memory_domain preferred, int fallback_allowed)
{
	return guarded([&]() -> int {
		if (preferred != VDLA_MEMORY_SYSTEM && preferred != VDLA_MEMORY_SRAM)
			return invalid("General.MemoryDomain: no such domain");
		return check(l->list.setMemoryDomain(
			static_cast<MemoryDomain>(preferred), fallback_allowed != 0));
	});
}

int vdla_attr_list_set_raw_size(vdla_attr_list *l, uint64_t bytes)
{
	return guarded([&]() -> int { return check(l->list.setRawSize(bytes)); });
}

int vdla_attr_list_set_raw_alignment(vdla_attr_list *l, uint64_t bytes)
{
	return guarded([&]() -> int { return check(l->list.setRawAlignment(bytes)); });
}

int vdla_attr_list_set_tensor_data_type(vdla_attr_list *l, vdla_tensor_data_type type)
{
	return guarded([&]() -> int {
		return check(l->list.setTensorDataType(static_cast<TensorDataType>(type)));
	});
}

int vdla_attr_list_set_tensor_dims(vdla_attr_list *l, const uint64_t *dims, size_t count)
{
	return guarded([&]() -> int { return check(l->list.setTensorDims(vec(dims, count))); });
}

int vdla_attr_list_set_tensor_layout(vdla_attr_list *l, vdla_tensor_layout layout)
{
	return guarded([&]() -> int {
		return check(l->list.setTensorLayout(static_cast<TensorLayout>(layout)));
	});
}

int vdla_attr_list_set_tensor_alignment_per_dim(
	vdla_attr_list *l, const uint64_t *alignment, size_t count)
{
	return guarded([&]() -> int {
		return check(l->list.setTensorAlignmentPerDim(vec(alignment, count)));
	});
}

int vdla_attr_list_set_tensor_base_alignment(vdla_attr_list *l, uint64_t bytes)
{
	return guarded([&]() -> int { return check(l->list.setTensorBaseAlignment(bytes)); });
}

int vdla_attr_list_set_tensor_quantization(vdla_attr_list *l, double scale, int32_t zero_point)
{
	return guarded([&]() -> int {
		return check(l->list.setTensorQuantization({ scale, zero_point }));
	});
}

int vdla_attr_list_set_image_plane_formats(
	vdla_attr_list *l, const vdla_color_format *formats, size_t count)
{
	return guarded([&]() -> int {
		std::vector<ColorFormat> v;
		for (size_t i = 0; i < count; i++)
			v.push_back(static_cast<ColorFormat>(formats[i]));
		return check(l->list.setImagePlaneFormats(v));
	});
}

int vdla_attr_list_set_image_plane_widths(vdla_attr_list *l, const uint64_t *widths, size_t count)
{
	return guarded(
		[&]() -> int { return check(l->list.setImagePlaneWidths(vec(widths, count))); });
}

int vdla_attr_list_set_image_plane_heights(vdla_attr_list *l, const uint64_t *heights, size_t count)
{
	return guarded(
		[&]() -> int { return check(l->list.setImagePlaneHeights(vec(heights, count))); });
}

int vdla_attr_list_set_image_plane_base_alignment(
	vdla_attr_list *l, const uint64_t *alignment, size_t count)
{
	return guarded([&]() -> int {
		return check(l->list.setImagePlaneBaseAlignment(vec(alignment, count)));
	});
}

int vdla_attr_list_set_image_pitch_alignment(
	vdla_attr_list *l, const uint64_t *alignment, size_t count)
{
	return guarded([&]() -> int {
		return check(l->list.setImagePitchAlignment(vec(alignment, count)));
	});
}

int vdla_attr_list_set_pyramid_levels(vdla_attr_list *l, uint32_t levels)
{
	return guarded([&]() -> int { return check(l->list.setPyramidLevels(levels)); });
}

int vdla_attr_list_set_pyramid_scale(vdla_attr_list *l, double scale)
{
	return guarded([&]() -> int { return check(l->list.setPyramidScale(scale)); });
}

int vdla_attr_list_set_array_element_size(vdla_attr_list *l, uint64_t bytes)
{
	return guarded([&]() -> int { return check(l->list.setArrayElementSize(bytes)); });
}

int vdla_attr_list_set_array_capacity(vdla_attr_list *l, uint64_t capacity)
{
	return guarded([&]() -> int { return check(l->list.setArrayCapacity(capacity)); });
}

int vdla_attr_list_set_array_stride_alignment(vdla_attr_list *l, uint64_t bytes)
{
	return guarded([&]() -> int { return check(l->list.setArrayStrideAlignment(bytes)); });
}

int vdla_attr_list_get_size(const vdla_attr_list *l, uint64_t *bytes)
{
	return guarded([&]() -> int { return getOne(l->list.size(), bytes); });
}

int vdla_attr_list_get_alignment(const vdla_attr_list *l, uint64_t *bytes)
{
	return guarded([&]() -> int { return getOne(l->list.alignment(), bytes); });
}

int vdla_attr_list_get_actual_permission(const vdla_attr_list *l, vdla_permission *permission)
{
	return guarded([&]() -> int {
		Permission p;
		if (int ret = getOne(l->list.actualPermission(), &p))
			return ret;
		*permission = static_cast<vdla_permission>(p);
		return 0;
	});
}

int vdla_attr_list_get_memory_domain(const vdla_attr_list *l, vdla_memory_domain *domain)
{
	return guarded([&]() -> int {
		MemoryDomain d;
		if (int ret = getOne(l->list.memoryDomain(), &d))
			return ret;
		*domain = static_cast<vdla_memory_domain>(d);
		return 0;
	});
}

const char *vdla_attr_list_memory_domain_reason(const vdla_attr_list *l)
{
	return l->list.memoryDomainReason().c_str();
}

int vdla_attr_list_get_tensor_strides(const vdla_attr_list *l, uint64_t *strides, size_t *count)
{
	return guarded([&]() -> int {
		return copyOut<uint64_t, uint64_t>(l->list.tensorStrides(), strides, count,
			[](const uint64_t &v) { return v; });
	});
}

int vdla_attr_list_get_image_planes(
	const vdla_attr_list *l, vdla_plane_layout *planes, size_t *count)
{
	return guarded([&]() -> int {
		return copyOut<ImagePlaneLayout, vdla_plane_layout>(
			l->list.imagePlanes(), planes, count, [](const ImagePlaneLayout &p) {
				return vdla_plane_layout{ p.width, p.height, p.pitch, p.offset };
			});
	});
}

int vdla_attr_list_get_array_stride(const vdla_attr_list *l, uint64_t *bytes)
{
	return guarded([&]() -> int { return getOne(l->list.arrayStride(), bytes); });
}

int vdla_reconcile(const vdla_attr_list *const *lists, size_t count, const char *owner,
	vdla_attr_list **reconciled, char **conflicts)
{
	return guarded([&]() -> int {
		if (!reconciled || !conflicts)
			return invalid("vdla_reconcile: NULL argument");
		*reconciled = nullptr;
		*conflicts = nullptr;
		std::vector<const AttrList *> v;
		for (size_t i = 0; i < count; i++)
			v.push_back(lists && lists[i] ? &lists[i]->list : nullptr);
		auto r = reconcile(v, owner ? owner : "reconciled");
		if (!r)
			return fail(r.error());
		if (!r->list) {
			std::vector<std::string> messages;
			for (const AttrConflict &c : r->conflicts)
				messages.push_back(c.message());
			*conflicts = joinMessages(messages);
			return 1;
		}
		*reconciled = new vdla_attr_list{ std::move(*r->list) };
		return 0;
	});
}

int vdla_ipc_pair(vdla_ipc_endpoint **first, vdla_ipc_endpoint **second)
{
	return guarded([&]() -> int {
		auto p = IpcEndpoint::pair();
		if (!p)
			return fail(p.error());
		*first = new vdla_ipc_endpoint{ std::move(p->first) };
		*second = new vdla_ipc_endpoint{ std::move(p->second) };
		return 0;
	});
}

int vdla_ipc_connect(const char *path, vdla_ipc_endpoint **endpoint)
{
	return guarded([&]() -> int {
		auto e = IpcEndpoint::connect(path ? path : "");
		if (!e)
			return fail(e.error());
		*endpoint = new vdla_ipc_endpoint{ std::move(*e) };
		return 0;
	});
}

int vdla_ipc_listen(const char *path, vdla_ipc_listener **listener)
{
	return guarded([&]() -> int {
		auto l = IpcListener::listen(path ? path : "");
		if (!l)
			return fail(l.error());
		*listener = new vdla_ipc_listener{ std::move(*l) };
		return 0;
	});
}

int vdla_ipc_accept(vdla_ipc_listener *listener, int64_t timeout_ms, vdla_ipc_endpoint **endpoint)
{
	return guarded([&]() -> int {
		auto e = listener->listener->accept(ms(timeout_ms));
		if (!e)
			return fail(e.error());
		*endpoint = new vdla_ipc_endpoint{ std::move(*e) };
		return 0;
	});
}

void vdla_ipc_endpoint_free(vdla_ipc_endpoint *endpoint)
{
	delete endpoint;
}

void vdla_ipc_listener_free(vdla_ipc_listener *listener)
{
	delete listener;
}

int vdla_ipc_peer_pid(const vdla_ipc_endpoint *endpoint)
{
	return guarded([&]() -> int { return endpoint->endpoint->peer().pid; });
}

int vdla_attr_list_send(vdla_ipc_endpoint *endpoint, const vdla_attr_list *list)
{
	return guarded(
		[&]() -> int { return check(sendAttrList(*endpoint->endpoint, list->list)); });
}

int vdla_attr_list_receive(vdla_ipc_endpoint *endpoint, int64_t timeout_ms, vdla_attr_list **list)
{
	return guarded([&]() -> int {
		auto l = receiveAttrList(*endpoint->endpoint, ms(timeout_ms));
		if (!l)
			return fail(l.error());
		*list = new vdla_attr_list{ std::move(*l) };
		return 0;
	});
}

int vdla_shared_buffer_allocate(
	vdla_device *device, const vdla_attr_list *reconciled, vdla_shared_buffer **buffer)
{
	return guarded([&]() -> int {
		auto b = SharedBuffer::allocate(*device->device, reconciled->list);
		if (!b)
			return fail(b.error());
		*buffer = new vdla_shared_buffer{ std::move(*b) };
		return 0;
	});
}

int vdla_shared_buffer_import(vdla_ipc_endpoint *endpoint, vdla_device *device,
	vdla_permission permission, int64_t timeout_ms, const vdla_attr_list *needs,
	vdla_shared_buffer **buffer)
{
	return guarded([&]() -> int {
		if (badPermission(permission))
			return -EINVAL;
		auto b = SharedBuffer::importFrom(*endpoint->endpoint, *device->device,
			static_cast<Permission>(permission), ms(timeout_ms),
			needs ? &needs->list : nullptr);
		if (!b)
			return fail(b.error());
		*buffer = new vdla_shared_buffer{ std::move(*b) };
		return 0;
	});
}

int vdla_shared_buffer_export(
	const vdla_shared_buffer *buffer, vdla_ipc_endpoint *endpoint, vdla_permission permission)
{
	return guarded([&]() -> int {
		if (badPermission(permission))
			return -EINVAL;
		return check(buffer->buffer->exportTo(
			*endpoint->endpoint, static_cast<Permission>(permission)));
	});
}

int vdla_shared_buffer_duplicate(
	const vdla_shared_buffer *buffer, vdla_permission permission, vdla_shared_buffer **copy)
{
	return guarded([&]() -> int {
		if (badPermission(permission))
			return -EINVAL;
		auto b = buffer->buffer->duplicate(static_cast<Permission>(permission));
		if (!b)
			return fail(b.error());
		*copy = new vdla_shared_buffer{ std::move(*b) };
		return 0;
	});
}

void vdla_shared_buffer_free(vdla_shared_buffer *buffer)
{
	delete buffer;
}

vdla_permission vdla_shared_buffer_permission(const vdla_shared_buffer *buffer)
{
	return static_cast<vdla_permission>(buffer->buffer->permission());
}

uint32_t vdla_shared_buffer_handle(const vdla_shared_buffer *buffer)
{
	return buffer->buffer->buffer().handle();
}

uint64_t vdla_shared_buffer_size(const vdla_shared_buffer *buffer)
{
	return buffer->buffer->buffer().size();
}

int vdla_shared_buffer_map(vdla_shared_buffer *buffer, void **data)
{
	return guarded([&]() -> int {
		auto m = buffer->buffer->map();
		if (!m)
			return fail(m.error());
		*data = *m;
		return 0;
	});
}

int vdla_shared_buffer_begin_cpu_access(vdla_shared_buffer *buffer, vdla_cpu_access access)
{
	return guarded([&]() -> int {
		if (badAccess(access))
			return -EINVAL;
		return check(
			buffer->buffer->beginCpuAccess(static_cast<Buffer::CpuAccess>(access)));
	});
}

int vdla_shared_buffer_end_cpu_access(vdla_shared_buffer *buffer, vdla_cpu_access access)
{
	return guarded([&]() -> int {
		if (badAccess(access))
			return -EINVAL;
		return check(buffer->buffer->endCpuAccess(static_cast<Buffer::CpuAccess>(access)));
	});
}

vdla_sync_attr_list *vdla_sync_attr_list_create(const char *owner)
{
	return guardedPointer(
		[&]() { return new vdla_sync_attr_list{ SyncAttrList(owner ? owner : "") }; });
}

void vdla_sync_attr_list_free(vdla_sync_attr_list *list)
{
	delete list;
}

int vdla_sync_attr_list_set_required_permission(
	vdla_sync_attr_list *l, vdla_sync_permission permission)
{
	return guarded([&]() -> int {
		return check(
			l->list.setRequiredPermission(static_cast<SyncPermission>(permission)));
	});
}

int vdla_sync_attr_list_set_accessor(vdla_sync_attr_list *l, vdla_accessor accessor)
{
	return guarded([&]() -> int { return check(l->list.setAccessor(accessorOf(accessor))); });
}

int vdla_sync_attr_list_set_need_cpu_wait(vdla_sync_attr_list *l, int need)
{
	return guarded([&]() -> int { return check(l->list.setNeedCpuWait(need != 0)); });
}

int vdla_sync_attr_list_set_require_timestamps(vdla_sync_attr_list *l, int require)
{
	return guarded([&]() -> int { return check(l->list.setRequireTimestamps(require != 0)); });
}

int vdla_sync_reconcile(const vdla_sync_attr_list *const *lists, size_t count, const char *owner,
	vdla_sync_attr_list **reconciled, char **conflicts)
{
	return guarded([&]() -> int {
		if (!reconciled || !conflicts)
			return invalid("vdla_sync_reconcile: NULL argument");
		*reconciled = nullptr;
		*conflicts = nullptr;
		std::vector<const SyncAttrList *> v;
		for (size_t i = 0; i < count; i++)
			v.push_back(lists && lists[i] ? &lists[i]->list : nullptr);
		auto r = reconcileSync(v, owner ? owner : "reconciled");
		if (!r)
			return fail(r.error());
		if (!r->list) {
			std::vector<std::string> messages;
			for (const SyncConflict &c : r->conflicts)
				messages.push_back(c.message());
			*conflicts = joinMessages(messages);
			return 1;
		}
		*reconciled = new vdla_sync_attr_list{ std::move(*r->list) };
		return 0;
	});
}

int vdla_sync_attr_list_send(vdla_ipc_endpoint *endpoint, const vdla_sync_attr_list *list)
{
	return guarded(
		[&]() -> int { return check(sendSyncAttrList(*endpoint->endpoint, list->list)); });
}

int vdla_sync_attr_list_receive(
	vdla_ipc_endpoint *endpoint, int64_t timeout_ms, vdla_sync_attr_list **list)
{
	return guarded([&]() -> int {
		auto l = receiveSyncAttrList(*endpoint->endpoint, ms(timeout_ms));
		if (!l)
			return fail(l.error());
		*list = new vdla_sync_attr_list{ std::move(*l) };
		return 0;
	});
}

int vdla_sync_object_allocate(
	vdla_device *device, const vdla_sync_attr_list *reconciled, vdla_sync_object **object)
{
	return guarded([&]() -> int {
		auto o = SyncObject::allocate(*device->device, reconciled->list);
		if (!o)
			return fail(o.error());
		*object = new vdla_sync_object{ std::move(*o) };
		return 0;
	});
}

void vdla_sync_object_free(vdla_sync_object *object)
{
	delete object;
}

uint32_t vdla_sync_object_timeline_handle(const vdla_sync_object *object)
{
	return object->object->timeline().handle();
}

uint64_t vdla_sync_object_next_point(vdla_sync_object *object)
{
	return object->object->nextPoint();
}

int vdla_sync_object_signal(vdla_sync_object *object, uint64_t point)
{
	return guarded([&]() -> int { return check(object->object->signal(point)); });
}

int vdla_sync_object_export_fence(
	const vdla_sync_object *object, vdla_ipc_endpoint *endpoint, uint64_t point)
{
	return guarded([&]() -> int {
		return check(object->object->exportFence(*endpoint->endpoint, point));
	});
}

int vdla_sync_fence_import(vdla_ipc_endpoint *endpoint, int64_t timeout_ms, vdla_sync_fence **fence)
{
	return guarded([&]() -> int {
		auto f = SyncFence::importFrom(*endpoint->endpoint, ms(timeout_ms));
		if (!f)
			return fail(f.error());
		*fence = new vdla_sync_fence{ std::move(*f) };
		return 0;
	});
}

void vdla_sync_fence_free(vdla_sync_fence *fence)
{
	delete fence;
}

uint64_t vdla_sync_fence_point(const vdla_sync_fence *fence)
{
	return fence->fence.point();
}

int vdla_sync_fence_fd(const vdla_sync_fence *fence)
{
	return guarded([&]() -> int { return fence->fence.syncFile(); });
}

int vdla_sync_fence_wait(
	const vdla_sync_fence *fence, int64_t timeout_ns, vdla_fence_status *status)
{
	return guarded([&]() -> int {
		auto s = fence->fence.wait(std::chrono::nanoseconds(timeout_ns));
		if (!s)
			return fail(s.error());
		if (status)
			*status = { s->signalled, s->error, uint64_t(s->timestamp.count()) };
		return 0;
	});
}

} /* extern "C" */
